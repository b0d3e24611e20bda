"""A run's related pairs are read off the GUI thread the first time one of its clusters
is shown: the related pane says it is reading them meanwhile, then lists the rows; the
next cluster lists its rows at once (issue 35: 5.3 s for a million pairs on the GUI
thread)."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("pytestqt")

from tests.related.builders import cluster_of_key, key, related_project  # noqa: E402
from workbench.gui.related.presenter import READING  # noqa: E402
from workbench.store.runs import related as store_related  # noqa: E402


def test_related_pairs_are_read_on_a_worker_while_the_pane_says_so(qtbot, window, tmp_path,
                                                                    monkeypatch):
    w = window
    w.related.reader.run_here = False
    readers: list[int] = []
    real = store_related.run_links

    def run_links(conn, run_id):
        readers.append(threading.get_ident())
        return real(conn, run_id)

    monkeypatch.setattr(store_related, "run_links", run_links)
    path = tmp_path / "study.wbproj"
    related_project(path).close()
    with qtbot.waitSignal(w.related.reader.settled, timeout=10_000):
        assert w.open_project(path)
        w.select_cluster(cluster_of_key(w.project, key(0)))
        # Until the worker is done the pane lists nothing and says why.
        assert w.related_pane.rows == []
        assert READING in w.related_pane.title.text()
    assert readers and threading.get_ident() not in readers, "read off the GUI thread"
    a = cluster_of_key(w.project, key(0))
    assert w.compare.cluster_id == a
    assert [r.cluster_id for r in w.related_pane.rows] == [
        cluster_of_key(w.project, key(3)), cluster_of_key(w.project, key(5))]
    assert READING not in w.related_pane.title.text()
    # The run's pairs are kept: another cluster of the run lists its rows at once.
    w.select_cluster(cluster_of_key(w.project, key(5)))
    assert [r.cluster_id for r in w.related_pane.rows] == [a]
    assert len(readers) == 1
