"""What to tell the coder about an exception nothing else caught, and where it is logged (no Qt).

Every slot of the window may raise: a storage error from SQLite (locked, disk full,
read-only, damaged), an ``OSError`` from the file system, a bug. Such an exception
must never vanish on stderr with the action silently not done. This module turns
it into a dialog's title and text and writes the traceback to a log file the coder
can send; :mod:`workbench.gui.errors.errorhook` shows it.
"""

from __future__ import annotations

import logging
import logging.handlers
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from workbench.store.errors import ProjectError, describe_storage_error

LOG_NAME = "workbench.log"
LOG_BYTES = 1_000_000  # per file; three files are kept
LOGGER = "workbench.failures"


@dataclass(frozen=True, slots=True)
class Failure:
    """A dialog's worth of explanation for one exception."""

    title: str
    text: str
    details: str


def explain(exc: BaseException, log_path: Path | None = None,
            tb: TracebackType | None = None) -> Failure:
    """The title and text a coder reads, most specific first; the traceback as details."""
    details = "".join(traceback.format_exception(type(exc), exc, tb or exc.__traceback__))
    after = " What you coded before this is saved in the project file."
    where = f" The details are in {log_path}." if log_path else ""
    if isinstance(exc, ProjectError):
        return Failure("Project problem", f"{exc}{after}", details)
    storage = describe_storage_error(exc)
    if storage:
        return Failure("Could not save or read the project",
                       f"{storage} The last action was not done.{after}{where}", details)
    if isinstance(exc, MemoryError):
        return Failure("Out of memory",
                       "The workbench ran out of memory and did not finish the last action. "
                       f"Close other programs and try again.{after}{where}", details)
    if isinstance(exc, OSError):
        name = f" ({exc.filename})" if exc.filename else ""
        return Failure("File problem",
                       f"A file could not be used{name}: {exc.strerror or exc}. "
                       f"The last action was not done.{after}{where}", details)
    return Failure("Unexpected error",
                   f"Something went wrong that the workbench did not expect: "
                   f"{type(exc).__name__}: {exc}. The last action may not have been done.{after}"
                   f"{where} Please send that file with a report.", details)


def failure_logger(folder: Path) -> tuple[logging.Logger, Path | None]:
    """A logger writing to ``folder/workbench.log`` (rotated), and the file's path.

    When the folder cannot be written, failures are still logged to stderr and the
    path is None (the dialog then names no file).
    """
    logger = logging.getLogger(LOGGER)
    path: Path | None = folder / LOG_NAME
    if not any(isinstance(h, logging.handlers.RotatingFileHandler) for h in logger.handlers):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            handler: logging.Handler = logging.handlers.RotatingFileHandler(
                path, maxBytes=LOG_BYTES, backupCount=2, encoding="utf-8")
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
            logger.addHandler(handler)
        except OSError:
            path = None
    else:
        handler_path = next(h.baseFilename for h in logger.handlers
                            if isinstance(h, logging.handlers.RotatingFileHandler))
        path = Path(handler_path)
    logger.setLevel(logging.INFO)
    return logger, path
