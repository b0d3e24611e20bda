"""Where a frozen bundle's numba functions keep their cache: one folder per module, the same
whatever directory the app was started from.

numba names a function's cache folder after the absolute path of its source's folder.
PyInstaller gives the modules it bundles relative source paths (``workbench/text/
chunks.py``), which numba makes absolute against the *current* directory: an app started
from another folder used another cache folder and compiled everything again (numba 0.68,
numba/core/caching.py; the same found for numba 0.66 in kmnhan/erlabpy pull request 510).
This locator resolves those paths against the bundle's own folder instead and is otherwise
numba's user-wide locator: ``NUMBA_CACHE_DIR`` when set, else the user's cache folder;
numba stamps a frozen cache with a hash of the executable, so a new bundle starts anew.

``frozen_setup.use_bundle_locator`` (called by packaging/entry.py before numba is imported)
puts it first in ``NUMBA_CACHE_LOCATOR_CLASSES``; it declines every source that is not a
bundled one, so numba's own locators follow for those.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from numba.core import caching, config

_UserWideCacheLocator: Any = caching.UserWideCacheLocator  # numba's classes are untyped
_config: Any = config


def bundle_folder() -> str:
    """The folder a frozen app's modules are unpacked in (PyInstaller's ``_MEIPASS``)."""
    return str(getattr(sys, "_MEIPASS", os.path.dirname(os.path.abspath(sys.executable))))


class BundleCacheLocator(_UserWideCacheLocator):  # type: ignore[misc]
    def __init__(self, py_func: Any, py_file: str) -> None:
        stable = os.path.join(bundle_folder(), py_file)
        super().__init__(py_func, stable)
        if _config.CACHE_DIR:
            self._cache_path = os.path.join(_config.CACHE_DIR, self.get_suitable_cache_subpath(stable))

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> BundleCacheLocator | None:
        if not getattr(sys, "frozen", False) or os.path.isabs(py_file):
            return None  # not a bundled module: numba's own locators decide
        located: BundleCacheLocator | None = super().from_function(py_func, py_file)
        return located
