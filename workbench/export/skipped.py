"""The skip report: every input a run did not read as a page, one CSV row each."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from workbench.core.records import SkipRecord
from workbench.export.cells import csv_writer
from workbench.store.safety.whole_files import whole_file

COLUMNS = ["file", "offset", "url", "reason", "page_kept"]


def write_skipped(skipped: Iterable[SkipRecord], path: Path | str) -> int:
    """Write one row per skip record (in reading order); return how many.

    ``file`` is the input's path below the opened folder, ``offset`` the record's byte
    offset in an archive file (empty for a whole file), ``url`` the capture's address
    when the reader knew it, ``page_kept`` 1 for a note beside a page that was kept in
    part (its ``reason`` says what was lost).
    """
    n = 0
    with whole_file(path) as fh:
        writer = csv_writer(fh)
        writer.writerow(COLUMNS)
        for skip in skipped:
            # The archive readers' skip records may know more than the core record holds.
            url = getattr(skip, "url", None) or ""
            kept = 1 if getattr(skip, "page_kept", False) else 0
            writer.writerow([skip.source, "" if skip.offset is None else skip.offset, url,
                             skip.reason, kept])
            n += 1
    return n
