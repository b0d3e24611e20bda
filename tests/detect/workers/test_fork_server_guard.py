"""The workers' fork server ends with the app even while it is still warming up."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from workbench.detect.workers import pool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")

# A process that starts a fork server whose preloads are the app's, with a long warm-up
# (tests.detect.workers.slow_preload) after the guard, prints the fork server's pid and waits.
_STARTER = """
import multiprocessing, sys, time
from multiprocessing import forkserver
from workbench.detect.workers import pool
ctx = multiprocessing.get_context("forkserver")
ctx.set_forkserver_preload([pool._PRELOAD[0], "tests.detect.workers.slow_preload", *pool._PRELOAD[1:]])
forkserver.ensure_running()
print(forkserver._forkserver._forkserver_pid, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return raw.rpartition(b")")[2].split()[0] != b"Z"


def test_the_fork_server_ends_when_the_app_is_killed_during_its_warm_up():
    app = subprocess.Popen([sys.executable, "-c", _STARTER], cwd=REPO, stdout=subprocess.PIPE,
                           start_new_session=True, text=True)
    server = 0
    try:
        server = int(app.stdout.readline())
        time.sleep(1.0)  # into the long warm-up
        assert _alive(server), "the fork server ended before the app did"
        app.send_signal(signal.SIGKILL)
        app.wait()
        deadline = time.monotonic() + 3.0
        while _alive(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(server), "the fork server outlived the killed app by 3 s"
    finally:
        if app.poll() is None:
            app.kill()
        if server and _alive(server):
            os.kill(server, signal.SIGKILL)


def test_the_guard_loads_first_and_is_stopped_once_the_warm_up_is_done(monkeypatch):
    """The guard watches from the start of the warm-up, and the fork server has its one
    thread again when it forks workers."""
    from multiprocessing import forkserver

    from workbench.detect.workers.start_method import ENV_VAR

    monkeypatch.setenv(ENV_VAR, "forkserver")  # a fork server's test, whatever the suite forces

    assert pool._PRELOAD[0] == "workbench.detect.workers.fork_server_guard"
    assert pool._PRELOAD[-1] == "workbench.detect.workers.warm_workers"
    workers = pool.worker_pool(1)
    try:
        assert workers.submit(os.getpid).result(timeout=120) > 0  # the warm-up is done
        server = forkserver._forkserver._forkserver_pid
        assert len(os.listdir(f"/proc/{server}/task")) == 1
    finally:
        workers.shutdown()
