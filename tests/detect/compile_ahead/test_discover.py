"""Every cached numba function is found from the sources, with no list kept by hand."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from numba.core.caching import NullCache
from numba.core.registry import CPUDispatcher

from workbench.detect.compile_ahead.discover import CachedFunction, cached_functions, compiled_on_own

_MODULE = '''
import numba
from numba import jit, njit

@njit(cache=True)
def plain(x):
    return x

@numba.njit(cache=True, nogil=True)
def dotted(x):
    return x

@jit(nopython=True, cache=True)
def old_style(x):
    return x

@njit(cache=True, inline="always")
def inlined(x):
    return x

@njit
def uncached(x):
    return x

@njit(cache=False)
def not_cached(x):
    return x
'''


def test_every_decorator_spelling_that_caches_is_found(tmp_path: Path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "loops.py").write_text(_MODULE)
    (package / "plain.py").write_text("def cache(): return 'jit'\n")  # the words, no decorator
    found = cached_functions(package, "pkg")
    assert found == [CachedFunction("pkg.sub.loops", "plain"), CachedFunction("pkg.sub.loops", "dotted"),
                     CachedFunction("pkg.sub.loops", "old_style"),
                     CachedFunction("pkg.sub.loops", "inlined", inlined=True)]
    assert [f.name for f in compiled_on_own(found)] == ["plain", "dotted", "old_style"]


def test_discovery_misses_no_cached_dispatcher_of_the_workbench():
    """Cross-checked at run time: every module-level numba dispatcher with a cache, in every
    workbench module the discovered ones and a detection import, is among those found."""
    found = cached_functions()
    for module in {f.module for f in found} | {"workbench.usecases.pipeline", "workbench.archive.worker"}:
        importlib.import_module(module)
    labels = {f.label for f in found}
    live = {f"{name}.{attr}" for name, module in list(sys.modules.items())
            if name.startswith("workbench.") and module is not None
            for attr, value in vars(module).items()
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == name
            and not isinstance(value._cache, NullCache)}
    assert len(live) >= 30  # the join, the filters, extraction, simhash, ANDD, ...
    assert live <= labels, f"cached numba functions discovery missed: {sorted(live - labels)}"
    for function in found:
        assert isinstance(function.dispatcher(), CPUDispatcher)
