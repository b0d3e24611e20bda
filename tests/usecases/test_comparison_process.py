"""A comparison in a process of its own: each method's memory measured as the command line
does, progress and Cancel across, failures back with their type."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import DEMO_ARCHIVE, REPO
from workbench.core.progress import Cancelled
from workbench.usecases.comparison import Truth, compare
from workbench.usecases.comparison_process import compare_in_child


@pytest.fixture(scope="module")
def gold(tmp_path_factory) -> Path:
    """The demo archive as a gold folder: one sub-folder per story, a page per site."""
    root = tmp_path_factory.mktemp("gold")
    for page in DEMO_ARCHIVE.rglob("*.html"):
        (root / page.stem).mkdir(exist_ok=True)
        shutil.copy(page, root / page.stem / f"{page.parent.name}.html")
    return root


def _cli_memory_mb(gold: Path) -> float:
    """SpotSigs' memory as `workbench compare` prints it (a process of its own)."""
    run = subprocess.run([sys.executable, "-m", "workbench", "compare", str(gold), "--methods",
                          "spotsigs", "--workers", "1", "-q"], cwd=REPO, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    line = next(x for x in run.stdout.splitlines() if x.startswith("spotsigs"))
    return float(re.search(r"(\d+)MB", line).group(1))


def test_spotsigs_memory_is_measured_as_the_command_line_does_after_a_run_in_this_process(gold):
    """A window has run SpotSigs already: measured in the window's process, the comparison's
    SpotSigs grows it by almost nothing; in a process of its own, by what the CLI says."""
    compare(gold, Truth.from_gold_folder, ["spotsigs"], workers=1)  # the window's own run
    cli = _cli_memory_mb(gold)
    assert cli >= 2  # the test means something only if the CLI measures some memory
    child = compare_in_child(gold, Truth.from_gold_folder, ["spotsigs"], workers=1)
    assert child.methods[0].peak_bytes / 2**20 >= cli / 2, (child.methods[0].peak_bytes, cli)
    assert child.methods[0].points  # scored as in this process
    here = compare(gold, Truth.from_gold_folder, ["spotsigs"], workers=1)
    assert [p.pairs for p in child.methods[0].points] == [p.pairs for p in here.methods[0].points]


def _refuse(pages):
    raise PermissionError(13, "Permission denied", "gold/a.html")


def test_a_failure_in_the_child_comes_back_as_its_type_with_the_childs_traceback(gold):
    with pytest.raises(PermissionError) as caught:
        compare_in_child(gold, _refuse, ["spotsigs"], workers=1)
    assert caught.value.filename == "gold/a.html"
    assert any("_refuse" in note for note in caught.value.__notes__)


def test_cancel_from_progress_stops_the_child(gold):
    seen: list[str] = []

    def progress(stage, done, total):
        seen.append(stage)
        raise Cancelled()

    with pytest.raises(Cancelled):
        compare_in_child(gold, Truth.from_gold_folder, ["spotsigs"], workers=1, progress=progress)
    assert seen


def _sleep_long(pages):
    time.sleep(120)
    raise AssertionError("the comparison's process outlived the process that started it")


_STARTER = """
import sys
from pathlib import Path
from tests.usecases.test_comparison_process import _sleep_long
from workbench.usecases.comparison_process import compare_in_child
compare_in_child(Path(sys.argv[1]), _sleep_long, ["spotsigs"], workers=1)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")
def test_the_comparisons_process_ends_when_the_process_that_started_it_is_killed(gold):
    """A window killed mid-comparison (SIGKILL, a crash) must not leave the comparison
    running: its process ends within seconds, as extraction workers do."""
    starter = subprocess.Popen([sys.executable, "-c", _STARTER, str(gold)], cwd=REPO,
                               start_new_session=True)
    try:
        child = None
        deadline = time.monotonic() + 90
        while child is None and time.monotonic() < deadline and starter.poll() is None:
            child = next((pid for pid in _children(starter.pid)), None)
            time.sleep(0.05)
        assert child is not None, "the comparison's process never started"
        time.sleep(3)  # let the child reach the long wait (past its imports and reading)
        assert _alive(child), "the comparison's process ended on its own"
        os.kill(starter.pid, signal.SIGKILL)
        starter.wait()
        deadline = time.monotonic() + 5
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child), "the comparison's process outlived its killed parent by 5 s"
    finally:
        if starter.poll() is None:
            starter.kill()
        for pid in _session_pids(starter.pid):
            os.kill(pid, signal.SIGKILL)


def _stat(pid: int) -> list[bytes] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    return raw.rpartition(b")")[2].split()


def _alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] != b"Z"


def _children(parent: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        fields = _stat(int(name)) if name.isdigit() else None
        # multiprocessing's resource tracker is a child too; the comparison is "spawn"'s
        # main, whose command line names multiprocessing.spawn.
        if fields is not None and int(fields[1]) == parent and fields[0] != b"Z":
            cmd = Path(f"/proc/{name}/cmdline").read_bytes()
            if b"spawn_main" in cmd:
                found.append(int(name))
    return found


def _session_pids(sid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        fields = _stat(int(name)) if name.isdigit() else None
        if fields is not None and int(fields[3]) == sid and fields[0] != b"Z":
            found.append(int(name))
    return found
