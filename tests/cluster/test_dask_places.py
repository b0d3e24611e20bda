"""Where the pages are, as arrays: the reductions' units and the rows files' segments made
from :class:`ShardPlaces` are those made from the list of refs it stands for, with no
object a page (workbench.cluster.filters.reduce, workbench.cluster.filters.rows)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from workbench.cluster.filters import identical
from workbench.cluster.filters.reduce import shard_units
from workbench.cluster.filters.rows import segments, where_pages_are
from workbench.cluster.records.places import ShardPlaces
from workbench.cluster.records.shards import ShardRef
from workbench.core.records import PageInfo
from workbench.detect.spotsigs.extract import ExtractedPage


def _held(k: int) -> ExtractedPage:
    """A page the client holds itself (not in a shard)."""
    info = PageInfo(key=f"held-{k}", source=f"held-{k}", content_type="text/html", encoding="utf-8",
                    title="", checksum=f"{k:040x}", signature_count=0)
    empty = np.empty(0, np.int64)
    return ExtractedPage.of(info, empty, empty, empty)


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
