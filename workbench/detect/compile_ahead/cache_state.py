"""Which of the workbench's numba functions this process could load from the cache.

What numba 0.68 keys a cached function on (numba/core/caching.py, read for this module):

* where: the first directory that is writable of ``NUMBA_CACHE_DIR``, the ``__pycache__``
  beside the source, the user's cache directory (``~/.cache/numba``, ``~/Library/Caches/
  numba``, ``%LOCALAPPDATA%\\numba``). A directory numba cannot write to is skipped even for
  reading: a cache an administrator filled in a read-only site-packages is not used by
  other users, who compile into their own cache directory instead;
* the source: a hash of the whole source file's content (a frozen bundle: of its
  executable), the function's line number and bytecode, numba's version, Python's;
* the machine: the LLVM target triple, the CPU's name and its exact feature list
  (``codegen.magic_tuple()``). A cache compiled on another CPU model is not loaded; the
  function is compiled again. That is why a desktop bundle does not ship a cache built on
  the build machine: the window warms the user's own cache at its first start instead.

Looking into the index uses numba's private ``_cache_file`` and ``_index_key``; if a later
numba moves them, every function counts as cold (a warm-up then runs once more than
needed, which costs time but is never wrong).
"""

from __future__ import annotations

import importlib
from typing import Any


def loadable_versions(dispatcher: Any) -> int:
    """How many compiled versions (type signatures) of the function the cache holds that
    this process can load: same source, same numba, this CPU. 0 when unknown."""
    try:
        cache = _caching().FunctionCache(dispatcher.py_func)
        codegen = dispatcher.targetctx.codegen()
        index = cache._cache_file._load_index()  # {} when the source changed or numba did
        return sum(1 for key in index if cache._index_key(key[0], codegen) == key)
    except Exception:  # noqa: BLE001 - unknown counts as cold (see the module docstring)
        return 0


def cache_directory(dispatcher: Any) -> str | None:
    """Where numba keeps this function's cache in this process (None: it cannot cache)."""
    try:
        return str(_caching().FunctionCache(dispatcher.py_func).cache_path)
    except Exception:  # noqa: BLE001 - no writable place: numba compiles every run
        return None


def _caching() -> Any:
    """numba's caching module (untyped)."""
    return importlib.import_module("numba.core.caching")
