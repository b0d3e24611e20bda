"""How long this process has run, start-up included: what a command's "wall time" reports.

The stages of a run (reading, matching, ...) leave out what comes before them: the
interpreter's start, importing numpy and numba, starting the fork server. That was 8.5 s
of a 19.2 s ``dedup`` on 2008 news pages, so the sum of the stages is not the time the
coder waited. Linux records when a process started (``/proc/self/stat``, in clock ticks
since boot, against ``/proc/uptime``); elsewhere the clock starts when this module is first
imported, which the entry point does before anything else.
"""

from __future__ import annotations

import os
import time

_IMPORTED = time.time()


def process_started() -> float:
    """When this process started, in seconds since the epoch (``time.time()``'s scale)."""
    age = _age_from_proc()
    return _IMPORTED if age is None else time.time() - age


def _age_from_proc() -> float | None:
    """Seconds since this process started, as the kernel counts them (None off Linux)."""
    try:
        with open("/proc/self/stat", encoding="ascii", errors="replace") as fh:
            stat = fh.read()
        with open("/proc/uptime", encoding="ascii") as fh:
            uptime = float(fh.read().split()[0])
        # The command name (field 2) may hold spaces and parentheses: count after its end.
        start_ticks = int(stat[stat.rindex(")") + 2:].split()[19])  # field 22, starttime
        age = uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    return age if age >= 0 else None
