"""The review queue's logic (no Qt): the sample's disagreements as rows of coders side
by side, and settling one (one undoable step, store.team.review.settle).

Coders are numbered in name order, so key 1 takes the first coder's codes, 2 the
second's; "final" settles on the codes the cluster carries now, which the lead sets in
the window with the usual tag keys.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.store import Project, ProjectError
from workbench.store.team import Disagreement, disagreements, get_sample, list_samples, settle
from workbench.store.team.samples import Sample


@dataclass(frozen=True, slots=True)
class CoderSide:
    """One coder's decisions on the cluster, in words."""

    coder: str
    tags: tuple[str, ...]  # tag names, sorted
    excluded: tuple[str, ...]  # pages they marked "not this story" (site: title)
    memos: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ReviewRow:
    cluster_id: int
    title: str
    sides: tuple[CoderSide, ...]  # in coder-name order: key 1 is sides[0]
    final: tuple[str, ...]  # the cluster's final codes now (names)
    settled: bool

    def line(self) -> str:
        """The queue's line: the cluster, whether settled, and each coder's tags."""
        mark = "✓ settled" if self.settled else "• open"
        coders = "  |  ".join(f"{i}. {s.coder}: {', '.join(s.tags) or '(no tag)'}"
                              for i, s in enumerate(self.sides, 1))
        return f"{mark}  Cluster {self.cluster_id} — {self.title}\n    {coders}"


def review_samples(project: Project) -> list[Sample]:
    """The samples a review queue may list: reliability samples first, newest first."""
    found = list_samples(project.reader())
    return sorted(found, key=lambda s: (not s.reliability, -s.id))


def _side(names: dict[str, str], pages: dict[int, str], coder: str, decision) -> CoderSide:
    return CoderSide(coder, tuple(sorted(names.get(g, "(deleted tag)") for g in decision.tags)),
                     tuple(pages.get(p, f"page {p}") for p in sorted(decision.excluded)),
                     tuple(decision.memos))


def review_rows(project: Project, sample_id: int) -> list[ReviewRow]:
    """The disagreements of the sample as the queue shows them, by cluster id."""
    names = {t.guid: t.name for t in project.codebook() if t.guid}
    rows = []
    for found in disagreements(project, sample_id):
        rows.append(_row(project, names, found))
    return rows


def _row(project: Project, names: dict[str, str], found: Disagreement) -> ReviewRow:
    cluster = project.cluster(found.cluster_id)
    pages = {m.page_id: f"{m.site}: {m.title}" for m in project.members(found.cluster_id)}
    sides = tuple(_side(names, pages, coder, found.coders[coder])
                  for coder in sorted(found.coders, key=str.casefold))
    return ReviewRow(found.cluster_id, cluster.reference_title if cluster else "",
                     sides, tuple(sorted(t.name for t in cluster.tags)) if cluster else (),
                     found.settled)


def take_coder(project: Project, row: ReviewRow, number: int) -> str:
    """Settle on coder ``number``'s codes (1: the first); the status line's words."""
    if not 1 <= number <= len(row.sides):
        raise ProjectError(f"There is no coder {number} on cluster {row.cluster_id}: "
                           f"{len(row.sides)} coded it.")
    coder = row.sides[number - 1].coder
    settle(project, row.cluster_id, taken_from=coder)
    return f"Cluster {row.cluster_id} settled on {coder}'s codes (Ctrl+Z takes it back)"


def keep_final(project: Project, row: ReviewRow) -> str:
    """Settle on the codes the cluster carries now (the lead set them with the tag keys)."""
    cluster = project.cluster(row.cluster_id)
    if cluster is None:
        raise ProjectError(f"Cluster {row.cluster_id} is gone (merged or re-clustered).")
    settle(project, row.cluster_id, tags=[t.tag_id for t in cluster.tags])
    said = ", ".join(t.name for t in cluster.tags) or "no tag"
    return f"Cluster {row.cluster_id} settled on its codes now: {said} (Ctrl+Z takes it back)"


def sample_title(project: Project, sample_id: int) -> str:
    sample = get_sample(project.reader(), sample_id)
    return sample.name if sample else f"sample {sample_id}"
