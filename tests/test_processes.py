"""No process of the app outlives it: killed mid-run (CLI or GUI) or finished normally.

The app is started in a new session, so its fork server, resource tracker and extraction
workers (children of the fork server, not of the app) are found in /proc by session id.
Under the ``spawn`` start method (Windows, a frozen macOS app; forced here by
WORKBENCH_START_METHOD) there is no fork server: the workers are the app's own children.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from workbench.detect.workers.start_method import ENV_VAR, METHODS

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")

WORKERS = 2
GRACE_S = 3.0  # how long after the app ends its helpers may take to go
START_S = 90.0  # how long the app may take to start its workers on a loaded machine

Process = tuple[int, int]  # (pid, start time): a reused pid is not the same process


def _stat(pid: int) -> list[bytes] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    return raw.rpartition(b")")[2].split()  # fields from the state on (the name may hold spaces)


def _alive(proc: Process) -> bool:
    fields = _stat(proc[0])
    # A zombie has ended; only its exit status is left for a parent (or init) to collect.
    return fields is not None and fields[0] != b"Z" and int(fields[19]) == proc[1]


def _session(sid: int) -> dict[Process, int]:
    """Every live process of a session, with its parent's pid."""
    found: dict[Process, int] = {}
    for name in os.listdir("/proc"):
        fields = _stat(int(name)) if name.isdigit() else None
        if fields is not None and int(fields[3]) == sid and fields[0] != b"Z":
            found[(int(name), int(fields[19]))] = int(fields[1])
            _note_if_spawned((int(name), int(fields[19])))
    return found


_SPAWNED: set[Process] = set()  # spawned workers seen alive (their command line is gone after)


def _note_if_spawned(proc: Process) -> None:
    """Remember a process multiprocessing spawned as a worker (its command line says so)."""
    try:
        if b"spawn_main" in Path(f"/proc/{proc[0]}/cmdline").read_bytes():
            _SPAWNED.add(proc)
    except OSError:
        pass


def _workers(app: subprocess.Popen, seen: dict[Process, int]) -> list[Process]:
    """The processes started by a process the app started (the fork server's workers), or
    spawned by the app itself."""
    helpers = {pid for (pid, _), parent in seen.items() if parent == app.pid}
    return [proc for proc, parent in seen.items()
            if parent in helpers or (parent == app.pid and proc in _SPAWNED)]


def _start(args: list[str], env: dict[str, str] | None = None, method: str | None = None) -> subprocess.Popen:
    if method is not None:
        env = dict(os.environ if env is None else env, **{ENV_VAR: method})
    return subprocess.Popen([sys.executable, "-m", "workbench", *args], cwd=REPO, env=env,
                            start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _wait_for_workers(app: subprocess.Popen) -> dict[Process, int]:
    """The app's helper processes once its extraction workers are running."""
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline and app.poll() is None:
        seen = _session(app.pid)
        if len(_workers(app, seen)) >= WORKERS:
            return {proc: parent for proc, parent in seen.items() if proc[0] != app.pid}
        time.sleep(0.05)
    pytest.fail(f"no {WORKERS} extraction workers within {START_S:.0f} s (exit code {app.poll()})")


def _left_after(processes: set[Process]) -> set[Process]:
    """Those of ``processes`` still alive after the grace time (or as soon as none is)."""
    deadline = time.monotonic() + GRACE_S
    while (alive := {p for p in processes if _alive(p)}) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def _clean_up(app: subprocess.Popen) -> None:
    if app.poll() is None:
        app.kill()
    app.wait()
    for pid, _ in _session(app.pid):  # whatever the fix failed to end, so no test leaks it
        os.kill(pid, signal.SIGKILL)


def _crawl(folder: Path, pages: int) -> Path:
    folder.mkdir()
    words = ("council monday school meals plan paid tax sugary drinks parents asked report "
             "published minister year city budget teachers").split()
    for n in range(pages):
        text = " ".join(words[(n * 7 + k * 3) % len(words)] + str(k % (n + 2)) for k in range(240))
        (folder / f"page{n:05d}.html").write_text(
            f"<html><head><title>Story {n}</title></head><body><p>{text}</p></body></html>")
    return folder


def _watch_to_exit(app: subprocess.Popen) -> tuple[dict[Process, int], set[Process]]:
    """Every process the app's session had while it ran, and those still running once it
    has exited and is not reaped yet: the last look a timer of its process tree takes."""
    seen: dict[Process, int] = {}
    while os.waitid(os.P_PID, app.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        seen.update(_session(app.pid))
        time.sleep(0.02)
    return seen, set(_session(app.pid))


def _killed_mid_run(app: subprocess.Popen) -> None:
    try:
        helpers = _wait_for_workers(app)
        assert app.poll() is None, "the run ended before it could be killed"
        app.send_signal(signal.SIGKILL)
        app.wait()
        left = _left_after(set(helpers))
        assert not left, f"{len(left)} of the app's {len(helpers)} processes still alive " \
                         f"{GRACE_S:.0f} s after it was killed: {sorted(p for p, _ in left)}"
    finally:
        _clean_up(app)


@pytest.mark.parametrize("method", METHODS)
def test_workers_end_when_the_command_line_is_killed_mid_run(tmp_path: Path, method: str):
    crawl = _crawl(tmp_path / "crawl", 3000)
    _killed_mid_run(_start(["dedup", str(crawl), "-q", "--workers", str(WORKERS)], method=method))


@pytest.mark.skipif(importlib.util.find_spec("PySide6") is None, reason="needs PySide6 for the GUI")
@pytest.mark.parametrize("method", METHODS)
def test_workers_end_when_the_desktop_app_is_killed_mid_run(tmp_path: Path, method: str):
    crawl = _crawl(tmp_path / "crawl", 3000)
    settings = tmp_path / "config" / "SpotSigs" / "SpotSigs Workbench.conf"
    settings.parent.mkdir(parents=True)
    settings.write_text("[General]\ncoder=tester\n")  # no first-start question to answer
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"),
               WORKBENCH_DATA_DIR=str(tmp_path / "data"))
    # Opening an archive without a project runs detection at once.
    _killed_mid_run(_start([str(crawl)], env, method))


@pytest.mark.parametrize("method", METHODS)
def test_no_process_outlives_a_finished_run(tmp_path: Path, method: str):
    crawl = _crawl(tmp_path / "crawl", 200)  # more than the main process reads itself
    app = _start(["dedup", str(crawl), "-q", "--workers", str(WORKERS)], method=method)
    try:
        seen, left = _watch_to_exit(app)
        assert app.wait() == 0
        assert len(_workers(app, seen)) >= 1, "the run used no worker processes"
        assert not left, f"still running when the run had ended: {sorted(p for p, _ in left)}"
    finally:
        _clean_up(app)


def test_no_process_outlives_a_run_too_small_for_workers(tmp_path: Path):
    """``dedup`` starts the fork server before it knows the crawl's size (so that it
    imports while the command does); a crawl read in the main process must not leave it."""
    crawl = _crawl(tmp_path / "crawl", 3)
    app = _start(["dedup", str(crawl), "-q"], method="forkserver")
    try:
        seen, left = _watch_to_exit(app)
        assert app.wait() == 0
        assert any(parent == app.pid for parent in seen.values()), "no fork server was started"
        assert not left, f"still running when the run had ended: {sorted(p for p, _ in left)}"
    finally:
        _clean_up(app)
