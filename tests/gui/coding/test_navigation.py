"""Where the coder goes next, driven with no display: next uncoded, tag and advance, which
cluster and member the side by side shows, what the status bar counts.

This module imports no Qt; ``test_runs_without_qt`` runs every other test here in a fresh
interpreter and fails if any PySide6 module was imported.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from workbench.gui.coding.navigation import (
    after_tagging,
    cluster_to_show,
    counts_text,
    edge_row,
    member_to_show,
    next_uncoded_row,
    tag_for_key,
)
from workbench.store import ActionInfo, ClusterRow, Counts, RunInfo, Tag

ROOT = Path(__file__).resolve().parents[3]


def cluster(cid: int, coded: str) -> ClusterRow:
    return ClusterRow(id=cid, size=2, min_similarity=0.9, mean_similarity=0.9, reference_page_id=cid,
                      reference_title=f"story {cid}", sites=(), site_count=1, coded=coded,
                      coded_pages=0, tags=(), memo_count=0, needs_review=False)


@dataclass
class LazyList:
    """A cluster list read a few rows at a time, as the window's table model is."""

    everything: list[ClusterRow]
    page: int = 2
    read: list[ClusterRow] = field(default_factory=list)
    fetches: int = 0

    def __post_init__(self) -> None:
        self.read = self.everything[:self.page]

    def rowCount(self) -> int:  # noqa: N802 - Qt's name
        return len(self.read)

    def row_of(self, index: int) -> ClusterRow:
        return self.read[index]

    def canFetchMore(self) -> bool:  # noqa: N802 - Qt's name
        return len(self.read) < len(self.everything)

    def fetchMore(self) -> None:  # noqa: N802 - Qt's name
        self.fetches += 1
        self.read = self.everything[:len(self.read) + self.page]


def listing(*coded: str) -> LazyList:
    return LazyList([cluster(i + 1, c) for i, c in enumerate(coded)])


def test_next_uncoded_is_the_first_uncoded_row_after_the_current_one():
    rows = listing("all", "none", "some", "none")
    assert next_uncoded_row(rows, 0) == 1
    assert next_uncoded_row(rows, 1) == 3  # "some" is coded in part: passed by


def test_next_uncoded_reads_more_of_the_list_when_none_is_read_yet():
    rows = listing("all", "all", "all", "all", "none")
    assert next_uncoded_row(rows, 0) == 4
    assert rows.fetches == 2
    assert rows.rowCount() == 5


def test_next_uncoded_starts_from_the_top_again_at_the_end():
    rows = listing("none", "all", "none", "all")
    assert next_uncoded_row(rows, 2) == 0
    assert next_uncoded_row(rows, 3) == 0


def test_next_uncoded_without_a_current_row_starts_at_the_top():
    assert next_uncoded_row(listing("all", "none"), -1) == 1


def test_next_uncoded_is_none_when_everything_is_coded():
    assert next_uncoded_row(listing("all", "some", "all"), 1) is None
    assert next_uncoded_row(listing(), -1) is None


def test_next_uncoded_never_offers_the_current_row_itself():
    assert next_uncoded_row(listing("none", "all"), 0) is None


def test_edge_rows_are_the_first_and_the_last_of_the_whole_list():
    rows = listing("all", "none", "all", "none", "all")
    assert edge_row(rows, last=False) == 0
    assert rows.fetches == 0
    assert edge_row(rows, last=True) == 4  # read to the end first
    assert edge_row(listing(), last=True) is None


def test_the_side_by_side_keeps_the_preferred_cluster_while_it_is_selected():
    assert cluster_to_show([3, 5, 7], 5) == 5
    assert cluster_to_show([3, 5, 7], 9) == 3
    assert cluster_to_show([3, 5, 7], None) == 3
    assert cluster_to_show([], 5) is None


def test_the_member_shown_stays_while_its_cluster_does():
    assert member_to_show(4, shown_cluster=4, shown_member=12, asked=None) == 12
    assert member_to_show(4, shown_cluster=4, shown_member=12, asked=13) == 13
    assert member_to_show(5, shown_cluster=4, shown_member=12, asked=None) is None


def test_a_digit_finds_the_tag_with_its_key():
    book = [Tag(1, "unions", shortcut="1"), Tag(2, "strikes", shortcut="2"), Tag(3, "other")]
    assert tag_for_key(book, "2") == book[1]
    assert tag_for_key(book, "3") is None


def done(kind: str) -> ActionInfo:
    return ActionInfo(id=1, kind=kind, description="", coder=None, created_at="", state="done")


def test_tagging_moves_on_only_when_it_added_the_tag_without_shift_and_advance_is_on():
    assert after_tagging(done("tag"), stay=False, advance_on=True).advance
    assert not after_tagging(done("tag"), stay=True, advance_on=True).advance
    assert not after_tagging(done("tag"), stay=False, advance_on=False).advance
    removed = after_tagging(done("untag"), stay=False, advance_on=True)
    assert (removed.added, removed.advance) == (False, False)
    assert after_tagging(done("tag"), stay=True, advance_on=True).added
    assert not after_tagging(None, stay=False, advance_on=True).added


@dataclass
class Counted:
    run: RunInfo | None
    figures: Counts = field(default_factory=lambda: Counts(
        clusters=4, clusters_all_coded=1, clusters_some_coded=0, clusters_need_review=0, pages=9,
        pages_coded=2))

    def current_run(self) -> RunInfo | None:
        return self.run

    def counts(self) -> Counts:
        return self.figures


def test_the_status_bar_counts_or_says_why_there_is_nothing_to_count():
    assert counts_text(None, 0) == "No project open"
    assert counts_text(Counted(run=None), 0) == "No detection run yet"
    run = RunInfo(id=1, created_at="", method="spotsigs", params={}, timings={}, software_version="",
                  page_count=9)
    assert counts_text(Counted(run=run), 1) == (
        "3 clusters and 1 single page: 1 of 4 coded — 2 of 9 pages")


def test_runs_without_qt():
    """Every other test of this module, in an interpreter that has no PySide6 loaded."""
    script = (
        "import sys\n"
        "import tests.gui.coding.test_navigation as t\n"
        "ran = 0\n"
        "for name in dir(t):\n"
        "    if name.startswith('test_') and name != 'test_runs_without_qt':\n"
        "        getattr(t, name)()\n"
        "        ran += 1\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'PySide6')\n"
        "assert not loaded, loaded\n"
        "print(ran)\n")
    done_ = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                           check=False)
    assert done_.returncode == 0, done_.stderr
    assert int(done_.stdout) >= 12
