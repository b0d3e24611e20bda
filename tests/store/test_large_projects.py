"""What keeps a project of a million pages quick: totals kept as actions happen, a
stored page count, indexed list orders, lean saving and a backup off the opening path.

Sizes here are tiny; the timings belong in benchmarks/bench_store.py.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest

from tests.store.builders import cluster_ids, groups_run, new_project, page, tag_id
from workbench.core.records import Pair
from workbench.store import Project, ProjectError
from workbench.store.runs import queries, runs, summary
from workbench.store.safety import backup


def direct_counts(project: Project) -> tuple[int, ...]:
    """The status bar's figures counted from the summary itself."""
    row = project._read().execute(
        summary._TOTALS.replace("@WHERE@", "1")).fetchone()
    return tuple(row)


def stored_counts(project: Project) -> tuple[int, ...]:
    c = project.counts()
    return (c.clusters, c.clusters_all_coded, c.clusters_some_coded, c.clusters_need_review,
            c.pages, c.pages_coded)


def assert_totals_agree(project: Project) -> None:
    assert stored_counts(project) == direct_counts(project)
    conn = project._read()
    for coded in (None, "none", "some", "all"):
        where, args = queries._filters(coded, False)
        direct = conn.execute(f"SELECT count(*) FROM cluster_summary WHERE {where}", args).fetchone()[0]
        assert project.count_clusters(coded=coded) == direct, coded
    assert project.count_clusters(review_only=True) == conn.execute(
        "SELECT count(*) FROM cluster_summary WHERE active = 1 AND needs_review = 1").fetchone()[0]


def test_totals_follow_every_action_undo_redo_and_new_run(tmp_path: Path) -> None:
    project = new_project(tmp_path, [4, 3, 2, 2, 1, 1], skipped=1)
    ids = cluster_ids(project)
    unions, fem = tag_id(project, "unions"), tag_id(project, "feminism")
    steps = [
        lambda: project.tag_clusters(ids[:2], [unions]),
        lambda: project.tag_pages([project.members(ids[2])[0].page_id], [fem]),
        lambda: project.untag_clusters(ids[1:2], [unions]),
        lambda: project.split(ids[0], [project.members(ids[0])[-1].page_id]),
        lambda: project.merge(ids[2:4]),
        lambda: project.set_review(ids[:1], True),
        lambda: project.add_memo(ids[4], "check"),
        lambda: project.delete_tag(fem),
    ]
    for step in steps:
        step()
        assert_totals_agree(project)
    assert stored_counts(project) != (0, 0, 0, 0, 0, 0)
    while project.undo() is not None:
        assert_totals_agree(project)
    assert project.counts().pages_coded == 0
    while project.redo() is not None:
        assert_totals_agree(project)
    pages, pairs, clusters = groups_run([2, 2, 3])
    project.save_run({"tau": 0.4}, "spotsigs", {}, pages, pairs, clusters)
    assert_totals_agree(project)
    project.recluster(0.4)
    assert_totals_agree(project)
    project.close()


def test_run_page_count_is_stored_not_counted(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 1], skipped=2)
    run = project.current_run()
    assert run is not None and run.page_count == 6
    conn = sqlite3.connect(project.path)
    assert conn.execute("SELECT page_count FROM runs").fetchall() == [(6,)]
    project.recluster(0.4)
    assert conn.execute("SELECT page_count FROM runs ORDER BY id").fetchall() == [(6,), (6,)]
    conn.close()
    project.close()


def test_skipped_pages_are_those_of_the_current_run(tmp_path: Path) -> None:
    project = Project.create(tmp_path / "p.wbproj", "/crawl", coder="ann")
    pages, pairs, clusters = groups_run([2], skipped=2)
    project.save_run({"tau": 0.4}, "spotsigs", {}, pages, pairs, clusters)
    assert [k for k, _ in project.skipped_pages()] == sorted([pages[2].key, pages[3].key])
    # The next run reads only the first skipped page again (now with text).
    later = pages[:2] + [page(2)]
    project.save_run({"tau": 0.4}, "spotsigs", {}, later, pairs, clusters)
    assert project.skipped_pages() == []
    project.close()


@pytest.mark.parametrize("order", sorted(queries.ORDERS))
@pytest.mark.parametrize("coded", [None, "none", "all"])
def test_every_list_order_is_read_from_an_index(tmp_path: Path, order: str,
                                                coded: str | None) -> None:
    """No order of the list sorts every cluster again for each screen of 200 rows."""
    with new_project(tmp_path, [3, 2, 1]) as project:
        where, args = queries._filters(coded, False)
        plan = project._read().execute(
            f"EXPLAIN QUERY PLAN SELECT {queries._ROW_COLUMNS} FROM cluster_summary WHERE {where} "
            f"ORDER BY {queries.ORDERS[order]} LIMIT 200", args).fetchall()
        steps = " / ".join(r[3] for r in plan)
        assert "INDEX" in steps and "TEMP B-TREE" not in steps, steps


def test_undo_sets_only_the_columns_that_change(tmp_path: Path) -> None:
    """Setting a cluster's id to itself would make the foreign key check look for rows
    referring to it in every table that refers to clusters."""
    with new_project(tmp_path, [2, 1]) as project:
        first = cluster_ids(project)[0]
        project.set_review([first], True)
        statements: list[str] = []
        project._lane.connection.set_trace_callback(statements.append)
        project.undo()
        project.redo()
        project._lane.connection.set_trace_callback(None)
        updates = [s for s in statements if s.startswith("UPDATE clusters SET")]
        assert updates and all(s.startswith("UPDATE clusters SET needs_review = ") for s in updates)
        assert project.cluster(first).needs_review  # type: ignore[union-attr]


@pytest.mark.parametrize("url", [
    "http://site3.example.org/news/1.html", "HTTPS://WWW.Example.ORG:8080/a?b#c",
    "http://example.org", "http://example.org?q=1", "http://example.org.#top",
    "http://user:pw@example.org/x", "http://[2001:db8::1]:80/x", "http:///nohost",
    " http://padded.example.org/", "http://exa\tmple.org/", "http://example.org:port/",
    "ftp://files.example.org/a", "mailto:someone@example.org", "//example.org/x",
    "http://ex%41mple.org/", "example.org/path", "http://www.www.example.org/",
])
def test_site_of_reads_hosts_as_urlsplit_does(url: str) -> None:
    host = urlsplit(url).hostname
    expected = host.removeprefix("www.") if host else "folder"
    assert runs.site_of(page(1, url=url, source="folder/a.html")) == expected


def test_pairs_may_be_given_as_arrays(tmp_path: Path) -> None:
    pages, pairs, clusters = groups_run([3, 2])
    as_arrays = _Arrays(np.array([p.a for p in pairs]), np.array([p.b for p in pairs]),
                        np.array([p.similarity for p in pairs]))
    stored = []
    for name, given in (("objects", pairs), ("arrays", as_arrays)):
        with Project.create(tmp_path / f"{name}.wbproj", "/crawl", coder="ann") as project:
            project.save_run({"tau": 0.4}, "spotsigs", {}, pages, given, clusters)
            stored.append((len(project.run_graph()), [(r.size, r.min_similarity)
                                                      for r in project.list_clusters()]))
    assert stored[0] == stored[1] and stored[0][0] == len(pairs)
    bad = _Arrays(np.array([0]), np.array([len(pages)]), np.array([0.5]))
    with Project.create(tmp_path / "bad.wbproj", "/crawl") as project, \
            pytest.raises(ValueError, match="outside"):
        project.save_run({"tau": 0.4}, "spotsigs", {}, pages, bad, clusters)


class _Arrays:
    def __init__(self, a: np.ndarray, b: np.ndarray, similarity: np.ndarray) -> None:
        self.a, self.b, self.similarity = a, b, similarity

    def __len__(self) -> int:
        return len(self.a)


def test_a_pair_given_twice_keeps_the_last_similarity(tmp_path: Path) -> None:
    pages, _, clusters = groups_run([2])
    with Project.create(tmp_path / "p.wbproj", "/crawl") as project:
        project.save_run({"tau": 0.4}, "spotsigs", {}, pages, [Pair(0, 1, 0.5), Pair(1, 0, 0.7)],
                         clusters)
        assert project.pair_similarity(*[m.page_id for m in project.members(
            cluster_ids(project)[0])]) == 0.7


def test_a_failed_run_leaves_actions_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """save_run takes the undo triggers away while it writes; a failure brings them back."""
    project = new_project(tmp_path, [2, 1])
    pages, pairs, clusters = groups_run([2, 2])

    def power_cut(*_args: object) -> None:
        raise RuntimeError("power cut")

    monkeypatch.setattr(runs, "_finish", power_cut)
    with pytest.raises(RuntimeError):
        project.save_run({"tau": 0.4}, "spotsigs", {}, pages, pairs, clusters)
    first = cluster_ids(project)[0]
    project.tag_clusters([first], [tag_id(project, "unions")])
    assert project.cluster(first).coded == "all"  # type: ignore[union-attr]
    project.undo()
    assert project.cluster(first).coded == "none"  # type: ignore[union-attr]
    project.close()


def test_backup_is_the_file_as_opened_though_written_on_a_thread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "study.wbproj"
    new_project(tmp_path, [2, 1]).close()
    go = threading.Event()
    real = backup.make_backup

    def held_back(*args: object, **kw: object) -> Path | None:
        go.wait(10)
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(backup, "make_backup", held_back)
    project = Project.open(path, backups=2)  # returns while the copy waits
    first = cluster_ids(project)[0]
    project.tag_clusters([first], [tag_id(project, "unions")])
    go.set()
    copy = project.wait_for_backup()
    assert copy is not None and backup.list_backups(path) == [copy]
    with Project.open(copy, backups=0) as old:
        assert old.counts().pages_coded == 0 and old.integrity_problems() == []
    assert project.counts().pages_coded == 2
    project.close()


def test_a_failed_backup_is_reported_and_does_not_stop_closing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "study.wbproj"
    new_project(tmp_path, [2]).close()

    def disk_full(*_args: object, **_kw: object) -> Path | None:
        raise OSError("No space left on device")

    monkeypatch.setattr(backup, "make_backup", disk_full)
    project = Project.open(path, backups=2)
    with pytest.raises(ProjectError, match="No space left"):
        project.wait_for_backup()
    project.close()
    with Project.open(path, backups=0) as reopened:
        assert reopened.counts().clusters == 1
