"""The test process's resident memory (Linux), and its peaks between mapped arrays' let-gos."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from workbench.core import mapped_arrays

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads the resident memory from /proc (Linux)")


def resident_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def peak_before_let_go(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The process's resident MB each time mapped arrays are let go (just before), so that
    a test sees the peak between two let-gos, not only what is left after the last."""
    seen: list[float] = []
    real = mapped_arrays.let_go

    def watched(*arrays: np.ndarray) -> None:
        seen.append(resident_mb())
        real(*arrays)

    monkeypatch.setattr(mapped_arrays, "let_go", watched)
    return seen
