"""Dask's sampling profiler off on the workers while a run uses them.

Every 10 ms a Dask worker's event loop takes the frames of the threads running tasks
(``sys._current_frames``) for its profile. A frame it holds keeps that function's locals
alive after the function returns, and they are then let go on the event loop's thread.
Among them are resiliparse's parsed trees, which may only be dropped on the thread that
made them: each such drop printed a ``RuntimeError: ... HTMLTreePy is unsendable, but is
being dropped on another thread`` traceback on the terminal (8 in a 5,000-page run) and
leaked the tree. The workbench reads nothing from the profile.

A cluster this run starts gets its workers without the profiler (Dask's own setting,
``distributed.worker.profile.enabled``). On a scheduler that was already running, a worker
plugin stops the profiler's callbacks on each worker for the run's time and starts them
again when the run ends, so the cluster's owner keeps profiles for other work.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

NO_PROFILE = {"distributed.worker.profile.enabled": False}  # dask.config settings for new workers
# The worker's periodic callbacks that sample and cycle the profile (distributed.worker).
_CALLBACKS = ("profile", "profile-cycle")


PLUGIN_NAME = "workbench-quiet-profiler"


def quiet_profiler() -> Any:
    """A Dask worker plugin that stops the profiler's callbacks on each worker
    (``setup``) and starts them again (``teardown``, when it is unregistered). Made here,
    not at import: Dask is imported only by runs that use it."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class QuietProfiler(WorkerPlugin):
        def setup(self, worker: Any) -> None:
            for key in _CALLBACKS:
                callback = worker.periodic_callbacks.get(key)
                if callback is not None:
                    callback.stop()

        def teardown(self, worker: Any) -> None:
            for key in _CALLBACKS:
                callback = worker.periodic_callbacks.get(key)
                if callback is not None and worker.status.name == "running":
                    callback.start()

    return QuietProfiler()


@contextmanager
def new_workers_quiet() -> Iterator[None]:
    """Workers started inside this (a LocalCluster's) run without the profiler."""
    import dask

    with dask.config.set(NO_PROFILE):
        yield


def quiet_while(client: Any) -> Callable[[], None]:
    """Registers :func:`quiet_profiler` on ``client``'s cluster; returns what undoes it."""
    client.register_plugin(quiet_profiler(), name=PLUGIN_NAME)

    def undo() -> None:
        with suppress(ValueError, OSError):  # the cluster or the plugin is gone already
            client.unregister_worker_plugin(PLUGIN_NAME)

    return undo
