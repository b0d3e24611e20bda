"""A run's signature matrix, kept in the project for what needs it after the run.

Weak joins checked against the pages' own text (workbench.core.clusters.own_text) read the
signature matrix; without it the calibration view and Apply could not repeat the run's
clustering from its stored pairs. So such a run keeps its matrix: each page's indexed
signature ids (ascending int32, rows in the run's page order), where each row starts, and
how many of each page's signatures no other page has. About 4 bytes a signature (373 KB
for 1,000 small pages of about 93). Large arrays go in parts, so that no single value
nears SQLite's limit on a blob. A run clustered again from another keeps none of its own:
it reads its base run's (``reclustered_from``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from workbench.core.mapped_arrays import let_go

_PART_BYTES = 64 * 2**20
_TYPES = {"ptr": "<i8", "sig": "<i4", "unindexed": "<i8"}


@dataclass(frozen=True, slots=True)
class RunSignatures:
    """The arrays of workbench.detect.join.matcher.SignatureMatrix the own-text check reads."""

    ptr: np.ndarray  # int64, one more than pages
    sig: np.ndarray  # int32, ascending within each row
    unindexed: np.ndarray  # int64 per page


def save_signatures(conn: sqlite3.Connection, run_id: int, signatures: RunSignatures) -> None:
    n = len(signatures.unindexed)
    if len(signatures.ptr) != n + 1 or int(signatures.ptr[-1]) != len(signatures.sig):
        raise ValueError(f"a signature matrix of {n} pages needs {n + 1} row starts ending at "
                         f"{len(signatures.sig)}, not {len(signatures.ptr)} ending at {signatures.ptr[-1]}")
    for part, kind in _TYPES.items():
        array = np.ascontiguousarray(getattr(signatures, part), dtype=kind)
        conn.executemany(
            "INSERT INTO run_signatures (run_id, part, seq, data) VALUES (?, ?, ?, ?)",
            ((run_id, part, seq, chunk) for seq, chunk in enumerate(_chunks(array))))


def _chunks(array: np.ndarray) -> Iterator[memoryview]:
    """The array's bytes in parts of :data:`_PART_BYTES` (one empty part for an empty
    array), each part's pages let go once the next is asked for (when the array lies in a
    mapped file: a cluster run's matrix, workbench.core.mapped_arrays)."""
    data = array.data.cast("B")  # ndarray.data: the memoryview of its buffer
    raw = array.view(np.uint8)
    for start in range(0, max(len(data), 1), _PART_BYTES):
        yield data[start : start + _PART_BYTES]
        let_go(raw[start : start + _PART_BYTES])


def run_signatures(conn: sqlite3.Connection, run_id: int) -> RunSignatures | None:
    """The signature matrix the run (or the run it was clustered again from) kept; None
    when it kept none."""
    seen: set[int] = set()
    while run_id not in seen:
        seen.add(run_id)
        parts: dict[str, list[bytes]] = {}
        for part, data in conn.execute(
                "SELECT part, data FROM run_signatures WHERE run_id = ? ORDER BY part, seq", (run_id,)):
            parts.setdefault(part, []).append(data)
        if parts:
            arrays = {part: np.frombuffer(b"".join(parts.get(part, [])), dtype=kind).astype(kind[1:])
                      for part, kind in _TYPES.items()}
            return RunSignatures(arrays["ptr"], arrays["sig"], arrays["unindexed"])
        row = conn.execute("SELECT params FROM runs WHERE id = ?", (run_id,)).fetchone()
        base = json.loads(row[0]).get("reclustered_from") if row is not None else None
        if base is None:
            return None
        run_id = int(base)
    return None
