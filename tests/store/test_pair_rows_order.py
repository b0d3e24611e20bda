"""A run's pairs go to SQLite in the order of the pairs table's key (issue 34 item 7: Add
Pages at least 5x faster than a full run, where saving a run's million pairs in the
matcher's order put each row at a random place in the table's B-tree)."""

from __future__ import annotations

import sqlite3
from array import array

import numpy as np

from workbench.core.records import PageInfo, Pair
from workbench.detect.join.matcher import PairResult
from workbench.store import Project
from workbench.store.runs.runs import _pair_rows


def test_rows_come_in_key_order_and_a_pair_given_twice_keeps_its_last_similarity() -> None:
    rng = np.random.default_rng(5)
    page_ids = array("q", rng.permutation(np.arange(10, 60)).tolist())  # ids unrelated to indexes
    a = rng.integers(0, 50, 400)
    b = (a + rng.integers(1, 49, 400)) % 50
    similarity = rng.random(400).astype(np.float32)
    a[7], b[7], a[300], b[300] = 3, 9, 9, 3  # the same pair twice, the other way round
    rows = list(_pair_rows(2, page_ids, PairResult(a, b, similarity, 0)))
    keys = [(run, x, y) for run, x, y, _ in rows]
    assert keys == sorted(keys) and all(x < y for _, x, y in keys)
    expected: dict[tuple[int, int], list[float]] = {}
    for i, j, s in zip(a.tolist(), b.tolist(), similarity.tolist(), strict=True):
        x, y = sorted((page_ids[i], page_ids[j]))
        expected.setdefault((x, y), []).append(s)
    given: dict[tuple[int, int], list[float]] = {}
    for _, x, y, s in rows:
        given.setdefault((x, y), []).append(s)
    assert given == expected  # each pair's similarities in the order given: the last one wins
    assert len(expected[tuple(sorted((page_ids[3], page_ids[9])))]) >= 2
    # Pair objects give the same rows.
    objects = [Pair(i, j, s) for i, j, s in zip(a.tolist(), b.tolist(), similarity.tolist(), strict=True)]
    assert list(_pair_rows(2, page_ids, objects)) == rows


def test_a_saved_run_holds_every_pair_with_its_last_similarity(tmp_path) -> None:
    pages = [PageInfo(f"p{k}.html", f"p{k}.html", signature_count=10) for k in range(6)]
    pairs = [Pair(4, 1, 0.5), Pair(0, 5, 0.7), Pair(1, 4, 0.9), Pair(2, 3, 0.6)]
    project = Project.create(tmp_path / "p.wbproj", "/crawl")
    run_id = project.save_run({"tau": 0.4}, "spotsigs", {}, pages, pairs, [])
    project.close()
    conn = sqlite3.connect(tmp_path / "p.wbproj")
    stored = conn.execute(
        "SELECT pa.key, pb.key, similarity FROM pairs JOIN pages pa ON pa.id = a JOIN pages pb ON pb.id = b "
        "WHERE run_id = ?", (run_id,)).fetchall()
    conn.close()
    assert sorted(tuple(sorted(k)) + (s,) for *k, s in stored) == [
        ("p0.html", "p5.html", 0.7), ("p1.html", "p4.html", 0.9), ("p2.html", "p3.html", 0.6)]
