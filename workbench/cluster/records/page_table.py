"""The pages' records on a cluster run's client, in columns: their text's bytes and a few
bytes a page more, not a Python object a field.

Read back as objects, a page's record cost the client about 750 bytes beyond the workers'
memory on 100,000 small pages (its ``PageInfo``, 208 bytes; a ``str`` for each of its key,
checksum, titles and opening, 49 bytes each beyond the text; a light page object around it),
and the client holds every page's record to the end of the run. Here each field is one
column for all the pages, as the shards hold it:

* text that rarely repeats (key, checksum, titles, opening, URL) as one run of UTF-8
  bytes with each page's offset into it; a checksum of 40 hex digits as its 20 bytes;
* text that repeats (content type, language, a WARC record's source, skip reasons) as a
  number a page into the list of its values;
* numbers as a numpy array, lists of text (``other_titles``) as text with offsets.

:class:`PageTable` is a ``Sequence[PageInfo]``: item ``k`` is a :class:`PageRow`, a view
that reads (and writes: the pipeline sets ``signature_count`` and ``skip_reason`` and gives
some pages another title) the columns, and equals the ``PageInfo`` it stands for. A page
the client holds itself (one it read here) keeps its own ``PageInfo``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from workbench.cluster.records.c_heap import arrow_on_c_heap
from workbench.core.indexed_rows import IndexedRows
from workbench.core.records import PageInfo

FIELDS = tuple(f.name for f in dataclasses.fields(PageInfo))
_CODED_SHARE = 4  # text kept as numbers into its values when it has under 1/4 as many values as pages
_HEX = "^[0-9a-f]{40}$"


def _flags(values: pa.Array) -> np.ndarray:
    """A boolean column as a numpy array of its own (written to when a value is set)."""
    return np.array(values.to_numpy(zero_copy_only=False), dtype=bool)


class _Column:
    """One field for every page."""

    def get(self, k: int) -> Any:
        raise NotImplementedError

    def set(self, k: int, value: Any) -> None:
        raise NotImplementedError

    def nbytes(self) -> int:
        raise NotImplementedError


class _Ints(_Column):
    def __init__(self, values: pa.Array) -> None:
        self._values = values.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
        self._null = _flags(values.is_null()) if values.null_count else None

    def get(self, k: int) -> int | None:
        if self._null is not None and self._null[k]:
            return None
        return int(self._values[k])

    def set(self, k: int, value: int | None) -> None:
        if value is None:
            if self._null is None:
                self._null = np.zeros(len(self._values), dtype=bool)
            self._null[k] = True
            return
        self._values[k] = value
        if self._null is not None:
            self._null[k] = False

    def nbytes(self) -> int:
        return int(self._values.nbytes) + (int(self._null.nbytes) if self._null is not None else 0)


def _narrowest(most: int) -> type[np.unsignedinteger[Any]]:
    """The smallest unsigned type that holds 0 to ``most``."""
    for kind in (np.uint8, np.uint16, np.uint32):
        if most <= np.iinfo(kind).max:
            return kind
    return np.uint64


class _Coded(_Column):
    """A number a page into the column's distinct values (None among them), in the
    narrowest type that numbers them (a byte a page for a handful)."""

    def __init__(self, values: pa.Array) -> None:
        if pa.types.is_null(values.type):
            self._values: list[Any] = [None]
            codes = np.zeros(len(values), dtype=np.int64)
        else:
            encoded = values.dictionary_encode()
            self._values = [*encoded.dictionary.to_pylist(), None]
            codes = encoded.indices.fill_null(len(self._values) - 1).to_numpy(zero_copy_only=False)
        self._codes = codes.astype(_narrowest(len(self._values)))
        self._index: dict[Any, int] | None = None  # made when a value is first set

    def get(self, k: int) -> Any:
        return self._values[self._codes[k]]

    def set(self, k: int, value: Any) -> None:
        if self._index is None:
            self._index = {v: at for at, v in enumerate(self._values)}
        at = self._index.get(value)
        if at is None:
            at = self._index[value] = len(self._values)
            self._values.append(value)
            if at > np.iinfo(self._codes.dtype).max:
                self._codes = self._codes.astype(_narrowest(at))
        self._codes[k] = at

    def nbytes(self) -> int:
        return int(self._codes.nbytes)

    def with_values(self, values: Mapping[int, Any]) -> pa.Array:
        """The column as Arrow text, page ``k`` holding ``values[k]``."""
        text = pa.array(self._values, type=pa.large_string()).take(pa.array(self._codes))
        return _replaced(text, values)


def _replaced(text: pa.Array, values: Mapping[int, Any]) -> pa.Array:
    """``text`` with row ``k`` replaced by ``values[k]`` for each ``k``."""
    if not values:
        return text
    rows = np.fromiter(values, dtype=np.int64, count=len(values))
    rows.sort()
    mask = np.zeros(len(text), dtype=bool)
    mask[rows] = True
    return pc.replace_with_mask(text, pa.array(mask),
                                pa.array([values[k] for k in rows.tolist()], type=pa.large_string()))


def _offsets(ends: np.ndarray) -> np.ndarray:
    """Offsets into a buffer, 4 bytes each while it is under 4 GB."""
    return ends.astype(_narrowest(int(ends[-1]) if len(ends) else 0))


class _Text(_Column):
    """Each page's text, one after the other in one buffer of UTF-8 bytes; a page's new
    text (a set) is kept aside."""

    def __init__(self, values: pa.Array) -> None:
        values = values.cast(pa.large_string())
        _, offsets, data = values.buffers()
        first = values.offset  # a sliced array's rows start further in its buffers
        self._ends = np.frombuffer(offsets, dtype=np.int64)[first : first + len(values) + 1].copy()
        self._data = bytes(memoryview(data)[int(self._ends[0]) : int(self._ends[-1])]) if data else b""
        self._ends = _offsets(self._ends - self._ends[0])
        self._null = values.is_null().to_numpy(zero_copy_only=False) if values.null_count else None
        self._edits: dict[int, Any] = {}

    def get(self, k: int) -> str | None:
        if self._edits and k in self._edits:
            return cast("str | None", self._edits[k])
        if self._null is not None and self._null[k]:
            return None
        return self._data[int(self._ends[k]) : int(self._ends[k + 1])].decode()

    def set(self, k: int, value: str | None) -> None:
        self._edits[k] = value

    def nbytes(self) -> int:
        nulls = int(self._null.nbytes) if self._null is not None else 0
        return len(self._data) + int(self._ends.nbytes) + nulls

    def with_values(self, values: Mapping[int, Any]) -> pa.Array:
        """The column as Arrow text, page ``k`` holding ``values[k]`` (and each value set
        since it was made), without a ``str`` made for any other page."""
        n = len(self._ends) - 1
        text = pa.LargeStringArray.from_buffers(n, pa.py_buffer(self._ends.astype(np.int64)),
                                                pa.py_buffer(self._data))
        if self._null is not None:
            text = pc.if_else(pa.array(self._null), pa.scalar(None, pa.large_string()), text)
        return _replaced(text, {**self._edits, **values})


class _Checksums(_Column):
    """40 hex digits as their 20 bytes; any other text (an empty checksum) kept aside."""

    def __init__(self, values: pa.Array) -> None:
        hexes = _flags(pc.match_substring_regex(values, _HEX).fill_null(False))
        self._raw = np.zeros((len(values), 20), dtype=np.uint8)
        self._hex = hexes
        rows = np.flatnonzero(hexes)
        if len(rows):
            digits = values.take(pa.array(rows)).cast(pa.large_string())
            _, offsets, data = digits.buffers()
            starts = np.frombuffer(offsets, dtype=np.int64)[digits.offset : digits.offset + len(digits)]
            chars = np.frombuffer(data, dtype=np.uint8)[starts[:, None] + np.arange(40)]
            nibbles = np.where(chars >= ord("a"), chars - (ord("a") - 10), chars - ord("0")).astype(np.uint8)
            self._raw[rows] = nibbles[:, 0::2] << 4 | nibbles[:, 1::2]
        others = np.flatnonzero(~hexes)
        self._others: dict[int, Any] = dict(zip(others.tolist(), values.take(pa.array(others)).to_pylist(),
                                                strict=True)) if len(others) else {}

    def get(self, k: int) -> str | None:
        if self._hex[k]:
            digits: str = self._raw[k].tobytes().hex()
            return digits
        return cast("str | None", self._others[k])

    def set(self, k: int, value: str | None) -> None:
        self._hex[k] = False
        self._others[k] = value

    def nbytes(self) -> int:
        return int(self._raw.nbytes) + int(self._hex.nbytes)


class _Tuples(_Column):
    """Each page's list of text as a tuple (an empty one for a null)."""

    def __init__(self, values: pa.Array) -> None:
        values = values.cast(pa.large_list(pa.large_string()))
        self._starts = _offsets(values.offsets.to_numpy())
        self._items = _Text(values.values)
        self._edits: dict[int, tuple[str, ...]] = {}

    def get(self, k: int) -> tuple[str, ...]:
        if self._edits and k in self._edits:
            return self._edits[k]
        items = range(int(self._starts[k]), int(self._starts[k + 1]))
        return tuple(self._items.get(j) for j in items)  # type: ignore[misc]

    def set(self, k: int, value: tuple[str, ...]) -> None:
        self._edits[k] = value

    def nbytes(self) -> int:
        return int(self._starts.nbytes) + self._items.nbytes()


class _SameAsKey(_Column):
    """A folder's page has its key for source: a flag a page, and the others' sources."""

    def __init__(self, values: pa.Array, keys: pa.Array, key_column: _Column) -> None:
        same = pc.equal(values, keys).fill_null(False)
        self._same = _flags(same)
        self._keys = key_column
        self._others = _column(pc.if_else(same, pa.scalar(None, values.type), values))

    def get(self, k: int) -> Any:
        return self._keys.get(k) if self._same[k] else self._others.get(k)

    def set(self, k: int, value: Any) -> None:
        self._same[k] = False
        self._others.set(k, value)

    def nbytes(self) -> int:
        return int(self._same.nbytes) + self._others.nbytes()


class _Same(_Column):
    """Every page the same value: a field let go of for all pages at once (its column's
    text freed, not a value kept a page); a value set since is kept aside."""

    def __init__(self, value: Any) -> None:
        self._value = value
        self._edits: dict[int, Any] = {}

    def get(self, k: int) -> Any:
        return self._edits.get(k, self._value) if self._edits else self._value

    def set(self, k: int, value: Any) -> None:
        self._edits[k] = value

    def nbytes(self) -> int:
        return 0


def _column(values: pa.Array) -> _Column:
    kind = values.type
    if pa.types.is_integer(kind):
        return _Ints(values)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _Tuples(values)
    if pa.types.is_null(kind) or _CODED_SHARE * pc.count_distinct(values, mode="all").as_py() < len(values):
        return _Coded(values)
    return _Text(values)


def _field_column(name: str, values: pa.Array, keys: pa.Array | None, columns: dict[str, _Column]) -> _Column:
    if name == "checksum" and pa.types.is_string(values.type):
        return _Checksums(values)
    if name == "source" and keys is not None and "key" in columns:
        return _SameAsKey(values, keys, columns["key"])
    return _column(values)


class PageRow:
    """Page ``k`` of a :class:`PageTable`: its fields read from (and written to) the
    table's columns. Equal to the ``PageInfo`` it stands for; pickled as one."""

    __slots__ = ("_table", "_k")

    def __init__(self, table: PageTable, k: int) -> None:
        self._table = table
        self._k = k

    def to_info(self) -> PageInfo:
        return PageInfo(*self._values())

    def _values(self) -> tuple[Any, ...]:
        return tuple(self._table.value(self._k, name) for name in FIELDS)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PageRow):
            return self._values() == other._values()
        if isinstance(other, PageInfo):
            return self._values() == dataclasses.astuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # as PageInfo's: its fields change

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return PageInfo, self._values()

    def __repr__(self) -> str:
        return repr(self.to_info())


def _field(name: str) -> property:
    def get(row: PageRow) -> Any:
        return row._table.value(row._k, name)

    def put(row: PageRow, value: Any) -> None:
        row._table.set_value(row._k, name, value)

    return property(get, put, doc=f"The page's ``{name}`` (PageInfo).")


for _name in FIELDS:
    setattr(PageRow, _name, _field(_name))


class PageTable(IndexedRows[PageInfo]):
    """The records of ``pages`` pages in columns. ``column(name)`` gives a ``PageInfo``
    field's values, a row a page in the pages' order; it is asked for one field at a time,
    in ``FIELDS``' order, so that whoever reads them can let each go once its column is
    made (None: every page is held). ``held``: pages the client holds the ``PageInfo`` of
    itself, by number (their rows in the columns are not read)."""

    def __init__(self, pages: int, column: Callable[[str], pa.Array] | None = None,
                 held: dict[int, PageInfo] | None = None) -> None:
        self._n = pages
        self._held = held or {}
        self._columns: dict[str, _Column] = {}
        if column is None:
            if len(self._held) != pages:
                raise ValueError(f"no records for {pages - len(self._held):,} pages")
            return
        keys = None  # the keys' values, while a page's source may be its key
        for name in FIELDS:
            values = column(name)
            if len(values) != pages:
                raise ValueError(f"{len(values):,} records for {pages:,} pages")
            self._columns[name] = _field_column(name, values, keys, self._columns)
            keys = values if name == "key" else None if name == "source" else keys

    def __len__(self) -> int:
        return self._n

    def _row(self, k: int) -> PageInfo:
        held = self._held.get(k)
        # A view with PageInfo's fields, not a PageInfo: typed as one for its users.
        return held if held is not None else cast(PageInfo, PageRow(self, k))

    def __iter__(self) -> Iterator[PageInfo]:
        for k in range(self._n):
            yield self._row(k)

    def __eq__(self, other: object) -> bool:
        """Equal to the list of the same records, as the list it stands in for."""
        if not isinstance(other, PageTable | list):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # as a list's

    def value(self, k: int, name: str) -> Any:
        if self._held:  # rarely: a page the client read itself
            held = self._held.get(k)
            if held is not None:
                return getattr(held, name)
        return self._columns[name].get(k)

    def set_value(self, k: int, name: str, value: Any) -> None:
        held = self._held.get(k)
        if held is not None:
            setattr(held, name, value)
        else:
            self._columns[name].set(k, value)

    def set_for_every_page(self, name: str, value: Any) -> None:
        """Field ``name`` of every page set to ``value``: its column goes (the site labels'
        candidates, let go once the titles are settled). Set a page at a time, it would keep
        a value for each page aside (two dict entries a page over a million pages)."""
        for held in self._held.values():
            setattr(held, name, value)
        if self._columns:
            self._columns[name] = _Same(value)

    def set_many(self, name: str, values: Mapping[int, Any]) -> None:
        """Field ``name`` of page ``k`` set to ``values[k]``, for each ``k`` at once: the
        column is made anew with them. Set a page at a time, each value would stay aside
        as its own objects, made among the caller's temporaries, which then could not go
        back to the system either (giving site labels' pages another title grew a 100,000
        pages' client by about 80 MB)."""
        column = self._columns.get(name)
        for k, value in values.items():
            held = self._held.get(k)
            if held is not None:
                setattr(held, name, value)
            elif column is not None and not isinstance(column, _Text | _Coded):
                column.set(k, value)
        if isinstance(column, _Text | _Coded) and values:
            # Made in Arrow from the column's own bytes: a str a page (a million of them,
            # freed among objects that stay) left Python's arenas fragmented.
            with arrow_on_c_heap():
                self._columns[name] = _column(column.with_values(values))

    def nbytes(self) -> int:
        """The bytes of the columns' arrays and text (not of values set since)."""
        return sum(c.nbytes() for c in self._columns.values())

