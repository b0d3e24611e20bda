"""One handler for every exception no slot caught: a dialog, and a line in the log.

Qt calls ``sys.excepthook`` when a Python slot raises and then carries on; by
default that prints to stderr, which a coder never sees, and the action silently
did not happen. :class:`ErrorReporter` replaces the hook (and ``threading``'s, for
helper threads) with one that logs the traceback and shows
:func:`workbench.gui.errors.failures.explain`'s message. A hook called off the GUI thread
only emits a signal; the dialog is shown on the GUI thread.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QObject, Signal

from workbench.gui.errors.failures import explain, failure_logger
from workbench.gui.prompter import Prompter

ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], object]


class ErrorReporter(QObject):
    # (exception) queued to the GUI thread when raised elsewhere.
    _caught = Signal(object)
    # The dialog's title, after it was shown (tests and the status bar listen).
    reported = Signal(str)

    def __init__(self, prompter: Callable[[], Prompter], log_folder: Path,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._prompter = prompter
        self._logger, self.log_path = failure_logger(log_folder)
        self._showing = False
        self._previous: tuple[ExceptHook, Callable[..., object]] | None = None
        self._caught.connect(self._show)

    def install(self) -> None:
        if self._previous is None:
            self._previous = (sys.excepthook, threading.excepthook)
            sys.excepthook = self.handle
            threading.excepthook = self._thread_hook

    def uninstall(self) -> None:
        if self._previous is not None:
            sys.excepthook, threading.excepthook = self._previous
            self._previous = None

    def handle(self, kind: type[BaseException], exc: BaseException,
               tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, exc, tb)
            return
        if exc.__traceback__ is None and tb is not None:
            exc = exc.with_traceback(tb)
        self._logger.error("uncaught %s: %s", kind.__name__, exc, exc_info=(kind, exc, tb))
        self._caught.emit(exc)

    def _thread_hook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            self.handle(args.exc_type, args.exc_value, args.exc_traceback)

    def _show(self, exc: BaseException) -> None:
        failure = explain(exc, self.log_path)
        if self._showing:  # an error while a dialog is open: logged above, not stacked
            return
        self._showing = True
        try:
            self._prompter().error(failure.title, failure.text, failure.details)
        except Exception:  # noqa: BLE001 - the hook must never raise into Qt
            self._logger.exception("could not show the error dialog")
        finally:
            self._showing = False
        self.reported.emit(failure.title)
