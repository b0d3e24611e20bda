"""A cluster run's pages on its client, their arrays left in their shards, in columns.

What ``extract_on(light=True)`` gives the pipeline: a ``Sequence[ExtractedPage]`` whose
item ``k`` is a :class:`ShardPage` made when asked for (its record a view of the
:class:`PageTable`, its sizes and place read from arrays), not a list of a million page
objects (96 bytes each, and a list's pointer). ``infos`` is the records' table itself,
for the pipeline's ``infos_of``: its corpus then holds no object a page either.

The records are read from the shards a group of columns at a time, and put in the pages'
order (the map tasks' logs' order: a shard's rows are almost always consecutive, and then
nothing moves).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from workbench.cluster.records.c_heap import arrow_on_c_heap
from workbench.cluster.records.page_table import FIELDS, PageTable
from workbench.cluster.records.places import ShardPlaces
from workbench.cluster.records.shards import NOTE_COLUMNS, ShardFile, ShardPage, ShardReader
from workbench.core.indexed_rows import IndexedRows
from workbench.core.records import SkipRecord
from workbench.detect.spotsigs.extract import ExtractedPage


def _same_types(chunks: list[pa.Array]) -> list[pa.Array]:
    """A column's chunks of one type: a shard whose values were all None (or all empty
    lists) wrote it as nulls (lists of nulls), the others as text."""
    kinds = [c.type for c in chunks if not pa.types.is_null(c.type)
             and not (pa.types.is_list(c.type) and pa.types.is_null(c.type.value_type))]
    if not kinds:
        return chunks
    return [c if c.type == kinds[0] else c.cast(kinds[0]) for c in chunks]


# The records' columns in the order the read-back asks for them (its counts and notes, then
# the PageTable's fields), read a group at a time: all of them at once held every record
# of the crawl in Arrow's form beside the table made of them (+840 MB at a million pages,
# the client's peak while reading back). A read of a shard costs about as much for a few
# columns as for all of them, so four groups cost what one read did, where a read a
# column cost 2.6 times as much CPU.
_ASKED = ["_spots", "_blocks", *NOTE_COLUMNS, *FIELDS]
_GROUP = -(-len(_ASKED) // 4)
_GROUPS = [_ASKED[at : at + _GROUP] for at in range(0, len(_ASKED), _GROUP)]


class LightPages(IndexedRows[ExtractedPage]):
    """The pages in ``places``' order (a ``Sequence[ExtractedPage]``): each shard's rows
    read from its records' columns; any page the client held itself (``places[k]``, not in
    a shard) as it was."""

    def __init__(self, places: ShardPlaces) -> None:
        with arrow_on_c_heap():  # the read-back's temporaries go back to the system
            self._read(places)

    def _read(self, places: ShardPlaces) -> None:
        n = len(places)
        self.places = places  # where the pages are: the cluster's reductions start from it
        reader = ShardReader()
        self._files = [ShardFile(path, reader) for path in places.paths]
        self._shards = places.shards
        self._rows = places.rows
        in_shard = places.shards >= 0
        self._others: dict[int, ExtractedPage] = {
            int(k): places[int(k)] for k in np.flatnonzero(~in_shard)}
        self._notes: dict[int, SkipRecord] = {}
        paths = places.paths
        # Each page's row among all the shards' rows (the shards one after the other).
        starts = np.zeros(len(paths) + 1, dtype=np.int64)
        np.cumsum([pq.read_metadata(path).num_rows for path in paths], out=starts[1:])
        at = np.where(in_shard, starts[np.maximum(places.shards, 0)] + places.rows, 0)
        moved = bool(self._others) or starts[-1] != n or not np.array_equal(at, np.arange(n))
        order = pa.array(at, mask=~in_shard) if moved else None

        groups = {name: group for group in _GROUPS for name in group}
        read: dict[str, list[pa.Array]] = {}  # the columns of the group read last, not yet taken

        def take(name: str) -> pa.Array:
            """Column ``name`` for every page, in the pages' order. Its group of columns
            is read from every shard when one of them is first asked for, and each
            column let go once taken."""
            if name not in read:
                read.clear()
                group = groups[name]
                read.update((column, []) for column in group)
                for path in paths:
                    table = pq.ParquetFile(path).read(columns=group, use_threads=False)
                    for column in group:
                        read[column].append(table.column(column).combine_chunks())
                    del table
            chunked = pa.chunked_array(_same_types(read.pop(name)))
            return (chunked.take(order) if order is not None else chunked).combine_chunks()

        self._spots: np.ndarray = np.zeros(n, dtype=np.int64)
        self._blocks: np.ndarray = np.zeros(n, dtype=np.int64)
        if paths:
            self._spots, self._blocks = self._ints(take("_spots"), n), self._ints(take("_blocks"), n)
            self._read_notes({name: take(name) for name in NOTE_COLUMNS})
        held = {k: page.info for k, page in self._others.items()}
        self.infos = PageTable(n, take if paths and n else None, held)
        for k, page in self._others.items():
            self._spots[k], self._blocks[k] = page.n_spots, page.n_blocks

    @staticmethod
    def _ints(values: pa.Array, n: int) -> np.ndarray:
        if not len(values):
            return np.zeros(n, dtype=np.int64)
        made: np.ndarray = values.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
        return made

    def _read_notes(self, columns: dict[str, pa.Array]) -> None:
        source, reason, offset = (columns.pop(name) for name in NOTE_COLUMNS)
        if len(reason) and reason.null_count < len(reason):  # a few pages have a note
            for k in np.flatnonzero(~reason.is_null().to_numpy(zero_copy_only=False)).tolist():
                if k not in self._others:
                    self._notes[k] = SkipRecord(source[k].as_py(), reason[k].as_py(), offset[k].as_py())

    def __len__(self) -> int:
        return len(self.infos)

    def _row(self, k: int) -> ExtractedPage:
        other = self._others.get(k)
        if other is not None:
            return other
        return ShardPage(self.infos[k], self._files[int(self._shards[k])], int(self._rows[k]),
                         int(self._spots[k]), int(self._blocks[k]), self._notes.get(k))

    def __iter__(self) -> Iterator[ExtractedPage]:
        for k in range(len(self)):
            yield self[k]

    def __setitem__(self, k: slice, values: list[None]) -> None:
        """The pipeline lets pages go as it reads their arrays, when it makes the matrix's
        rows here (``extracted[lo:hi] = [None] * n``: workbench.usecases.pipeline): a light
        page holds no array, so there is nothing to let go."""
        if any(v is not None for v in values):
            raise TypeError("light pages are read from their shards, not replaced")

    def clear(self) -> None:
        """Let go of the pages (as ``list.clear``: the pipeline's filters use them up); the
        records' table stays with whoever took it (``infos``)."""
        self.infos = PageTable(0)
        self.places = ShardPlaces(())
        self._others, self._notes, self._files = {}, {}, []
        self._shards = self._rows = self._spots = self._blocks = np.empty(0, dtype=np.int64)

