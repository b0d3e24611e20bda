"""Run a comparison in a process of its own, so each method's memory is measured fresh.

:func:`workbench.usecases.comparison.compare` measures a method's memory as the growth of its
process's resident memory while the method works. In ``workbench compare`` that process
is new, and SpotSigs' 80-odd MB on the dev Gold Set is what reading, matching and
compiling its loops take. In the window the same measure said "< 1 MB": the window had
run SpotSigs on that crawl already, so its compiled loops, imports and the heap its own
run freed were all in place and the comparison's SpotSigs grew the window by almost
nothing (a second comparison said the same of every method). So the window runs the
comparison here, in a new ("spawn") process, and every figure is the one the command
line gives. Progress and Cancel cross over a queue and an event; a failure comes back
as the exception raised, with the child's traceback as a note; a child that dies
without a word (killed when memory ran out) is a MemoryError.
"""

from __future__ import annotations

import multiprocessing
import pickle
import queue
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from workbench.core.progress import Cancelled, ProgressFn, no_progress
from workbench.core.records import PageInfo
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.detect.workers.pool import end_with_app
from workbench.usecases.comparison import Comparison, Truth, compare

# At most one progress report per this many seconds from the child, unless the stage changes.
REPORT_INTERVAL = 0.05
# How often the parent looks for news (and lets its caller cancel) while the child is quiet.
POLL_SECONDS = 0.1
# How long a cancelled child gets to stop at its next step before it is terminated.
STOP_GRACE_SECONDS = 10.0


def compare_in_child(root: Path | str, truth: Truth | Callable[[Sequence[PageInfo]], Truth],
                     methods: Sequence[str], *, params: SpotSigsParams | None = None,
                     options: dict[str, dict] | None = None, progress: ProgressFn = no_progress,
                     workers: int | None = None, source: str | None = None) -> Comparison:
    """:func:`compare` with the same arguments, run in a new process. ``progress`` is
    called here with the child's reports (and again with the last one while the child is
    quiet): raising :class:`Cancelled` from it stops the child."""
    context = multiprocessing.get_context("spawn")
    messages = context.Queue()
    cancel = context.Event()
    child = context.Process(target=_child, name="workbench-compare", daemon=False,
                            args=(str(root), truth, list(methods), params, options, workers, source,
                                  messages, cancel))
    child.start()
    last: tuple[Any, ...] = ("starting", 0, None)
    try:
        while True:
            try:
                message = messages.get(timeout=POLL_SECONDS)
            except queue.Empty:
                if not child.is_alive():
                    message = _last_word(messages, child.exitcode)
                else:
                    progress(*last)  # where the caller's Cancel takes effect
                    continue
            kind = message[0]
            if kind == "progress":
                last = message[1:]
                progress(*last)
            elif kind == "done":
                return message[1]
            elif kind == "cancelled":
                raise Cancelled()
            else:  # "failed"
                exc, details = message[1], message[2]
                exc.add_note(f"In the comparison's process:\n{details}")
                raise exc
    except Cancelled:
        cancel.set()
        raise
    finally:
        child.join(STOP_GRACE_SECONDS if cancel.is_set() else 1.0)
        if child.is_alive():
            child.terminate()
            child.join()
        messages.close()


def _last_word(messages: Any, exitcode: int | None) -> tuple[Any, ...]:
    """What a child that has ended said last; a MemoryError when it said nothing."""
    try:
        return messages.get(timeout=1.0)
    except queue.Empty:
        raise MemoryError(f"the comparison's process ended without a result (exit code "
                          f"{exitcode}; it is stopped like this when memory runs out)") from None


def _child(root: str, truth: Truth | Callable, methods: list[str], params: SpotSigsParams | None,
           options: dict[str, dict] | None, workers: int | None, source: str | None,
           messages: Any, cancel: Any) -> None:
    """The child's side: compare, sending progress, then the result or the failure."""
    # Killed, the window must not leave a comparison running for minutes: the child ends
    # with its parent as extraction workers do (on Linux the kernel kills it when the
    # thread that started it ends; that thread waits in compare_in_child until the child
    # is done, so only the window's death ends it early).
    end_with_app()
    last = [0.0, ""]

    def progress(stage: str, done: int, total: int | None) -> None:
        if cancel.is_set():
            raise Cancelled()
        now = time.monotonic()
        if stage != last[1] or now - last[0] >= REPORT_INTERVAL:
            last[0], last[1] = now, stage
            messages.put(("progress", stage, done, total))

    try:
        result = compare(root, truth, methods, params=params, options=options, progress=progress,
                         workers=workers, source=source)
    except Cancelled:
        messages.put(("cancelled",))
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the window
        messages.put(("failed", _picklable(exc), "".join(traceback.format_exception(exc))))
    else:
        messages.put(("done", result))


def _picklable(exc: BaseException) -> BaseException:
    """``exc`` itself when it can cross to the parent (its type decides the message the
    coder sees), else a RuntimeError that says what it was."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - any reason it cannot cross
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc
