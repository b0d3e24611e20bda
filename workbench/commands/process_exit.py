"""Ending a finished command-line run without the interpreter's teardown.

Once numba has been loaded, a normal interpreter exit takes 0.15-0.2 s after the command's
last line: LLVM's static destructors run and every module's objects are freed one by one.
On the dev Gold Set (a run of about 3.5 s) that was 5 % of the run, for nothing: the
command has saved and closed its project and written its output by then.

So a finished ``dedup`` ends the way a forked worker does (``os._exit``), after doing what
an exit must: it waits for threads that are not daemons, runs the exit handlers
(multiprocessing's, which end the fork server and the resource tracker; ``weakref.finalize``
callbacks; logging's flush) and flushes the standard streams.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def exit_now(code: int) -> NoReturn:
    """End this process with ``code`` once its threads, exit handlers and output are done."""
    me = threading.current_thread()
    for thread in threading.enumerate():
        if thread is not me and not thread.daemon:
            thread.join()
    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_handlers is None:  # another Python: leave it the normal way
        sys.exit(code)
    run_handlers()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing left to write to
            pass
    os._exit(code)
