"""Workers start warm: the fork server extracted a page before forking them."""

from __future__ import annotations

from workbench.detect.pool import worker_pool

# Not imported here: a worker imports this module to run _compiled_loops, and importing
# workbench.detect.warm_workers warms up the process that imports it.


def _compiled_loops() -> int:
    """In a worker, before it has extracted anything: the signatures numba has compiled
    (or loaded from its cache) for extraction's compiled loop."""
    from workbench.text import chunks

    return len(chunks._scan.signatures)


def test_a_new_worker_has_the_extraction_loop_compiled_already():
    pool = worker_pool(1)
    try:
        assert pool.submit(_compiled_loops).result(timeout=120) >= 1
    finally:
        pool.shutdown()


def test_the_warm_up_page_goes_through_extraction():
    from workbench.detect.warm_workers import warm

    assert warm()
