"""A finished command ends without the interpreter's teardown, but with everything an exit owes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

_SCRIPT = """
import atexit, sys, threading, time
from pathlib import Path
from workbench.commands.process_exit import exit_now

out = Path(sys.argv[1])
atexit.register(lambda: (out / "handler").write_text("ran"))

def late():
    time.sleep(0.3)
    (out / "thread").write_text("done")

threading.Thread(target=late).start()
print("x" * 100_000)  # more than a pipe's buffer: it must be flushed, not lost
exit_now(3)
"""


def test_exit_now_waits_for_threads_runs_handlers_and_flushes(tmp_path: Path):
    run = subprocess.run([sys.executable, "-c", _SCRIPT, str(tmp_path)], cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 3, run.stderr
    assert run.stdout == "x" * 100_000 + "\n"
    assert (tmp_path / "thread").read_text() == "done"
    assert (tmp_path / "handler").read_text() == "ran"


def test_a_dedup_process_saves_its_project_and_prints_its_summary(tmp_path: Path):
    from workbench.resources import DEMO_ARCHIVE
    from workbench.store import Project

    project = tmp_path / "demo.wbproj"
    run = subprocess.run([sys.executable, "-m", "workbench", "dedup", str(DEMO_ARCHIVE), "-q",
                          "--project", str(project)],
                         cwd=REPO, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "clusters:" in run.stdout and "wall time:" in run.stdout
    opened = Project.open(project)
    try:
        assert opened.counts().clusters > 0
    finally:
        opened.close()
