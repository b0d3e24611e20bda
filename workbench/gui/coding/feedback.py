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


def tag_message(tag: str, cluster_ids: Sequence[int], added: bool, advanced: bool,
                key: str = "") -> str:
    """``key``: the key that did it ("3", "Shift+3"), said first, as every coding key's
    message does: a letter typed where the coder thought they were typing shows what it
    did."""
    where = _clusters(cluster_ids)
    said = f"Tagged {where} “{tag}”" if added else f"Removed “{tag}” from {where}"
    if advanced:
        said += " — on to the next uncoded cluster."
    elif added and key.startswith("Shift+"):
        said += " — still here: Shift+digit adds another tag, a digit alone tags and moves on."
    else:
        said += "."
    return f"{key}: {said}" if key else said


def key_message(key: str, text: str) -> str:
    """What a coding key (S, X, M, N) did, or why it did nothing, naming the key."""
    return f"{key}: {text}"


def split_message(title: str, from_cluster: int, new_cluster: int) -> str:
    return key_message("S", f"split the page “{title}” out of cluster {from_cluster} into "
                            f"cluster {new_cluster} (Ctrl+Z puts it back).")


def merge_message(count: int, into: int | None) -> str:
    return key_message("M", f"merged {count} clusters into cluster {into} (Ctrl+Z undoes it).")


def next_message(cluster_id: int | None) -> str:
    if cluster_id is None:
        return key_message("N", "every listed cluster has a tag.")
    return key_message("N", f"cluster {cluster_id}, the next uncoded one.")


def memo_saved_message(cluster_id: int | None, page_id: int | None, deleted: bool) -> str:
    where = f"cluster {cluster_id}" if cluster_id is not None else f"page {page_id}"
    if deleted:
        return f"Your memo on {where} is deleted (Ctrl+Z brings it back)."
    return f"Saved your memo on {where}."


def undo_message(verb: str, description: str | None, cluster_ids: Sequence[int]) -> str:
    """``verb``: "Undid" or "Redid"; ``description``: the action's own description."""
    if description is None:
        return f"Nothing to {'undo' if verb == 'Undid' else 'redo'}."
    where = f" (now showing {_clusters(cluster_ids)})" if cluster_ids else ""
    return f"{verb}: {description}{where}."


def count_of(count: int, one: str, many: str) -> str:
    """"1 page", "2 pages": a count with its noun in the right number."""
    return f"{count:,} {one if count == 1 else many}"


def progress_text(clusters_coded: int, clusters: int, singles: int, pages_coded: int,
                  pages: int) -> str:
    """The status bar's standing count. ``clusters`` counts every list row, a single page
    (a page with no near duplicate) being a row too; saying how many of them are single
    pages keeps "44 clusters" (of two or more pages) and "of 58" from contradicting."""
    groups = clusters - singles
    return (f"{count_of(groups, 'cluster', 'clusters')} and "
            f"{count_of(singles, 'single page', 'single pages')}"
            f": {clusters_coded:,} of {clusters:,} coded — {pages_coded:,} of {pages:,} pages")


def run_done_message(seconds: float, pages: int, pairs: int, clusters: int, singles: int,
                     skipped: int, note: str = "", carried: str | None = None) -> str:
    """What the status bar says when a detection run is done: how long, what it found,
    what it skipped, the run's own ``note``, and what a re-run ``carried`` over (None:
    nothing was carried, as on a first run)."""
    said_skipped = (f"{count_of(skipped, 'file or record', 'files or records')} gave no page to "
                    "compare (File ▸ Skipped Files says why)" if skipped else "nothing skipped")
    return (f"Detection done in {seconds:.1f} s: {count_of(pages, 'page', 'pages')}, "
            f"{count_of(pairs, 'pair', 'pairs')}, {count_of(clusters, 'cluster', 'clusters')} and "
            f"{count_of(singles, 'single page', 'single pages')}; {said_skipped}.{note}"
            + (f" Your {carried}." if carried is not None else ""))
