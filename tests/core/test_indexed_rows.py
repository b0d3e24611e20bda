"""IndexedRows: a sequence made from its rows behaves as a list for numbers and slices."""

import pytest

from workbench.core.indexed_rows import IndexedRows


class Squares(IndexedRows[int]):
    def __init__(self, n: int) -> None:
        self.n = n
        self.made: list[int] = []

    def __len__(self) -> int:
        return self.n

    def _row(self, k: int) -> int:
        self.made.append(k)
        return k * k


def test_numbers_and_slices_are_a_lists():
    rows, same = Squares(6), [k * k for k in range(6)]
    for k in range(-6, 6):
        assert rows[k] == same[k]
    for s in (slice(None), slice(1, 4), slice(None, None, -2), slice(-3, None), slice(4, 1)):
        assert rows[s] == same[s]
    assert list(rows) == same and 16 in rows and rows.index(9) == 3


def test_a_number_outside_raises_and_makes_no_row():
    rows = Squares(3)
    for k in (3, -4, 100):
        with pytest.raises(IndexError):
            rows[k]
    assert rows.made == []
