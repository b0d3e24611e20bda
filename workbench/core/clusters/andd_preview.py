"""What a new clustering would change, before anyone applies it.

Given the clusters as they stand and the clusters a re-run would give (e.g. ANDD with
weights learned from the coder's clusters), list the clusters that would merge (pages of
two or more clusters, or single pages, coming together) and the clusters that would
split (one cluster's pages ending up apart), with each page's key and title so a coder
can judge the change. Clusters are lists of page indexes into ``pages``; a page in no
cluster of two or more is a cluster of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from workbench.core.records import Cluster


class TitledPage(Protocol):
    """What the preview shows of a page (PageInfo has both)."""

    @property
    def key(self) -> str: ...

    @property
    def title(self) -> str: ...


@dataclass(frozen=True, slots=True)
class PageRef:
    index: int
    key: str
    title: str


@dataclass(frozen=True, slots=True)
class ClusterChange:
    """A merge (``parts``: what comes together, from different clusters now) or a split
    (``parts``: the pieces one cluster would fall into). Parts are largest first."""

    kind: str  # "merge" or "split"
    parts: tuple[tuple[PageRef, ...], ...]

    @property
    def pages(self) -> int:
        return sum(len(part) for part in self.parts)

    def headline(self) -> str:
        """One line, e.g. 'Merge 2 clusters and 1 single page (7 pages): Adobe releases…'
        or 'Split a cluster of 7 pages into 2 clusters and 1 single page: …'."""
        groups = sum(1 for part in self.parts if len(part) > 1)
        singles = len(self.parts) - groups
        what = _and([_n(groups, "cluster") if groups else "",
                     _n(singles, "single page") if singles else ""])
        if self.kind == "merge":
            line = f"Merge {what} ({self.pages} pages)"
        else:
            line = f"Split a cluster of {self.pages} pages into {what}"
        title = next((p.title for part in self.parts for p in part if p.title), "")
        return f"{line}: {title}" if title else line


@dataclass(frozen=True, slots=True)
class Changes:
    merges: tuple[ClusterChange, ...]
    splits: tuple[ClusterChange, ...]
    unchanged: int  # clusters (of two or more pages) now that would stay exactly as they are

    @property
    def empty(self) -> bool:
        return not self.merges and not self.splits

    def summary(self) -> str:
        """E.g. '2 merges (...) and 1 split (...); 40 clusters stay as they are.'"""
        if self.empty:
            return "Nothing would change."
        merges = (f"{_n(len(self.merges), 'merge')} (pages of different clusters coming "
                  "together)") if self.merges else ""
        splits = f"{_n(len(self.splits), 'split')} (a cluster falling apart)" if self.splits else ""
        stay = ("1 cluster stays as it is" if self.unchanged == 1
                else f"{self.unchanged} clusters stay as they are")
        return f"{_and([merges, splits])}; {stay}."


def _n(count: int, noun: str) -> str:
    return f"1 {noun}" if count == 1 else f"{count} {noun}s"


def _and(items: Sequence[str]) -> str:
    return " and ".join(item for item in items if item)


def _members(cluster: Sequence[int] | Cluster) -> list[int]:
    return list(cluster.members) if isinstance(cluster, Cluster) else list(cluster)


def _labels(n: int, clusters: Sequence[Sequence[int] | Cluster], what: str) -> list[int]:
    """Cluster number of every page; a page in no cluster of two or more gets its own."""
    label = [-1] * n
    kept = [_members(c) for c in clusters]
    for number, members in enumerate(m for m in kept if len(m) >= 2):
        for page in members:
            if not 0 <= page < n:
                raise ValueError(f"Page {page} of the {what} clusters is not among the "
                                 f"{n} pages given.")
            if label[page] != -1:
                raise ValueError(f"Page {page} is in two of the {what} clusters.")
            label[page] = number
    next_label = len(kept)
    for page in range(n):
        if label[page] == -1:
            label[page] = next_label
            next_label += 1
    return label


def _parts(pages: Sequence[TitledPage], members: list[int], labels: list[int]
           ) -> tuple[tuple[PageRef, ...], ...]:
    by: dict[int, list[int]] = {}
    for page in sorted(members):
        by.setdefault(labels[page], []).append(page)
    parts = sorted(by.values(), key=lambda part: (-len(part), part[0]))
    return tuple(tuple(PageRef(i, pages[i].key, pages[i].title) for i in part)
                 for part in parts)


def preview_changes(pages: Sequence[TitledPage], old_clusters: Sequence[Sequence[int] | Cluster],
                    new_clusters: Sequence[Sequence[int] | Cluster]) -> Changes:
    """Merges and splits from ``old_clusters`` to ``new_clusters`` (page indexes into
    ``pages``; Cluster objects or lists of indexes; clusters of one page mean nothing)."""
    n = len(pages)
    old = _labels(n, old_clusters, "current")
    new = _labels(n, new_clusters, "new")
    new_groups: dict[int, list[int]] = {}
    old_groups: dict[int, list[int]] = {}
    for page in range(n):
        new_groups.setdefault(new[page], []).append(page)
        old_groups.setdefault(old[page], []).append(page)
    merges = [ClusterChange("merge", _parts(pages, members, old))
              for members in new_groups.values()
              if len(members) >= 2 and len({old[p] for p in members}) >= 2]
    splits = [ClusterChange("split", _parts(pages, members, new))
              for members in old_groups.values()
              if len(members) >= 2 and len({new[p] for p in members}) >= 2]
    unchanged = sum(1 for members in old_groups.values()
                    if len(members) >= 2 and len(new_groups[new[members[0]]]) == len(members)
                    and len({new[p] for p in members}) == 1)

    def order(change: ClusterChange) -> tuple[int, int]:
        return -change.pages, change.parts[0][0].index

    return Changes(tuple(sorted(merges, key=order)), tuple(sorted(splits, key=order)), unchanged)
