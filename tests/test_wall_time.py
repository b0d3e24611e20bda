"""The wall time a dedup or eval process prints is the process's own, start-up included."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import DEMO_ARCHIVE, REPO

# A process that spends START_UP seconds before the workbench is even imported, as a slow
# interpreter start or slow imports would, then runs the command as the entry point does.
START_UP = 2.0
_SCRIPT = f"""
import sys, time
time.sleep({START_UP})
sys.argv = ["workbench", *sys.argv[1:], "-q"]
from workbench.__main__ import main
sys.exit(main())
"""
# /proc counts a process's start in clock ticks (1/100 s); the outside timer starts first.
TICK = 0.02


def _gold(tmp_path: Path) -> Path:
    """The demo archive as a gold folder: one sub-folder per story."""
    for page in DEMO_ARCHIVE.rglob("*.html"):
        (tmp_path / page.stem).mkdir(exist_ok=True)
        shutil.copy(page, tmp_path / page.stem / f"{page.parent.name}.html")
    return tmp_path


@pytest.mark.parametrize("command", ["dedup", "eval"])
def test_printed_wall_time_includes_the_start_up_and_no_more_than_the_process_ran(command, tmp_path):
    target = DEMO_ARCHIVE if command == "dedup" else _gold(tmp_path)
    before = time.time()
    run = subprocess.run([sys.executable, "-c", _SCRIPT, command, str(target)], cwd=REPO,
                         capture_output=True, text=True, timeout=300)
    outside = time.time() - before
    assert run.returncode == 0, run.stderr
    line = next(x for x in run.stdout.splitlines() if x.startswith("wall time:"))
    total = float(re.search(r"wall time:\s+([\d.]+) s", line).group(1))
    # "(read+extract 0.27 s, ..., cluster 0.00 s; start-up and the rest 0.66 s)"
    stages = sum(float(v) for v in re.findall(r" ([\d.]+) s", line.split("(", 1)[1].split(";")[0]))
    assert total >= START_UP + stages - TICK, line  # the sleep before the run counts
    assert total <= outside + TICK, (line, outside)  # and nothing from before the process
    assert "since the process started" in line
