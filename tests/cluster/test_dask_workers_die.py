"""A local Dask cluster's workers end when the process that started them is killed, even
while a task holds the interpreter lock (workbench.cluster.die_with_client): Dask's own
watch over the parent is a Python thread, which then waits for the lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.test_processes import GRACE_S, REPO, _alive, _session

# Starts a one-worker local cluster as the workbench does, gives the worker a task that
# holds the interpreter lock for minutes (a regular expression that backtracks: Python's
# matcher never lets the lock go), says the worker's pid once the task runs, and waits.
CLIENT = textwrap.dedent("""
    import re, sys, time
    from workbench.cluster.run import local_cluster
    from distributed import Client

    def hold_the_lock(started):
        import os, pathlib
        pathlib.Path(started).write_text(str(os.getpid()))
        return re.match(r"(a+)+$", "a" * 60 + "b")

    if __name__ == "__main__":
        cluster = local_cluster(1)
        client = Client(cluster)
        task = client.submit(hold_the_lock, sys.argv[1], pure=False)
        time.sleep(600)
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's parent-death signal")
def test_a_worker_holding_the_interpreter_lock_ends_with_its_killed_client(tmp_path: Path):
    script, started = tmp_path / "client.py", tmp_path / "worker.pid"
    script.write_text(CLIENT)
    client = subprocess.Popen([sys.executable, str(script), str(started)], cwd=REPO,
                              start_new_session=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while not started.exists() or not started.read_text():
            assert client.poll() is None, "the client ended before its worker ran the task"
            assert time.monotonic() < deadline, "the worker never ran the task"
            time.sleep(0.1)
        time.sleep(0.5)  # well inside the match
        worker = next(p for p in _session(client.pid) if p[0] == int(started.read_text()))
        client.send_signal(signal.SIGKILL)
        client.wait()
        deadline = time.monotonic() + GRACE_S
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(worker), f"the worker was still alive {GRACE_S:.0f} s after its client was killed"
    finally:
        if client.poll() is None:
            client.kill()
        client.wait()
        for pid, _ in _session(client.pid):  # whatever the fix failed to end
            os.kill(pid, signal.SIGKILL)
