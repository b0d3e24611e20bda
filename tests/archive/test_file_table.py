"""A plan holds the walk as a :class:`FileTable`: the same files, skip records and batches
as a list of entries, with no object a file (workbench.archive.file_table)."""

from __future__ import annotations

import pickle
import random
from pathlib import Path

import pytest

from workbench.archive import file_table
from workbench.archive.file_table import FileSlice, FileTable, files_size, joined
from workbench.archive.scan import FileEntry, walk
from workbench.archive.tasks import FileBatch, SplitFile, plan_items
from workbench.core.records import SkipRecord


def _items(rng: random.Random, n: int) -> list[FileEntry | SkipRecord]:
    """Files with rels that end their locations, some that do not (a name the walk made
    readable), names of every length (the empty name too) and skip records among them."""
    out: list[FileEntry | SkipRecord] = []
    for k in range(n):
        roll = rng.random()
        rel = f"site-{k % 7}/{'é' * rng.randint(0, 3)}page-{k}.html"
        if roll < 0.1:
            out.append(SkipRecord(rel, "permission denied"))
        elif roll < 0.2:
            out.append(FileEntry(f"/crawl/raw-\udcff-{k}", rel, rng.randint(0, 10**9)))
        else:
            out.append(FileEntry(f"/crawl/{rel}", rel, rng.randint(0, 10**6)))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_a_table_gives_back_every_item_across_its_chunks(seed: int, monkeypatch):
    monkeypatch.setattr(file_table, "_CHUNK", random.Random(seed).choice([1, 2, 3, 16]))
    items = _items(random.Random(seed), 200)
    table = FileTable(items)
    assert len(table) == len(items)
    assert list(table) == items
    assert files_size(table) == files_size(items)
    assert [table[k] for k in range(-len(items), 0)] == items
    with pytest.raises(IndexError):
        table[len(items)]
    rng = random.Random(seed)
    for _ in range(30):
        lo = rng.randint(0, len(items))
        hi = rng.randint(lo, len(items))
        part = table[lo:hi]
        assert isinstance(part, FileSlice) and list(part) == items[lo:hi] and len(part) == hi - lo
        assert files_size(part) == files_size(items[lo:hi])
        # Sent to a worker, a slice goes as its entries, not the table.
        assert pickle.loads(pickle.dumps(FileBatch(part))).items == items[lo:hi]


def test_slices_of_one_table_join_into_one_others_into_a_list():
    items = _items(random.Random(1), 50)
    table, other = FileTable(items), FileTable(items)
    whole = joined(table[3:10], table[10:20])
    assert isinstance(whole, FileSlice) and (whole.lo, whole.hi) == (3, 20)
    assert list(whole) == items[3:20]
    assert joined(table[3:10], table[11:20]) == items[3:10] + items[11:20]  # a gap
    assert joined(table[3:10], other[10:20]) == items[3:20]  # another table
    assert joined(items[:2], table[2:5]) == items[:5]


def test_a_plan_of_a_table_is_the_plan_of_the_list(tmp_path: Path):
    rng = random.Random(3)
    for k in range(120):
        (tmp_path / f"{k:03d}.html").write_bytes(b"<p>x</p>" * rng.randint(1, 4000))
    (tmp_path / "big.warc").write_bytes(b"WARC/1.0\r\n" + b"x" * 300_000)  # split into ranges
    listed = list(walk(tmp_path))
    for range_bytes in (None, 50_000):
        want = plan_items(listed, 2, range_bytes=range_bytes)
        got = plan_items(FileTable(listed), 2, range_bytes=range_bytes)
        assert (got.total, got.small) == (want.total, want.small)
        assert [type(u) for u in got.units] == [type(u) for u in want.units]
        for mine, theirs in zip(got.units, want.units, strict=True):
            if isinstance(mine, SplitFile):
                assert mine == theirs
            else:
                assert isinstance(mine.items, FileSlice) and list(mine.items) == list(theirs.items)
    assert any(isinstance(u, SplitFile) for u in plan_items(FileTable(listed), 2, range_bytes=50_000).units)
