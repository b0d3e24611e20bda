"""numba's one-time setup in this process, started in a thread while the workers extract.

The first compiled function a process calls costs about 0.3 s more than its work: numba
sets up its compiler's registries (importing scipy.linalg on the way to look for BLAS)
before it loads the function from its cache. In the main process that first call came in
the filters, after every page was back, where nothing else runs beside it: on the dev Gold
Set it was 0.29 of the filters' 0.37 s. Started when extraction starts, it happens while
this process only waits for the workers.
"""

from __future__ import annotations

import threading

import numpy as np


def start() -> threading.Thread:
    """Begin the setup in a thread (join it before the compiled code is needed: it is
    not a daemon, so that no interpreter exits while it imports)."""
    thread = threading.Thread(target=set_up, name="numba setup")
    thread.start()
    return thread


def set_up() -> bool:
    """Call one of the filters' compiled functions with the types the filters use; whether
    it went through (a failure here only means the filters pay the setup themselves)."""
    try:
        from workbench.detect.spotsigs.matrix_kernels import rows_ascending

        return bool(rows_ascending(np.zeros(1, np.int64), np.zeros(0, np.int32)))
    except Exception:  # noqa: BLE001 - only ever a saving
        return False
