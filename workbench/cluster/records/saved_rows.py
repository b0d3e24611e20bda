"""Each unit's rows saved once into the run's folder, so that tasks are given a file's name.

Every reduction over the shards gives each task the rows of its shard that the run kept,
and, for the identical pages, their numbers in the run. Carried in the task graph, they
were 8 bytes a page sent through the scheduler by every reduction: a 15.6 MiB graph at a
million pages (Dask warns from 10 MiB), six times a run, and about 800 MB a graph at 100
million. Saved once into the run's work folder (where every worker reads the shards
already), a task is given the file's name and its slice of it: a few bytes a unit.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# A unit's rows of its shard: a list, an array, or a slice of an array in a file.
UnitRows = Sequence[int] | np.ndarray


@dataclass(frozen=True, slots=True)
class SavedRows:
    """Rows ``lo:hi`` of an int64 array saved in ``path`` (a ``.npy`` file)."""

    path: str
    lo: int
    hi: int

    def __len__(self) -> int:
        return self.hi - self.lo

    def load(self) -> np.ndarray:
        """The rows, read from the file (only their slice of it)."""
        return np.array(np.load(self.path, mmap_mode="r")[self.lo : self.hi])


def saved_parts(whole: np.ndarray, ends: np.ndarray, folder: Path | str, kind: str) -> list[SavedRows]:
    """``whole`` saved into a new file of ``folder``, and its parts ending at ``ends``
    (cumulative; the last is ``len(whole)``) as slices of that file. Written under a
    temporary name and renamed: no task reads a file half written."""
    path = Path(folder) / f"{kind}-{uuid.uuid4().hex}.npy"
    part = path.with_suffix(".part")
    with open(part, "wb") as out:
        np.save(out, np.ascontiguousarray(whole, dtype=np.int64))
    os.replace(part, path)
    starts = np.concatenate([[0], ends[:-1]]) if len(ends) else ends
    return [SavedRows(str(path), lo, hi) for lo, hi in zip(starts.tolist(), ends.tolist(), strict=True)]


def rows_here(rows: UnitRows | SavedRows) -> UnitRows:
    """A task's rows as a sequence: read from their file when they were saved."""
    return rows.load() if isinstance(rows, SavedRows) else rows
