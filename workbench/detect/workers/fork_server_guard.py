"""Imported first by the workers' fork server: it ends the fork server if the app dies while
the fork server is still importing and warming up.

The fork server watches the app's "alive" pipe only once its preloads are done, and they
take a while: importing numba and the extraction code, then compiling and running one page
(``warm_workers``), seconds on a cold cache and a busy machine. The window starts its fork
server with its first run, so a window killed early in that run left the fork server warming
up for many seconds (16-23 s were seen) before it noticed. While the preloads run, a thread
here looks for the app every tenth of a second (a changed parent id means the app is gone)
and ends the process at once. ``warm_workers``, the last preload, stops the thread, so no
thread but the fork server's own is alive when workers are forked from it.

Importing this module has that side effect by design (the fork server can only be told
modules to import).
"""

from __future__ import annotations

import os
import threading

POLL_S = 0.1

_stop = threading.Event()
_app = os.getppid()


def _watch() -> None:
    while not _stop.wait(POLL_S):
        if os.getppid() != _app:
            os._exit(1)  # the app is gone: nobody will ever ask this fork server for a worker


_watcher = threading.Thread(target=_watch, name="end-with-app-while-warming", daemon=True)
_watcher.start()


def stop() -> None:
    """Stop watching (the fork server's own loop watches the app from now on)."""
    _stop.set()
    _watcher.join()
