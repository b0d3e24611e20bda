"""Start the warm-up in a process of its own, at low priority, and return at once.

For the installs where nothing ran after installing (a desktop bundle, a wheel installed
by an administrator into a site-packages the user cannot write: numba then compiles into
the user's own cache directory, see ``cache_state``). The window starts it when it opens:
the child first checks the cache (``--if-cold``) and leaves at once when it is warm, so a
warm cache costs a second of one low-priority process. It never blocks the window and
never runs inside a detection; if the coder starts a detection before it is done, that
detection compiles what is still missing, as every run did before.
"""

from __future__ import annotations

import subprocess
import sys

MODULE = "workbench.detect.compile_ahead"
# How a frozen bundle's executable is asked for the warm-up (packaging/entry.py): it has
# no ``-m``.
FROZEN_FLAG = "--compile-ahead"
_BELOW_NORMAL_PRIORITY_CLASS = 0x4000  # Windows process creation flags
_CREATE_NO_WINDOW = 0x08000000


def warm_up_command(*args: str) -> list[str]:
    """The command that runs the warm-up with ``args`` in this installation."""
    if getattr(sys, "frozen", False):
        return [sys.executable, FROZEN_FLAG, *args]
    return [sys.executable, "-m", MODULE, *args]


def start_if_cold() -> subprocess.Popen[bytes] | None:
    """Start ``--if-cold --background --quiet`` in a child process; None when it could not
    start (the first detection then compiles, as before)."""
    flags = _BELOW_NORMAL_PRIORITY_CLASS | _CREATE_NO_WINDOW if sys.platform == "win32" else 0
    try:
        child = subprocess.Popen(warm_up_command("--if-cold", "--background", "--quiet"),
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, creationflags=flags)
    except OSError:
        return None
    _started.append(child)  # kept: a Popen collected while its child runs warns
    return child


_started: list[subprocess.Popen[bytes]] = []
