#!/usr/bin/env python3
"""Make ./.venv hold the workbench and everything its tests need, at the locked versions:
the half of scripts/bootstrap.sh that every system needs (bootstrap.sh adds Debian's system
libraries first, then runs this). Standard library only: it runs before the venv exists,
under whatever Python 3 is at hand, on Linux, macOS and Windows.

    python scripts/bootstrap.py          # what ./run, ./test and scripts/run_tests.py do first

Idempotent and quick when nothing changed: it reinstalls only when pyproject.toml or the lock
(constraints.txt: the exact versions the tests passed with) is newer than the last install.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VENV = REPO / ".venv"
LOCK = REPO / "constraints.txt"
EXTRAS = "test,bench"
STAMP_NAME = ".installed"
WARMED_NAME = ".compiled-ahead"  # numba's loops compiled after the last install (below)


def venv_python(venv: Path = VENV) -> Path:
    """The venv's interpreter: bin/python, or Scripts\\python.exe on Windows."""
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


@dataclass(frozen=True)
class Step:
    say: str  # one line for stderr, before the step runs ("" says nothing)
    command: list[str]
    quiet: bool = False  # its output goes nowhere (pip's own upgrade notice)
    may_fail: bool = False  # a failure is no reason to stop (compiling modules ahead)
    installs_project: bool = False  # done, it makes the install current (the stamp's time)
    marks: str = ""  # done without failing, it touches this file in the venv


def install_is_stale(venv: Path = VENV, inputs: tuple[Path, ...] = (REPO / "pyproject.toml", LOCK)) -> bool:
    """No install yet, or one older than the project's requirements or the lock."""
    stamp = venv / STAMP_NAME
    if not stamp.exists():
        return True
    done = stamp.stat().st_mtime
    return any(path.stat().st_mtime > done for path in inputs)


def loops_are_cold(venv: Path = VENV, sources: Path = REPO / "workbench") -> bool:
    """No warm-up since the last install, or a source file holding a cached numba loop changed
    since (numba keys its cache on the file's content)."""
    warmed, installed = venv / WARMED_NAME, venv / STAMP_NAME
    if not warmed.exists() or (installed.exists() and installed.stat().st_mtime > warmed.stat().st_mtime):
        return True
    done = warmed.stat().st_mtime
    return any(path.stat().st_mtime > done
               and "cache=True" in path.read_text(encoding="utf-8", errors="replace")
               for path in sources.rglob("*.py"))


def plan(venv: Path = VENV, python: str = sys.executable) -> list[Step]:
    """The commands that bring `venv` up to date, given what is there now."""
    target = str(venv_python(venv))
    steps = []
    if not venv_python(venv).exists():
        steps.append(Step(f"bootstrap: creating {venv}", [python, "-m", "venv", str(venv)]))
    if not venv_python(venv).exists() or install_is_stale(venv):
        steps += [
            Step(f"bootstrap: installing the workbench and its test tools into {venv}",
                 [target, "-m", "pip", "install", "-q", "--upgrade", "pip"], quiet=True),
            Step("", [target, "-m", "pip", "install", "-q", "-c", str(LOCK), "-e", f"{REPO}[{EXTRAS}]"],
                 installs_project=True),
        ]
    # Python reads compiled modules (.pyc) where it may not write them, as under
    # PYTHONDONTWRITEBYTECODE=1, but an editable install leaves none: every run then compiled
    # about a hundred of the workbench's modules again, in the command and again in its fork
    # server (3 % of a dev Gold Set run). Up to date, this takes 0.04 s.
    steps.append(Step("", [target, "-m", "compileall", "-q", str(REPO / "workbench")], quiet=True,
                      may_fail=True))
    # Compile the numba loops now, not in the user's first detection (there they cost 15 s of a
    # 20 s first run on the dev Gold Set: benchmarks/bench_first_run.py). About 20 s from
    # nothing; a failure only means the first detection compiles them itself.
    if steps[:-1] or loops_are_cold(venv):  # an install (a new numba), or a changed loop
        steps.append(Step("bootstrap: compiling the numba loops ahead of the first detection",
                          [target, "-m", "workbench.detect.compile_ahead", "--quiet"],
                          may_fail=True, marks=WARMED_NAME))
    return steps


def run(steps: list[Step], venv: Path = VENV) -> int:
    """Run the steps in order; stop at the first that fails (and may not). 0 when all went well."""
    for step in steps:
        if step.say:
            print(step.say, file=sys.stderr, flush=True)
        output = subprocess.DEVNULL if step.quiet else None
        done = subprocess.run(step.command, stdout=output, check=False)
        if done.returncode != 0 and not step.may_fail:
            return done.returncode
        if step.installs_project:
            (venv / STAMP_NAME).touch()
        if step.marks and done.returncode == 0:
            (venv / step.marks).touch()
    return 0


def main() -> int:
    return run(plan())


if __name__ == "__main__":
    sys.exit(main())
