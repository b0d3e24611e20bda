"""What the status bar says after a coding action, undo or redo (no Qt).

Coders work by keyboard and fast; an action that says nothing cannot be trusted
("did that tag land?"), and an undo that acts off-screen looks like nothing
happened. Each message names what changed and where.
"""

from __future__ import annotations

from collections.abc import Sequence


def _clusters(ids: Sequence[int]) -> str:
    if not ids:
        return ""
    if len(ids) == 1:
        return f"cluster {ids[0]}"
    return f"{len(ids)} clusters"


def tag_message(tag: str, cluster_ids: Sequence[int], added: bool, advanced: bool) -> str:
    where = _clusters(cluster_ids)
    said = f"Tagged {where} “{tag}”" if added else f"Removed “{tag}” from {where}"
    return said + (" — on to the next uncoded cluster." if advanced else ".")


def undo_message(verb: str, description: str | None, cluster_ids: Sequence[int]) -> str:
    """``verb``: "Undid" or "Redid"; ``description``: the action's own description."""
    if description is None:
        return f"Nothing to {'undo' if verb == 'Undid' else 'redo'}."
    where = f" (now showing {_clusters(cluster_ids)})" if cluster_ids else ""
    return f"{verb}: {description}{where}."


def _n(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def progress_text(clusters_coded: int, clusters: int, singles: int, pages_coded: int,
                  pages: int) -> str:
    """The status bar's standing count. ``clusters`` counts every list row, a single page
    (a page with no near duplicate) being a row too; saying how many of them are single
    pages keeps "44 clusters" (of two or more pages) and "of 58" from contradicting."""
    groups = clusters - singles
    return (f"{_n(groups, 'cluster', 'clusters')} and {_n(singles, 'single page', 'single pages')}"
            f": {clusters_coded:,} of {clusters:,} coded — {pages_coded:,} of {pages:,} pages")
