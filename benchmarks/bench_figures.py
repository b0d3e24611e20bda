"""How fast the dashboard and the timeline answer on a real run.

    python benchmarks/bench_figures.py PROJECT [--rounds 3] [--date-pages]

PROJECT is a project file with a run (e.g. ``workbench dedup CRAWL --project P`` on a
``../shared/tools/gensmall.py --docs 20000`` crawl). Works on a copy. ``--date-pages``
first gives every undated page of the copy a capture date spread over two years (gensmall
pages carry none), so duplication over time has periods to count. Times, best of
``--rounds``: the dashboard's numbers (one pass over the run's pages), building its four
figures, drawing them (Agg, as the window's canvases do), exporting all (4 PNG, 4 SVG,
4 CSV), and the timeline of the largest cluster (numbers, figure, drawing).
"""

from __future__ import annotations

import argparse
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg

from workbench.figures.corpus import corpus_numbers
from workbench.figures.dashboard import PLOTS
from workbench.figures.saving import export_dashboard
from workbench.figures.spread import cluster_spread
from workbench.figures.timeline import timeline_figure
from workbench.store import Project


def best(fn: Callable[[], object], rounds: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def date_pages(project: Project, seed: int = 1) -> int:
    rng = random.Random(seed)
    with project.bookkeeping() as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM pages WHERE capture_date IS NULL")]
        conn.executemany("UPDATE pages SET capture_date = ? WHERE id = ?", [
            (f"20{23 + rng.randrange(2)}-{1 + rng.randrange(12):02d}-{1 + rng.randrange(28):02d}"
             f"T{rng.randrange(24):02d}:00:00Z", i) for i in ids])
    return len(ids)


def draw_all(figures: list) -> None:
    for fig in figures:
        FigureCanvasAgg(fig).draw()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("project", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--date-pages", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / args.project.name
        shutil.copy(args.project, copy)
        with Project.open(copy) as project:
            if args.date_pages:
                print(f"dated {date_pages(project):,} pages")
            conn = project.reader()
            t_numbers, corpus = best(lambda: corpus_numbers(conn), args.rounds)
            print(f"run: {corpus.pages:,} pages, {corpus.clusters:,} clusters, "
                  f"{corpus.copies:,} copies, {len(corpus.sites):,} sites, "
                  f"{len(corpus.periods)} {corpus.unit}s, {corpus.undated:,} undated")
            print(f"dashboard numbers:        {t_numbers * 1000:8.0f} ms")
            t_build, figures = best(lambda: [f(corpus) for _, f, _ in PLOTS.values()],
                                    args.rounds)
            print(f"dashboard figures built:  {t_build * 1000:8.0f} ms")
            t_draw, _ = best(lambda: draw_all([f(corpus) for _, f, _ in PLOTS.values()]),
                             args.rounds)
            print(f"dashboard built + drawn:  {t_draw * 1000:8.0f} ms")
            t_export, _ = best(lambda: export_dashboard(corpus, Path(tmp) / "dash"), args.rounds)
            print(f"export all (12 files):    {t_export * 1000:8.0f} ms")
            biggest = project.list_clusters(limit=1)[0]
            t_spread, spread = best(lambda: cluster_spread(conn, biggest.id), args.rounds)
            t_tl, _ = best(lambda: FigureCanvasAgg(timeline_figure(spread)).draw(), args.rounds)
            print(f"timeline of the largest cluster ({biggest.size} pages): numbers "
                  f"{t_spread * 1000:.0f} ms, figure built + drawn {t_tl * 1000:.0f} ms")


if __name__ == "__main__":
    main()
