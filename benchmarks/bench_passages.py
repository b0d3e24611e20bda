"""How long the reused passages take: aligning two pages, and opening a member side by side.

    python benchmarks/bench_passages.py [FOLDER] [--members N] [--export]

Runs detection over FOLDER (default: ../shared/data/goldset-dev, else the demo archive)
into a throw-away project, then opens every cluster's members in the side-by-side view
(the real CompareView under QT_QPA_PLATFORM=offscreen) one after the other, as a coder
stepping down the member list does, and prints median and longest times of:

* aligning a member with its reference (``passage_marks``: the passages, bands and
  sentence, on pages already read);
* drawing the bands beside both panes (repainting the two strips);
* opening a member in the view, all of it: reading the page from the archive (cold page
  cache), highlighting its signatures, aligning it and drawing the bands.

``--export`` also times exporting every page to CSV, with the two share columns and
without them (the columns' cost per member row), and with the shares computed in worker
processes (one per core), as the window's export does for large exports. A benchmark, not a test: it prints
figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def summary(name: str, values_ms: list[float]) -> str:
    return (f"{name}: median {statistics.median(values_ms):.1f} ms, "
            f"p95 {sorted(values_ms)[int(0.95 * (len(values_ms) - 1))]:.1f} ms, "
            f"longest {max(values_ms):.1f} ms ({len(values_ms)} members)")


def main() -> int:
    gold = REPO.parent / "shared" / "data" / "goldset-dev"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path,
                        default=gold if gold.exists() else REPO / "workbench" / "resources" / "demo-archive")
    parser.add_argument("--members", type=int, default=400, help="members to open at most")
    parser.add_argument("--workers", type=int, default=None, help="parsing processes for the run")
    parser.add_argument("--export", action="store_true", help="also time the export's share columns")
    args = parser.parse_args()

    from PySide6.QtWidgets import QApplication

    from workbench.detect.spotsigs.params import SpotSigsParams
    from workbench.gui.sidebyside.pagetext import PageText
    from workbench.gui.sidebyside.passagemarks import passage_marks
    from workbench.gui.sidebyside.view import CompareView
    from workbench.store import Project
    from workbench.text.tokenize import Tokens
    from workbench.usecases.pipeline import detect, load_corpus, save_result

    app = QApplication([])
    tmp = Path(tempfile.mkdtemp(prefix="bench_passages_"))
    t = time.perf_counter()
    project = Project.create(tmp / "bench.wbproj", str(args.folder))
    params = SpotSigsParams()
    save_result(project, detect(load_corpus(args.folder, params, workers=args.workers)))
    counts = project.counts()
    print(f"folder: {args.folder}")
    print(f"run: {time.perf_counter() - t:.1f} s, {counts.pages:,} pages in {counts.clusters:,} clusters")

    view = CompareView()
    view.resize(1200, 800)
    view.show()
    view.set_context(project.archive_root, params, project.run_filters())
    clusters = [c.id for c in project.list_clusters(limit=10_000)]
    opened: list[float] = []
    opened_without: list[float] = []  # the same members with the passages left out
    aligned: list[float] = []
    drawn: list[float] = []  # repainting both strips
    words: list[int] = []
    real_get = view.marks.get
    empty = passage_marks(PageText("", "", Tokens([], [], []), []), PageText("", "", Tokens([], [], []), []))

    cpu: dict[bool, list[float]] = {True: [], False: []}  # CPU time of this process, per open

    def open_members(cluster_id: int, times: list[float], with_passages: bool) -> None:
        view.marks.get = real_get if with_passages else (lambda _a, _b: empty)  # type: ignore[method-assign]
        view.cache.clear()  # every page read from the archive, as when a coder meets it
        view.marks.clear()
        view.show_cluster(project, cluster_id)
        app.processEvents()
        for row in range(1, min(view.members.count(), args.members - len(times) + 1)):
            t, c = time.perf_counter(), time.process_time()
            view.members.setCurrentRow(row)
            app.processEvents()  # the panes and the strips drawn
            times.append((time.perf_counter() - t) * 1000)
            cpu[with_passages].append((time.process_time() - c) * 1000)
            ref, member = view.left.page, view.right.page
            if not with_passages or ref is None or member is None or ref.error or member.error:
                continue
            t = time.perf_counter()
            passage_marks(ref, member)
            aligned.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            view.left.strip.repaint()
            view.right.strip.repaint()
            drawn.append((time.perf_counter() - t) * 1000)
            words.append(len(ref.tokens.words) + len(member.tokens.words))

    for k, cluster_id in enumerate(clusters):
        if len(opened) >= args.members:
            break
        # Alternately first and second, so neither gains from files the other had read.
        for with_passages in ((True, False) if k % 2 else (False, True)):
            open_members(cluster_id, opened if with_passages else opened_without, with_passages)
    if not opened:
        print("no cluster with members to open")
        return 1
    print(f"compared words per pair: median {statistics.median(words):.0f}, most {max(words)}")
    print(summary("align a member with its reference (passages, bands, sentence)", aligned))
    print(summary("draw the bands beside both panes", drawn))
    print(summary("open a member side by side (cold page cache: read, highlight, align, draw)", opened))
    print(summary("the same without the passages (read, highlight, draw)", opened_without))
    # On a shared machine the wall time waits on other processes; CPU time does not.
    print(summary("open a member, CPU time of this process", cpu[True]))
    print(summary("the same without the passages, CPU time", cpu[False]))
    if args.export:
        time_export(project, tmp)
    project.close()
    return 0


def time_export(project, tmp: Path) -> None:
    from workbench.export import export_pages
    from workbench.export import passage_columns as columns

    rows = sum(1 for _ in project.page_records(coded_only=False))
    t = time.perf_counter()
    export_pages(project, tmp / "with.csv", coded_only=False)
    with_shares = time.perf_counter() - t
    real = columns.PassageColumns.cells
    columns.PassageColumns.cells = lambda self, rec: ["", ""]  # type: ignore[method-assign]
    try:
        t = time.perf_counter()
        export_pages(project, tmp / "without.csv", coded_only=False)
        without = time.perf_counter() - t
    finally:
        columns.PassageColumns.cells = real  # type: ignore[method-assign]
    print(f"export of every page ({rows:,} rows): {with_shares:.1f} s with the share columns, "
          f"{without:.2f} s without ({(with_shares - without) / rows * 1000:.1f} ms a row more)")
    workers = os.cpu_count() or 1
    if workers > 1:  # the window's export: the shares ahead in worker processes
        saved, columns.POOL_ROWS = columns.POOL_ROWS, 0  # whatever the corpus's size
        try:
            t = time.perf_counter()
            export_pages(project, tmp / "pooled.csv", coded_only=False, workers=workers)
            pooled = time.perf_counter() - t
        finally:
            columns.POOL_ROWS = saved
        same = (tmp / "pooled.csv").read_bytes() == (tmp / "with.csv").read_bytes()
        print(f"the same with the shares in {workers} worker processes: {pooled:.1f} s "
              f"({'the same file' if same else 'A DIFFERENT FILE'})")


if __name__ == "__main__":
    sys.exit(main())
