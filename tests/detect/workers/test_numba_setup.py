"""numba's setup runs in a thread during extraction and leaves the filters' code loaded."""

from __future__ import annotations

from workbench.detect.spotsigs.matrix_kernels import rows_ascending
from workbench.detect.workers import numba_setup


def test_the_setup_thread_loads_the_filters_compiled_code_with_their_types():
    thread = numba_setup.start()
    thread.join(timeout=120)
    assert not thread.is_alive() and not thread.daemon
    assert numba_setup.set_up()
    assert any(str(types[1]).startswith("array(int32") for types in rows_ascending.signatures)
