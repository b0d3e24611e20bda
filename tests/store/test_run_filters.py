"""A run records what it left out, so the side-by-side view can show what counted."""

from __future__ import annotations

from tests.store.builders import groups_run
from workbench.core.records import RunFilters
from workbench.store import Project


def test_filters_round_trip_per_run(tmp_path):
    project = Project.create(tmp_path / "p.wbproj", "/crawl", coder="ann")
    pages, pairs, clusters = groups_run([3, 2])
    first = RunFilters(frozenset({-5, 2**62}), {"a.com": frozenset({1, 2}), "b.org": frozenset({3})})
    run1 = project.save_run({"tau": 0.5}, "spotsigs", {}, pages, pairs, clusters, filters=first)
    run2 = project.save_run({"tau": 0.6}, "spotsigs", {}, pages, pairs, clusters)
    assert project.run_filters(run1) == first
    assert project.run_filters(run2) == RunFilters()  # none recorded
    assert project.run_filters() == RunFilters()  # the current run is run 2
    project.close()
    reopened = Project.open(tmp_path / "p.wbproj")
    assert reopened.run_filters(run1) == first
    reopened.close()


def test_counted_signature_logic():
    f = RunFilters(frozenset({7}), {"a.com": frozenset({100})})
    assert not f.counted(7, 1, None)  # too common anywhere
    assert not f.counted(8, 100, "a.com")  # in a block the site repeats
    assert f.counted(8, 100, "b.org")  # the same block on another site counts
    assert f.counted(8, 100, None)


def test_skipped_inputs_are_kept_with_the_run(tmp_path):
    from workbench.core.records import SkipRecord

    project = Project.create(tmp_path / "p.wbproj", "/crawl", coder="ann")
    pages, pairs, clusters = groups_run([2], skipped=1)
    skips = [SkipRecord("bad.warc.gz", "truncated gzip member at byte 0", 0),
             SkipRecord("empty.html", "empty file")]
    project.save_run({"tau": 0.5}, "spotsigs", {}, pages, pairs, clusters, skipped=skips)
    project.close()
    reopened = Project.open(tmp_path / "p.wbproj")
    listed = reopened.skipped_pages()
    assert listed[:2] == [("bad.warc.gz#0", "truncated gzip member at byte 0"),
                          ("empty.html", "empty file")]
    assert len(listed) == 3 and listed[2][1].startswith("too little text")
    reopened.close()
