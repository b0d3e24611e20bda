"""One Python object for each distinct value of the pages' records the client reads back.

Read row by row, every page's record came back with its own string (or large int) for
each field, though most fields repeat: a crawl has a handful of content types, languages
and encodings, a site's pages share their link host, near duplicates share their title and
opening, and a WARC file's records their source. A record holds about twenty of them, and
the client holds a record for every page of the crawl, so the repeats were most of its
memory for the records (about 1 KB a page of the 2 KB; measured on 20,000 small pages).

A shard's column is dictionary-encoded by pyarrow, so each value the shard repeats is made
once, and each distinct value is looked up in a dict of the values met so far (in this
shard, in any column: a page's ``<title>`` is also among its other titles). Values are
kept for later shards too, column by column, as long as that pays: a kept value costs its
dict entry (about 45 bytes) until the read-back ends, a value found again saves a string
(49 bytes and more) for the rest of the run. A column whose values rarely come back (a
page's ``<title>`` names its site and story; a WARC record's offset) stops adding its new
values once its first ``_TRIAL`` are kept and fewer than half as many were found again.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

# Values a column keeps for later shards before its hits must pay for them.
_TRIAL = 1 << 16


class _Tally:
    __slots__ = ("kept", "found")

    def __init__(self) -> None:
        self.kept = 0  # values this column added to the kept ones
        self.found = 0  # values of this column found among them, from another shard

    def keeps(self) -> bool:
        return self.kept < _TRIAL or 2 * self.found >= self.kept


class SharedValues:
    """The values of many shards' columns, one object for each distinct value (str, int,
    or tuple of str: values equal in Python only when they are the same value)."""

    def __init__(self) -> None:
        self._kept: dict[Any, Any] = {}  # across shards
        self._tallies: dict[str, _Tally] = {}
        self._shard: dict[Any, Any] = {}  # in the shard being read (every value)

    def next_shard(self) -> None:
        """The shard's own values go (those worth keeping stay)."""
        self._shard = {}

    def one(self, value: Any, column: str) -> Any:
        """The object that stands for ``value`` (the first one met)."""
        same = self._shard.get(value)
        if same is not None:
            return same
        same = self._kept.get(value)
        tally = self._tallies.get(column)
        if tally is None:
            tally = self._tallies[column] = _Tally()
        if same is not None:
            tally.found += 1
        else:
            same = value
            if tally.keeps():
                self._kept[value] = value
                tally.kept += 1
        self._shard[value] = same
        return same

    def column(self, values: pa.Array | pa.ChunkedArray, column: str) -> list[Any]:
        """``values`` as Python objects (None for nulls), each distinct one made once."""
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
        encoded = values.dictionary_encode()
        distinct = [None if v is None else self.one(v, column) for v in encoded.dictionary.to_pylist()]
        distinct.append(None)  # where the nulls point
        at = encoded.indices.fill_null(len(distinct) - 1).to_numpy(zero_copy_only=False)
        chosen: list[Any] = np.array(distinct, dtype=object)[at].tolist()  # the objects, not copies
        return chosen

    def tuples(self, values: pa.Array | pa.ChunkedArray, column: str) -> list[tuple[Any, ...]]:
        """A list column as tuples (an empty one for a null), their items and the tuples
        themselves each made once."""
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
        items = self.column(values.flatten(), column)
        sizes = values.value_lengths().fill_null(0).to_numpy(zero_copy_only=False).tolist()
        out: list[tuple[Any, ...]] = []
        at = 0
        for size in sizes:
            out.append(self.one(tuple(items[at : at + size]), column + "[]") if size else ())
            at += size
        return out
