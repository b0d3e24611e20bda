"""Where the coder goes next and what the window shows meanwhile (Qt-free).

The window asks these functions which row N moves to, whether a coding key moves on
after tagging, which of the selected clusters the side by side shows and what the
status bar counts; it only carries the answers out on its widgets. The cluster list is
seen through :class:`ClusterList`, which the window's lazily filled table model is, so
tests drive all of it with a plain list and no display.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from workbench.gui.coding.feedback import progress_text
from workbench.store import ActionInfo, ClusterRow, Counts, RunInfo, Tag

# The action kind of a tag added to clusters (an untag is another kind): only adding a
# tag moves on to the next uncoded cluster.
TAG_ADDED = "tag"


class ClusterList(Protocol):
    """The cluster list as navigation needs it: rows read so far, and more on demand.

    Qt's names, so that the window's table model is one as it stands."""

    def rowCount(self) -> int: ...  # noqa: N802 - Qt's name

    def row_of(self, index: int) -> ClusterRow: ...

    def canFetchMore(self) -> bool: ...  # noqa: N802 - Qt's name

    def fetchMore(self) -> None: ...  # noqa: N802 - Qt's name


class CountedProject(Protocol):
    """What the status bar's counts are read from (a :class:`workbench.store.Project`)."""

    def current_run(self) -> RunInfo | None: ...

    def counts(self) -> Counts: ...


def next_uncoded_row(rows: ClusterList, current: int) -> int | None:
    """N: the first uncoded row after ``current`` (-1: none), fetching more of the list
    as needed, then from the top again up to ``current``; None when every row is coded."""
    row = current + 1
    while True:
        while row < rows.rowCount():
            if rows.row_of(row).coded == "none":
                return row
            row += 1
        if not rows.canFetchMore():
            break
        rows.fetchMore()
    return next((r for r in range(0, max(current, 0)) if rows.row_of(r).coded == "none"), None)


def edge_row(rows: ClusterList, *, last: bool) -> int | None:
    """Ctrl+Home / Ctrl+End: the first or the last row of the whole list (the last is
    only known once every row is read); None for an empty list."""
    if last:
        while rows.canFetchMore():
            rows.fetchMore()
    count = rows.rowCount()
    if not count:
        return None
    return count - 1 if last else 0


def cluster_to_show(selected: Sequence[int], preferred: int | None) -> int | None:
    """Of the selected clusters, the one the side by side shows: ``preferred`` (the one
    shown already, or the list's current row) while it is selected, else the first."""
    if not selected:
        return None
    return preferred if preferred in selected else selected[0]


def member_to_show(target: int, shown_cluster: int | None, shown_member: int | None,
                   asked: int | None) -> int | None:
    """The member page to show of ``target`` after a refresh: the one asked for, else the
    one shown now when the cluster stays the same (None: the cluster's reference)."""
    if asked is None and target == shown_cluster:
        return shown_member
    return asked


def tag_for_key(codebook: Iterable[Tag], key: str) -> Tag | None:
    """The tag a digit key toggles (None: no tag has that key)."""
    return next((t for t in codebook if t.shortcut == key), None)


@dataclass(frozen=True, slots=True)
class AfterTagging:
    """What a coding key did once it toggled a tag: ``added`` (else removed) and whether
    the window moves on to the next uncoded cluster."""

    added: bool
    advance: bool


def after_tagging(done: ActionInfo | None, *, stay: bool, advance_on: bool) -> AfterTagging:
    """A tag key moves on only when it added the tag, the coder did not hold Shift
    (``stay``) and "Advance After Tagging" is on; removing a tag never moves on."""
    added = done is not None and done.kind == TAG_ADDED
    return AfterTagging(added=added, advance=added and not stay and advance_on)


def counts_text(project: CountedProject | None, singles: int) -> str:
    """The status bar's progress: clusters and pages coded, or why there is none."""
    if project is None:
        return "No project open"
    if project.current_run() is None:
        return "No detection run yet"
    c = project.counts()
    return progress_text(c.clusters_all_coded, c.clusters, singles, c.pages_coded, c.pages)
