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
page (163 MB for 100,000 gensmall pages).

A full run writes the file whole, to a temporary file moved into place, so a crash leaves
the previous one. An addition appends a part with only its new and changed files and the
names of the files removed (:func:`add_kept`): a later part's file replaces an earlier
part's of the same path. A part's length is written last, once the rest is on disk, so
a part a crash cut short is left out by the next load (its files are read again). When
replaced pages come to more than half the kept ones, or parts pile up, the file is
written whole again.

Layout: ``MAGIC``, then the parts. A part: its length (8 bytes, little-endian, counting
what follows); the header's length and the header (JSON: the crawl, the settings, the
files with their stamps, page counts and skip records as columns, the files removed);
the length of the page lines and the lines, each a JSON list of up to ``_LINE_PAGES``
pages (each page's record, note, where its arrays start in the part's arrays, its spots
and blocks); zero padding to a multiple of 8; then every page's packed arrays, each padded
to a multiple of 8 (so its int64 views stay aligned).
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import struct
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from workbench import __version__
from workbench.core.records import PageInfo, SkipRecord
from workbench.detect.spotsigs.extract import ExtractedPage

MAGIC = b"WBPAGES2"
_FORMAT = 2
# Parts a file may hold before it is written whole again (each is read by every load).
_MAX_PARTS = 16
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


@dataclass(frozen=True, slots=True)
class Stored:
    """What the file kept pages were loaded from holds: where its last whole part ends,
    its parts, and its pages (those of files since replaced or removed too)."""

    end: int
    parts: int
    pages: int


@dataclass(slots=True)
class KeptPages:
    """Every file of a run, by path, and what the pages were extracted with."""

    root: str
    params: dict[str, Any]
    files: dict[str, KeptFile]
    workbench: str = __version__
    # The file they were loaded from (None: made in memory): :func:`add_kept` adds to it.
    stored: Stored | None = field(default=None, compare=False)

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
    """Write ``kept`` whole to ``path``, as one part (through a temporary file beside it,
    moved into place)."""
    tmp = path.with_name(path.name + ".tmp")
    with _gc_paused(), open(tmp, "wb") as out:
        out.write(MAGIC)
        _write_part(out, kept, kept.files.values(), ())
    os.replace(tmp, path)


def add_kept(path: Path, kept: KeptPages, fresh: Iterable[KeptFile], removed: Sequence[str]) -> None:
    """Bring the file at ``path``, which ``kept`` was loaded from (and has since been
    brought up to date in memory), up to date: a part with only the ``fresh`` files (new
    and changed) and the names of the ``removed`` ones is added at its end, so an
    addition of 10 % writes 10 % of the file. It is written whole instead when ``kept``
    was not loaded from it, when it has :data:`_MAX_PARTS` parts, or when the pages of
    replaced and removed files would come to more than half the kept ones (every load
    reads them and passes them over)."""
    fresh = list(fresh)
    stored = kept.stored
    live = sum(len(f.pages) for f in kept.files.values())
    added = sum(len(f.pages) for f in fresh)
    dead = stored.pages + added - live if stored is not None else 0
    if (stored is None or stored.parts >= _MAX_PARTS or 2 * dead > live
            or not path.exists() or path.stat().st_size < stored.end):
        save_kept(path, kept)
        return
    if not fresh and not removed:
        return
    with _gc_paused(), open(path, "r+b") as out:
        out.truncate(stored.end)  # what a crash left of a part after the last whole one
        out.seek(stored.end)
        _write_part(out, kept, fresh, removed)


def _write_part(out: BinaryIO, kept: KeptPages, files: Iterable[KeptFile], removed: Iterable[str]) -> None:
    """A part at the file's position: ``files`` (their stamps, pages and skip records)
    and the names of the ``removed`` ones. Its length goes in last, once the rest is on
    disk: a part a crash cuts short has none, and loading stops before it.

    Page by page: a million pages' records are never one JSON document in memory."""
    files = list(files)
    head = json.dumps({
        "format": _FORMAT, "workbench": kept.workbench, "root": kept.root, "params": kept.params,
        "fields": list(_INFO_FIELDS),
        # As columns: a JSON object a file made loading 100,000 files' names take seconds.
        "files": {"rel": [f.stamp.rel for f in files], "size": [f.stamp.size for f in files],
                  "mtime_ns": [f.stamp.mtime_ns for f in files], "pages": [len(f.pages) for f in files],
                  "skipped": [[k, [_skip_json(s) for s in f.skipped]]
                              for k, f in enumerate(files) if f.skipped]},
        "removed": list(removed),
    }, ensure_ascii=False, separators=(",", ":")).encode()
    part_at = out.tell()
    out.write(struct.pack("<qq", 0, len(head)) + head)
    # A line per batch of pages: each page's record, note, where its arrays start in
    # the part's bytes after, its spots and blocks. Batches: one json call per page made
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
    end = out.tell()
    out.seek(lines_at)
    out.write(struct.pack("<q", lines_end - lines_at - 8))
    out.flush()
    os.fsync(out.fileno())
    out.seek(part_at)
    out.write(struct.pack("<q", end - part_at - 8))
    out.flush()
    os.fsync(out.fileno())
    out.seek(end)


def _write_line(out: BinaryIO, batch: list[list[Any]]) -> None:
    out.write(json.dumps(batch, ensure_ascii=False, separators=(",", ":")).encode())
    out.write(b"\n")


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Python's cycle collector off while page records are made or written: they hold
    no cycles, and with it on, the hundreds of thousands of objects a load makes set off
    collection after collection, each going over every object made so far (loading
    100,000 kept pages took 17.6 s with it, 4.7 s without, at a load average of 12)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_kept(path: Path) -> KeptPages | None:
    """The kept pages at ``path``; None when there are none or they cannot be read (a
    file of another format, cut short or damaged: the crawl is then read whole again).
    A last part that a crash cut short while it was added is left out: the files it
    held are read again."""
    try:
        with _gc_paused(), open(path, "rb") as fh:
            if fh.read(len(MAGIC)) != MAGIC:
                return None
            size = os.fstat(fh.fileno()).st_size
            kept: KeptPages | None = None
            at, parts, pages = len(MAGIC), 0, 0
            while at + 8 <= size:
                (length,) = struct.unpack("<q", fh.read(8))
                if length <= 0 or at + 8 + length > size:
                    break
                meta, files = _read_part(fh, at + 8 + length)
                kept = _with_part(kept, meta, files)
                at += 8 + length
                parts += 1
                pages += sum(len(f.pages) for f in files)
                fh.seek(at)
        if kept is not None:
            kept.stored = Stored(at, parts, pages)
        return kept
    except (OSError, ValueError, KeyError, TypeError, IndexError, struct.error):
        return None


def _read_part(fh: BinaryIO, end: int) -> tuple[dict[str, Any], list[KeptFile]]:
    """The header and files of the part at the file's position (after its length), which
    ends at ``end``."""
    (length,) = struct.unpack("<q", fh.read(8))
    meta = json.loads(fh.read(length))
    if meta.get("format") != _FORMAT or meta.get("fields") != list(_INFO_FIELDS):
        raise ValueError("kept pages of another format")
    (lines_length,) = struct.unpack("<q", fh.read(8))
    lines = fh.read(lines_length).splitlines()
    fh.read(-fh.tell() % 8)
    count = end - fh.tell()
    if count < 0:
        raise ValueError("a part shorter than its header says")
    buffer = np.fromfile(fh, dtype=np.uint8, count=count)
    if len(buffer) != count:
        raise ValueError("the kept pages are cut short")
    pages = [ExtractedPage(_info_of(info), buffer, int(start), int(spots), int(blocks), _skip_of(note))
             for line in lines for info, note, start, spots, blocks in json.loads(line)]
    if pages and pages[-1].start + pages[-1].nbytes > len(buffer):
        raise ValueError("the kept pages are cut short")
    columns = meta["files"]
    stamps = list(zip(columns["rel"], columns["size"], columns["mtime_ns"], columns["pages"], strict=True))
    skipped = {int(k): records for k, records in columns["skipped"]}
    files: list[KeptFile] = []
    at = 0
    for k, (rel, size, mtime_ns, n) in enumerate(stamps):
        files.append(KeptFile(FileStamp(rel, int(size), int(mtime_ns)), pages[at : at + n],
                              [s for s in map(_skip_of, skipped.get(k, ())) if s is not None]))
        at += n
    if at != len(pages):
        raise ValueError("the kept pages do not add up to their files")
    return meta, files


def _with_part(kept: KeptPages | None, meta: dict[str, Any], files: list[KeptFile]) -> KeptPages:
    """``kept`` (the parts before; None: this is the first) with a part's files and
    removals: a file in a later part replaces the one of the same path."""
    if kept is None:
        kept = KeptPages(meta["root"], meta["params"], {}, meta["workbench"])
    elif (meta["root"], meta["workbench"], _extraction(meta["params"])) != (
            kept.root, kept.workbench, _extraction(kept.params)):
        raise ValueError("a part read from another crawl or with other settings")
    kept.params = meta["params"]
    for rel in meta["removed"]:
        kept.files.pop(rel, None)
    for f in files:
        kept.files.pop(f.stamp.rel, None)
        kept.files[f.stamp.rel] = f
    return kept


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
