"""Where the pages are, as arrays: the reductions' units and the rows files' segments made
from :class:`ShardPlaces` are those made from the list of refs it stands for, with no
object a page (workbench.cluster.filters.reduce, workbench.cluster.filters.rows)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from workbench.archive.tasks import Revisit
from workbench.cluster.extract import _placed
from workbench.cluster.filters import identical
from workbench.cluster.filters.reduce import shard_units
from workbench.cluster.filters.rows import segments, where_pages_are
from workbench.cluster.records.places import ShardPlaces
from workbench.cluster.records.shards import ShardRef, ShardRun
from workbench.core.records import PageInfo, SkipRecord
from workbench.detect.spotsigs.extract import ExtractedPage


def _held(k: int, note: SkipRecord | None = None) -> ExtractedPage:
    """A page the client holds itself (not in a shard)."""
    info = PageInfo(key=f"held-{k}", source=f"held-{k}", content_type="text/html", encoding="utf-8",
                    title="", checksum=f"{k:040x}", signature_count=0)
    empty = np.empty(0, np.int64)
    return ExtractedPage.of(info, empty, empty, empty, note=note)


def _refs(rng: random.Random) -> list[Any]:
    """Refs in a run's order: shards read in turn, a shard's rows mostly consecutive but
    sometimes split, left out or coming back later, with pages the client holds between."""
    refs: list[Any] = []
    shards = [f"/work/pages-{s}.parquet" for s in range(rng.randint(1, 6))]
    for shard in shards:
        rows = [r for r in range(rng.randint(1, 30)) if rng.random() > 0.1]
        cut = rng.randint(0, len(rows))
        refs.extend(ShardRef(shard, r) for r in rows[:cut])
        if rng.random() < 0.3:
            refs.append(_held(len(refs)))
        later = [ShardRef(shard, r) for r in rows[cut:]]
        if rng.random() < 0.3 and refs:  # the rest of this shard after another's pages
            at = rng.randint(0, len(refs))
            refs[at:at] = later
        else:
            refs.extend(later)
    return refs


def _as_lists(units: list[tuple[str, Any]]) -> list[tuple[str, list[int]]]:
    return [(shard, [int(r) for r in rows]) for shard, rows in units]


@pytest.mark.parametrize("seed", range(40))
def test_units_and_segments_from_places_are_the_refs_ones(seed: int):
    refs = _refs(random.Random(seed))
    places = ShardPlaces(refs)
    want_units, want_here = shard_units(refs)
    got_units, got_here = shard_units(places)
    assert _as_lists(got_units) == _as_lists(want_units)
    assert all(isinstance(rows, np.ndarray) for _, rows in got_units)  # no int object a page
    assert [p.info.key for p in got_here] == [p.info.key for p in want_here]
    assert segments(places) == segments(refs)
    # The identical pages' reduction: each shard's rows with their pages' numbers in the run.
    got, want = identical._units(places), identical._units(refs)
    assert [(shard, [int(r) for r in rows], [int(k) for k in numbers]) for shard, (rows, numbers) in got[0]] \
        == [(shard, rows, numbers) for shard, (rows, numbers) in want[0]]
    assert got[1:] == want[1:]


def test_segments_of_places_follow_the_run_order_not_the_rows():
    a, b = "/work/pages-a.parquet", "/work/pages-b.parquet"
    refs = [ShardRef(a, 0), ShardRef(a, 1), ShardRef(b, 0), ShardRef(a, 3), ShardRef(a, 2), _held(0),
            ShardRef(b, 1)]
    # a's rows 0, 1, 3, 2 are its unit's positions 0, 1, 2, 3: one run broken only by b's page.
    assert segments(ShardPlaces(refs)) == [(0, 0, 2), (1, 0, 1), (0, 2, 4), (-1, 0, 1), (1, 1, 2)]
    assert segments(ShardPlaces(refs)) == segments(refs)
    assert segments(ShardPlaces([])) == []


def test_light_pages_give_their_places_not_a_ref_a_page():
    class Light:  # what where_pages_are sees of a light pages' sequence: its places
        places = ShardPlaces([ShardRef("/work/pages-a.parquet", 0)])

    from workbench.cluster.records import light_pages

    light = object.__new__(light_pages.LightPages)
    light.places = Light.places
    assert where_pages_are(light) is Light.places
    held = _held(0)
    assert where_pages_are([held]) == [held]


def _runs_of(refs: list[Any], rng: random.Random) -> list[Any]:
    """``refs`` with some of the consecutive rows of one shard joined into a run."""
    out: list[Any] = []
    run: ShardRun | None = None
    for ref in refs:
        follows = (isinstance(ref, ShardRef) and run is not None and ref.shard == run.shard
                   and ref.row == run.first + run.count)
        if follows and rng.random() < 0.8:
            assert run is not None
            run.add(ref.note)
        elif isinstance(ref, ShardRef) and rng.random() < 0.7:
            run = ShardRun(ref.shard, ref.row)
            run.add(ref.note)
            out.append(run)
        else:
            out.append(ref)
            run = None
    return out


@pytest.mark.parametrize("seed", range(40))
def test_runs_of_pages_are_placed_as_the_refs_they_stand_for(seed: int):
    rng = random.Random(seed)
    refs = [ShardRef(r.shard, r.row, SkipRecord(r.shard, f"note {k}") if rng.random() < 0.1 else None)
            if isinstance(r, ShardRef) else r for k, r in enumerate(_refs(rng))]
    runs = _runs_of(refs, rng)
    places = ShardPlaces(runs)
    assert len(places) == len(refs)
    assert list(places) == refs  # every page's shard, row and note, and the held pages
    assert places.paths == ShardPlaces(refs).paths
    assert places.rows.dtype == np.int64 and places.shards.dtype == np.int32


def test_a_tasks_pages_come_back_as_runs_broken_where_one_must_stand_alone():
    note = SkipRecord("x.warc", "read its first 10 MB only")
    pages = [_held(k, note if k == 1 else None) for k in range(7)]
    revisit = Revisit(rv=None, local=None, yielded=True, has_result=True)  # type: ignore[arg-type]
    skip = SkipRecord("y.html", "not HTML")
    log = [pages[0], pages[1], revisit, pages[2], pages[3], skip, pages[4], pages[5],
           Revisit(rv=None, local=None), pages[6]]  # type: ignore[arg-type]
    written: list[ExtractedPage] = []
    out = _placed(log, "s.parquet", written, runs=True)
    assert written == pages  # every page in the shard, in the log's order
    kinds = [type(item).__name__ for item in out]
    # The revisit's result stands alone (the replay takes the one item after it); a
    # revisit with no result breaks a run but the page after it starts one.
    assert kinds == ["ShardRun", "Revisit", "ShardRef", "ShardRun", "SkipRecord", "ShardRun",
                     "Revisit", "ShardRun"]
    assert [(r.first, r.count) for r in out if isinstance(r, ShardRun)] == [(0, 2), (3, 1), (4, 2), (6, 1)]
    assert out[2] == ShardRef("s.parquet", 2, None)
    assert out[0].notes() == [note] and out[3].notes() == []
    # A follow-up's pages fill one slot each: refs, never runs.
    alone = _placed(list(pages[:3]), "t.parquet", [], runs=False)
    assert alone == [ShardRef("t.parquet", k, p.note) for k, p in enumerate(pages[:3])]
