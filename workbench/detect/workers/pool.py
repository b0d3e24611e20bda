"""The worker processes pages are extracted in, and how they end when the app ends.

Workers are started by a multiprocessing fork server (never fork a process that may hold Qt
or other threads), so they are children of the fork server, not of the app. Killed in the
middle of a run (SIGKILL, a crash, the out-of-memory killer), the app used to leave its
workers running: 8 of them, 280 MB, still alive four minutes later. The fork server ends
when nothing holds the write end of its "alive" pipe any more, but every worker got a copy
of that end, so neither ever saw the app go.

Now every worker, as it starts (``_start_worker``), on Linux:

1. asks the kernel to kill it when its parent, the fork server, ends
   (``prctl(PR_SET_PDEATHSIG, SIGKILL)``: no Python code needs to run in the worker, which
   may be deep in a C parser holding the interpreter lock);
2. closes its copy of the fork server's "alive" pipe, so that the app's own copy is the last
   one: when the app ends, the fork server sees the pipe close and exits, and the kernel
   kills every worker. The order matters: the fork server cannot end before step 2, so no
   worker can outlive it unwatched.

The resource tracker (also started by the app) exits when the app, the fork server and the
workers have all closed its pipe. Elsewhere a thread in each worker waits for the app's end
(``multiprocessing.parent_process().sentinel``) and ends the worker.

Under ``spawn`` (Windows, a frozen macOS bundle, or forced by ``WORKBENCH_START_METHOD``:
see ``start_method``) there is no fork server: workers are the app's own children and warm
themselves up as they start. On Linux the same ``prctl`` kills them when the app ends; on
Windows the app puts itself in a kill-on-close Job Object (``job_object``) before its first
pool, and every worker also watches the app with the thread above.

An app that ends normally ends its fork server and resource tracker itself, and waits for
them (``end_helper_processes``): left to notice the app's exit, both were still running when
it had exited, and a timer of the process tree saw them left behind.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import connection, forkserver, resource_tracker, util
from multiprocessing.context import BaseContext
from typing import Any

from workbench.detect.workers.job_object import kill_children_with_app
from workbench.detect.workers.parent_death import killed_with_parent, parent_already_gone
from workbench.detect.workers.start_method import StartMethod, start_method

# What the fork server imports once, so that every worker starts with it loaded. The guard
# comes first (it ends the fork server if the app dies while the rest loads) and
# warm_workers last (it stops the guard).
_PRELOAD = ["workbench.detect.workers.fork_server_guard", "workbench.detect.spotsigs.extract",
            "workbench.archive.worker", "workbench.detect.workers.warm_workers"]
_HELPERS_END_S = 5.0  # how long a helper process is given to end before it is killed
_ending_helpers = False  # whether end_helper_processes runs when this process exits


def worker_context() -> BaseContext:
    """The multiprocessing context of the workers (for shared values and events)."""
    if start_method() == "spawn":
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)
    return ctx


def start_fork_server() -> None:
    """Start the fork server now, so that it imports what workers need while this process
    imports the rest (the command line calls it first thing for ``dedup``: on the dev Gold
    Set, the two imports one after the other were a tenth of the run). Under ``spawn``
    there is no fork server: nothing to start."""
    if start_method() == "spawn":
        return
    worker_context()
    _end_helpers_on_exit()
    forkserver.ensure_running()


def _end_helpers_on_exit() -> None:
    global _ending_helpers
    if not _ending_helpers:
        # Not atexit: multiprocessing's own exit handler releases semaphores through the
        # resource tracker (starting it again if it was gone); its finalizers of lowest
        # priority run after that.
        util.Finalize(None, end_helper_processes, exitpriority=-100)
        _ending_helpers = True


def worker_pool(workers: int, initializer: Callable[..., None] | None = None,
                initargs: tuple[Any, ...] = ()) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes that end when this process ends, however it ends."""
    _end_helpers_on_exit()
    kill_children_with_app()  # Windows only: before the first worker, which inherits the job
    method = start_method()
    return ProcessPoolExecutor(max_workers=workers, mp_context=worker_context(),
                               initializer=_start_worker, initargs=(method, initializer, initargs))


def _start_worker(method: StartMethod, initializer: Callable[..., None] | None,
                  initargs: tuple[Any, ...]) -> None:
    end_with_app()
    if method == "spawn":
        # No fork server warmed up for this worker: it warms itself (the same module the
        # fork server preloads; importing it extracts one page and freezes what it loaded).
        import workbench.detect.workers.warm_workers  # noqa: F401
    if initializer is not None:
        initializer(*initargs)


def end_with_app() -> None:
    """Make this worker process end when the process that started its pool ends.

    Under ``spawn`` the worker's parent is the app itself, so ``prctl`` alone ties it to the
    app. Linux sends the signal when the *thread* that created the child ends, not the
    process: ProcessPoolExecutor starts spawned workers from the thread that calls
    ``submit`` (its manager thread starts one only to replace a worker retired by
    ``max_tasks_per_child``, which the app does not use). In the command line
    that is the main thread; in the window it is the QThreadPool thread running the
    detection, which returns only after ``pool.shutdown(wait=True)`` (or, cancelled, after
    telling the workers to stop, when a worker killed early loses nothing anyone reads). So
    no worker whose result is wanted can be killed by its thread ending first.
    """
    if killed_with_parent():
        _leave_fork_server_alive_pipe()
        _end_if_app_gone()
    else:
        _watch_app()


def _end_if_app_gone() -> None:
    """A spawned worker whose app died before ``prctl`` was set would never get the signal:
    its parent is then already another process."""
    if parent_already_gone() and getattr(forkserver, "_forkserver", None) is not None \
            and forkserver._forkserver.get_inherited_fds() is None:  # spawned, not forked
        os._exit(1)


def _leave_fork_server_alive_pipe() -> None:
    """Close this worker's copy of the fork server's "alive" pipe (see the module docstring).

    A worker never starts processes itself, so it has no use for it. multiprocessing keeps the
    descriptor in a private attribute: when a later Python moves it, this does nothing and the
    fork server ends with the last worker instead, as before.
    """
    server = getattr(forkserver, "_forkserver", None)
    if server is None or server.get_inherited_fds() is None:
        return  # not started by a fork server
    fd = getattr(server, "_forkserver_alive_fd", None)
    if isinstance(fd, int):
        with contextlib.suppress(OSError):
            os.close(fd)
        server._forkserver_alive_fd = None


def _watch_app() -> None:
    """Where the kernel cannot be asked: a thread that ends this worker when the app ends."""
    app = multiprocessing.parent_process()
    if app is None:
        return

    def watch() -> None:
        connection.wait([app.sentinel])
        os._exit(1)  # the app is gone: nobody will read what this worker does

    threading.Thread(target=watch, name="end-with-app", daemon=True).start()


def end_helper_processes() -> None:
    """End the fork server and the resource tracker this process started, and wait for them.

    Each is asked the way multiprocessing asks it (its pipe from this process is closed), given
    a few seconds, then killed. The fork server goes first: it holds the tracker's pipe too.
    """
    server = getattr(forkserver, "_forkserver", None)
    if server is not None and server.get_inherited_fds() is None:  # its starter, not a worker
        address = getattr(server, "_forkserver_address", None)
        _end_helper(server, "_forkserver_alive_fd", "_forkserver_pid")
        if isinstance(address, str) and not util.is_abstract_socket_namespace(address):
            with contextlib.suppress(OSError):
                os.unlink(address)  # its socket, where it is a file (not on Linux)
    tracker = getattr(resource_tracker, "_resource_tracker", None)
    if tracker is not None:
        _end_helper(tracker, "_fd", "_pid")


def _end_helper(holder: Any, fd_name: str, pid_name: str) -> None:
    """Close the pipe a helper process watches (in ``holder``'s attributes) and reap it."""
    lock = getattr(holder, "_lock", None)
    if lock is None or not lock.acquire(timeout=_HELPERS_END_S):
        return
    try:
        fd, pid = getattr(holder, fd_name, None), getattr(holder, pid_name, None)
        if not isinstance(fd, int) or not isinstance(pid, int):
            return
        setattr(holder, fd_name, None)
        setattr(holder, pid_name, None)
        with contextlib.suppress(OSError):
            os.close(fd)
        _reap(pid)
    finally:
        lock.release()


def _reap(pid: int) -> None:
    if sys.platform == "win32":
        return  # no fork server or resource tracker process there
    deadline = time.monotonic() + _HELPERS_END_S
    try:
        while os.waitpid(pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return
            time.sleep(0.005)
    except ChildProcessError:
        pass  # reaped already
