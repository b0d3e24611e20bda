"""Ask Linux to kill this process when its parent ends (``prctl(PR_SET_PDEATHSIG)``).

The kernel sends the signal: no Python code needs to run in the process, which may be deep
in a compiled kernel or a C parser holding the interpreter lock when its parent dies. The
"parent" is the thread that started the process: it fires when that thread ends too.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def killed_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent ends; False where that is not known."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def parent_already_gone() -> bool:
    """Whether the process that started this one (by multiprocessing) has ended: the
    parent is then another process already, and a :func:`killed_with_parent` request made
    after that would never be answered."""
    parent = multiprocessing.parent_process()
    return parent is not None and parent.pid is not None and os.getppid() != parent.pid
