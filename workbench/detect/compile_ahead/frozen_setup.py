"""In a frozen bundle, before numba is imported: use ``frozen_locator`` for the bundled
modules' caches. Kept apart from it because importing it imports numba."""

from __future__ import annotations

import os
import sys

ENV_VAR = "NUMBA_CACHE_LOCATOR_CLASSES"
LOCATOR = "workbench.detect.compile_ahead.frozen_locator.BundleCacheLocator"
# numba's own order, after ours (numba/core/caching.py: CacheImpl._locator_classes).
NUMBA_LOCATORS = ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator",
                  "IPythonCacheLocator", "ZipCacheLocator")


def use_bundle_locator() -> bool:
    """Set the locators for this process and every process it starts (the workers); whether
    it did (not when not frozen, or when the user has chosen locators of their own)."""
    if not getattr(sys, "frozen", False) or os.environ.get(ENV_VAR):
        return False
    os.environ[ENV_VAR] = ",".join((LOCATOR, *NUMBA_LOCATORS))
    return True
