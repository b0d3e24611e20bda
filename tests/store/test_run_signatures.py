"""A run's signature matrix kept in the project, so that checked weak joins are repeated
when the run is clustered again (calibration view, Apply)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.store.builders import page
from workbench.core.clusters.calibration import Calibration, clustering_options, labels_of, run_vouch
from workbench.core.clusters.clustering import cluster_pairs
from workbench.core.records import Pair
from workbench.store import Project
from workbench.store.runs import signatures as stored
from workbench.store.runs.signatures import RunSignatures

# Pages 0-3 copy one story, pages 4-7 another rewritten from it: 0.9 within each group,
# 0.2 across. What each group does not share with the other is on no other page (pages 8
# and 9 hold other text), so a weak join checked against the text merges them.
ROWS = [[*range(10), *range(10, 15)]] * 4 + [[*range(20, 30), *range(10, 15)]] * 4 + [
    list(range(30, 40)), list(range(40, 50))]
PAIRS = [(x, y, 0.9) for group in (range(4), range(4, 8)) for x in group for y in group if x < y]
PAIRS += [(x, y, 0.2) for x in range(4) for y in range(4, 8)]
PARAMS = {"tau": 0.4, "pair_floor": 0.15, "cluster_method": "star", "corroborate_below": 0.4,
          "weak_join": 0.15, "weak_join_own_text": 0.4}


def _signatures(rows: list[list[int]] = ROWS) -> RunSignatures:
    ptr = np.cumsum([0] + [len(r) for r in rows]).astype(np.int64)
    sig = np.concatenate([np.array(r, dtype=np.int32) for r in rows])
    return RunSignatures(ptr, sig, np.arange(len(rows), dtype=np.int64) % 3)


def _run(tmp_path: Path, keep: bool) -> Project:
    a, b, s = zip(*PAIRS, strict=True)
    kept = _signatures()
    clusters = cluster_pairs("star", len(ROWS), a, b, s, 0.4, 0.4, 0.15, run_vouch(PARAMS, kept))
    project = Project.create(tmp_path / "weak.wbproj", "/crawl", coder="ann")
    project.save_run(PARAMS, "spotsigs", {}, [page(i) for i in range(len(ROWS))],
                     [Pair(x, y, v) for x, y, v in PAIRS], clusters, signatures=kept if keep else None)
    return project


def test_the_matrix_comes_back_as_it_was_saved_in_parts(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(stored, "_PART_BYTES", 24)  # several parts per array
    with _run(tmp_path, keep=True) as project:
        got = project.run_signatures()
        want = _signatures()
        assert got is not None
        for part in ("ptr", "sig", "unindexed"):
            assert np.array_equal(getattr(got, part), getattr(want, part)), part
        assert got.sig.dtype == np.int32 and got.ptr.dtype == np.int64


def test_checked_weak_joins_are_repeated_by_the_view_and_by_apply(tmp_path: Path) -> None:
    with _run(tmp_path, keep=True) as project:
        assert sorted(map(sorted, project.run_groups())) == [list(range(8))]
        run = project.current_run()
        vouch = run_vouch(run.params, project.run_signatures())
        assert vouch is not None
        graph = project.run_graph()
        view = Calibration(graph, labels_of(graph.n, project.run_groups()), method="star", run_tau=0.4,
                           floor=0.15, options=clustering_options(run.params, True), vouch=vouch)
        change = view.counts(0.4).change
        assert (change.split, change.merges, change.left) == (0, 0, 0)
        # Apply at another tau makes the same checked join; a run clustered again reads
        # its base run's matrix.
        project.recluster(0.45)
        assert sorted(map(sorted, project.run_groups())) == [list(range(8))]
        assert project.run_signatures() is not None


def test_without_the_matrix_the_weak_joins_are_left_out(tmp_path: Path) -> None:
    with _run(tmp_path, keep=False) as project:
        assert sorted(map(sorted, project.run_groups())) == [list(range(8))]
        assert project.run_signatures() is None
        assert run_vouch(project.current_run().params, None) is None
        project.recluster(0.4)
        assert sorted(map(sorted, project.run_groups())) == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_a_matrix_that_does_not_fit_its_pages_is_refused(tmp_path: Path) -> None:
    bad = _signatures()
    bad = RunSignatures(bad.ptr[:-1], bad.sig, bad.unindexed)
    project = Project.create(tmp_path / "bad.wbproj", "/crawl", coder="ann")
    with project, pytest.raises(ValueError, match="row starts"):
        project.save_run(PARAMS, "spotsigs", {}, [page(i) for i in range(len(ROWS))], [], [],
                         signatures=bad)
    with Project.open(tmp_path / "bad.wbproj") as again:
        assert again.current_run() is None  # nothing of the refused run was kept
