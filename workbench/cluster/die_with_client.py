"""A Dask preload: a local cluster's worker ends when the workbench that started it does,
however the workbench ends (``local_cluster`` gives it to every worker it starts).

A local cluster's workers are the workbench's own children. Dask's watch over the parent
is a thread in the worker that exits when the parent's pipe closes, and it needs the
interpreter lock, which a worker deep in a compiled kernel or a C parser holds for seconds:
with the workbench killed (SIGKILL) at load 5-7, 3 of 3 workers were still alive 3 s later.
So, as the local pool's workers do (workbench.detect.workers.pool), each asks Linux to
SIGKILL it when its parent ends. Dask starts a worker from a thread of the client's that
watches that process for as long as it runs, so the signal comes when the workbench dies
(or when that watch ends, once the worker is closed), never while the cluster is in use.
"""

from __future__ import annotations

import os
from typing import Any

from workbench.detect.workers.parent_death import killed_with_parent, parent_already_gone

MODULE = __name__  # what local_cluster names as the workers' preload


def dask_setup(worker: Any) -> None:
    """Called by Dask in each worker as it starts (a preload's entry point)."""
    if not killed_with_parent():
        return  # not Linux: Dask's own watch, as before
    if parent_already_gone():  # died before the request above: no signal will come
        os._exit(1)
