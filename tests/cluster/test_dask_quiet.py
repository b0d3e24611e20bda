"""A run's workers do not sample their threads' frames (Dask's profiler): a sampled
frame let resiliparse's trees go on another thread, which printed a traceback on the
terminal for each (workbench.cluster.quiet)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.cluster.run import dask_run

pytestmark = pytest.mark.slow


def _profiling(dask_worker) -> bool:
    callback = dask_worker.periodic_callbacks.get("profile")
    return callback is not None and callback.is_running()


def test_a_cluster_the_run_starts_has_no_profiler(tmp_path: Path) -> None:
    with dask_run(None, tmp_path, workers=1) as run:
        assert list(run.client.run(_profiling).values()) == [False]


def test_a_running_cluster_is_quiet_for_the_run_and_profiles_again_after(tmp_path: Path) -> None:
    from distributed import Client, LocalCluster

    # A cluster started without the workbench's settings, as a colleague's would be.
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address="127.0.0.1:0") as theirs, Client(theirs) as owner:
        assert list(owner.run(_profiling).values()) == [True]
        with dask_run(theirs.scheduler_address, tmp_path) as run:
            assert list(run.client.run(_profiling).values()) == [False]
        assert list(owner.run(_profiling).values()) == [True]
