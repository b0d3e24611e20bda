"""Work-arounds for bugs in the Qt binding we run on.

PySide6 6.12.0 on Python 3.11 returns ``None`` from every void method (``setText``,
``setBackground``...) without taking a reference to it, so each such call lowers
None's reference count by one. After a few thousand calls (opening a few clusters)
the count reaches zero and CPython aborts with "Fatal Python error: none_dealloc".
Python 3.12 made None immortal, which hides the bug there.

:func:`protect_none` checks whether the running binding has the bug and, only then,
raises None's reference count far out of reach, which is what 3.12 does for all.
"""

from __future__ import annotations

import ctypes
import sys

_BALLAST = 1 << 60
_applied = False


def binding_drops_none() -> bool:
    """True when a void Qt method call takes a reference to None away."""
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(50):
        probe.setObjectName("probe")
    return sys.getrefcount(None) < before - 25


def protect_none() -> bool:
    """Apply the work-around if needed (once); True when it is in effect."""
    global _applied
    if _applied:
        return True
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    if not binding_drops_none():
        return False
    refcount = ctypes.c_ssize_t.from_address(id(None))
    refcount.value += _BALLAST
    _applied = True
    return True
