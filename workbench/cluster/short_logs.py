"""Dask's debugging logs kept short in the client's process while a run uses the cluster.

Dask keeps the last messages of every connection for its developers' post-mortems
(``distributed.admin.low-level-log-length``, 1,000 by default): the client's messages to
the scheduler, and, in the client's own process when the cluster is a ``LocalCluster``
(whose scheduler lives there), the scheduler's messages to each worker. A map task's
message carries its unit, a batch of up to 512 files with a ``FileEntry`` each, so those
logs held the crawl's file list several times over: on 100,000 small pages, 44 MB of the
client's 126 MB of live objects once the pages' records were back, still growing with
the crawl up to some 2,000 tasks (a million files). The workbench reads none of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

# Messages each log keeps: enough for a look at a connection's last moments, and a few
# tasks' units at most however large the crawl.
LOG_LENGTH = 16
SHORT_LOGS = {"distributed.admin.low-level-log-length": LOG_LENGTH}  # dask.config settings


@contextmanager
def short_logs() -> Iterator[None]:
    """Connections (and worker processes) made inside this keep :data:`LOG_LENGTH`
    messages of each log."""
    import dask

    with dask.config.set(SHORT_LOGS):
        yield
