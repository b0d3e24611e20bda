"""Give freed heap memory back to the operating system (glibc's malloc_trim).

A large run frees millions of small arrays at once (every page's spot arrays, once they
are in the signature matrix). glibc keeps freed small blocks in its heap for reuse, but
the matrix's large arrays are mapped separately and cannot reuse them, so the process
would keep that memory for the rest of the run. ``malloc_trim`` returns whole free pages
of the heap to the system. Elsewhere (macOS, Windows, musl) this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache


@cache
def _trim():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def release_free_memory() -> bool:
    """Return the heap's free pages to the system; whether anything could be done."""
    trim = _trim()
    return bool(trim is not None and trim(0))
