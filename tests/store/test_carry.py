"""Every re-clustering carries every decision of the coder over by page, as one undo step.

Apply (clustering the stored pairs again at another τ), Run Again, Use This Method and
applying learned ANDD weights all end in ``Project.save_run`` or ``Project.recluster``;
each must keep tags, page tags, "not this story" marks, cluster and page memos, and hand
splits and merges, list what could not map one to one, and be undone in one step that
brings the run before back with everything on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import DEMO_ARCHIVE
from tests.store.builders import page
from tests.store.test_recluster import PAIRS, floor_project
from workbench.core.records import Cluster, Pair, RunFilters
from workbench.detect.andd.andd import AnddDetector
from workbench.detect.andd.rerun import plan_rerun
from workbench.detect.spotsigs.params import params_from_record
from workbench.detect.texts import read_texts
from workbench.store import Project
from workbench.store.runs import runs
from workbench.usecases.detector_run import MethodChoice, run_method_into_project
from workbench.usecases.pipeline import run_into_project

# ------------------------------------------------------------------ helpers


def by_page(project: Project) -> dict[str, tuple]:
    """What the default export says of every clustered page: its cluster's pages, its
    "not this story" mark, the cluster's memos, its own memos and its tags."""
    records = [r for r in project.page_records() if r.cluster_id is not None]
    groups: dict[int, set[str]] = {}
    for r in records:
        groups.setdefault(r.cluster_id, set()).add(r.source)  # type: ignore[arg-type]
    return {r.source: (frozenset(groups[r.cluster_id]), r.excluded,  # type: ignore[index]
                       r.cluster_memo, r.page_memo, r.tags) for r in records}


def cluster_with(project: Project, source: str) -> int:
    pid = project.page_id(source)
    assert pid is not None
    cid = project.cluster_of_page(pid)
    assert cid is not None
    return cid


def pid(project: Project, source: str) -> int:
    page = project.page_id(source)
    assert page is not None
    return page


# -------------------------------------------------- clustering again at τ


def test_apply_carries_memos_marks_and_tags_and_lists_what_joined(tmp_path: Path) -> None:
    project = floor_project(tmp_path)
    unions = project.tag_by_name("unions")
    assert unions is not None
    a = cluster_with(project, "site0/page0.html")  # pages 0-2
    b = cluster_with(project, "site0/page3.html")  # pages 3-4
    project.tag_clusters([a], [unions.id])
    project.set_excluded(a, [pid(project, "site1/page1.html")], True)
    project.add_memo(a, "strike story")
    project.add_memo(b, "port story")
    project.add_page_memo(pid(project, "site1/page4.html"), "page four")
    project.tag_pages([pid(project, "site0/page6.html")], [unions.id])
    before = by_page(project)

    # At 0.3 the star around page 2 takes page 3 (0.35) from the other story; 4 is left.
    project.recluster(0.3)

    joined = cluster_with(project, "site0/page0.html")
    four = cluster_with(project, "site1/page4.html")
    assert cluster_with(project, "site0/page3.html") == joined != a
    assert sorted(m.text for m in project.memos(joined)) == ["port story", "strike story"]
    assert [m.text for m in project.memos(four)] == ["port story"]
    page1 = next(m for m in project.members(joined) if m.key == "site1/page1.html")
    assert page1.excluded  # pages 0 and 2 of its story are in the cluster with it
    assert project.page_memos(pid(project, "site1/page4.html"))[0].text == "page four"
    after = by_page(project)
    assert {k: v[4] for k, v in after.items()} == {k: v[4] for k, v in before.items()}
    review = project.carried_to_review()
    assert sorted((i.kind, i.cluster_id, i.memo_text) for i in review) == sorted([
        ("memo", joined, "strike story"), ("memo", joined, "port story"),
        ("memo", four, "port story")])
    notes = {(i.cluster_id, i.memo_text): i.note for i in review}
    assert "1 page joined it" in notes[joined, "strike story"]
    assert "now lie in 2 clusters" in notes[four, "port story"]

    project.mark_carried_reviewed([i.id for i in review])
    assert project.carried_to_review() == []


def test_a_memo_on_a_cluster_that_splits_goes_to_each_part_for_review(tmp_path: Path) -> None:
    project = floor_project(tmp_path)
    a = cluster_with(project, "site0/page0.html")
    project.add_memo(a, "strike story")
    project.recluster(0.95)  # above every pair: each page alone
    parts = {cluster_with(project, f"site{i % 3}/page{i}.html") for i in range(3)}
    assert len(parts) == 3
    for part in parts:
        assert [m.text for m in project.memos(part)] == ["strike story"]
    review = project.carried_to_review()
    assert sorted(i.cluster_id for i in review) == sorted(parts)  # type: ignore[type-var]
    assert all("now lie in 3 clusters" in i.note for i in review)


def test_hand_splits_and_merges_are_kept_as_the_coder_made_them(tmp_path: Path) -> None:
    project = floor_project(tmp_path)
    a = cluster_with(project, "site0/page0.html")
    b = cluster_with(project, "site0/page3.html")
    alone = cluster_with(project, "site0/page6.html")
    project.split(a, [pid(project, "site1/page1.html")])
    project.merge([b, alone], into=b)

    project.recluster(0.3)  # would join 0-4 in one cluster; the coder's clusters win

    def pages_with(source: str) -> set[str]:
        return {m.key for m in project.members(cluster_with(project, source))}

    assert pages_with("site0/page0.html") == {"site0/page0.html", "site2/page2.html"}
    assert pages_with("site1/page1.html") == {"site1/page1.html"}
    assert pages_with("site0/page3.html") == {"site0/page3.html", "site1/page4.html",
                                              "site0/page6.html"}
    assert pages_with("site2/page5.html") == {"site2/page5.html"}
    assert project.carried_to_review() == []  # kept whole: nothing to look at
    # ... and kept again by the next re-clustering.
    assert project.hand_clusters() == 3 == project.hand_clusters(project.runs()[0].id)
    project.recluster(0.2)
    assert pages_with("site0/page3.html") == {"site0/page3.html", "site1/page4.html",
                                              "site0/page6.html"}
    assert pages_with("site1/page1.html") == {"site1/page1.html"}


def test_undo_right_after_apply_brings_the_run_before_back_with_everything(tmp_path: Path) -> None:
    project = floor_project(tmp_path)
    first = project.current_run()
    assert first is not None
    a = cluster_with(project, "site0/page0.html")
    project.set_excluded(a, [pid(project, "site1/page1.html")], True)
    memo = project.add_memo(a, "strike story").id
    project.edit_memo(memo, "strike story, day two")  # type: ignore[arg-type]
    before = by_page(project)
    clusters_before = project.list_clusters(limit=100)

    project.recluster(0.3)
    info = project.next_undo()
    assert info is not None and info.description == "Cluster again at τ 0.30"

    assert project.undo() is not None
    assert project.current_run() == first
    assert by_page(project) == before
    assert project.list_clusters(limit=100) == clusters_before
    assert [m.text for m in project.memos(a)] == ["strike story, day two"]
    assert project.carried_to_review() == []
    # The next undo is the memo edit, on a cluster the coder sees again.
    assert project.undo() is not None
    assert [m.text for m in project.memos(a)] == ["strike story"]

    project.redo()
    assert project.redo() is not None  # the re-clustering again, with the memo carried
    joined = cluster_with(project, "site0/page0.html")
    assert project.current_run() != first
    assert [m.text for m in project.memos(joined)] == ["strike story, day two"]
    assert len(project.carried_to_review()) == 1
    project.close()


def test_undo_skips_coding_on_a_run_replaced_outside_an_action(tmp_path: Path) -> None:
    """A run saved by an older version was no action: undo must not then edit a memo
    of a cluster that is no longer shown (the bug: it did, invisibly)."""
    project = floor_project(tmp_path)
    a = cluster_with(project, "site0/page0.html")
    memo = project.add_memo(a, "strike story").id
    tagged = project.tag_pages([pid(project, "site0/page6.html")], [1]).action_id
    project.edit_memo(memo, "edited")  # type: ignore[arg-type]
    with project._write() as conn:  # as save_run did before every re-run was an action
        runs.save_run(conn, {"tau": 0.5}, "spotsigs", {}, *_same_run(project))
    info = project.next_undo()
    assert info is not None and info.id == tagged  # the memo steps are passed by
    assert project.undo() == tagged
    assert [m.text for m in project.memos(a)] == ["edited"]


def _same_run(project: Project) -> tuple[list, list, list[Cluster]]:
    return ([page(i) for i in range(7)], [Pair(x, y, s) for x, y, s in PAIRS],
            [Cluster(0, [0, 1, 2], [1.0, 0.9, 0.9]), Cluster(3, [3, 4], [1.0, 0.8])])


# --------------------------------------- re-running detection on the archive


@dataclass
class Decided:
    excluded: str
    split_out: str
    merged: frozenset[str]
    memos: dict[str, frozenset[str]]  # memo text -> the story pages it was on


def decide_everything(project: Project) -> Decided:
    """On the demo archive's run: a cluster tag, a page tag, a "not this story" mark, two
    cluster memos and a page memo, a hand split and a hand merge."""
    def sources(cid: int) -> list[str]:
        return [m.key for m in project.members(cid)]

    strike = cluster_with(project, "dailycourier/harbour-strike.html")
    library = cluster_with(project, "dailycourier/library-hours.html")
    flood = cluster_with(project, "dailycourier/river-flood.html")
    robots = cluster_with(project, "metroherald/robot-surgery.html")
    meals = cluster_with(project, "dailycourier/school-meals.html")
    strike_tag = project.add_tag("strike").id
    flood_tag = project.add_tag("flood").id
    project.tag_clusters([strike], [strike_tag])  # type: ignore[list-item]
    project.tag_clusters([flood, library], [flood_tag])  # type: ignore[list-item]
    project.tag_pages([pid(project, "dailycourier/school-meals.html")], [strike_tag])  # type: ignore[list-item]
    excluded = [s for s in sources(strike) if s != sources(strike)[0]][-1]
    project.set_excluded(strike, [pid(project, excluded)], True)
    project.add_memo(strike, "strike memo")
    project.add_memo(flood, "flood memo")
    project.add_page_memo(pid(project, "valleynews/river-flood.html"), "page memo")
    split_out = sources(library)[-1]
    project.split(library, [pid(project, split_out)])
    merged = frozenset(sources(robots) + sources(meals))
    project.merge([robots, meals], into=robots)
    return Decided(excluded, split_out, merged,
                   {"strike memo": frozenset(s for s in sources(strike) if s != excluded),
                    "flood memo": frozenset(sources(flood))})


def check_carried(project: Project, decided: Decided, before: dict[str, tuple]) -> None:
    after = by_page(project)
    # Tags, page tags and page memos: on the same pages.
    assert {k: (v[3], v[4]) for k, v in after.items()} == {k: (v[3], v[4]) for k, v in before.items()}
    # Hand split and merge: the coder's clusters, whole.
    assert after[decided.split_out][0] == {decided.split_out}
    assert after[next(iter(decided.merged))][0] == decided.merged
    # The mark: on the page wherever it shares a cluster with its story.
    group, excluded = after[decided.excluded][0], after[decided.excluded][1]
    story = decided.memos["strike memo"]
    assert excluded == bool(group & story)
    # Memos: on every cluster that holds the pages they were on; listed unless that
    # cluster is exactly the cluster they were written on.
    review = {(i.cluster_id, i.memo_text) for i in project.carried_to_review()}
    for text, pages in decided.memos.items():
        old_group = before[next(iter(pages))][0]
        for source in pages:
            assert text in after[source][2].split(" | ")
            same = after[source][0] == old_group
            assert ((cluster_with(project, source), text) in review) != same


def rerun_and_check(project: Project, rerun: Callable[[], object]) -> None:
    decided = decide_everything(project)
    before = by_page(project)
    first = project.current_run()
    rerun()
    assert project.current_run() != first
    check_carried(project, decided, before)
    assert project.undo() is not None  # one step takes the whole re-run back
    assert project.current_run() == first
    assert by_page(project) == before


@pytest.fixture
def demo(tmp_path: Path) -> Project:
    project = Project.create(tmp_path / "demo.wbproj", str(DEMO_ARCHIVE), coder="ann")
    run_into_project(project, DEMO_ARCHIVE, workers=1)
    yield project
    project.close()


def test_run_again_carries_every_decision(demo: Project) -> None:
    rerun_and_check(demo, lambda: run_into_project(demo, DEMO_ARCHIVE, workers=1))


def test_use_this_method_carries_every_decision(demo: Project) -> None:
    rerun_and_check(demo, lambda: run_method_into_project(
        demo, DEMO_ARCHIVE, MethodChoice("minhash", 0.3), workers=1))


def test_applying_learned_weights_carries_every_decision(demo: Project) -> None:
    def apply_learned() -> None:  # what Learn From My Coding ▸ Apply saves
        run = demo.current_run()
        assert run is not None
        detector = AnddDetector()
        texts = read_texts(DEMO_ARCHIVE, params_from_record(run.params), workers=1,
                           detector=detector)
        rerun = plan_rerun(demo, texts, features=texts.texts, k=detector.k)
        demo.save_run({**run.params, "detector": "andd", "tau": rerun.threshold},
                      AnddDetector.name, rerun.timings, rerun.pages, rerun.pairs,
                      rerun.clusters, filters=RunFilters(), skipped=rerun.skipped)

    rerun_and_check(demo, apply_learned)


def test_the_upgrade_discards_undo_steps_left_on_a_run_no_longer_shown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from workbench.store import CURRENT_VERSION, schema

    with monkeypatch.context() as m:
        m.setattr(schema, "CURRENT_VERSION", 10)  # a file of the version before
        project = floor_project(tmp_path)
        a = cluster_with(project, "site0/page0.html")
        memo = project.add_memo(a, "strike story").id
        tagged = project.tag_pages([pid(project, "site0/page6.html")], [1]).action_id
        project.edit_memo(memo, "edited")  # type: ignore[arg-type]
        with project._write() as conn:  # how that version saved a re-run
            runs.save_run(conn, {"tau": 0.5}, "spotsigs", {}, *_same_run(project))
        path = project.path
        project.close()
    with Project.open(path, backups=0) as project:
        assert project.schema_version == CURRENT_VERSION
        states = {a.id: a.state for a in project.history()}
        assert [states[i] for i in sorted(states)][-3:] == ["discarded", "done", "discarded"]
        assert states[tagged] == "done"
        assert project.undo() == tagged and project.next_undo() is not None  # add_tag
        assert project.redo() == tagged


def test_not_this_story_after_apply_takes_off_the_tag_the_story_gave_before(tmp_path: Path) -> None:
    project = floor_project(tmp_path)
    unions = project.tag_by_name("unions")
    assert unions is not None
    a = cluster_with(project, "site0/page0.html")
    project.tag_clusters([a], [unions.id])  # pages 0-2, through cluster a
    project.tag_pages([pid(project, "site1/page1.html")], [2])  # page 1's own tag
    project.recluster(0.3)
    joined = cluster_with(project, "site0/page0.html")
    one = pid(project, "site1/page1.html")

    project.set_excluded(joined, [one], True)
    page = project.page(one)
    assert page is not None and [t.name for t in page.tags] == ["feminism"]
    assert {t.name for t in project.page(pid(project, "site0/page0.html")).tags} == {"unions"}  # type: ignore[union-attr]
    project.undo()
    assert {t.name for t in project.page(one).tags} == {"unions", "feminism"}  # type: ignore[union-attr]
