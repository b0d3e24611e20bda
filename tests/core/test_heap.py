"""Freed chunk-sized temporaries go back to the system once large blocks are mapped."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# In a fresh interpreter: raise glibc's mapping threshold the way a run does (free one
# 16 MB block), then hold 40 blocks of 4 MB with a small live block after them, free the
# 40 and report how much of their 160 MB the process still holds.
_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    from workbench.core.clusters.heap import map_large_blocks

    def rss_mb():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024

    if sys.argv[1] == "mapped":
        assert map_large_blocks()
    big = np.ones(2 * 2**20)  # 16 MB, freed: glibc raises its threshold to it
    del big
    before = rss_mb()
    parts = [np.ones(2**19) for _ in range(40)]  # 4 MB each, written
    pin = np.ones(2**15)  # a live block after them (256 KB): the heap cannot shrink past it
    del parts
    print(rss_mb() - before)
""")


def _held_mb(mode: str) -> float:
    out = subprocess.run([sys.executable, "-c", _SCRIPT, mode], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc, read through /proc")
def test_freed_large_blocks_are_given_back_once_mapped():
    assert _held_mb("mapped") < 40  # of 160 MB
