"""One page's bytes read again from its archive, after a run (no Qt): for the
side-by-side view and for what is read of a page after detection (its publication
date, workbench.usecases.published_dates)."""

from __future__ import annotations

from pathlib import Path

from workbench.archive import scan
from workbench.archive.names import archive_file, source_in_file
from workbench.archive.reread.record_at import read_record_at
from workbench.core.records import RawPage


def read_raw(root: Path | str, source: str, offset: int | None) -> RawPage | None:
    """Read one page's bytes again from the archive (None: it is no longer there): at its
    record when the archive allows, else by reading the file from its start."""
    path = archive_file(root, source)
    if path is None:
        return None
    if offset is not None:
        found = read_record_at(path, source, offset)
        if found is not None:
            return found
    # Each member of a WACZ package may have a record at this offset: the source decides.
    wanted = source_in_file(root, path, source)
    for item in scan(path):
        if not isinstance(item, RawPage) or item.source != wanted:
            continue
        if offset is None or item.offset == offset:
            return item
    return None
