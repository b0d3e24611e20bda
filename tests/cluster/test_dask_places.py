"""Where the pages are, as arrays: the reductions' units and the rows files' segments made
from :class:`ShardPlaces` are those made from the list of refs it stands for, with no
object a page (workbench.cluster.filters.reduce, workbench.cluster.filters.rows)."""

from __future__ import annotations

import pickle
import random
from typing import Any

import numpy as np
import pytest

from workbench.cluster.filters import identical
from workbench.cluster.filters.reduce import shard_units
from workbench.cluster.filters.rows import segments, where_pages_are
from workbench.cluster.records.places import PlaceEntries, ShardPlaces
from workbench.cluster.records.saved_rows import SavedRows, rows_here
from workbench.cluster.records.shards import ShardRef
from workbench.core.records import PageInfo, SkipRecord
from workbench.detect.spotsigs.extract import ExtractedPage
from workbench.detect.workers.parallel import ListEntries, _Slot


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


def _entries(rng: random.Random) -> tuple[list[Any], list[tuple[_Slot, Any]]]:
    """A run's output as it comes: refs (some with a note), skip records, pages the client
    read (some with a note), and places a follow-up fills later with a ref, a page or a
    skip record; with what each place gets."""
    out: list[Any] = []
    fills: list[tuple[_Slot, Any]] = []
    note = lambda k: SkipRecord(f"s{k}", "read its first 10 MB only") if rng.random() < 0.2 else None  # noqa: E731
    for k, ref in enumerate(_refs(rng)):
        roll = rng.random()
        if roll < 0.1:
            out.append(SkipRecord(f"bad-{k}", "not HTML"))
        if isinstance(ref, ShardRef):
            ref = ShardRef(ref.shard, ref.row, note(k))
        elif roll < 0.5:
            ref = _held(k, note(k))
        if rng.random() < 0.15:  # a follow-up's place
            slot = _Slot()
            out.append(slot)
            fills.append((slot, ref if rng.random() < 0.8 else SkipRecord(f"gone-{k}", "revisit of nothing")))
        else:
            out.append(ref)
    return out, fills


@pytest.mark.parametrize("seed", range(40))
def test_places_kept_as_the_run_goes_are_those_of_the_list_of_its_entries(seed: int):
    entries, fills = _entries(random.Random(seed))
    listed, kept = ListEntries(), PlaceEntries()
    for entry in entries:
        listed.append(entry)
        kept.append(entry)
    for slot, value in fills:  # the follow-ups answer after the entries after them came
        slot.value = value
    want_pages, want_skipped = listed.results()
    places, skipped = kept.results()
    assert skipped == want_skipped  # skip records and notes, each in its place
    assert len(places) == len(want_pages)
    assert list(places) == want_pages  # shard, row and note of each page; held pages as they were
    assert places.rows.dtype == np.int64 and places.shards.dtype == np.int32
    assert places.paths == ShardPlaces(want_pages).paths  # in the order of their first page
    # A follow-up's page in its shard is placed there, not held as an object.
    assert np.count_nonzero(places.shards < 0) == sum(isinstance(p, ExtractedPage) for p in want_pages)


def _run_places(refs: list[Any], folder: Any) -> ShardPlaces:
    """The places a run with work folder ``folder`` makes of ``refs``."""
    entries = PlaceEntries(folder)
    for ref in refs:
        entries.append(ref)
    return entries.results()[0]


@pytest.mark.parametrize("seed", range(12))
def test_a_runs_units_are_saved_once_in_its_folder_and_read_back_the_same(seed: int, tmp_path):
    refs = _refs(random.Random(seed))
    places = _run_places(refs, tmp_path)
    want, _ = shard_units(refs)
    got, _ = shard_units(places)
    assert all(isinstance(rows, SavedRows) for _, rows in got)  # the graph names a file, not a row a page
    assert [(shard, [int(r) for r in rows_here(rows)]) for shard, rows in got] == _as_lists(want)
    assert [len(rows) for _, rows in got] == [len(rows) for _, rows in want]
    # The identical pages' units: rows and numbers, saved too.
    got_ident, want_ident = identical._units(places)[0], identical._units(refs)[0]
    read = [(shard, list(rows_here(rows)), list(rows_here(numbers))) for shard, (rows, numbers) in got_ident]
    assert read == [(shard, rows, numbers) for shard, (rows, numbers) in want_ident]
    # Every reduction of the run is given the same files: one for the rows, one for the numbers.
    assert shard_units(places)[0] == got
    assert sorted(p.name.rsplit("-", 1)[0] for p in tmp_path.iterdir()) == ["unit-pages", "unit-rows"]
    assert not list(tmp_path.glob("*.part"))


def test_a_units_graph_does_not_grow_with_its_pages(tmp_path):
    def pickled_units(pages: int) -> int:
        refs = [ShardRef(f"/work/pages-{k % 4}.parquet", k // 4) for k in range(pages)]
        return len(pickle.dumps(shard_units(_run_places(refs, tmp_path))[0]))

    small, large = pickled_units(400), pickled_units(400_000)
    assert large < small * 1.1  # arrays in the graph were 8 bytes a page: 3.2 MB here
