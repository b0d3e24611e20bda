"""The bodies of tagging actions: tags live on pages, clusters pass them on.

A tag row says which coder put it on which page, when, and through which
cluster (NULL: tagged directly). A page carries a tag at most once; tagging it
again keeps the first provenance. These functions run inside
:meth:`ActionLog.perform`, which makes each call one undoable transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from workbench.store.clock import utc_now
from workbench.store.coding import recorder
from workbench.store.errors import ProjectError


def _marks(n: int) -> str:
    return ", ".join("?" * n)


_INSERT_TAG = ("INSERT OR IGNORE INTO page_tags "
               "(page_id, tag_id, coder_id, tagged_at, via_cluster_id) ")


def check_clusters(conn: sqlite3.Connection, cluster_ids: Sequence[int]) -> None:
    found = {r[0] for r in conn.execute(
        f"SELECT id FROM clusters WHERE id IN ({_marks(len(cluster_ids))}) "
        "AND merged_into IS NULL", list(cluster_ids))}
    missing = sorted(set(cluster_ids) - found)
    if missing:
        raise ProjectError(f"No such cluster (or merged away): {missing[0]}")


def check_tags(conn: sqlite3.Connection, tag_ids: Sequence[int]) -> None:
    found = {r[0] for r in conn.execute(
        f"SELECT id FROM tags WHERE id IN ({_marks(len(tag_ids))})", list(tag_ids))}
    missing = sorted(set(tag_ids) - found)
    if missing:
        raise ProjectError(f"No such tag: {missing[0]}")


def tag_clusters(conn: sqlite3.Connection, coder_id: int, cluster_ids: Sequence[int],
                 tag_ids: Sequence[int]) -> None:
    check_clusters(conn, cluster_ids)
    check_tags(conn, tag_ids)
    now = utc_now()
    for tag_id in dict.fromkeys(tag_ids):
        # Pages that already carry the tag keep their first provenance.
        recorder.insert_rows(
            conn, "page_tags",
            "SELECT m.page_id, ? AS tag_id, ? AS coder_id, ? AS tagged_at, "
            "m.cluster_id AS via FROM cluster_members m "
            f"WHERE m.cluster_id IN ({_marks(len(cluster_ids))}) AND NOT m.excluded "
            "AND NOT EXISTS "
            "(SELECT 1 FROM page_tags pt WHERE pt.page_id = m.page_id AND pt.tag_id = ?) "
            "GROUP BY m.page_id",  # a page in two given clusters (of two runs) once
            [tag_id, coder_id, now, *cluster_ids, tag_id],
        )


def untag_clusters(conn: sqlite3.Connection, cluster_ids: Sequence[int],
                   tag_ids: Sequence[int]) -> None:
    """Remove the tags from every page of the clusters, however they got there, except
    from members marked "not this story" (their tags are their own)."""
    check_clusters(conn, cluster_ids)
    recorder.delete_rows(
        conn, "page_tags",
        f"tag_id IN ({_marks(len(tag_ids))}) AND page_id IN "
        f"(SELECT page_id FROM cluster_members WHERE cluster_id IN ({_marks(len(cluster_ids))}) "
        "AND NOT excluded)",
        [*tag_ids, *cluster_ids],
    )


def all_tagged(conn: sqlite3.Connection, cluster_ids: Sequence[int], tag_id: int) -> bool:
    """True when every page of the clusters carries the tag (toggle then removes it);
    members marked "not this story" do not count."""
    row = conn.execute(
        "SELECT count(*), count(pt.page_id) FROM cluster_members m "
        "LEFT JOIN page_tags pt ON pt.page_id = m.page_id AND pt.tag_id = ? "
        f"WHERE m.cluster_id IN ({_marks(len(cluster_ids))}) AND NOT m.excluded",
        [tag_id, *cluster_ids],
    ).fetchone()
    return bool(row[0]) and row[0] == row[1]


def tag_pages(conn: sqlite3.Connection, coder_id: int, page_ids: Sequence[int],
              tag_ids: Sequence[int]) -> None:
    check_tags(conn, tag_ids)
    now = utc_now()
    conn.executemany(
        _INSERT_TAG + "SELECT id, ?, ?, ?, NULL FROM pages WHERE id = ?",
        [(t, coder_id, now, p) for p in page_ids for t in tag_ids],
    )


def untag_pages(conn: sqlite3.Connection, page_ids: Sequence[int],
                tag_ids: Sequence[int]) -> None:
    conn.executemany(
        "DELETE FROM page_tags WHERE page_id = ? AND tag_id = ?",
        [(p, t) for p in page_ids for t in tag_ids],
    )


def set_excluded(conn: sqlite3.Connection, coder_id: int, cluster_id: int,
                 page_ids: Sequence[int], excluded: bool) -> None:
    """Mark members of a cluster as not (or again as) belonging to its story.

    A member marked "not this story" stays in the cluster, but loses the tags it got
    through the cluster (or a cluster merged into it); its own page tags stay, and
    cluster-level tagging passes it by from then on. Unmarking it gives it, through
    this cluster, the tags every other counted member carries, so the cluster is as
    coded as before. The reference cannot be marked: it defines the story.
    """
    check_clusters(conn, [cluster_id])
    pages = list(dict.fromkeys(page_ids))
    if not pages:
        raise ProjectError("Choose at least one page of the cluster.")
    flags = dict(conn.execute(
        f"SELECT page_id, excluded FROM cluster_members WHERE cluster_id = ? "
        f"AND page_id IN ({_marks(len(pages))})", [cluster_id, *pages]).fetchall())
    missing = [p for p in pages if p not in flags]
    if missing:
        raise ProjectError(f"Page {missing[0]} is not in cluster {cluster_id}.")
    ref = conn.execute("SELECT reference_page_id FROM clusters WHERE id = ?",
                       (cluster_id,)).fetchone()[0]
    if excluded and ref in flags:
        raise ProjectError(
            f"Page {ref} is the reference of cluster {cluster_id}: it defines the "
            "cluster's story. Split it out of the cluster instead.")
    changing = [p for p in pages if bool(flags[p]) != excluded]
    if not changing:
        return
    marks = _marks(len(changing))
    conn.execute(f"UPDATE cluster_members SET excluded = ? WHERE cluster_id = ? "
                 f"AND page_id IN ({marks})", [int(excluded), cluster_id, *changing])
    if excluded:
        origin = lineage(conn, cluster_id)
        conn.execute(
            f"DELETE FROM page_tags WHERE page_id IN ({marks}) "
            f"AND via_cluster_id IN ({_marks(len(origin))})", [*changing, *origin])
        _untag_earlier_story(conn, cluster_id, changing)
        return
    others = ("FROM cluster_members WHERE cluster_id = ? AND NOT excluded "
              f"AND page_id NOT IN ({marks})")
    shared = [r[0] for r in conn.execute(
        f"SELECT pt.tag_id FROM page_tags pt WHERE pt.page_id IN (SELECT page_id {others}) "
        f"GROUP BY pt.tag_id HAVING count(*) = (SELECT count(*) {others})",
        [cluster_id, *changing, cluster_id, *changing])]
    now = utc_now()
    conn.executemany(_INSERT_TAG + "VALUES (?, ?, ?, ?, ?)",
                     [(p, t, coder_id, now, cluster_id) for p in changing for t in shared])


def _untag_earlier_story(conn: sqlite3.Connection, cluster_id: int, pages: Sequence[int]) -> None:
    """Take off ``pages`` the tags they got through this story's cluster in an earlier run.

    A re-clustering carries the story to new clusters by page (workbench.store.coding.carry), so
    a tag given through the cluster of the run before is the story's too: it goes when
    the page is marked not this story, as a tag given through this cluster does. Such a
    cluster is one of another run that held (or was merged into one that held) a page
    still counted in this cluster.
    """
    run = conn.execute("SELECT run_id FROM clusters WHERE id = ?", (cluster_id,)).fetchone()[0]
    story = {r[0] for r in conn.execute(
        "SELECT page_id FROM cluster_members WHERE cluster_id = ? AND NOT excluded", (cluster_id,))}
    for page in pages:
        earlier = conn.execute(
            "SELECT pt.tag_id, pt.via_cluster_id FROM page_tags pt "
            "CROSS JOIN clusters v ON v.id = pt.via_cluster_id WHERE pt.page_id = ? "
            "AND v.run_id != ?", (page, run)).fetchall()
        for tag_id, via in earlier:
            held = {r[0] for r in conn.execute(
                "SELECT page_id FROM cluster_members WHERE cluster_id = ?",
                (surviving(conn, via),))}
            if (held - {page}) & story:
                conn.execute("DELETE FROM page_tags WHERE page_id = ? AND tag_id = ?",
                             (page, tag_id))


def surviving(conn: sqlite3.Connection, cluster_id: int) -> int:
    """The cluster a merged-away cluster ended in (itself when not merged away)."""
    seen: set[int] = set()
    while cluster_id not in seen:
        seen.add(cluster_id)
        row = conn.execute("SELECT merged_into FROM clusters WHERE id = ?", (cluster_id,)).fetchone()
        if row is None or row[0] is None:
            break
        cluster_id = row[0]
    return cluster_id


def lineage(conn: sqlite3.Connection, cluster_id: int) -> list[int]:
    """The cluster and every cluster merged into it, directly or in steps."""
    rows = conn.execute(
        """WITH RECURSIVE l(id) AS (SELECT ? UNION
               SELECT m.from_cluster FROM merges m JOIN l ON m.into_cluster = l.id)
           SELECT id FROM l""",
        (cluster_id,),
    )
    return [r[0] for r in rows]


def _similarity(conn: sqlite3.Connection, run_id: int, a: int, b: int) -> float | None:
    if a == b:
        return 1.0
    row = conn.execute(
        "SELECT similarity FROM pairs WHERE run_id = ? AND a = ? AND b = ?",
        (run_id, min(a, b), max(a, b)),
    ).fetchone()
    return row[0] if row else None


def split(conn: sqlite3.Connection, action_id: int, cluster_id: int,
          page_ids: Sequence[int]) -> int:
    """Move ``page_ids`` out of the cluster into one new cluster; return its id.

    The moved pages keep their tags, those received through this cluster too: the
    coder gave them to these pages as part of the cluster, and a split only says the
    pages form a story of their own. (To take a cluster's tags off one page without
    splitting it, mark it "not this story": :func:`set_excluded`.) A moved page's
    "not this story" mark is cleared: it referred to the cluster it leaves.
    """
    check_clusters(conn, [cluster_id])
    run_id, ref = conn.execute(
        "SELECT run_id, reference_page_id FROM clusters WHERE id = ?", (cluster_id,)
    ).fetchone()
    members = [r[0] for r in conn.execute(
        "SELECT page_id FROM cluster_members WHERE cluster_id = ? "
        "ORDER BY similarity DESC, page_id", (cluster_id,))]
    moving = list(dict.fromkeys(page_ids))
    if not moving:
        raise ProjectError("Choose at least one page to split out.")
    if set(moving) - set(members):
        raise ProjectError(f"Page {sorted(set(moving) - set(members))[0]} is not in "
                           f"cluster {cluster_id}.")
    moving_set = set(moving)
    staying = [m for m in members if m not in moving_set]
    if not staying:
        raise ProjectError("A split must leave at least one page in the cluster.")
    new_id = conn.execute(
        "INSERT INTO clusters (run_id, reference_page_id, origin) VALUES (?, ?, 'split')",
        (run_id, moving[0]),
    ).lastrowid
    assert new_id is not None
    for page in moving:
        conn.execute(
            # A boilerplate share was measured against the old reference: unknown now.
            "UPDATE cluster_members SET cluster_id = ?, similarity = ?, boilerplate_share = NULL, "
            "excluded = 0 WHERE cluster_id = ? AND page_id = ?",
            (new_id, _similarity(conn, run_id, moving[0], page), cluster_id, page),
        )
        conn.execute(
            "INSERT INTO splits (action_id, from_cluster, to_cluster, page_id) "
            "VALUES (?, ?, ?, ?)",
            (action_id, cluster_id, new_id, page),
        )
    if ref in moving:
        # The best-matching remaining page becomes the reference; similarities
        # are now to it (None where the matcher kept no pair for the two).
        new_ref = staying[0]
        conn.execute("UPDATE clusters SET reference_page_id = ? WHERE id = ?",
                     (new_ref, cluster_id))
        for page in staying:
            conn.execute(
                "UPDATE cluster_members SET similarity = ?, boilerplate_share = NULL "
                "WHERE cluster_id = ? AND page_id = ?",
                (_similarity(conn, run_id, new_ref, page), cluster_id, page),
            )
    return new_id


def merge(conn: sqlite3.Connection, action_id: int, cluster_ids: Sequence[int],
          into: int | None = None) -> int:
    """Move the pages of all clusters into one of them; return its id.

    Tags are untouched, so the merged cluster shows a tag as 'some' where the
    pages of the parts differ — exactly what the coder must look at.
    """
    ids = list(dict.fromkeys(cluster_ids))
    if into is not None and into not in ids:
        ids.insert(0, into)
    if len(ids) < 2:
        raise ProjectError("Choose at least two clusters to merge.")
    check_clusters(conn, ids)
    runs = {r[0] for r in conn.execute(
        f"SELECT DISTINCT run_id FROM clusters WHERE id IN ({_marks(len(ids))})", ids)}
    if len(runs) != 1:
        raise ProjectError("Clusters of different detection runs cannot be merged.")
    run_id = runs.pop()
    if into is None:
        # The largest cluster keeps its reference: the fewest similarities change.
        into = conn.execute(
            f"SELECT cluster_id FROM cluster_members WHERE cluster_id IN ({_marks(len(ids))}) "
            "GROUP BY cluster_id ORDER BY count(*) DESC, cluster_id LIMIT 1", ids
        ).fetchone()[0]
    ref = conn.execute(
        "SELECT reference_page_id FROM clusters WHERE id = ?", (into,)).fetchone()[0]
    for other in ids:
        if other == into:
            continue
        pages = [r[0] for r in conn.execute(
            "SELECT page_id FROM cluster_members WHERE cluster_id = ?", (other,))]
        for page in pages:
            conn.execute(
                "UPDATE cluster_members SET cluster_id = ?, similarity = ?, boilerplate_share = NULL "
                "WHERE cluster_id = ? AND page_id = ?",
                (into, _similarity(conn, run_id, ref, page), other, page),
            )
        conn.execute("UPDATE clusters SET merged_into = ? WHERE id = ?", (into, other))
        conn.execute(
            "INSERT INTO merges (action_id, into_cluster, from_cluster) VALUES (?, ?, ?)",
            (action_id, into, other),
        )
    return int(into)


def set_review(conn: sqlite3.Connection, cluster_ids: Sequence[int], flag: bool) -> None:
    check_clusters(conn, cluster_ids)
    conn.execute(
        f"UPDATE clusters SET needs_review = ? WHERE id IN ({_marks(len(cluster_ids))}) "
        "AND needs_review != ?",
        [int(flag), *cluster_ids, int(flag)],
    )
