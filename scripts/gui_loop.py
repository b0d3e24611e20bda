"""Run the GUI tests many times in a row and count failures and crashes.

    .venv/bin/python scripts/gui_loop.py [--runs 50] [--keep-going] [-- PYTEST ARGS]

Each run is a fresh ``pytest tests/gui`` process (offscreen Qt), so a crash in one
(exit by a signal, e.g. a segmentation fault) is seen as such instead of ending the
loop's own process. By default the loop stops at the first failing run and prints
its output; ``--keep-going`` runs them all. The last line gives the count, e.g.
``50 of 50 runs passed (0 failed, 0 crashed)``.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--keep-going", action="store_true", help="do not stop at the first bad run")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args()

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/gui",
               *args.pytest_args]
    passed = failed = crashed = 0
    durations: list[float] = []
    for run in range(1, args.runs + 1):
        started = time.monotonic()
        done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
        durations.append(time.monotonic() - started)
        last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
        if done.returncode == 0:
            passed += 1
            print(f"run {run}: passed in {durations[-1]:.0f} s ({last})", flush=True)
            continue
        if done.returncode < 0:
            crashed += 1
        else:
            failed += 1
        print(f"run {run}: {describe_exit(done.returncode)} after {durations[-1]:.0f} s", flush=True)
        print(done.stdout[-6000:], done.stderr[-4000:], sep="\n", flush=True)
        if not args.keep_going:
            break
    runs = passed + failed + crashed
    durations.sort()
    print(f"{passed} of {runs} runs passed ({failed} failed, {crashed} crashed); "
          f"median run {durations[len(durations) // 2]:.0f} s")
    return 0 if passed == runs == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
