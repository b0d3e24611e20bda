"""A crawl that grew: Add Pages reads only its new and changed files, and the run it makes
is the run a full reading of the grown crawl makes (issue 34 item 7).

The detection filters are global (document frequencies, blocks a site repeats), so new
pages change what old pages keep; the test checks that they did, and that every pair
(to the last digit), cluster, skip record and page record is still a full run's. The
coder's tags, memos, "not this story" marks and hand splits carry over.
"""

from __future__ import annotations

import importlib
import inspect
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.usecases.grown_crawl import Growing, gensmall, growing_crawl
from workbench.core.records import SkipRecord
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.store import Project
from workbench.usecases import grow as grow_module
from workbench.usecases.grow import grow_into_project, keep_pages
from workbench.usecases.kept_pages import MAGIC, kept_path, load_kept
from workbench.usecases.pipeline import DedupResult, run_into_project

PARAMS = SpotSigsParams()
# The module (workbench.archive exports a function of the same name).
scan_module = importlib.import_module("workbench.archive.scan")
parallel = importlib.import_module("workbench.detect.workers.parallel")


@pytest.fixture(scope="module")
def gensmall_pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return gensmall(tmp_path_factory.mktemp("gensmall"), 2200, seed=3)


def pairs_of(result: DedupResult, floor: bool = False) -> list[tuple[str, str, float]]:
    """Every pair by its pages' keys, with its similarity as stored (exact floats)."""
    found = result.floor_pairs if floor else result.pairs
    assert found is not None
    keys = [p.key for p in result.pages]
    return sorted((keys[a], keys[b], s) for a, b, s in
                  zip(found.a.tolist(), found.b.tolist(), found.similarity.tolist(), strict=True))


def clusters_of(result: DedupResult) -> list[tuple[str, tuple[tuple[str, float], ...]]]:
    keys = [p.key for p in result.pages]
    return sorted((keys[c.reference], tuple(sorted((keys[m], s) for m, s in
                                                   zip(c.members, c.similarities, strict=True))))
                  for c in result.clusters)


def page_records(result: DedupResult) -> list[tuple]:
    return [(p.key, p.source, p.offset, p.checksum, p.signature_count, p.skip_reason, p.title)
            for p in result.pages]


def member_keys(project: Project, source: str) -> set[str]:
    page_id = project.page_id(source)
    assert page_id is not None
    cluster = project.cluster_of_page(page_id)
    assert cluster is not None
    return {m.key for m in project.members(cluster)}


def cluster_of(project: Project, source: str) -> int:
    page_id = project.page_id(source)
    assert page_id is not None
    cluster = project.cluster_of_page(page_id)
    assert cluster is not None
    return cluster


def full_run(crawl: Path, where: Path) -> DedupResult:
    project = Project.create(where, str(crawl))
    try:
        return run_into_project(project, crawl, PARAMS, workers=2)[0]
    finally:
        project.close()


def test_adding_pages_reads_only_new_files_and_equals_a_full_run(
        gensmall_pages: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    growing: Growing = growing_crawl(gensmall_pages, tmp_path)
    crawl = growing.crawl
    project = Project.create(tmp_path / "p.wbproj", str(crawl))
    first, _ = run_into_project(project, crawl, PARAMS, workers=2,
                                keep=keep_pages(project.path, crawl, PARAMS))
    assert kept_path(project.path).exists()

    # The coder's work: a tag on a cluster, a memo, a "not this story" mark, a hand split.
    big = sorted((c for c in first.clusters if len(c.members) >= 4), key=lambda c: -len(c.members))
    tagged, marked, split = ([first.pages[m].key for m in c.members] for c in big[:3])
    tag = project.add_tag("election").id
    project.tag_clusters([cluster_of(project, tagged[0])], [tag])
    project.add_memo(cluster_of(project, tagged[0]), "the election story")
    mark_on = marked[1]
    project.set_excluded(cluster_of(project, marked[0]), [project.page_id(mark_on)], True)  # type: ignore[list-item]
    split_off = split[1]
    project.split(cluster_of(project, split[0]), [project.page_id(split_off)])  # type: ignore[list-item]
    coded = set(tagged) | set(marked) | set(split)

    # A week later: every tenth file is added, one old file changed, one removed.
    growing.add()
    old_files = sorted(p.relative_to(crawl).as_posix() for p in crawl.rglob("*.html")
                       if p.relative_to(crawl).as_posix() not in set(growing.added()))
    free = [f for f in old_files if f not in coded]
    changed, removed, copied_from = free[3], free[7], free[500]
    shutil.copyfile(crawl / copied_from, crawl / changed)  # another page's text: a near duplicate now
    with open(crawl / changed, "a", encoding="utf-8") as fh:
        fh.write("<p>Corrected on Tuesday.</p>")
    (crawl / removed).unlink()

    # Files are read in this process (scan's read_file) or planned for the workers to read.
    read: list[str] = []
    reader, planner = scan_module.read_file, parallel.plan_items

    def counting(item, tracker, index):  # type: ignore[no-untyped-def]
        read.append(item.rel)
        return reader(item, tracker, index)

    def planning(items, *args, **kwargs):  # type: ignore[no-untyped-def]
        read.extend(item.rel for item in items if not isinstance(item, SkipRecord))
        return planner(items, *args, **kwargs)

    # What the filters get: with a tenth of the pages new, the kept pages must be let go
    # before them (held to the join, every page's arrays were alive through the filters).
    held_at_filters: list[int] = []
    making = grow_module.corpus_of

    def filtering(*args, **kwargs):  # type: ignore[no-untyped-def]
        held_at_filters.append(len(inspect.currentframe().f_back.f_locals["growth"].kept_pages))  # type: ignore[union-attr]
        return making(*args, **kwargs)

    monkeypatch.setattr(scan_module, "read_file", counting)
    monkeypatch.setattr(parallel, "plan_items", planning)
    monkeypatch.setattr(grow_module, "corpus_of", filtering)
    grown, run_id, growth = grow_into_project(project, crawl, PARAMS, workers=2)
    monkeypatch.undo()

    assert sorted(read) == sorted([*growing.added(), changed])  # only new and changed files
    assert sorted(growth.new) == growing.added()
    assert growth.changed == [changed] and growth.removed == [removed]
    assert growth.unchanged == len(old_files) - 2 and growth.read_all_because is None
    # A tenth of the pages are new: more than a join of the changed pages alone pays for.
    assert growth.probed.why_all is not None and "a full join is faster" in growth.probed.why_all
    assert held_at_filters == [0]

    full = full_run(crawl, tmp_path / "full.wbproj")
    assert page_records(grown) == page_records(full)
    assert pairs_of(grown) == pairs_of(full)
    assert pairs_of(grown, floor=True) == pairs_of(full, floor=True)
    assert clusters_of(grown) == clusters_of(full)
    assert grown.skipped == full.skipped
    assert grown.filters == full.filters

    # What makes this a test of the global filters: the new pages changed what old pages
    # keep, and brought near duplicates of old pages.
    before = {p.key: p.signature_count for p in first.pages}
    assert any(before.get(p.key, p.signature_count) != p.signature_count for p in grown.pages)
    added = set(growing.added())
    assert any((a in added) != (b in added) for a, b, _ in pairs_of(grown))

    # The coder's decisions are on the new run.
    assert project.current_run().id == run_id  # type: ignore[union-attr]
    tags = {r.source: r.tags for r in project.page_records()}
    assert all(tags[key] == ("election",) for key in tagged)  # tags stay on their pages
    assert [m.text for m in project.memos(cluster_of(project, tagged[0]))] == ["the election story"]
    assert [m.key for m in project.members(cluster_of(project, mark_on)) if m.excluded] == [mark_on]
    assert member_keys(project, split_off) == {split_off}
    project.close()


def test_a_second_addition_reads_only_its_own_files(gensmall_pages: Path, tmp_path: Path) -> None:
    """The kept pages are brought up to date by each addition, so the next one reads only
    what came after it; with nothing new, nothing is read."""
    growing = growing_crawl(gensmall_pages, tmp_path, every=50)
    project = Project.create(tmp_path / "p.wbproj", str(growing.crawl))
    run_into_project(project, growing.crawl, PARAMS, workers=1,
                     keep=keep_pages(project.path, growing.crawl, PARAMS))
    growing.add()
    _, _, growth = grow_into_project(project, growing.crawl, PARAMS, workers=1)
    assert sorted(growth.new) == growing.added()
    result, _, again = grow_into_project(project, growing.crawl, PARAMS, workers=1)
    assert again.read == 0 and again.removed == [] and again.read_all_because is None
    assert again.unchanged == len(list(growing.crawl.rglob("*.html")))
    kept = load_kept(kept_path(project.path))
    assert kept is not None and sum(len(f.pages) for f in kept.files.values()) == len(result.pages)
    project.close()


def test_without_kept_pages_or_with_other_settings_every_file_is_read(tmp_path: Path) -> None:
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    text = "<html><body><p>{}</p></body></html>"
    for k in range(6):
        (crawl / f"{k}.html").write_text(text.format(" ".join(f"the word{k} and a{j}" for j in range(40))))
    project = Project.create(tmp_path / "p.wbproj", str(crawl))
    _, _, growth = grow_into_project(project, crawl, PARAMS, workers=1)
    assert growth.read == 6 and growth.read_all_because == "no pages were kept from an earlier run"
    other = SpotSigsParams(main_content=False)
    _, _, growth = grow_into_project(project, crawl, other, workers=1)
    assert growth.read == 6 and growth.read_all_because == "the extraction settings changed"
    # Settings applied after extraction (tau, the filters, clustering) need no reading.
    _, _, growth = grow_into_project(project, crawl, replace(other, tau=0.5, min_sigs=3), workers=1)
    assert growth.read == 0
    # Damaged kept pages are not trusted: every file is read again.
    kept_path(project.path).write_bytes(MAGIC + b"\xff" * 40)
    _, _, growth = grow_into_project(project, crawl, other, workers=1)
    assert growth.read == 6
    project.close()


def test_kept_pages_round_trip_exactly(tmp_path: Path) -> None:
    """Every page record field and signature array comes back as it was kept."""
    from workbench.usecases.pipeline import load_corpus

    crawl = tmp_path / "crawl"
    crawl.mkdir()
    for k in range(3):
        (crawl / f"{k}.html").write_text(f"<title>T{k}</title><p>" + " ".join(
            f"this is the story {k} of a{j}" for j in range(30)) + "</p>")
    (crawl / "empty.html").write_text("")
    seen: list = []
    load_corpus(crawl, PARAMS, workers=1,
                keep=lambda pages, skipped: seen.append((list(pages), list(skipped))))
    keep_pages(tmp_path / "p.wbproj", crawl, PARAMS)(*seen[0])
    kept = load_kept(kept_path(tmp_path / "p.wbproj"))
    assert kept is not None
    pages = [p for f in kept.files.values() for p in f.pages]
    assert [p.info for p in pages] == [p.info for p in seen[0][0]]
    for a, b in zip(pages, seen[0][0], strict=True):
        assert np.array_equal(a.spot_ids, b.spot_ids) and np.array_equal(a.spot_block, b.spot_block)
        assert np.array_equal(a.block_hashes, b.block_hashes)
    assert kept.files["empty.html"].skipped == [SkipRecord("empty.html", "empty file")]


def test_revisits_of_captures_in_older_files_make_a_full_reading(tmp_path: Path) -> None:
    """A weekly WARC whose revisit records point at last week's captures: reading only the
    new file could not resolve them, so every file is read and the run is a full run's."""
    from tests.archive.test_parallel_read import _revisit
    from tests.archive.warcs import Builder, page

    crawl = tmp_path / "crawl"
    crawl.mkdir()
    week1 = Builder()
    for n in range(1, 9):
        week1.response(f"http://p.test/{n}", page(n) * 8, date=f"2020-01-01T00:00:0{n}Z")
    (crawl / "week1.warc.gz").write_bytes(week1.bytes())
    project = Project.create(tmp_path / "p.wbproj", str(crawl))
    run_into_project(project, crawl, PARAMS, workers=1, keep=keep_pages(project.path, crawl, PARAMS))

    week2 = Builder()
    week2.response("http://p.test/20", page(20) * 8, date="2020-01-08T00:00:00Z")
    _revisit(week2, "http://p.test/3", page(3) * 8, "http://p.test/3", "2020-01-01T00:00:03Z",
             "2020-01-08T00:00:01Z")
    (crawl / "week2.warc.gz").write_bytes(week2.bytes())
    grown, _, growth = grow_into_project(project, crawl, PARAMS, workers=1)
    assert growth.read_all_because == "revisit records in the new files refer to captures in other files"
    assert growth.read == 2
    full = full_run(crawl, tmp_path / "full.wbproj")
    assert page_records(grown) == page_records(full)
    assert [(p.source, p.offset) for p in grown.pages].count(("week2.warc.gz", None)) == 0
    assert pairs_of(grown) == pairs_of(full) and grown.skipped == full.skipped
    assert not any(s.reason.endswith("not in the opened folder") for s in grown.skipped)
    project.close()


def test_pairs_of_old_pages_the_filters_changed_are_found_again(
        gensmall_pages: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Add Pages probes only new pages and old pages whose signatures the filters changed,
    and takes the other old pages' pairs from the project's run. With a stricter IDF
    filter (more signatures near its boundary), the added pages move signatures across
    it and blocks in and out of the boilerplate; skipping the old pages either change
    touched gives other pairs than a full run, so both are checked."""
    from workbench.core.records import RunFilters
    from workbench.usecases import grown_pairs

    monkeypatch.setattr(grown_pairs, "MOST_PROBED", 1.0)  # probe however many pages changed
    params = replace(PARAMS, idf_low=0.5)
    growing = growing_crawl(gensmall_pages, tmp_path, every=10)
    base = tmp_path / "base.wbproj"
    project = Project.create(base, str(growing.crawl))
    first, _ = run_into_project(project, growing.crawl, params, workers=2,
                                keep=keep_pages(project.path, growing.crawl, params))
    project.close()
    growing.add()
    full = full_run_with(growing.crawl, tmp_path / "full.wbproj", params)

    def grow(name: str) -> tuple[DedupResult, list]:
        copy = tmp_path / f"{name}.wbproj"
        shutil.copyfile(base, copy)
        shutil.copyfile(kept_path(base), kept_path(copy))
        grown_project = Project.open(copy)
        try:
            result, _, growth = grow_into_project(grown_project, growing.crawl, params, workers=2)
        finally:
            grown_project.close()
        return result, [growth.probed, growth]

    grown, (probed, growth) = grow("grown")
    assert pairs_of(grown, floor=True) == pairs_of(full, floor=True)
    assert pairs_of(grown) == pairs_of(full) and clusters_of(grown) == clusters_of(full)
    # Only part of the pages were probed; the rest of the pairs came from the project.
    new_pages = sum(1 for p in grown.pages if p.source in set(growth.new))
    assert probed.why_all is None and probed.reused > 0
    assert new_pages < probed.probed < probed.active
    # The growth moved both filters.
    assert first.filters.common != full.filters.common
    assert first.filters.boilerplate != full.filters.boilerplate

    real = grown_pairs.filters_moved
    for ignored in ("common", "boilerplate"):
        def blind(kept, before, now, ignored=ignored):  # type: ignore[no-untyped-def]
            seen = (RunFilters(before.common, now.boilerplate) if ignored == "common"
                    else RunFilters(now.common, before.boilerplate))
            return real(kept, before, seen)

        monkeypatch.setattr(grown_pairs, "filters_moved", blind)
        wrong, _ = grow(f"blind-{ignored}")
        assert pairs_of(wrong, floor=True) != pairs_of(full, floor=True), ignored
    monkeypatch.undo()


def test_a_run_that_cannot_give_its_pairs_makes_every_page_matched(
        gensmall_pages: Path, tmp_path: Path) -> None:
    """Pairs are taken only from a run that stored them down to the floor asked for."""
    growing = growing_crawl(gensmall_pages, tmp_path, every=50)
    project = Project.create(tmp_path / "p.wbproj", str(growing.crawl))
    run_into_project(project, growing.crawl, replace(PARAMS, pair_floor=0.3), workers=1,
                     keep=keep_pages(project.path, growing.crawl, PARAMS))
    growing.add()
    grown, _, growth = grow_into_project(project, growing.crawl, PARAMS, workers=1)
    assert growth.probed.why_all is not None and "down to 0.3" in growth.probed.why_all
    full = full_run(growing.crawl, tmp_path / "full.wbproj")
    assert pairs_of(grown, floor=True) == pairs_of(full, floor=True)
    project.close()


def full_run_with(crawl: Path, where: Path, params: SpotSigsParams) -> DedupResult:
    project = Project.create(where, str(crawl))
    try:
        return run_into_project(project, crawl, params, workers=2)[0]
    finally:
        project.close()
