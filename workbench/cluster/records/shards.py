"""Extracted pages and pairs as Parquet shards in a run's work directory.

A map task writes its pages here and returns only the shard's path and row numbers, so
pages never travel through the scheduler. Columns: every :class:`PageInfo` field, the
page's packed signature arrays (``ExtractedPage.packed``, as bytes), its spot and block
counts, the note that travels with it (what of the page was left unread), and its block
hashes and block weights (spots per block) once more as lists, for the corpus boilerplate.
The client reads only what it needs of a shard (``columns=``): the records
(workbench.cluster.records.light_pages) and the corpus boilerplate's inputs
(:func:`read_block_inputs`);
the packed arrays are read by the tasks (workbench.cluster.filters.rows), and by the client only
when something asks a page for them (:class:`ShardPage`: the kept pages' file reads only
their column, :func:`read_packed`).
"""

from __future__ import annotations

import dataclasses
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from workbench.cluster.records.shared_values import SharedValues
from workbench.core.records import PageInfo, SkipRecord
from workbench.detect.spotsigs.corpus_boilerplate import block_weights
from workbench.detect.spotsigs.extract import ExtractedPage, share_buffer

_INFO_FIELDS = dataclasses.fields(PageInfo)
# PageInfo fields held as tuples (Parquet gives lists back).
_TUPLES = frozenset(f.name for f in _INFO_FIELDS if isinstance(f.default, tuple))


@dataclass(frozen=True, slots=True)
class ShardRef:
    """Where a task left one page: row ``row`` of shard ``shard``. The note rides along,
    so the skip list keeps it beside its page (workbench.detect.workers.parallel)."""

    shard: str
    row: int
    note: SkipRecord | None = None


def new_shard(work_dir: str | Path, kind: str) -> Path:
    """A name no other task (nor a retry of this one) writes to."""
    return Path(work_dir) / f"{kind}-{uuid.uuid4().hex}.parquet"


def _write_whole(table: pa.Table, path: Path) -> None:
    """Written under a temporary name and renamed: a task killed half way leaves no
    shard that looks whole."""
    part = path.with_suffix(".part")
    pq.write_table(table, part, compression="lz4")
    os.replace(part, path)


# What the client reads of a shard: the pages' records, notes and sizes, not their arrays.
NOTE_COLUMNS = ("_note_source", "_note_reason", "_note_offset")
RECORD_COLUMNS = [f.name for f in _INFO_FIELDS] + ["_spots", "_blocks", *NOTE_COLUMNS]
_BLOCK_INPUTS = ["_block_hashes", "_block_weights"]


def _lists(arrays: list[np.ndarray], kind: pa.DataType) -> pa.ListArray:
    sizes = np.fromiter(map(len, arrays), dtype=np.int32, count=len(arrays))
    offsets = np.zeros(len(arrays) + 1, dtype=np.int32)
    np.cumsum(sizes, out=offsets[1:])
    values = np.concatenate(arrays) if arrays else np.empty(0)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values, type=kind))


def write_pages(pages: list[ExtractedPage], path: Path) -> None:
    columns: dict[str, list[object]] = {f.name: [getattr(p.info, f.name) for p in pages]
                                        for f in _INFO_FIELDS}
    columns["_packed"] = [p.packed.tobytes() for p in pages]
    columns["_spots"] = [p.n_spots for p in pages]
    columns["_blocks"] = [p.n_blocks for p in pages]
    columns["_note_source"] = [p.note.source if p.note else None for p in pages]
    columns["_note_reason"] = [p.note.reason if p.note else None for p in pages]
    columns["_note_offset"] = [p.note.offset if p.note else None for p in pages]
    table = {name: pa.array(values, type=pa.binary() if name == "_packed" else None)
             for name, values in columns.items()}
    table["_block_hashes"] = _lists([p.block_hashes for p in pages], pa.int64())
    table["_block_weights"] = _lists([block_weights(p.spot_block, p.n_blocks) for p in pages], pa.int32())
    _write_whole(pa.table(table), path)


_KEY = [f.name for f in _INFO_FIELDS].index("key")
_SOURCE = [f.name for f in _INFO_FIELDS].index("source")

Record = tuple[PageInfo, SkipRecord | None, int, int]  # a page's info, note, spots and blocks


def _sources(table: pa.Table, keys: list[str], shared: SharedValues) -> list[str]:
    """The source column, with the key's own string where they are equal (a folder's
    pages: one string for both) and the others shared (a WARC file's records)."""
    source = table.column("source")
    same = pc.equal(source, table.column("key")).fill_null(False)
    others = shared.column(pc.if_else(same, pa.scalar(None, source.type), source), "source")
    return [key if equal else other
            for key, other, equal in zip(keys, others, same.to_pylist(), strict=True)]


def _records(table: pa.Table, shared: SharedValues) -> list[Record]:
    """A shard's records, read column by column: a repeated value is one object
    (``SharedValues``), and no row is ever a dict."""
    shared.next_shard()
    keys = table.column("key").to_pylist()  # a page's own
    columns: list[list[Any]] = []
    for k, f in enumerate(_INFO_FIELDS):
        if k == _KEY:
            columns.append(keys)
        elif k == _SOURCE:
            columns.append(_sources(table, keys, shared))
        elif f.name in _TUPLES:
            columns.append(shared.tuples(table.column(f.name), f.name))
        else:
            columns.append(shared.column(table.column(f.name), f.name))
    spots = shared.column(table.column("_spots"), "_spots")
    blocks = shared.column(table.column("_blocks"), "_blocks")
    notes: list[SkipRecord | None] = [None] * table.num_rows
    if table.column("_note_reason").null_count < table.num_rows:  # a few pages have a note
        noted = zip(*(table.column(name).to_pylist() for name in NOTE_COLUMNS), strict=True)
        for k, (source, reason, offset) in enumerate(noted):
            if reason is not None:
                notes[k] = SkipRecord(source, reason, offset)
    infos = [PageInfo(*values) for values in zip(*columns, strict=True)]
    return list(zip(infos, notes, spots, blocks, strict=True))


def read_pages(path: str | Path) -> list[ExtractedPage]:
    """A shard's pages as the workers made them (their arrays share one buffer, as a
    batch's do: ``share_buffer``)."""
    table = pq.read_table(path, columns=[*RECORD_COLUMNS, "_packed"])
    records = _records(table, SharedValues())
    packed = table.column("_packed").to_pylist()
    pages = [ExtractedPage(info, np.frombuffer(data, dtype=np.uint8), 0, spots, blocks, note)
             for (info, note, spots, blocks), data in zip(records, packed, strict=True)]
    share_buffer(pages)  # aligned, and one buffer for the shard rather than one per page
    return pages


def read_block_inputs(path: str | Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A shard's block hashes and block weights, flat (every row's one after the other),
    and each row's number of blocks: the corpus boilerplate's inputs, nothing else."""
    table = pq.read_table(path, columns=_BLOCK_INPUTS)
    hashes = table.column(0).combine_chunks()
    weights = table.column(1).combine_chunks()
    sizes = np.diff(hashes.offsets.to_numpy()).astype(np.int64)
    return (hashes.flatten().to_numpy().astype(np.int64, copy=False),
            weights.flatten().to_numpy().astype(np.int64, copy=False), sizes)


_NO_BYTES = np.empty(0, dtype=np.uint8)


class ShardFile:
    """One shard the client reads pages of, shared by its pages: its path, and the
    reader that reads pages whole when they are asked for."""

    __slots__ = ("path", "reader")

    def __init__(self, path: str, reader: ShardReader) -> None:
        self.path = path
        self.reader = reader


class ShardPage(ExtractedPage):
    """A page whose arrays stayed in its shard: its record, note and sizes are here, its
    arrays are read from the shard only when asked for (the kept pages' file writes them
    page by page; the filters, when they run on this machine after all). Nothing of the
    arrays is kept on the page, so a run's pages cost the client their records only; and
    where it is costs a row number (its shard is its shard's pages' one object)."""

    __slots__ = ("_shard", "_row")

    def __init__(self, info: PageInfo, shard: ShardFile, row: int, n_spots: int, n_blocks: int,
                 note: SkipRecord | None) -> None:
        ExtractedPage.__init__(self, info, _NO_BYTES, 0, n_spots, n_blocks, note)
        self._shard = shard
        self._row = row

    @property
    def ref(self) -> ShardRef:
        """Where the page is (a new object each time)."""
        return ShardRef(self._shard.path, self._row, self.note)

    def _whole(self) -> ExtractedPage:
        return self._shard.reader.page(self.ref)

    @property
    def packed(self) -> np.ndarray:
        return self._shard.reader.packed(self.ref)

    @property
    def spot_ids(self) -> np.ndarray:
        return self._whole().spot_ids

    @property
    def block_hashes(self) -> np.ndarray:
        return self._whole().block_hashes

    @property
    def spot_block(self) -> np.ndarray:
        return self._whole().spot_block


class ShardReader:
    """Pages read whole from their shards, the last shard's kept: pages asked for in
    order read each shard once. A page's packed arrays alone (what the kept pages' file
    writes of every page) come from the shard's one column of them, without the records:
    making a shard's records again cost the kept pages' file 2.5 times its local time."""

    def __init__(self) -> None:
        self._path: str | None = None
        self._pages: list[ExtractedPage] = []
        self._packed_path: str | None = None
        self._packed: tuple[np.ndarray, np.ndarray] = (_NO_BYTES, np.zeros(1, np.int64))

    def page(self, ref: ShardRef) -> ExtractedPage:
        if ref.shard != self._path:
            self._path, self._pages = ref.shard, read_pages(ref.shard)
        return self._pages[ref.row]

    def packed(self, ref: ShardRef) -> np.ndarray:
        """The page's packed arrays, as bytes (a view of its shard's column)."""
        if ref.shard != self._packed_path:
            self._packed_path, self._packed = ref.shard, read_packed(ref.shard)
        values, offsets = self._packed
        return values[int(offsets[ref.row]) : int(offsets[ref.row + 1])]


def read_packed(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """A shard's packed arrays, every row's bytes one after the other, and where each
    row's start (one offset more than rows): the one column, no records made."""
    column = pq.read_table(path, columns=["_packed"]).column(0).combine_chunks()
    _, offsets, values = column.buffers()
    first = column.offset  # a sliced array's rows start further in its buffers
    ends = np.frombuffer(offsets, dtype=np.int32)[first : first + len(column) + 1].astype(np.int64)
    data = np.frombuffer(values, dtype=np.uint8) if values is not None else _NO_BYTES
    return data, ends


def write_pairs(a: np.ndarray, b: np.ndarray, similarity: np.ndarray, path: Path) -> None:
    _write_whole(pa.table({"a": a, "b": b, "similarity": similarity}), path)


def read_pairs(path: str | Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    table = pq.read_table(path)
    return (table["a"].to_numpy(), table["b"].to_numpy(), table["similarity"].to_numpy())
