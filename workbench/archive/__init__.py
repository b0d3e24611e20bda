"""Readers that turn an opened folder or file into pages and skip records.

``scan(root, progress)`` is the definition of what a folder holds: a lazy
generator of :class:`~workbench.core.records.RawPage` and
:class:`~workbench.core.records.SkipRecord`, in a stable order, reporting
``progress("read", done_bytes, total_bytes)``. Inputs are recognised by their
bytes: HTML/text files (plain or gzip), WARC and ARC files (plain, gzipped per
record or as a whole) and WACZ packages (read in place). Only ``Cancelled``
(raised by the progress callback) escapes; everything else becomes a skip
record whose reason says what and where (the pipeline reads big folders through
:mod:`workbench.archive.tasks` instead: workers read their own files and WARC byte ranges
and give the same pages, skip records and revisit resolution, in the same order), e.g.

* ``empty file``, ``permission denied``, ``symbolic link loop``, ``broken symbolic link``,
  ``not a regular file (a named pipe)``
* ``symbolic link leading outside the opened folder (to /etc/passwd): not read``
* ``not a web page: image/png``, ``not a web page: robots.txt``,
  ``HTTP status 404: not a page capture``, ``empty payload``
* ``larger than the 50 MB page limit (60.0 MB)``
* ``LZ4-compressed WARC is not supported``
* ``header line longer than 64 KiB at byte 367: its record is skipped`` (or ``in the gzip
  member at byte 202``), ``line longer than 64 KiB at byte 258, where a record should
  start: skipped up to the next record``, ``headers longer than 256 KiB in all at byte
  297: its record is skipped``: reading goes on at the next record
* ``response record at byte 297 has no WARC-Target-URI (the address it captured): skipped``
* ``compression bomb: the gzip member at byte 202 gave 112.1 MB out of 114,486 bytes of
  compressed data, over 100 times as much; its record is skipped``, ``compression bomb:
  this ZIP member would give 4096.0 MB out of 4.0 MB of compressed data, over 100 times as
  much; not read`` (a WACZ member), ``compression bomb: the file's gzip data gave ...; the
  rest of the file (from byte 59,401) is not read`` (a file gzipped as one stream)
* ``truncated gzip member at byte 18,204: 3 records read before the damage``
* ``truncated gzip file: the compressed page ends early; kept the first 7,363 bytes``: a
  note beside the page that was kept (a :class:`~workbench.archive.common.SkippedInput`
  with ``page_kept``); a skip record that knows its capture's URL carries it there too
* ``revisit of http://... of 2020-...: the original capture is not in the opened folder``
* ``no web pages in this archive (4 request records)``
"""

from workbench.archive.common import PAGE_LIMIT_BYTES
from workbench.archive.scan import scan

__all__ = ["PAGE_LIMIT_BYTES", "scan"]
