"""Give freed heap memory back to the operating system (glibc's malloc_trim and mallopt).

A large run frees millions of small arrays at once (every page's spot arrays, once they
are in the signature matrix). glibc keeps freed small blocks in its heap for reuse, but
the matrix's large arrays are mapped separately and cannot reuse them, so the process
would keep that memory for the rest of the run. ``malloc_trim`` returns whole free pages
of the heap to the system.

Large blocks are another matter. glibc maps a block of 128 KB or more on its own and
unmaps it when freed, but each time one is freed it raises that threshold to the block's
size (up to 32 MB), so after the first few the run's chunk-sized temporaries (a few
million entries, 8-16 MB) come from the heap, and freed they stay there: building the
repeated-blocks table freed 294 MB of chunks while it wrote them into the final arrays,
and the process held both (300,000 small pages: 1,816 MB at that step's peak, 1,489 MB
with the threshold fixed at 1 MB, in the same time). :func:`map_large_blocks` fixes it.

Elsewhere (macOS, Windows, musl) these do nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from _ctypes import CFuncPtr  # the type of a C function loaded from a library (ctypes.CDLL)
from functools import cache
from typing import cast

# glibc's mallopt parameter number for the mapping threshold (malloc.h).
_M_MMAP_THRESHOLD = -3
# Blocks from this size on are mapped on their own (and so given back when freed).
LARGE_BLOCK_BYTES = 1 << 20


@cache
def _glibc(name: str) -> CFuncPtr | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        # A library's attribute is one of its C functions (ctypes.CDLL.__getattr__).
        return cast(CFuncPtr, getattr(libc, name))
    except (OSError, AttributeError):  # not glibc
        return None


def _trim() -> CFuncPtr | None:
    trim = _glibc("malloc_trim")
    if trim is not None:
        trim.argtypes = [ctypes.c_size_t]
        trim.restype = ctypes.c_int
    return trim


def map_large_blocks(threshold: int = LARGE_BLOCK_BYTES) -> bool:
    """From now on, map every block of ``threshold`` bytes or more on its own, so that
    freeing it gives it back to the system at once (fixing glibc's threshold also stops
    it from rising); whether it could be set. For the whole process: call it once a run
    starts."""
    mallopt = _glibc("mallopt")
    if mallopt is None:
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, threshold))


def release_free_memory() -> bool:
    """Return the heap's free pages to the system; whether anything could be done."""
    trim = _trim()
    return bool(trim is not None and trim(0))
