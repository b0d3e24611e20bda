#!/usr/bin/env python3
"""Run the whole test suite headless, on any system: what ./test does, without bash.

    python scripts/run_tests.py [pytest arguments]     # Windows: py -3.11 scripts\\run_tests.py
    python scripts/run_tests.py --dry-run [...]       # print the commands, run none
    python scripts/run_tests.py --help                # this text

Makes .venv up to date (scripts/bootstrap.py: the workbench and its test tools at the locked
versions), then, in .venv, in order and stopping at the first failure: ruff, mypy in strict
mode on the core packages ([tool.mypy] in pyproject.toml; incremental, from .mypy_cache: a few
seconds when little changed), and pytest -q with the given arguments, all with Qt offscreen.
./test runs this after installing Qt's system libraries on Debian; the CI workflow
(.github/workflows/ci.yml) runs it on Linux, Windows and macOS.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bootstrap  # noqa: E402 - scripts/ is no package: its sibling is found through sys.path

REPO = bootstrap.REPO
LINTED = ["workbench", "tests", "scripts", "benchmarks", "packaging", "typings"]


def checks(python: str, pytest_args: list[str]) -> list[list[str]]:
    """ruff, then mypy, then pytest: the cheap checks first, so a typo fails in seconds."""
    return [
        [python, "-m", "ruff", "check", *LINTED],
        [python, "-m", "mypy"],
        [python, "-m", "pytest", "-q", *pytest_args],
    ]


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] in (["-h"], ["--help"]):  # pytest's own help: .venv/bin/python -m pytest --help
        print(__doc__.strip())
        return 0
    dry_run = bool(args) and args[0] == "--dry-run"
    if dry_run:
        args.pop(0)
    steps = bootstrap.plan()
    commands = checks(str(bootstrap.venv_python()), args)
    if dry_run:
        for command in [step.command for step in steps] + commands:
            print(subprocess.list2cmdline(command) if os.name == "nt" else shlex.join(command))
        return 0
    failed = bootstrap.run(steps)
    if failed:
        return failed
    # Qt's offscreen platform: the GUI tests need no display, on every system.
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    *first, last = commands
    for command in first:
        code = subprocess.run(command, cwd=REPO, env=env, check=False).returncode
        if code != 0:
            return code
    if os.name == "posix":
        # pytest replaces this process, as `exec` did in ./test: Ctrl-C and signals reach it
        # alone, and it has all the time it wants to print its summary.
        os.chdir(REPO)
        os.execve(last[0], last, env)
    return subprocess.run(last, cwd=REPO, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
