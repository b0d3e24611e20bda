"""Which multiprocessing start method the workers use: ``forkserver`` or ``spawn``.

``forkserver`` is the default wherever multiprocessing offers it: workers are forked from a
process that has already imported and warmed up the extraction code. Windows has no fork
server, and a frozen macOS bundle should not fork (a bundled executable is not a Python
interpreter to fork from safely), so ``spawn`` is used there: each worker starts a fresh
interpreter and warms itself. ``WORKBENCH_START_METHOD`` forces either one, so that the
``spawn`` path runs on Linux too (the test suite runs with it set).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from typing import Literal

ENV_VAR = "WORKBENCH_START_METHOD"
StartMethod = Literal["forkserver", "spawn"]
METHODS: tuple[StartMethod, ...] = ("forkserver", "spawn")


class StartMethodError(ValueError):
    """``WORKBENCH_START_METHOD`` holds a value that is not a start method the app supports."""


def start_method() -> StartMethod:
    """The start method forced by ``WORKBENCH_START_METHOD``, else this system's default."""
    forced = os.environ.get(ENV_VAR, "").strip().lower()
    if not forced:
        return default_start_method()
    if forced not in METHODS:
        raise StartMethodError(f"{ENV_VAR}={os.environ[ENV_VAR]!r} is not a start method: "
                               f"use one of {', '.join(METHODS)} (or leave it unset)")
    if forced not in multiprocessing.get_all_start_methods():
        raise StartMethodError(f"{ENV_VAR}={forced}: this system has no {forced} start method; "
                               "use spawn (or leave it unset)")
    return "forkserver" if forced == "forkserver" else "spawn"


def default_start_method() -> StartMethod:
    frozen_mac = sys.platform == "darwin" and bool(getattr(sys, "frozen", False))
    if "forkserver" in multiprocessing.get_all_start_methods() and not frozen_mac:
        return "forkserver"
    return "spawn"
