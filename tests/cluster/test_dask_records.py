"""The pages' records a cluster run's client reads back are the records the workers wrote,
field by field, in a few bytes a page beyond their own values: a value the pages repeat is
one object (across shards too), and where
the pages are is two integer arrays (workbench.cluster.records.places), not an object a page."""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import pickle
import tracemalloc
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from workbench.cluster.extract import _read_back, _records_of
from workbench.cluster.records import shared_values
from workbench.cluster.records.places import ShardPlaces
from workbench.cluster.records.shards import ShardPage, ShardRef, read_pages, write_pages
from workbench.cluster.records.shared_values import SharedValues
from workbench.core.records import PageInfo, SkipRecord
from workbench.detect.spotsigs.extract import ExtractedPage
from workbench.text.site_titles import retitle_site_labels


def _page(k: int, **fields: object) -> ExtractedPage:
    """Page ``k`` with a few signatures of its own (k changes its arrays' sizes)."""
    name, tag = f"site{k % 3}.example/{k:05d}.html", f"Story {k % 4} | Site"
    info = PageInfo(key=name, source=name, content_type="text/html", encoding="utf-8", title=f"Story {k % 4}",
                    checksum=f"{k:040x}", signature_count=5 + k, language="en", link_host="site.example",
                    title_tag=tag, other_titles=("More on this story", tag),
                    opening=f"It began on day {k % 2}…", **fields)  # type: ignore[arg-type]
    spots, blocks = 3 + k % 5, 1 + k % 3
    ids = np.arange(spots, dtype=np.int64)
    return ExtractedPage.of(info, ids * (k + 1), ids % blocks, np.arange(blocks, dtype=np.int64) + 7 * k)


def _odd_pages() -> list[ExtractedPage]:
    """Pages whose records have every kind of value: None, empty, long, not ASCII, ints
    beyond the small ones Python shares, no other titles, a note, a WARC record's source."""
    return [
        _page(0),
        _page(1, offset=123_456_789, url="https://x.example/a?b=1", capture_date="2024-05-01T10:00:00Z",
              http_status=200, published="2024-04-30", published_from="meta", url_from="warc",
              captured_from="warc"),
        ExtractedPage.of(PageInfo(key="c.warc.gz#0", source="c.warc.gz", offset=0, title="", checksum="",
                                  signature_count=0, skip_reason="too little text: no spot signatures",
                                  other_titles=(), signature_kind="punctuation", title_tag="",
                                  opening="", language=None, encoding=None, content_type=None),
                         np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.int64),
                         note=SkipRecord("c.warc.gz", "truncated at 10 MB", 0)),
        ExtractedPage.of(PageInfo(key="c.warc.gz#9000", source="c.warc.gz", offset=9000, http_status=404,
                                  title="Ünïcödé — 記事 " * 20, other_titles=("Only one",),
                                  signature_count=70_000),
                         np.arange(300, dtype=np.int64), np.zeros(300, np.int64), np.array([5], np.int64)),
    ]


def test_a_records_fields_come_back_as_written(tmp_path: Path):
    written = _odd_pages()
    shard = tmp_path / "pages-a.parquet"
    write_pages(written, shard)
    whole = [(p.info, p.note, p.n_spots, p.n_blocks) for p in read_pages(shard)]
    # The client's columns (a view a page), as a --dask run reads its records back.
    places = ShardPlaces([ShardRef(str(shard), k) for k in range(len(written))])
    light = [(p.info, p.note, p.n_spots, p.n_blocks) for p in _records_of(places)]
    for back in (light, whole):
        assert len(back) == len(written)
        for (info, note, spots, blocks), page in zip(back, written, strict=True):
            for name in PageInfo.__dataclass_fields__:
                got, want = getattr(info, name), getattr(page.info, name)
                assert got == want and type(got) is type(want), (name, got, want)
            assert (note, spots, blocks) == (page.note, page.n_spots, page.n_blocks)


def _two_shards(tmp_path: Path) -> tuple[list[ExtractedPage], list[ShardRef]]:
    """12 pages in two shards (7 and 5), and refs to them in reading order."""
    pages = [_page(k) for k in range(12)]
    first, second = tmp_path / "pages-1.parquet", tmp_path / "pages-2.parquet"
    write_pages(pages[:7], first)
    write_pages(pages[7:], second)
    refs = [ShardRef(str(first), k) for k in range(7)] + [ShardRef(str(second), k) for k in range(5)]
    return pages, refs


def test_the_records_come_back_in_columns_across_shards(tmp_path: Path):
    pages, refs = _two_shards(tmp_path)
    back = _records_of(ShardPlaces(refs))
    assert [p.info for p in back] == [p.info for p in pages]
    assert list(back.infos) == [p.info for p in pages]  # the table the pipeline takes
    assert [(p.n_spots, p.n_blocks) for p in back] == [(p.n_spots, p.n_blocks) for p in pages]
    infos = back.infos
    assert all(info.source == info.key for info in infos)  # a folder's page: its key for source


def test_a_records_view_reads_and_writes_its_columns(tmp_path: Path):
    written = _odd_pages()
    shard = tmp_path / "pages-a.parquet"
    write_pages(written, shard)
    back = _records_of(ShardPlaces([ShardRef(str(shard), k) for k in range(len(written))]))
    infos = back.infos
    row = infos[1]
    row.signature_count, row.skip_reason, row.title = 3, "too little text: 3 signatures", "Another title"
    row.checksum, row.other_titles, row.offset = "", ("One",), None
    want = dataclasses.replace(written[1].info, signature_count=3, title="Another title", checksum="",
                               skip_reason="too little text: 3 signatures", other_titles=("One",),
                               offset=None)
    assert infos[1] == want and want == infos[1]  # either way round
    assert infos[0] == written[0].info and infos[2] == written[2].info  # the others as they were
    assert pickle.loads(pickle.dumps(infos[1])) == want  # pickled as the PageInfo it stands for
    assert type(pickle.loads(pickle.dumps(infos[1]))) is PageInfo
    assert infos[-1] == written[-1].info and infos[1:3] == [want, written[2].info]


def test_a_shards_pages_are_where_they_were_and_read_whole(tmp_path: Path):
    pages, refs = _two_shards(tmp_path)
    client_page = _page(99)  # a page the client read itself, among the refs
    refs = refs[:3] + [client_page] + refs[3:]
    places = ShardPlaces(refs)
    assert len(places) == len(refs) and list(places) == refs and places[-1] == refs[-1]
    assert places[3] is client_page and places[1:3] == refs[1:3]
    with pytest.raises(IndexError):
        places[len(refs)]
    back = _records_of(places)
    assert back[3] is client_page
    light = [p for p in back if isinstance(p, ShardPage)]
    assert [p.ref for p in light] == [r for r in refs if isinstance(r, ShardRef)]
    assert len({id(p.ref.shard) for p in light}) == 2  # a shard's path: one string for its pages
    whole = _read_back(places)
    for mine, made in zip([p for p in back if p is not client_page], pages, strict=True):
        assert mine.packed.tobytes() == made.packed.tobytes()
        assert np.array_equal(mine.spot_block, made.spot_block)
    assert [p.info for p in whole] == [p.info for p in back]


def test_a_refs_note_stays_with_its_place(tmp_path: Path):
    note = SkipRecord("a.html", "read its first 10 MB only")
    refs = [ShardRef("pages-x.parquet", 0), ShardRef("pages-x.parquet", 1, note),
            ShardRef("pages-y.parquet", 0)]
    places = ShardPlaces(refs)
    assert list(places) == refs
    assert places.paths == ["pages-x.parquet", "pages-y.parquet"]
    assert places.rows.dtype == np.int64 and places.shards.dtype == np.int32


def test_values_that_rarely_repeat_stop_being_kept(monkeypatch):
    monkeypatch.setattr(shared_values, "_TRIAL", 8)
    shared = SharedValues()
    for shard in range(10):
        shared.next_shard()
        for k in range(10):
            shared.one(f"key {shard} {k}", "key")  # never again
            shared.one(f"title {k}", "title")  # in every shard
    kept = shared._kept
    assert sum(v.startswith("key") for v in kept) == 8  # its trial only
    assert sum(v.startswith("title") for v in kept) == 10
    shared.next_shard()
    assert shared.one("title 3", "title") is shared.one("".join(["title ", "3"]), "title")


def _story(k: int) -> ExtractedPage:
    """A page with text of its own, as a crawl's pages have: key, checksum, titles, opening."""
    key = f"news/site{k % 40:02d}.example/2024/05/{k:06d}-story.html"
    title = f"Story {k} on the bridge"
    tag = f"{title} | Site {k % 40}"
    info = PageInfo(key=key, source=key, content_type="text/html", encoding="utf-8", title=title,
                    checksum=hashlib.sha1(str(k).encode()).hexdigest(), signature_count=30 + k % 50,
                    language="en",
                    link_host=f"site{k % 40}.example", title_tag=tag, other_titles=(tag, f"Site {k % 40}"),
                    opening=f"The council said on Monday that bridge {k} would close for a week")
    ids = np.arange(5, dtype=np.int64)
    return ExtractedPage.of(info, ids + k, ids % 2, np.array([k, k + 1], dtype=np.int64))


def _text_bytes(info: PageInfo) -> int:
    texts = (info.key, info.title, info.title_tag, info.opening, *info.other_titles)
    return sum(len(s.encode()) for s in texts)


def test_the_records_cost_the_client_little_beyond_their_text(tmp_path: Path):
    """Live Python and numpy bytes a page once the records are back, beyond the UTF-8 bytes
    of the page's own text: about 110 here (in columns), about 700 as a PageInfo, its
    strings and a ShardPage a page (measured when this was written)."""
    pages, per_shard = 4000, 1000
    refs: list[ShardRef] = []
    for s in range(pages // per_shard):
        path = tmp_path / f"pages-{s}.parquet"
        write_pages([_story(k) for k in range(s * per_shard, (s + 1) * per_shard)], path)
        refs += [ShardRef(str(path), r) for r in range(per_shard)]
    places = ShardPlaces(refs)
    del refs
    # What it imports, first; and a shard's rows need not all be pages of the run.
    one = _records_of(ShardPlaces([ShardRef(str(tmp_path / "pages-0.parquet"), 7)]))
    assert len(one) == 1 and one[0].info == _story(7).info
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        back = _records_of(places)
        gc.collect()
        live = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(back) == pages and back[1234].info == _story(1234).info
    text = sum(_text_bytes(_story(k).info) for k in range(pages))
    beyond = (live - text) / pages
    print(f"{beyond:.0f} bytes a page beyond the text")
    assert beyond < 200, f"{beyond:.0f} bytes a page beyond the text"


def _labelled(k: int) -> ExtractedPage:
    """:func:`_story`, but a third of the pages are titled with their site's label."""
    page = _story(k)
    if k % 3 == 0:
        page.info.title = f"Site {k % 40} Weekly"
    return page


def test_letting_go_of_the_title_candidates_keeps_nothing_a_page(tmp_path: Path):
    """Once the site labels are settled, every page's other titles and opening go. On the
    client's columns that frees their text and keeps no value a page aside (set a page
    at a time, two dict entries and two ints a page stayed to the end of the run)."""
    pages = 6000
    path = tmp_path / "pages-0.parquet"
    write_pages([_labelled(k) for k in range(pages)], path)
    tracemalloc.start()  # before the columns are made: a column made anew replaces a traced one
    try:
        infos = _records_of(ShardPlaces([ShardRef(str(path), r) for r in range(pages)])).infos
        full = infos.nbytes()
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        retitled = retitle_site_labels(infos, lambda page: page.link_host)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # The labelled pages take their next candidate (their <title>); the others keep theirs.
    assert retitled == pages // 3
    assert infos[3].title == _story(3).info.title_tag and infos[17].title == _story(17).info.title
    assert infos[17].key == _story(17).info.key
    assert all(p.other_titles == () and p.opening == "" for p in infos)
    candidates = sum(len(p.info.opening.encode()) + sum(len(t.encode()) for t in p.info.other_titles)
                     for p in map(_labelled, range(pages)))
    assert infos.nbytes() < full - candidates  # their text is gone from the columns
    # Nothing kept beyond what the columns now hold (their text and arrays).
    beyond = (kept - (infos.nbytes() - full)) / pages
    print(f"{beyond:.0f} bytes a page kept beyond the columns")
    assert beyond < 12, f"{beyond:.0f} bytes a page kept beyond the columns"
    infos[3].opening = "set again"  # a page's value can still be set
    assert infos[3].opening == "set again" and infos[4].opening == ""


def test_settling_site_labels_holds_little_a_page_at_once(tmp_path: Path):
    """Finding the site labels reads every page's candidates (title, other titles,
    opening); only those that several pages of a site offer are kept as text while it
    goes on. Keeping every candidate as a key (most are a page's own) held about 1 KB a
    page at once: the client's peak on a 300,000-page --dask run."""
    pages = 6000
    path = tmp_path / "pages-0.parquet"
    write_pages([_labelled(k) for k in range(pages)], path)
    infos = _records_of(ShardPlaces([ShardRef(str(path), r) for r in range(pages)])).infos
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        retitled = retitle_site_labels(infos, lambda page: page.link_host)
        held = (tracemalloc.get_traced_memory()[1] - start) / pages
    finally:
        tracemalloc.stop()
    assert retitled == pages // 3
    print(f"{held:.0f} bytes a page held at most while the labels were settled")
    assert held < 250, f"{held:.0f} bytes a page held at most while the labels were settled"


def test_fields_set_for_many_pages_at_once(tmp_path: Path):
    written = _odd_pages()
    shard = tmp_path / "pages-a.parquet"
    write_pages(written, shard)
    client_page = _page(99)  # a page the client holds itself, among the shard's
    refs: list[ShardRef | ExtractedPage] = [ShardRef(str(shard), k) for k in range(len(written))]
    places = ShardPlaces([*refs[:2], client_page, *refs[2:]])
    infos = _records_of(places).infos
    infos.set_many("title", {0: "New", 2: "Held's new", 4: None})
    infos.set_many("signature_count", {1: 77, 2: 78})
    infos.set_for_every_page("opening", "")
    want = [p.info for p in (*written[:2], client_page, *written[2:])]
    want = [dataclasses.replace(w, opening="") for w in want]
    want[0].title, want[2].title, want[4].title = "New", "Held's new", None  # type: ignore[assignment]
    want[1].signature_count = 77
    want[2].signature_count = 78
    assert list(infos) == want
    assert client_page.info.title == "Held's new"  # the held page's own record


@pytest.mark.parametrize("seed", range(8))
def test_text_set_for_many_pages_is_made_from_the_columns_own_bytes(seed):
    """A text column (text that repeats, or not; nulls; values set one at a time before)
    given new values for some pages holds what a list of every page's text would."""
    from workbench.cluster.records.page_table import _column

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    pool = [f"title {k} é" for k in range(3 if seed % 2 else 1000)]  # repeating (coded) or not
    values = [None if rng.random() < 0.2 else pool[int(rng.integers(len(pool)))] for _ in range(n)]
    column = _column(pa.array(values, type=pa.large_string()))
    for k in rng.integers(0, n, size=3).tolist():  # set one at a time first
        values[k] = column_value = f"edited {k}"
        column.set(k, column_value)
    new = {int(k): (None if rng.random() < 0.3 else f"new {k}") for k in rng.integers(0, n, size=5)}
    got = column.with_values(new)
    want = [new.get(k, values[k]) for k in range(n)]
    assert got.to_pylist() == want
    assert [_column(got).get(k) for k in range(n)] == want
