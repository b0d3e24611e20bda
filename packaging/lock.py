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
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
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
# environment the tests passed in; do not edit by hand. Python {PYTHON}, Linux x86-64.
"""


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


def main() -> int:
    tested = installed_versions()
    locked = resolve(tested)
    untested = sorted(n for n in locked if n not in tested)
    LOCK.write_text(HEADER + "".join(f"{n}=={v}\n" for n, v in sorted(locked.items())), encoding="utf-8")
    print(f"{LOCK}: {len(locked)} packages"
          + (f"; not in this environment, newest taken: {', '.join(untested)}" if untested else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
