"""Waiting on Dask futures with progress, cancel and the first error."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

_POLL_S = 0.2  # how often progress (and so cancelling) is looked at while waiting


def wait_all(client: Any, futures: list[Any], report: Callable[[int], None],
             gather: bool = True) -> list[Any]:
    """The futures' results in their order (none, without ``gather``: the caller fetches
    them one at a time, never all at once). ``report(done)`` is called as tasks finish
    and may raise ``Cancelled``: the cluster's work is then cancelled (``client.cancel``),
    as it is on a task's error or Ctrl+C. A task whose worker died is run again by Dask
    (its scheduler's allowed failures), so it is only waited for longer."""
    try:
        done = -1
        while True:
            now = sum(f.done() for f in futures)
            if now != done:
                done = now
                report(done)
            if done == len(futures):
                break
            failed = next((f for f in futures if f.status == "error"), None)
            if failed is not None:
                failed.result()  # raises the task's own error
            time.sleep(_POLL_S)
        return list(client.gather(futures)) if gather else []
    except BaseException:
        client.cancel(futures)
        raise
