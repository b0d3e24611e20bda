"""Extracted pages and pairs as Parquet shards in a run's work directory.

A map task writes its pages here and returns only the shard's path and row numbers, so
pages never travel through the scheduler; the client reads them back when it builds the
signature matrix. Columns: every :class:`PageInfo` field, the page's packed signature
arrays (``ExtractedPage.packed``, as bytes), its spot and block counts, and the note that
travels with it (what of the page was left unread).
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
import pyarrow.parquet as pq

from workbench.core.records import PageInfo, SkipRecord
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


def write_pages(pages: list[ExtractedPage], path: Path) -> None:
    columns: dict[str, list[object]] = {f.name: [getattr(p.info, f.name) for p in pages]
                                        for f in _INFO_FIELDS}
    columns["_packed"] = [p.packed.tobytes() for p in pages]
    columns["_spots"] = [p.n_spots for p in pages]
    columns["_blocks"] = [p.n_blocks for p in pages]
    columns["_note_source"] = [p.note.source if p.note else None for p in pages]
    columns["_note_reason"] = [p.note.reason if p.note else None for p in pages]
    columns["_note_offset"] = [p.note.offset if p.note else None for p in pages]
    table = pa.table({name: pa.array(values, type=pa.binary() if name == "_packed" else None)
                      for name, values in columns.items()})
    _write_whole(table, path)


def read_pages(path: str | Path) -> list[ExtractedPage]:
    """A shard's pages as the workers made them (their arrays share one buffer, as a
    batch's do: ``share_buffer``)."""
    rows = pq.read_table(path).to_pylist()
    pages = []
    for row in rows:
        fields: dict[str, Any] = {f.name: (tuple(row[f.name]) if f.name in _TUPLES else row[f.name])
                                  for f in _INFO_FIELDS}
        info = PageInfo(**fields)
        note = (SkipRecord(row["_note_source"], row["_note_reason"], row["_note_offset"])
                if row["_note_reason"] is not None else None)
        packed = np.frombuffer(row["_packed"], dtype=np.uint8)
        pages.append(ExtractedPage(info, packed, 0, row["_spots"], row["_blocks"], note))
    share_buffer(pages)  # aligned, and one buffer for the shard rather than one per page
    return pages


def write_pairs(a: np.ndarray, b: np.ndarray, similarity: np.ndarray, path: Path) -> None:
    _write_whole(pa.table({"a": a, "b": b, "similarity": similarity}), path)


def read_pairs(path: str | Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    table = pq.read_table(path)
    return (table["a"].to_numpy(), table["b"].to_numpy(), table["similarity"].to_numpy())
