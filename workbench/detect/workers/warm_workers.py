"""Imported by the workers' fork server only: extracts one small page, so that every worker
forked from it starts with the extraction code loaded and compiled.

The first page a process extracts costs about a second more than the others: numba, for the
compiled loops extraction uses (workbench.text.chunks, workbench.text.lexbor), loads its
registries on its first call and the English lexicon is built. Each worker paid that
again; on the dev Gold Set (1,050 pages, two workers) it was a quarter of the run. Done
here, in the fork server, it is paid once, while the app imports the rest, and every forked
worker inherits it.

Importing this module has these side effects by design (multiprocessing's fork server can
only be told modules to import). Any failure is swallowed: a worker then warms up on its
first page, as before.
"""

from __future__ import annotations

import gc
import sys

# numba's registries look for BLAS by importing this module of scipy's (scipy is here only
# because datasketch needs it), which imports scipy.linalg and numpy.f2py: 0.16 of the fork
# server's 0.7 s before any worker could start. Extraction's compiled code does no linear
# algebra, so the fork server warms up with the import refused (numba then simply registers
# no BLAS-backed functions: no njit code in a worker may use np.dot, np.linalg or @) and lets
# the module be imported normally afterwards.
_BLAS_PROBE = "scipy.linalg.cython_blas"

_PAGE = (
    "<html><head><title>A warm-up page</title></head><body><nav><a href='/'>Home</a></nav>"
    "<article><h1>A warm-up page</h1>"
    + "<p>The council said on Monday that the new bridge will be open to traffic by the end of"
    " the year, and that the cost has been kept within the budget it had set.</p>" * 6
    + "</article></body></html>"
)


def warm() -> bool:
    """Extract one page as a worker does, without letting numba import scipy; whether it
    went through."""
    refused = _BLAS_PROBE not in sys.modules
    if refused:
        sys.modules[_BLAS_PROBE] = None  # type: ignore[assignment] # an import of it now fails
    try:
        from workbench.core.records import RawPage
        from workbench.detect.spotsigs.extract import extract_batch
        from workbench.detect.spotsigs.params import SpotSigsParams

        page = RawPage(source="warm-up.html", data=_PAGE.encode(), content_type="text/html")
        return not isinstance(extract_batch([page], SpotSigsParams())[0], str)
    except Exception:  # noqa: BLE001 - warming up is only ever a saving
        return False
    finally:
        if refused and sys.modules.get(_BLAS_PROBE, 0) is None:
            del sys.modules[_BLAS_PROBE]


def _stop_guard() -> None:
    """Stop the fork server's guard thread (the fork server watches the app itself now), so
    that workers are forked from a process with one thread."""
    guard = sys.modules.get("workbench.detect.workers.fork_server_guard")
    if guard is not None:
        guard.stop()


warm()
_stop_guard()
# Everything the fork server holds now (numba's registries, the modules, the lexicon) is
# inherited by every worker and never freed: frozen, the workers' garbage collections never
# walk it, so they neither spend time on it nor touch (and so copy) its shared pages.
# Measured on the dev Gold Set, interleaved whole-process-tree runs against the code before
# the warm-up (benchmarks/bench_ab.py, 8-10 pairs): warm-up alone 1.08 times the wall time
# and 1.06 times the CPU, with the freeze 0.95 and 0.94.
gc.freeze()
