"""A read-only sequence whose items are made from their number when asked for.

The Dask client keeps a million pages' records and places as columns, not objects; the
sequences that stand for them make an item from its row on each access. Slices and negative
numbers behave as a list's, written once here."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import TypeVar, overload

T = TypeVar("T")


class IndexedRows(Sequence[T]):
    """``Sequence[T]`` from :meth:`_row` and ``__len__``: a slice is a list of new items."""

    @abstractmethod
    def _row(self, k: int) -> T:
        """Item ``k``, with ``0 <= k < len(self)``."""

    @overload
    def __getitem__(self, k: int) -> T: ...

    @overload
    def __getitem__(self, k: slice) -> list[T]: ...

    def __getitem__(self, k: int | slice) -> T | list[T]:
        n = len(self)
        if isinstance(k, slice):
            return [self._row(j) for j in range(*k.indices(n))]
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError(f"page {k} of {n}")
        return self._row(k)
