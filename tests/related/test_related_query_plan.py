"""Listing a cluster's related clusters goes from its few linked pages to their clusters,
never through every cluster of the run (that took 0.23 s a cluster on a run of 20,000
pages, on the GUI thread each time a cluster was shown; benchmarks/bench_related.py)."""

from __future__ import annotations

import sqlite3

from tests.related.builders import cluster_of_key, key, related_project
from workbench.store.runs import related


def test_the_clusters_of_linked_pages_are_found_from_the_pages(tmp_path):
    project = related_project(tmp_path / "study.wbproj")
    conn = sqlite3.connect(project.path)
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    cid = cluster_of_key(project, key(0))
    run_id = related.cluster_run(conn, cid)
    links = related.run_links(conn, run_id)
    assert related.related_of(conn, cid, links)
    (sql,) = [s for s in statements if "cluster_members m" in s and "json_each" in s]
    conn.set_trace_callback(None)
    # The statement as run, its bound values inlined by the trace: plan it again.
    plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql)]
    assert not any("clusters_run" in step for step in plan), plan
    assert plan[0].startswith("SCAN j VIRTUAL TABLE"), plan  # the linked pages first
    conn.close()
    project.close()
