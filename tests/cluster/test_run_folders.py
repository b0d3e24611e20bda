"""Work folders of cluster runs that died are removed by the next run in the same place;
a living run's folder, a young one and anyone else's are left alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from workbench.cluster.run_folders import PREFIX, new_run_folder, remove_abandoned

# A run's folder made in another process, which says where and then waits (or is killed).
_RUN = ("import sys, time; from pathlib import Path; "
        "from workbench.cluster.run_folders import new_run_folder; "
        "folder, lock = new_run_folder(Path(sys.argv[1])); "
        "(folder / 'pages-0.parquet').write_bytes(b'x' * 1000); "
        "print(folder, flush=True); time.sleep(600)")


def _run_elsewhere(base):
    child = subprocess.Popen([sys.executable, "-c", _RUN, str(base)], stdout=subprocess.PIPE, text=True)
    folder = child.stdout.readline().strip()
    assert folder, "the child made no folder"
    return child, folder


def test_the_folder_of_a_killed_run_is_removed(tmp_path):
    child, folder = _run_elsewhere(tmp_path)
    child.send_signal(signal.SIGKILL if hasattr(signal, "SIGKILL") else signal.SIGTERM)
    child.wait()
    assert remove_abandoned(tmp_path, youngest=0) == [tmp_path / os.path.basename(folder)]
    assert not os.path.exists(folder)


def test_a_living_runs_folder_stays(tmp_path):
    child, folder = _run_elsewhere(tmp_path)
    try:
        mine, lock = new_run_folder(tmp_path)  # and this process's own
        assert remove_abandoned(tmp_path, youngest=0) == []
        assert os.path.exists(os.path.join(folder, "pages-0.parquet")) and mine.exists()
        lock.release()
    finally:
        child.kill()
        child.wait()


def test_a_young_folder_and_one_without_a_lock_stay(tmp_path):
    child, folder = _run_elsewhere(tmp_path)
    child.kill()
    child.wait()
    other = tmp_path / (PREFIX + "not-ours")
    other.mkdir()
    (other / "kept.txt").write_text("someone else's")
    old = time.time() - 3600
    os.utime(other, (old, old))
    assert remove_abandoned(tmp_path) == []  # the dead run's folder is seconds old
    assert os.path.exists(folder) and (other / "kept.txt").exists()
    assert remove_abandoned(tmp_path, youngest=0) == [tmp_path / os.path.basename(folder)]
    assert (other / "kept.txt").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="a folder that cannot be listed (POSIX modes)")
def test_a_place_that_cannot_be_read_has_nothing_removed(tmp_path):
    assert remove_abandoned(tmp_path / "missing", youngest=0) == []
