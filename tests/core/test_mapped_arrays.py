"""Arrays in a mapped file: they hold what is written, let go of their pages without losing
it, and never make the process forget an ordinary array's memory."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.resident_memory import linux_only, peak_before_let_go, resident_mb
from workbench.core import mapped_arrays
from workbench.core.mapped_arrays import RowReads, let_go, mapped_empty, mapping_of, parts, row_parts
from workbench.detect.spotsigs.matrix_kernels import row_sums


def _out_of_memory(folder: Path, value: int) -> np.ndarray:
    """64 MB of ``value`` in a mapped array, written and then let go."""
    array = mapped_empty(64 * 2**20 // 4, np.int32, folder)
    array[:] = value
    let_go(array)
    return array


def test_a_mapped_array_holds_what_is_written_through_let_go(tmp_path):
    values = np.arange(3_000_000, dtype=np.int32) * 7
    array = mapped_empty(len(values), np.int32, tmp_path)
    assert mapping_of(array) is not None
    array[:] = values
    let_go(array[1000:2_000_000])  # a view: its whole pages only
    assert np.array_equal(array, values)
    let_go(array)
    assert np.array_equal(array, values)
    assert not list(tmp_path.iterdir()) or sys.platform == "win32"  # the file has no name


def test_let_go_leaves_an_ordinary_array_alone():
    # Advice to forget the pages of the process's own memory would zero them.
    values = np.arange(2_000_000, dtype=np.int64)
    copy = values.copy()
    let_go(copy, copy[10:1_000_000])
    assert mapping_of(copy) is None
    assert np.array_equal(copy, values)


@linux_only
def test_let_go_takes_the_pages_out_of_the_resident_memory(tmp_path):
    array = mapped_empty(64 * 2**20 // 4, np.int32, tmp_path)
    array[:] = 1  # every page written, so resident
    touched = resident_mb()
    let_go(array)
    assert touched - resident_mb() > 50
    assert int(array.sum()) == len(array)  # read back from the file's pages


@linux_only
def test_a_pass_in_parts_holds_one_part_at_a_time(tmp_path):
    array = _out_of_memory(tmp_path, 3)
    before = resident_mb()
    total = 0
    most = 0.0
    for part in parts(array, items=2**20):
        total += int(part.sum())
        most = max(most, resident_mb() - before)
    assert total == 3 * len(array)
    assert most < 16  # one 4 MB part (and a page or two), not the array's 64
    assert resident_mb() - before < 8


def test_parts_cover_the_array_once(tmp_path):
    values = np.arange(10_001, dtype=np.int32)
    array = mapped_empty(len(values), np.int32, tmp_path)
    array[:] = values
    got = list(parts(array, items=1000))
    assert [len(p) for p in got] == [1000] * 10 + [1]
    assert np.array_equal(np.concatenate(got), values)
    assert [len(p) for p in parts(values, items=1000)] == [10_001]  # in memory: whole


@pytest.mark.parametrize("items", [1, 3, 7, 50, 10_000])
def test_row_parts_cover_the_rows_once_and_sum_as_a_whole(tmp_path, items):
    rng = np.random.default_rng(items)
    widths = rng.integers(0, 9, size=300)
    ptr = np.zeros(len(widths) + 1, np.int64)
    np.cumsum(widths, out=ptr[1:])
    cnt = mapped_empty(int(ptr[-1]), np.int32, tmp_path)
    cnt[:] = rng.integers(1, 5, size=len(cnt))
    ranges = list(row_parts(ptr, cnt, items=items))
    assert ranges[0][0] == 0 and ranges[-1][1] == len(widths)
    assert all(a[1] == b[0] and a[0] < a[1] for a, b in zip(ranges, ranges[1:], strict=False))
    sums = np.concatenate([row_sums(ptr[lo : hi + 1], cnt) for lo, hi in ranges])
    assert np.array_equal(sums, row_sums(ptr, np.asarray(cnt).copy()))
    assert list(row_parts(ptr, np.asarray(cnt).copy(), items=items)) == [(0, len(widths))]


def test_an_empty_array_needs_no_file(tmp_path):
    array = mapped_empty(0, np.int32, tmp_path)
    assert len(array) == 0 and array.dtype == np.int32
    let_go(array)
    assert list(parts(array)) == [array] or list(parts(array)) == []


@pytest.mark.skipif(not hasattr(os, "posix_fallocate"), reason="room is claimed ahead with posix_fallocate")
def test_a_full_disk_is_said_when_the_array_is_made(tmp_path, monkeypatch):
    def full(fd, offset, size):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(mapped_arrays.os, "posix_fallocate", full)
    with pytest.raises(OSError, match="no room for 4 MB of working arrays in"):
        mapped_empty(2**20, np.int32, tmp_path)


@linux_only
def test_rows_read_at_random_are_let_go_as_they_are_read(tmp_path, monkeypatch):
    array = _out_of_memory(tmp_path, 5)
    before = resident_mb()
    seen = peak_before_let_go(monkeypatch)
    reads = RowReads(array, np.zeros(10))  # an array in memory among them is left alone
    rng = np.random.default_rng(0)
    total = 0
    for start in rng.integers(0, len(array) - 100, size=20_000).tolist():  # most of its pages
        total += int(array[start : start + 100].sum())
        reads.read(1)
    assert total == 5 * 100 * 20_000
    assert len(seen) == 20_000 // RowReads.ROWS
    # 256 reads map up to 16 MB (64 KB a fault). Without the reads let go: about 60 MB;
    # with the file in large folios (no advice when it was made), 45 MB.
    assert max([*seen, resident_mb()]) - before < 24
