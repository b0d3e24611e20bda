"""The pages a project's last run extracted, kept beside the project, file by file.

A crawl that grows (File ▸ Add Pages…, ``workbench dedup CRAWL --project P --add``) must
not be read again: only its new and changed files are. Detection's filters are global
(document frequencies, blocks a site repeats, boilerplate across sites), so new pages can
change what an old page keeps; the filters are therefore run again over every page, from
what extraction gave *before* them: each page's record and its per-block spot signatures
(:class:`workbench.detect.spotsigs.extract.ExtractedPage`). The matrix a run keeps in the
project (workbench.store.runs.signatures) is after the filters and cannot serve.

The file ``<project>.pages`` holds, for every input file of the run: its path below the
crawl, size and modification time (what tells a changed file), its pages' records and
packed signature arrays, and its skip records in reading order. Plain bytes and JSON, no
pickle: a project given by someone else cannot run code through it. About 1.6 KB a small
page (163 MB for 100,000 gensmall pages). It is written to a temporary file and moved
into place, so a crash leaves the previous one.

Layout: ``MAGIC``; the header's length (8 bytes, little-endian) and the header (JSON: the
crawl, the settings, every file with its stamp, page count and skip records); the
length of the page lines and the lines, each a JSON list of up to ``_LINE_PAGES`` pages
(each page's record, note, where its arrays start, its spots and blocks); zero padding
to a multiple of 8; then every page's packed arrays, each padded to a multiple of 8 (so
its int64 views stay aligned).
"""

from __future__ import annotations

import dataclasses
import json
import os
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from workbench import __version__
from workbench.core.records import PageInfo, SkipRecord
from workbench.detect.spotsigs.extract import ExtractedPage

MAGIC = b"WBPAGES1"
_FORMAT = 1
_INFO_FIELDS = tuple(f.name for f in dataclasses.fields(PageInfo))
_PAD = np.zeros(8, dtype=np.uint8)
_LINE_PAGES = 4096  # page records a line of the file holds
# Settings the main process applies after extraction (the filters, the join, clustering):
# kept pages serve a run whatever these are. Every other setting (and any added later)
# may change what extraction gives, so it must be as when the pages were kept.
AFTER_EXTRACTION = frozenset({
    "tau", "pair_floor", "pair_floor_max_pages", "idf_low", "idf_high", "idf_min_pages", "min_sigs",
    "site_boilerplate", "site_min_pages", "site_block_share", "corpus_boilerplate", "corpus_min_pages",
    "corpus_core_share", "corpus_own_share", "cluster_method", "corroborate_below", "weak_join",
    "weak_join_own_text", "hub_split"})


@dataclass(frozen=True, slots=True)
class FileStamp:
    """What tells a changed file: its path below the crawl, size and modification time."""

    rel: str
    size: int
    mtime_ns: int


@dataclass(slots=True)
class KeptFile:
    """One input file's share of a run: its pages (in reading order) and its skip records
    (in reading order; a page's note is among them, after the pages before it)."""

    stamp: FileStamp
    pages: list[ExtractedPage] = field(default_factory=list)
    skipped: list[SkipRecord] = field(default_factory=list)


@dataclass(slots=True)
class KeptPages:
    """Every file of a run, by path, and what the pages were extracted with."""

    root: str
    params: dict[str, Any]
    files: dict[str, KeptFile]
    workbench: str = __version__

    def fits(self, root: str, params: dict[str, Any]) -> str | None:
        """Why these pages cannot stand for the crawl ``root`` read with ``params`` (None:
        they can). Extraction depends on the settings and on the workbench's version."""
        if self.root != root:
            return f"they were read from {self.root}, not {root}"
        if _extraction(self.params) != _extraction(params):
            return "the extraction settings changed"
        if self.workbench != __version__:
            return f"they were extracted by workbench {self.workbench}, this is {__version__}"
        return None


def _extraction(params: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if k not in AFTER_EXTRACTION}


def kept_path(project_path: Path | str) -> Path:
    """Where a project's kept pages live: beside it, ``<project>.pages``."""
    return Path(f"{project_path}.pages")


def _skip_json(record: SkipRecord | None) -> list[Any] | None:
    return None if record is None else [record.source, record.reason, record.offset]


def _skip_of(value: list[Any] | None) -> SkipRecord | None:
    return None if value is None else SkipRecord(value[0], value[1], value[2])


def _info_json(info: PageInfo) -> list[Any]:
    return [list(v) if isinstance(v, tuple) else v for v in (getattr(info, f) for f in _INFO_FIELDS)]


def _info_of(values: list[Any]) -> PageInfo:
    if len(values) != len(_INFO_FIELDS):
        raise ValueError(f"a page record of {len(values)} fields, not {len(_INFO_FIELDS)}")
    info = PageInfo(*values)  # the fields in order (checked against the header's)
    info.other_titles = tuple(info.other_titles)
    return info


def save_kept(path: Path, kept: KeptPages) -> None:
    """Write ``kept`` to ``path`` (through a temporary file beside it, moved into place).

    Page by page: a million pages' records are never one JSON document in memory."""
    files = list(kept.files.values())
    head = json.dumps({
        "format": _FORMAT, "workbench": kept.workbench, "root": kept.root, "params": kept.params,
        "fields": list(_INFO_FIELDS),
        "files": [{"rel": f.stamp.rel, "size": f.stamp.size, "mtime_ns": f.stamp.mtime_ns,
                   "pages": len(f.pages), "skipped": [_skip_json(s) for s in f.skipped]} for f in files],
    }, ensure_ascii=False, separators=(",", ":")).encode()
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as out:
        out.write(MAGIC + struct.pack("<q", len(head)) + head)
        # A line per batch of pages: each page's record, note, where its arrays start in
        # the bytes after, its spots and blocks. Batches: one json call per page made
        # reading 100,000 pages several times slower, one for all holds them all at once.
        lines_at = out.tell()
        out.write(struct.pack("<q", 0))
        start = 0
        batch: list[list[Any]] = []
        for page in (page for f in files for page in f.pages):
            batch.append([_info_json(page.info), _skip_json(page.note), start, page.n_spots, page.n_blocks])
            start += (page.nbytes + 7) // 8 * 8
            if len(batch) == _LINE_PAGES:
                _write_line(out, batch)
                batch = []
        if batch:
            _write_line(out, batch)
        lines_end = out.tell()
        out.write(_PAD[: -lines_end % 8].tobytes())
        for f in files:
            for page in f.pages:
                out.write(page.packed.tobytes())
                out.write(_PAD[: -page.nbytes % 8].tobytes())
        out.seek(lines_at)
        out.write(struct.pack("<q", lines_end - lines_at - 8))
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)


def _write_line(out: BinaryIO, batch: list[list[Any]]) -> None:
    out.write(json.dumps(batch, ensure_ascii=False, separators=(",", ":")).encode())
    out.write(b"\n")


def load_kept(path: Path) -> KeptPages | None:
    """The kept pages at ``path``; None when there are none or they cannot be read (a
    file of another format, cut short or damaged: the crawl is then read whole again)."""
    try:
        with open(path, "rb") as fh:
            if fh.read(len(MAGIC)) != MAGIC:
                return None
            (length,) = struct.unpack("<q", fh.read(8))
            meta = json.loads(fh.read(length))
            (lines_length,) = struct.unpack("<q", fh.read(8))
            lines = fh.read(lines_length).splitlines()
            fh.read(-fh.tell() % 8)
            buffer = np.fromfile(fh, dtype=np.uint8)
        return _kept_of(meta, lines, buffer)
    except (OSError, ValueError, KeyError, TypeError, IndexError, struct.error):
        return None


def _kept_of(meta: dict[str, Any], lines: list[bytes], buffer: np.ndarray) -> KeptPages | None:
    if meta.get("format") != _FORMAT or meta.get("fields") != list(_INFO_FIELDS):
        return None
    pages = [ExtractedPage(_info_of(info), buffer, int(start), int(spots), int(blocks), _skip_of(note))
             for line in lines for info, note, start, spots, blocks in json.loads(line)]
    if pages and pages[-1].start + pages[-1].nbytes > len(buffer):
        raise ValueError("the kept pages are cut short")
    files: dict[str, KeptFile] = {}
    at = 0
    for f in meta["files"]:
        stamp = FileStamp(f["rel"], int(f["size"]), int(f["mtime_ns"]))
        files[stamp.rel] = KeptFile(stamp, pages[at : at + f["pages"]],
                                    [s for s in map(_skip_of, f["skipped"]) if s is not None])
        at += f["pages"]
    if at != len(pages):
        raise ValueError("the kept pages do not add up to their files")
    return KeptPages(meta["root"], meta["params"], files, meta["workbench"])


def owner(source: str, rels: dict[str, Any]) -> str | None:
    """The input file below the crawl a page or skip record came from: its ``source`` is
    the file's path, or (inside a WACZ package) a path below it."""
    while source:
        if source in rels:
            return source
        cut = source.rfind("/")
        if cut < 0:
            return None
        source = source[:cut]
    return None


# What a WARC revisit record whose original capture was not read becomes
# (workbench.archive.warc.RevisitIndex.leftovers).
UNRESOLVED_REVISIT = "the original capture is not in the opened folder"


@dataclass(slots=True)
class ByFile:
    """A reading's pages and skip records under the files they came from."""

    files: dict[str, KeptFile]
    loose: list[SkipRecord]  # skip records of no file (the walk's: a link refused, ...)
    # Whether the reading gave every file's pages and records one file after another, in
    # the files' order. A WARC revisit resolved only at the end of a reading (its original
    # came in a later file) breaks this: it is then placed where no file-by-file reading
    # could put it again.
    in_file_order: bool = True
    # Whether a revisit's original capture was not found among the files read.
    unresolved_revisits: bool = False


def by_file(stamps: Sequence[FileStamp], pages: Iterable[ExtractedPage],
            skipped: Iterable[SkipRecord]) -> ByFile:
    """Pages and skip records of a reading (of the files ``stamps`` names, in that
    order), each under the file it came from."""
    files = {s.rel: KeptFile(s) for s in stamps}
    place = {rel: k for k, rel in enumerate(files)}
    found = ByFile(files, [])
    last = -1
    for page in pages:
        rel = owner(page.info.source, files)
        if rel is not None:
            files[rel].pages.append(page)
            found.in_file_order &= place[rel] >= last
            last = place[rel]
    last = -1
    for record in skipped:
        rel = owner(record.source, files)
        found.unresolved_revisits |= record.reason.endswith(UNRESOLVED_REVISIT)
        if rel is None:
            found.loose.append(record)
        else:
            files[rel].skipped.append(record)
            found.in_file_order &= place[rel] >= last
            last = place[rel]
    return found
