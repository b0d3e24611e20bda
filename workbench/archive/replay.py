"""The main process's side of parallel reading: one revisit index, fed by the workers' logs.

Logs are replayed in the order ``scan`` reads the folder, so the run's index holds, at
every revisit, exactly the captures ``scan``'s index would hold there, and picks the same
original. Two things a log alone cannot settle make the main process read that file
itself, as ``scan`` would (both are rare):

* the ranges of a split file do not join up, one was not clean, or none gave any output;
* a revisit the worker could not resolve, whose record gave no output (cut short, or met
  again after damage), and whose original the run's index does not know either: ``scan``
  then counts the record as an output of the file anyway, which the worker could not.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Sequence
from itertools import pairwise

from workbench.archive.chunks import RangeEnd
from workbench.archive.tasks import Added, Deferred, Log, Revisit
from workbench.archive.warc import Original, PendingRevisit, RevisitIndex


class MainIndex(RevisitIndex):
    """The run's revisit index. Resolving reads the original's payload: a worker does that."""

    # Kept ignore: the main process's own reading then yields a Deferred where a page would
    # be. Only detect.workers.parallel reads with this index, and it tells the two apart
    # (isinstance) before it uses either; typing that would make every reader generic.
    def resolve(self, rv: PendingRevisit, orig: Original) -> Deferred:  # type: ignore[override]
        return Deferred(rv, orig)


def replay(entries: Log, index: MainIndex, emit: Callable[[object], None]) -> None:
    """Feed one log to the run's index; pass on its outputs (or what to resolve) in order."""
    it = iter(entries)
    for entry in it:
        if isinstance(entry, Added):
            index.add(entry.orig, entry.rec_id, entry.uri, entry.date, entry.digest)
        elif isinstance(entry, Revisit):
            result = next(it) if entry.has_result else None
            orig = index.find(entry.rv)
            if orig is None:
                index.pending.append(entry.rv)  # as read_archive does: reported at the end
            elif entry.yielded:
                same = entry.has_result and entry.local == orig
                emit(result if same else Deferred(entry.rv, orig))
        else:
            emit(entry)


def must_read_here(logs: Sequence[Log], index: MainIndex) -> bool:
    """Does a file's log (or its ranges' logs, in order) need the main process to read it?"""
    if not any(isinstance(e, Revisit) and e.local is None and not e.yielded
               for log in logs for e in log):
        return False
    # Replay the captures on a scratch layer over the run's index, which stays untouched.
    trial = RevisitIndex(keys=ChainMap({}, index.keys))
    for log in logs:
        for e in log:
            if isinstance(e, Added):
                trial.add(e.orig, e.rec_id, e.uri, e.date, e.digest)
            elif (isinstance(e, Revisit) and e.local is None and not e.yielded
                  and trial.find(e.rv) is None):
                return True
    return False


def ranges_join(ends: Sequence[RangeEnd]) -> bool:
    """Did a split file's ranges read cleanly, each starting where the one before stopped?"""
    if not ends or not all(e.clean for e in ends) or not sum(e.outputs for e in ends):
        return False
    # A range no record starts in has nothing to join: the one before reads on through it.
    ends = [e for e in ends if not e.empty]
    if not ends:
        return False
    return all(cur.first == prev.next for prev, cur in pairwise(ends)) and ends[-1].next is None
