"""Samples of clusters: drawn reproducibly, kept with their seed and rule.

A sample is drawn from the current run's clusters (of two pages or more, or with
``include_singles`` every page's cluster), optionally stratified by cluster size, the
reference page's site or its capture month, with proportional allocation (largest
remainders). The same seed and rule on the same run give the same clusters: the
population is taken in cluster id order and each stratum is drawn with one
``random.Random(seed)`` in the strata's sorted order.

A reliability sample is one every coder codes, blind (:mod:`blind`, :mod:`blind_copy`).
Drawing a sample is one undoable action.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbench.store.clock import utc_now
from workbench.store.coding.tagging import surviving
from workbench.store.errors import ProjectError
from workbench.store.runs import summary

if TYPE_CHECKING:
    from workbench.store.project import Project

STRATA = ("size", "site", "month")
# Cluster sizes by stratum: singles, pairs, small, middling and big stories.
SIZE_BINS = ((1, "1"), (2, "2"), (5, "3-5"), (20, "6-20"))


@dataclass(frozen=True, slots=True)
class Sample:
    id: int
    name: str
    run_id: int
    seed: int
    rule: dict[str, Any]  # n, share, stratify_by, include_singles, population
    reliability: bool
    created_at: str
    clusters: tuple[int, ...]  # as drawn, in id order


def size_stratum(size: int) -> str:
    for upper, label in SIZE_BINS:
        if size <= upper:
            return label
    return "21+"


def _population(conn: sqlite3.Connection, include_singles: bool,
                stratify_by: str | None) -> list[tuple[int, int, str]]:
    """(cluster id, reference page, stratum) of the current run's clusters, by id."""
    run = summary.current_run(conn)
    if run is None:
        raise ProjectError("The project has no detection run yet: run detection before "
                           "drawing a sample.")
    rows = conn.execute(
        "SELECT c.id, c.reference_page_id, count(m.page_id), p.site, coalesce(p.capture_date, '') "
        "FROM clusters c JOIN cluster_members m ON m.cluster_id = c.id "
        "JOIN pages p ON p.id = c.reference_page_id "
        "WHERE c.run_id = ? AND c.merged_into IS NULL GROUP BY c.id ORDER BY c.id", (run,))
    found = []
    for cid, ref, size, site, captured in rows:
        if size < 2 and not include_singles:
            continue
        stratum = {"size": size_stratum(size), "site": site or "(no site)",
                   "month": captured[:7] or "(no date)"}.get(stratify_by or "", "")
        found.append((int(cid), int(ref), stratum))
    return found


def _allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Proportional allocation of ``n`` over the strata, by largest remainder."""
    total = sum(sizes.values())
    exact = {k: n * v / total for k, v in sizes.items()}
    counts = {k: int(x) for k, x in exact.items()}
    left = n - sum(counts.values())
    for k in sorted(exact, key=lambda k: (-(exact[k] - counts[k]), k))[:left]:
        counts[k] += 1
    return counts


def plan(conn: sqlite3.Connection, *, n: int | None, share: float | None, seed: int,
         stratify_by: str | None, include_singles: bool) -> tuple[list[tuple[int, int]],
                                                                  dict[str, Any]]:
    """The clusters (id, reference page) a sample of this rule draws, and the rule."""
    if (n is None) == (share is None):
        raise ProjectError("Give either a number of clusters or a share of them to draw.")
    if stratify_by is not None and stratify_by not in STRATA:
        raise ProjectError(f"A sample is stratified by {', '.join(STRATA)}, not by "
                           f"{stratify_by!r}.")
    population = _population(conn, include_singles, stratify_by)
    if not population:
        raise ProjectError("There are no clusters to draw a sample from.")
    if share is not None:
        if not 0 < share <= 1:
            raise ProjectError(f"The share of clusters to draw must be above 0 and at most "
                               f"100 %, not {share:.0%}.")
        n = max(1, round(share * len(population)))
    assert n is not None
    if not 0 < n <= len(population):
        raise ProjectError(f"Cannot draw {n} clusters: there are {len(population)} to draw "
                           "from.")
    strata: dict[str, list[tuple[int, int]]] = {}
    for cid, ref, stratum in population:
        strata.setdefault(stratum, []).append((cid, ref))
    counts = _allocate({k: len(v) for k, v in strata.items()}, n)
    rng = random.Random(seed)
    drawn: list[tuple[int, int]] = []
    for stratum in sorted(strata):
        drawn += rng.sample(strata[stratum], counts[stratum])
    rule = {"n": n, "share": share, "stratify_by": stratify_by,
            "include_singles": include_singles, "population": len(population),
            "strata": {k: counts[k] for k in sorted(counts)} if stratify_by else None}
    return sorted(drawn), rule


def draw_sample(project: Project, n: int | None = None, share: float | None = None, *,
                seed: int, stratify_by: str | None = None, include_singles: bool = False,
                reliability: bool = False, name: str | None = None) -> Sample:
    """Draw a sample of the current run's clusters and keep it in the project (one
    undoable action). ``n`` clusters, or a ``share`` of them (0 < share <= 1);
    ``stratify_by``: None, "size", "site" or "month"; ``reliability``: every coder
    codes it, blind."""
    drawn, rule = plan(project.reader(), n=n, share=share, seed=seed,
                       stratify_by=stratify_by, include_singles=include_singles)
    label = (name or "").strip() or _default_name(project.reader(), reliability)
    if project.reader().execute("SELECT 1 FROM samples WHERE name = ?", (label,)).fetchone():
        raise ProjectError(f"There is a sample called {label} already; give another name.")

    def body(conn: sqlite3.Connection, _action: int) -> int:
        sample_id = conn.execute(
            "INSERT INTO samples (name, run_id, seed, rule, reliability, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (label, summary.current_run(conn), seed, json.dumps(rule, sort_keys=True),
             int(reliability), utc_now())).lastrowid
        assert sample_id is not None
        conn.executemany("INSERT INTO sample_members (sample_id, cluster_id, page_id) "
                         "VALUES (?, ?, ?)", [(sample_id, c, p) for c, p in drawn])
        return int(sample_id)

    kind = "reliability sample" if reliability else "sample"
    result = project.perform("sample", f"Draw {kind} {label} of {len(drawn)} clusters "
                             f"(seed {seed})", body)
    assert result.id is not None
    found = get_sample(project.reader(), result.id)
    assert found is not None
    return found


def _default_name(conn: sqlite3.Connection, reliability: bool) -> str:
    base = "Reliability sample" if reliability else "Sample"
    taken = {r[0] for r in conn.execute("SELECT name FROM samples")}
    k = 1
    while f"{base} {k}" in taken:
        k += 1
    return f"{base} {k}"


_SELECT = "SELECT id, name, run_id, seed, rule, reliability, created_at FROM samples "


def _sample(conn: sqlite3.Connection, row: Sequence[Any]) -> Sample:
    clusters = tuple(r[0] for r in conn.execute(
        "SELECT cluster_id FROM sample_members WHERE sample_id = ? ORDER BY cluster_id",
        (row[0],)))
    return Sample(id=row[0], name=row[1], run_id=row[2], seed=row[3], rule=json.loads(row[4]),
                  reliability=bool(row[5]), created_at=row[6], clusters=clusters)


def list_samples(conn: sqlite3.Connection) -> list[Sample]:
    """Every sample of the project, oldest first."""
    return [_sample(conn, r) for r in conn.execute(_SELECT + "ORDER BY id").fetchall()]


def get_sample(conn: sqlite3.Connection, sample: int | str) -> Sample | None:
    """A sample by id or by name (None: no such sample)."""
    column = "id" if isinstance(sample, int) else "name"
    row = conn.execute(_SELECT + f"WHERE {column} = ?", (sample,)).fetchone()
    return _sample(conn, row) if row else None


def sample_clusters(conn: sqlite3.Connection, sample_id: int) -> list[int]:
    """The sample's clusters as they are now (one merged into another: the one it
    ended in), in id order: for the cluster list's filter."""
    rows = conn.execute("SELECT cluster_id FROM sample_members WHERE sample_id = ?",
                        (sample_id,)).fetchall()
    return sorted({surviving(conn, r[0]) for r in rows})


def reliability_clusters(conn: sqlite3.Connection) -> set[int]:
    """Clusters (as they are now) in any reliability sample: coded blind."""
    rows = conn.execute("SELECT m.cluster_id FROM sample_members m JOIN samples s "
                        "ON s.id = m.sample_id WHERE s.reliability").fetchall()
    return {surviving(conn, r[0]) for r in rows}


def sample_membership(conn: sqlite3.Connection) -> dict[int, list[str]]:
    """cluster id (as it is now) -> names of the samples it is in, oldest sample
    first: for the export's sample column."""
    found: dict[int, list[str]] = {}
    for cid, name in conn.execute("SELECT m.cluster_id, s.name FROM sample_members m "
                                  "JOIN samples s ON s.id = m.sample_id ORDER BY s.id"):
        found.setdefault(surviving(conn, cid), []).append(name)
    return found
