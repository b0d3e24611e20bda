"""Timestamps as stored in the project file."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> str:
    """The current time as ISO 8601 UTC with milliseconds.

    Text rather than a number so the file is readable with any SQLite tool and
    the export can copy it verbatim; fixed width so text order is time order.
    """
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
