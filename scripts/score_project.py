#!/usr/bin/env python3
"""Score a project's clusters against a generated crawl's truth.csv, and cluster its stored
pairs again at other τ or settings, without reading a page again.

For a crawl too large to run twice (a million gensmall pages take half an hour): the run's
stored pairs are clustered with its own recorded settings (what Detection ▸ Calibrate and
Apply do, ``workbench.core.clusters.calibration.cluster_at``), and every clustering is
scored as cluster pair precision / recall (``score_groups``), with its largest cluster
beside the largest true one. The project is opened read-only.

usage: python scripts/score_project.py PROJECT.wbproj CRAWL/truth.csv [--taus 0.4,0.45]
                                       [name=value ...]   (clustering settings: hub_split,
                                                           corroborate_below, weak_join)
"""

from __future__ import annotations

import argparse
import csv
import sqlite3
import sys
import time
from pathlib import Path

from workbench.core.clusters.calibration import CLUSTER_OPTIONS, cluster_at, clustering_options, run_vouch
from workbench.core.clusters.evaluation import score_groups
from workbench.store.project import Project


def truth_groups(truth_csv: Path) -> list[list[str]]:
    """The true clusters by page key (gensmall/gencorpus ``truth.csv``: folder or WARC rows)."""
    groups: dict[str, list[str]] = {}
    with truth_csv.open(newline="") as f:
        for row in csv.DictReader(f):
            key = (row["path"].removeprefix("pages/") if "path" in row
                   else f"{row['warc_file']}#{row['warc_offset']}")
            groups.setdefault(row["cluster"], []).append(key)
    return list(groups.values())


def run_keys(path: Path, run_id: int) -> list[str]:
    """The run's page keys by page index (read-only, in one query)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [k for (k,) in conn.execute(
            """SELECT p.key FROM run_pages r JOIN pages p ON p.id = r.page_id
               WHERE r.run_id = ? ORDER BY r.idx""", (run_id,))]
    finally:
        conn.close()


def line(name: str, groups: list[list[str]], truth: list[list[str]], seconds: float | None = None) -> str:
    s = score_groups(groups, truth)
    largest = max((len(g) for g in groups), default=0)
    took = "" if seconds is None else f"  ({seconds:.1f} s)"
    return (f"{name}: precision {s.precision:.4f}  recall {s.recall:.4f}  "
            f"clusters {sum(len(g) >= 2 for g in groups):,}  largest {largest}{took}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("project", type=Path)
    ap.add_argument("truth", type=Path)
    ap.add_argument("--taus", default="", help="τ values to cluster the stored pairs at (default: the run's)")
    ap.add_argument("settings", nargs="*", help=f"name=value, one of {', '.join(CLUSTER_OPTIONS)}")
    args = ap.parse_intermixed_args(argv)
    overrides = {}
    for item in args.settings:
        name, _, value = item.partition("=")
        if name not in CLUSTER_OPTIONS:
            raise SystemExit(f"unknown setting {name!r}; one of {', '.join(CLUSTER_OPTIONS)}")
        overrides[name] = float(value)
    truth = truth_groups(args.truth)
    project = Project.open(args.project, readonly=True)
    try:
        run = project.current_run()
        if run is None:
            raise SystemExit(f"{args.project}: no detection run")
        keys = run_keys(args.project, run.id)
        largest_true = max(len(g) for g in truth)
        print(f"{len(keys):,} pages; largest true cluster {largest_true}; run settings "
              + ", ".join(f"{k} {run.params.get(k)}" for k in ("tau", "stored_floor", *CLUSTER_OPTIONS)))
        print(line("the run's clusters", [[keys[x] for x in g] for g in project.run_groups(run.id)], truth))
        graph = project.run_graph(run.id)
        vouch = run_vouch(run.params, project.run_signatures(run.id))
        options = {**clustering_options(run.params, vouch is not None), **overrides}
        method = str(run.params.get("cluster_method", "star"))
        taus = [float(t) for t in args.taus.split(",")] if args.taus else [float(run.params["tau"])]
        for tau in taus:
            started = time.perf_counter()
            clusters = cluster_at(graph, method, tau, options, vouch)
            groups = [[keys[x] for x in c.members] for c in clusters]
            took = time.perf_counter() - started
            print(line(f"stored pairs at τ {tau:.2f}", groups, truth, took), flush=True)
    finally:
        project.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
