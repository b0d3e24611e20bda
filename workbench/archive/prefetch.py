"""Asking the system to start reading a task's files before they are read.

A worker reads its files one after the other, and each read of a file not in the page
cache waits for the disk: on this project's test machine 3 to 10 ms a small file where
the storage is slow, while extraction takes 2 ms. With the whole batch asked for first
(``posix_fadvise(WILLNEED)`` starts the reads and returns), the disk serves them
together and the worker waits about once a batch instead of once a file. Where the call
does not exist (Windows, macOS) nothing is done; a file that cannot be opened is left to
the real read, which reports why.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

# Only a file's start is asked for: a large archive is read by ranges, and asking for all
# of it would fill the cache with what is read much later (or push out what is needed).
PREFETCH_BYTES = 1 << 20

_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)  # a FIFO never blocks


def prefetch(files: Iterable[tuple[str, int]]) -> int:
    """Start reading the first :data:`PREFETCH_BYTES` of each (path, size); returns how
    many files were asked for."""
    if sys.platform == "win32" or sys.platform == "darwin":
        return 0  # no posix_fadvise there (a platform check the type checker follows, too)
    advise = getattr(os, "posix_fadvise", None)
    if advise is None:
        return 0
    asked = 0
    for path, size in files:
        try:
            fd = os.open(path, _FLAGS)
        except OSError:
            continue
        try:
            advise(fd, 0, min(size, PREFETCH_BYTES), os.POSIX_FADV_WILLNEED)
            asked += 1
        except OSError:
            pass
        finally:
            os.close(fd)
    return asked
