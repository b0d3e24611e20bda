"""Reading one WARC record again at its offset, for the side-by-side view (no Qt).

The view re-reads each page it shows from the archive. Reading the archive file from
its start up to the page's record cost a second a page on a 12 MB WARC of 1,050 pages
(and more the further into a crawl the page sits): cluster after cluster, every Down
key waited on it. A healthy WARC (plain, or gzipped record by record) can be read at
the record's offset alone, with the very code detection read it with
(:func:`workbench.archive.chunks.read_range`), so the page is byte for byte the one
detection saw.
"""

from __future__ import annotations

from pathlib import Path

from workbench.archive.chunks import read_range, splittable
from workbench.archive.sniff import SNIFF_BYTES
from workbench.archive.warc import RevisitIndex
from workbench.core.records import RawPage

# How a file may be read in ranges, by (path, size, mtime): telling costs inflating up
# to a megabyte, once per file rather than once per page.
_KINDS: dict[tuple[str, int, int], bool | None] = {}


def _gzipped(path: Path) -> bool | None:
    """Whether the WARC is gzipped record by record; None: not a WARC read in ranges."""
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _KINDS:
        with open(path, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
        _KINDS[key] = splittable(path, head)
    return _KINDS[key]


def read_record_at(path: Path, source: str, offset: int) -> RawPage | None:
    """The page of the record that starts at ``offset``, read there alone.

    None when that cannot be done or is in any doubt, and the caller reads the file
    from its start: not a WARC read in ranges (ARC, WACZ, a WARC gzipped as one
    stream), no page at exactly that offset (a revisit, whose payload is in another
    record), or damage where the range was read.
    """
    try:
        gzipped = _gzipped(path)
        if gzipped is None:
            return None
        found: RawPage | None = None
        reading = read_range(path, source, gzipped, offset, offset + 1, RevisitIndex(),
                             lambda _pos: None)
        while True:
            try:
                item = next(reading)
            except StopIteration as stop:
                clean = stop.value.clean
                break
            if isinstance(item, RawPage) and item.offset == offset and found is None:
                found = item
    except Exception:  # noqa: BLE001 - any doubt: the whole-file reader decides
        return None
    return found if clean else None
