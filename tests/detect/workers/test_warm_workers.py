"""Workers start warm: the fork server extracted a page before forking them, or (under
``spawn``, where there is no fork server) each worker did as it started."""

from __future__ import annotations

import pytest

from workbench.detect.workers.pool import worker_pool
from workbench.detect.workers.start_method import ENV_VAR, METHODS

# Not imported here: a worker imports this module to run _compiled_loops, and importing
# workbench.detect.workers.warm_workers warms up the process that imports it.


def _compiled_loops() -> tuple[int, int, bool]:
    """In a worker, before it has extracted anything: the signatures numba has compiled
    (or loaded from its cache) for extraction's compiled loops (the blocks of a page's text,
    its nesting bound, its main blocks), the fewest of them, the objects frozen out of the
    garbage collector's reach, and whether scipy.linalg was imported."""
    import gc
    import sys

    from workbench.text import chunks, lexbor

    loops = (chunks._scan_minimal, lexbor._nesting_bound, lexbor._in_order)
    return min(len(loop.signatures) for loop in loops), gc.get_freeze_count(), "scipy.linalg" in sys.modules


@pytest.mark.parametrize("method", METHODS)
def test_a_new_worker_has_the_extraction_loop_compiled_already(monkeypatch, method):
    monkeypatch.setenv(ENV_VAR, method)
    pool = worker_pool(1)
    try:
        compiled, frozen, scipy_loaded = pool.submit(_compiled_loops).result(timeout=120)
        assert compiled >= 1
        assert frozen > 10_000  # the fork server's modules and numba, not just a few objects
        assert not scipy_loaded  # numba's look for BLAS was refused while warming up
    finally:
        pool.shutdown()


def test_the_warm_up_page_goes_through_extraction():
    import gc

    from workbench.detect.workers.warm_workers import warm

    gc.unfreeze()  # importing it froze this test process's objects, as in a fork server
    assert warm()


def test_the_warm_up_leaves_scipy_importable():
    import gc
    import importlib
    import sys

    from workbench.detect.workers.warm_workers import _BLAS_PROBE, warm

    pytest.importorskip("scipy", reason="scipy is not installed (only datasketch brings it)")
    gc.unfreeze()
    saved = sys.modules.pop(_BLAS_PROBE, None)
    try:
        assert warm()
        assert importlib.import_module(_BLAS_PROBE) is not None
    finally:
        if saved is not None:
            sys.modules[_BLAS_PROBE] = saved
