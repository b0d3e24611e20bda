"""Compile the numba loops before a user's first detection, not inside it.

Every compiled loop of the workbench is declared ``@njit(cache=True)``: numba compiles it
on its first call with a given set of argument types and keeps the machine code in a cache
beside the source (``__pycache__``; where that is not writable, the user's cache directory,
e.g. ``~/.cache/numba``; ``NUMBA_CACHE_DIR`` overrides both). On a fresh install that cache
is empty, so the first detection compiled every loop it called: on the dev Gold Set the
first ``workbench dedup`` took 16 s longer than the second (benchmarks/bench_first_run.py).

This package fills the cache ahead of time, by running what a detection runs:

* ``discover`` finds every ``@njit(cache=True)`` function in the package by reading the
  sources (no hand-kept list: a loop added anywhere is found);
* ``warm`` runs a real detection of the bundled demo archive, in this process and through
  the worker pool, and the other detectors: every type signature a real run uses is compiled
  the way a real run compiles it;
* ``cache_state`` tells which functions' caches hold code this machine can load;
* ``background`` starts the warm-up in a low-priority process (the window does that at
  start when the cache is cold: a read-only install or a desktop bundle).

``python -m workbench.detect.compile_ahead`` runs it (scripts/bootstrap.sh does after every
install). What numba's cache is keyed on, and so what invalidates it, is said in
``cache_state``.
"""
