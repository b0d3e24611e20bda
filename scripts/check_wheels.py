#!/usr/bin/env python3
"""Check that every runtime dependency installs from binary wheels on the systems coders use:
Windows x86-64, macOS arm64 and macOS x86-64, on Python 3.11, 3.12 and 3.13.

    .venv/bin/python scripts/check_wheels.py                 # the whole matrix (9 cells)
    .venv/bin/python scripts/check_wheels.py --platform windows --python 3.12

For each cell pip resolves pyproject.toml's [project] dependencies, pinned to constraints.txt,
for that platform with `pip install --dry-run --only-binary=:all: --platform ... --target ...`:
a dry run reads the package index (and the wheels' metadata) but downloads no wheel, so
PySide6's large wheels cost nothing. Transitive dependencies (shiboken6, llvmlite, scipy,
fastwarc, ...) are checked too, for the markers of that platform. The lock's own markers (an
older numba for Intel Macs: PLATFORM_PINS in packaging/lock.py) are evaluated for each platform
here, since pip evaluates them for the machine it runs on, whatever --platform says. When a cell
does not resolve, each package is tried alone (--no-deps) to say which one lacks a wheel there.

Prints a table (package x cell: ok, a different version, or MISSING) and exits 0 when every
cell resolves, 1 when one does not, 2 when the package index cannot be reached.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = REPO / "pyproject.toml"
LOCK = REPO / "constraints.txt"

# pip expands a macOS tag to every older macOS of the same architecture (and universal2), so
# one tag per architecture says "installs on this macOS and newer". 13 (Ventura) is the oldest
# the locked PySide6 wheel allows (pyside6_essentials-6.11.3-cp310-abi3-macosx_13_0_universal2).
PLATFORMS: dict[str, list[str]] = {
    "windows": ["win_amd64"],
    "macos-arm64": ["macosx_13_0_arm64"],
    "macos-x86_64": ["macosx_13_0_x86_64"],
}
# The PEP 508 marker variables the lock's markers use, as each platform's Python reports them.
MARKER_ENVIRONMENTS: dict[str, dict[str, str]] = {
    "windows": {"sys_platform": "win32", "platform_machine": "AMD64", "platform_system": "Windows",
                "os_name": "nt"},
    "macos-arm64": {"sys_platform": "darwin", "platform_machine": "arm64", "platform_system": "Darwin",
                    "os_name": "posix"},
    "macos-x86_64": {"sys_platform": "darwin", "platform_machine": "x86_64", "platform_system": "Darwin",
                     "os_name": "posix"},
}
PYTHONS = ["3.11", "3.12", "3.13"]

# What pip prints (as retries, then a failure) when it cannot reach the index at all.
OFFLINE_SIGNS = ("NewConnectionError", "Max retries exceeded", "Temporary failure in name resolution",
                 "Network is unreachable", "ProxyError", "Failed to establish a new connection")


class IndexUnreachable(RuntimeError):
    """pip could not reach the package index: nothing can be said about wheels."""


def canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def requirement_name(requirement: str) -> str:
    name = ""
    for char in requirement.strip():
        if not (char.isalnum() or char in "-_."):
            break
        name += char
    return canonical(name)


def runtime_requirements(pyproject: Path = PYPROJECT) -> list[str]:
    """pyproject.toml's [project] dependencies (the runtime ones, no extras), as written."""
    return list(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"])


def locked_versions(lock: Path = LOCK, environment: dict[str, str] | None = None) -> dict[str, str]:
    """constraints.txt as canonical name -> exact version (the format packaging/lock.py writes),
    for the system `environment` describes (PEP 508 marker variables; None: this one)."""
    pins = {}
    for line in lock.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate(environment):
                pins[canonical(requirement.name)] = str(requirement.specifier).removeprefix("==")
    return pins


def platform_versions(platform: str, python: str, lock: Path = LOCK) -> dict[str, str]:
    """The lock's pins as `platform` with that Python version sees them."""
    return locked_versions(lock, {**MARKER_ENVIRONMENTS[platform], "python_version": python,
                                  "python_full_version": f"{python}.0"})


def write_pins(pins: dict[str, str], path: Path) -> Path:
    """Pins as a constraints file without markers: what pip should hold to for one platform."""
    path.write_text("".join(f"{name}=={version}\n" for name, version in sorted(pins.items())),
                    encoding="utf-8")
    return path


def pinned_requirements(requirements: list[str], pins: dict[str, str]) -> list[str]:
    """Each runtime requirement at its locked version: the versions ./run and the bundle use."""
    pinned = []
    for requirement in requirements:
        name = requirement_name(requirement)
        if name not in pins:
            raise SystemExit(f"{requirement} is not in {LOCK.name}: run packaging/lock.py")
        pinned.append(f"{name}=={pins[name]}")
    return pinned


@dataclass
class Cell:
    platform: str
    python: str
    resolved: dict[str, str] = field(default_factory=dict)  # package -> version chosen
    missing: list[str] = field(default_factory=list)  # packages with no wheel here
    error: str = ""  # pip's message when the cell did not resolve

    @property
    def label(self) -> str:
        return f"{self.platform} {self.python}"

    @property
    def ok(self) -> bool:
        return not self.missing and not self.error


def pip_dry_run(requirements: list[str], platform: str, python: str, *, no_deps: bool = False,
                lock: Path = LOCK) -> tuple[dict[str, str] | None, str]:
    """What pip would install for `requirements` on (platform, python) from binary wheels only:
    (package -> version, "") or (None, pip's error). Downloads no wheel. Transitive packages are
    held to the lock's pins for that platform."""
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        pins = write_pins(platform_versions(platform, python, lock), Path(scratch) / "pins.txt")
        command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                   "--only-binary=:all:", "--implementation", "cp", "--python-version", python,
                   "--target", str(Path(scratch) / "target"), "--report", str(report), "-c", str(pins)]
        for tag in PLATFORMS[platform]:
            command += ["--platform", tag]
        if no_deps:
            command.append("--no-deps")
        done = subprocess.run(command + requirements, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            if any(sign in done.stderr for sign in OFFLINE_SIGNS):
                raise IndexUnreachable(done.stderr.strip().splitlines()[-1])
            # pip's errors, without the warnings a local pip configuration may add.
            errors = [line for line in done.stderr.splitlines() if line.startswith("ERROR")]
            return None, "\n".join(errors) or done.stderr.strip()
        chosen = json.loads(report.read_text(encoding="utf-8"))["install"]
    return {canonical(item["metadata"]["name"]): item["metadata"]["version"] for item in chosen}, ""


def check_cell(platform: str, python: str, requirements: list[str]) -> Cell:
    """Resolve the whole runtime set for one cell; on failure find the packages to blame."""
    cell = Cell(platform, python)
    resolved, error = pip_dry_run(requirements, platform, python)
    if resolved is not None:
        cell.resolved = resolved
        return cell
    cell.error = error
    # Which direct requirement lacks a wheel? (A transitive one shows as its parent failing;
    # fill_in tries the transitive ones.)
    for requirement in requirements:
        alone, _ = pip_dry_run([requirement], platform, python, no_deps=True)
        if alone is None:
            cell.missing.append(requirement_name(requirement))
        else:
            cell.resolved.update(alone)
    # The others' own dependencies, resolved without the blamed packages.
    rest = [r for r in requirements if requirement_name(r) not in cell.missing]
    if cell.missing and rest:
        resolved, _ = pip_dry_run(rest, platform, python)
        cell.resolved.update(resolved or {})
    return cell


def fill_in(cell: Cell, names: set[str], pins: dict[str, str]) -> None:
    """For a cell that did not resolve: try alone (--no-deps, locked version) each package the
    other cells reached, so the table says whether transitive dependencies have wheels here too."""
    for name in sorted(names - set(cell.resolved) - set(cell.missing)):
        alone, _ = pip_dry_run([f"{name}=={pins[name]}" if name in pins else name],
                               cell.platform, cell.python, no_deps=True)
        if alone is None:
            cell.missing.append(name)
        else:
            cell.resolved.update(alone)


def table(cells: list[Cell], pins: dict[str, str]) -> str:
    """package (locked version) x cell: 'ok', the version pip chose when not the locked one (as
    the lock's own pin for that platform), 'MISSING', '-' (not needed there, by its markers) or
    '?' (not reached: its cell failed)."""
    packages = sorted({name for cell in cells for name in (*cell.resolved, *cell.missing)})
    rows = [["package", *[cell.label for cell in cells]]]
    for name in packages:
        row = [f"{name} {pins.get(name, '')}".strip()]
        for cell in cells:
            if name in cell.missing:
                row.append("MISSING")
            elif name in cell.resolved:
                version = cell.resolved[name]
                row.append("ok" if version == pins.get(name) else version)
            else:
                row.append("-" if cell.ok else "?")
        rows.append(row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(text.ljust(width) for text, width in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--platform", action="append", choices=sorted(PLATFORMS),
                        help="check only this platform (repeatable; default: all)")
    parser.add_argument("--python", action="append", choices=PYTHONS,
                        help="check only this Python version (repeatable; default: all)")
    args = parser.parse_args(argv)
    args.platform = args.platform or list(PLATFORMS)
    args.python = args.python or list(PYTHONS)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    runtime = runtime_requirements()
    started = time.perf_counter()
    try:
        cells = [check_cell(platform, python,
                            pinned_requirements(runtime, platform_versions(platform, python)))
                 for platform in args.platform for python in args.python]
        reached = {name for cell in cells for name in cell.resolved}
        for cell in cells:
            if not cell.ok:
                fill_in(cell, reached, platform_versions(cell.platform, cell.python))
    except IndexUnreachable as unreachable:
        print(f"the package index cannot be reached: {unreachable}", file=sys.stderr)
        return 2
    pins = locked_versions()  # the tested versions (Linux); other platforms' own pins show as such
    print(table(cells, pins))
    print(f"\n{len(cells)} cells in {time.perf_counter() - started:.0f} s; "
          "ok = the locked version has a binary wheel there")
    failed = [cell for cell in cells if not cell.ok]
    for cell in failed:
        blamed = ", ".join(cell.missing) or "(no single package: see pip's message)"
        print(f"\n{cell.label}: no binary wheel for {blamed}\n{cell.error}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
