"""Issue 35 through the window: the page header shows when each page was published and
captured (and how that is known); the cluster list sorts by first seen, last seen, span
and number of sites."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from tests.gui.conftest import RUN_TIMEOUT_MS
from workbench.gui.models import COL_FIRST, COL_LAST, COL_SITE_COUNT, COL_SPAN

DATES = Path(__file__).resolve().parents[2] / "data" / "dates"


_BOLTON = ("The committee chairman said on Tuesday that the vote on the nominee would wait until the "
           "staff had heard from the officials who raised concerns about his treatment of others. ")
_BRIDGE = ("A harbour master told reporters at the port that ferries could not sail past the old "
           "bridge while its span was being lifted for repairs over the winter months. ")


def _story(sentence: str) -> str:
    return " ".join(f"<p>{sentence}It was report {i} of the day.</p>" for i in range(30))


def _write_corpus(folder: Path) -> None:
    """Two stories of two copies each: a Wayback copy dated only by its rewritten links
    and a copy stating its publication (2005); a copy stating it in JSON-LD and one in a
    byline (2017)."""
    folder.mkdir()
    wayback = (DATES / "wayback_links_only.html").read_text(encoding="utf-8")
    bolton = _story(_BOLTON)
    (folder / "0,2933,152780,00.html").write_text(wayback.replace("</h1>", "</h1>" + bolton),
                                                  encoding="utf-8")
    meta = (DATES / "published_meta.html").read_text(encoding="utf-8")
    (folder / "bolton-vote.html").write_text(meta.replace("</h1>", "</h1>" + bolton), encoding="utf-8")
    bridge = _story(_BRIDGE)
    jsonld = (DATES / "published_jsonld.html").read_text(encoding="utf-8")
    (folder / "bridge-a.html").write_text(jsonld.replace("</h1>", "</h1>" + bridge), encoding="utf-8")
    # Its copy states its date only in a byline: htmldate's pass after the run finds it.
    byline = '<p class="byline">By Tom Hale, published March 18, 2017</p>'
    (folder / "bridge-b.html").write_text(
        "<html><head><title>Council approves new bridge</title></head><body>"
        f"<h1>Council approves new bridge</h1>{byline}{bridge}<p>Update.</p></body></html>", encoding="utf-8")


def _cells(model, column):
    return [model.data(model.index(r, column), Qt.ItemDataRole.DisplayRole) for r in range(model.rowCount())]


def test_header_shows_published_and_captured_with_their_sources(qtbot, window, tmp_path):
    _write_corpus(tmp_path / "crawl")
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        window.open_archive(tmp_path / "crawl")
    model = window.model
    assert [r.size for r in model.rows] == [2, 2]
    row = next(i for i, r in enumerate(model.rows) if (r.first_seen or "").startswith("2005"))
    window.select_row(row)
    headers = window.compare.left.header.text() + window.compare.right.header.text()
    assert "published 2005-04-08 (meta)" in headers
    assert "captured 2005-04-09 13:06 (links)" in headers
    assert "http://www.foxnews.com/story/0,2933,152780,00.html" in headers
    row = next(i for i, r in enumerate(model.rows) if (r.first_seen or "").startswith("2017"))
    window.select_row(row)
    headers = window.compare.left.header.text() + window.compare.right.header.text()
    assert "published 2017-03-15 (JSON-LD)" in headers
    assert "published 2017-03-18 (page text)" in headers  # htmldate, after the run


def test_cluster_list_sorts_by_first_seen_last_seen_span_and_site_count(qtbot, window, tmp_path):
    _write_corpus(tmp_path / "crawl")
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        window.open_archive(tmp_path / "crawl")
    model, table = window.model, window.table
    table.sortByColumn(COL_FIRST, Qt.SortOrder.AscendingOrder)
    assert _cells(model, COL_FIRST) == ["2005-04-08", "2017-03-15"]
    table.sortByColumn(COL_FIRST, Qt.SortOrder.DescendingOrder)
    assert _cells(model, COL_FIRST) == ["2017-03-15", "2005-04-08"]
    table.sortByColumn(COL_LAST, Qt.SortOrder.AscendingOrder)
    assert _cells(model, COL_LAST) == ["2005-04-09", "2017-03-18"]
    # 2005-04-08 to 2005-04-09 13:06 is 37 hours; 2017-03-15 to 18 three days.
    table.sortByColumn(COL_SPAN, Qt.SortOrder.DescendingOrder)
    assert _cells(model, COL_SPAN) == ["3.0 d", "1.5 d"]
    table.sortByColumn(COL_SPAN, Qt.SortOrder.AscendingOrder)
    assert _cells(model, COL_SPAN) == ["1.5 d", "3.0 d"]
    # The Wayback copy names foxnews.com; no other page names a site.
    table.sortByColumn(COL_SITE_COUNT, Qt.SortOrder.DescendingOrder)
    assert _cells(model, COL_SITE_COUNT) == ["1", ""]
