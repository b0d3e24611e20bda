"""A project shaped like a real crawl, and the coding a session does on it.

Cluster sizes have the long tail of news crawls (a few stories carried by a hundred or
more pages, many pairs and triples, most pages alone); members are paired with their
reference and with each other at full-precision similarities, as the matcher stores
them; pages carry boilerplate shares. The action mix (mostly splits, some merges and
tags) is what makes an undo log grow fastest.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from workbench.core.records import Cluster, PageInfo, Pair
from workbench.store import ActionResult, Project, ProjectError, TagSpec

# Pages per cluster: 5 big stories, 20 middling, 200 small, the rest alone.
SIZES = [300, 200, 150, 120, 100] + [25] * 20 + [4, 3, 2, 2] * 50
SINGLETONS = 600
TAGS = ("unions", "feminism", "local issue", "health", "economy")


def _pages(n: int) -> list[PageInfo]:
    return [PageInfo(key=f"site{i % 40}/2024/05/story-{i}.html",
                     source=f"site{i % 40}/2024/05/story-{i}.html",
                     url=f"https://www.site{i % 40}.example.org/2024/05/story-{i}.html",
                     capture_date="2024-05-17T08:12:44Z", http_status=200,
                     content_type="text/html", encoding="utf-8",
                     title=f"Dock workers strike over pay, day {i % 31}", checksum=f"{i:032x}",
                     signature_count=150 + i % 400)
            for i in range(n)]


def realistic_project(directory: Path, seed: int = 7) -> Project:
    """A saved run of 1,440 pages in 823 clusters, with a codebook, coder "ann"."""
    rng = random.Random(seed)
    n = sum(SIZES) + SINGLETONS
    pairs: list[Pair] = []
    clusters: list[Cluster] = []
    start = 0
    for size in SIZES:
        members = list(range(start, start + size))
        start += size
        # Every member with its reference, and each with a few others of its story.
        to_ref = [rng.uniform(0.45, 0.99) for _ in members[1:]]
        pairs += [Pair(members[0], m, s) for m, s in zip(members[1:], to_ref, strict=True)]
        for k, m in enumerate(members[1:], 1):
            for other in rng.sample(members[1:k], min(k - 1, 6)):
                pairs.append(Pair(other, m, rng.uniform(0.44, 0.99)))
        shares = [rng.random() for _ in members]
        clusters.append(Cluster(members[0], members, [1.0, *to_ref], shares))
    project = Project.create(directory / "realistic.wbproj", "/data/crawl", coder="ann")
    project.save_run({"tau": 0.44}, "spotsigs", {"total": 12.5}, _pages(n), pairs, clusters)
    project.import_codebook([TagSpec(name) for name in TAGS])
    return project


def coding_session(project: Project, actions: int, seed: int = 11) -> list[int]:
    """``actions`` logged actions: 70 % splits (a third of them taking the reference out),
    15 % merges, 15 % tags of one to three clusters; returns their ids in order."""
    rng = random.Random(seed)
    tags = [t.id for t in project.codebook()]
    done: list[int] = []
    while len(done) < actions:
        try:
            result = _one_action(project, rng, tags)
        except ProjectError:
            continue
        if result.action_id is not None:
            done.append(result.action_id)
    return done


def _one_action(project: Project, rng: random.Random, tags: list[int]) -> ActionResult:
    rows = project.list_clusters(limit=60)
    ids = [r.id for r in rows]
    roll = rng.random()
    if roll < 0.70:
        # Coders work down the list, biggest stories first.
        cid = rng.choice([r.id for r in rows[:10] if r.size > 1])
        members = [m.page_id for m in project.members(cid)]
        moving = rng.sample(members[1:], min(len(members) - 1, rng.randint(1, 3)))
        if rng.random() < 1 / 3:
            moving[0] = members[0]
        return project.split(cid, moving)
    if roll < 0.85:
        return project.merge(rng.sample(ids, 2))
    return project.tag_clusters(rng.sample(ids, rng.randint(1, 3)), [rng.choice(tags)])


# The log itself and the action rows change with undo and redo by design.
_NOT_DUMPED = {"actions", "changes", "action_changes", "sqlite_sequence"}


def dump(path: Path) -> dict[str, list[tuple]]:
    """Every table but the action log, rows sorted, REALs as their exact hex form (so
    two dumps are equal only when every stored double is bit for bit the same)."""
    conn = sqlite3.connect(str(path))
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")]
        return {t: sorted((tuple(v.hex() if isinstance(v, float) else v for v in row)
                           for row in conn.execute(f'SELECT * FROM "{t}"')), key=repr)
                for t in tables if t not in _NOT_DUMPED}
    finally:
        conn.close()


def used_bytes(path: Path) -> int:
    """Bytes of the file's pages in use (the file less its free list), WAL folded in."""
    conn = sqlite3.connect(str(path))
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages, free, size = (conn.execute(f"PRAGMA {p}").fetchone()[0]
                             for p in ("page_count", "freelist_count", "page_size"))
        return (pages - free) * size
    finally:
        conn.close()
