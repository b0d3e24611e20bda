#!/usr/bin/env python3
"""Write constraints.txt: the exact version of every package the workbench, its tests
(extras test, bench) and the desktop bundle (extra bundle) install, as tested.

    .venv/bin/python packaging/lock.py     # after the tests passed in .venv

The versions are those installed in the running interpreter's environment (where the tests
just passed); pip resolves the project's requirements against them (a dry run, nothing is
installed), so the lock holds what the project needs and none of whatever else was installed
by hand. Packages the environment lacks (PyInstaller, for the bundle) get the newest
version the package index has. ./run and ./test install with `pip install -c constraints.txt`;
pyproject.toml keeps ranges for people installing the wheel.

A few packages have no wheel at the tested version on some system: PLATFORM_PINS gives
those systems an older, tested version under a PEP 508 environment marker (pip reads markers
in a constraints file), and every other system keeps the tested one under the complement.
scripts/check_wheels.py checks each system's pins against the package index.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from importlib.metadata import distributions
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LOCK = REPO / "constraints.txt"
EXTRAS = "test,bench,bundle"
PROJECT = "spotsigs-workbench"
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
HEADER = f"""\
# Exact versions for ./run, ./test (scripts/bootstrap.sh) and the bundle (packaging/build.sh):
# pip install -c constraints.txt -e .[test,bench]. Written by packaging/lock.py from the
# environment the tests passed in; do not edit by hand. Python {PYTHON}, Linux x86-64; lines
# with a marker pin other versions for the systems named (PLATFORM_PINS in packaging/lock.py).
"""

INTEL_MAC = 'sys_platform == "darwin" and platform_machine == "x86_64"'
NOT_INTEL_MAC = 'sys_platform != "darwin" or platform_machine != "x86_64"'


@dataclass(frozen=True)
class PlatformPins:
    marker: str  # where these versions apply
    complement: str  # everywhere else (PEP 508 has no `not`): the tested versions
    versions: dict[str, str]
    reason: str


PLATFORM_PINS = [
    PlatformPins(INTEL_MAC, NOT_INTEL_MAC, {"numba": "0.62.1", "llvmlite": "0.45.1", "numpy": "2.3.5"},
                 # The extraction and join tests passed on this stack (Linux, Python 3.11).
                 "numba 0.62.1 is the last release with macOS x86-64 wheels; it needs llvmlite 0.45 "
                 "and numpy < 2.4"),
]


def canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def installed_versions() -> dict[str, str]:
    """name -> version of every distribution in this environment but the project itself."""
    found = {canonical(d.metadata["Name"]): d.version for d in distributions()}
    found.pop(canonical(PROJECT), None)
    return found


def resolve(tested: dict[str, str]) -> dict[str, str]:
    """What pip would install for the project and its extras, preferring the tested versions."""
    with tempfile.TemporaryDirectory() as scratch:
        pins = Path(scratch) / "tested.txt"
        pins.write_text("".join(f"{n}=={v}\n" for n, v in sorted(tested.items()) if n != "pip"),
                        encoding="utf-8")
        report = Path(scratch) / "report.json"
        subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
                        "--quiet", "--report", str(report), "-c", str(pins), f"{REPO}[{EXTRAS}]"],
                       check=True)
        chosen = json.loads(report.read_text(encoding="utf-8"))["install"]
    return {canonical(item["metadata"]["name"]): item["metadata"]["version"] for item in chosen
            if canonical(item["metadata"]["name"]) != canonical(PROJECT)}


def lock_lines(locked: dict[str, str], platform_pins: list[PlatformPins] = PLATFORM_PINS) -> list[str]:
    """One `name==version` line a package; a package PLATFORM_PINS names gets two, each under
    its marker, so pip on any one system sees exactly one pin."""
    lines = []
    for name, version in sorted(locked.items()):
        # One entry a package: two entries' complements would both hold on a third system.
        pins = next((pins for pins in platform_pins if name in pins.versions), None)
        if pins is None:
            lines.append(f"{name}=={version}")
        else:
            lines += [f"{name}=={version}; {pins.complement}",
                      f"{name}=={pins.versions[name]}; {pins.marker}"]
    return lines


def main() -> int:
    tested = installed_versions()
    locked = resolve(tested)
    untested = sorted(n for n in locked if n not in tested)
    LOCK.write_text(HEADER + "".join(f"{line}\n" for line in lock_lines(locked)), encoding="utf-8")
    print(f"{LOCK}: {len(locked)} packages"
          + (f"; not in this environment, newest taken: {', '.join(untested)}" if untested else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
