"""How fast the project file answers a coder, and what saving a run costs.

Two shapes of project:

* ``--pages N`` (the shape detection gives a crawl): about 40 % of the N pages in
  clusters of 2-11 pages with every pair inside a cluster stored, the rest single
  pages, which ``save_run`` turns into one-page clusters; at 1,000,000 pages that
  is about 660,000 clusters. ``--big`` adds one cluster of that many pages.
* ``--clusters N`` (the default, 100,000): N clusters of 1-4 pages plus one of
  ``--big`` (10,000) pages.

It prints the time and peak memory of ``save_run``; the integrity check opening makes
(``quick_check``); the time to open the project and until the cluster list's first
screen is ready (the store calls the main window makes when it opens a project, and
ClusterTableModel loading its first rows under QT_QPA_PLATFORM=offscreen);
``counts()``; and the median time of every coding action on an ordinary cluster, with
the undo and redo of each. Targets: list open < 1 s, every action < 50 ms, ``counts()``
< 50 ms. A project 30 % coded is timed: tags on
30 % of the clusters, put there by ordinary tag actions (so the undo log is real too).
Every write is a committed transaction with ``synchronous = FULL`` (one fsync), as in
real use, so figures depend on the disk.

    python benchmarks/bench_store.py --pages 1000000 [--big 0] [--repeat 15]
    python benchmarks/bench_store.py [--clusters 100000] [--big 10000] [--repeat 30]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from workbench.core.records import Cluster, PageInfo, Pair  # noqa: E402
from workbench.store import Project  # noqa: E402
from workbench.store.safety import integrity  # noqa: E402

LIST_OPEN_MS = 1000.0
ACTION_MS = 50.0
COUNTS_MS = 50.0
BIG_TAG_MS = 300.0
SCREEN = 200  # rows the list asks for at once (gui.models.PAGE_SIZE)
T = TypeVar("T")


# ------------------------------------------------------------------ memory
def _status_kib(field_name: str) -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    return 0


def rss_mib() -> float:
    return _status_kib("VmRSS") / 1024


def reset_peak() -> bool:
    """Start a new high-water mark of resident memory (Linux >= 4.0); False if unsupported."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def peak_mib() -> float:
    return _status_kib("VmHWM") / 1024


# -------------------------------------------------------------- the run
def gensmall_sizes(n_pages: int, rng: random.Random) -> list[int]:
    """Cluster sizes (2-11) covering about 40 % of ``n_pages``; the rest stay single."""
    sizes, covered = [], 0
    while covered < n_pages * 2 // 5:
        size = rng.randint(2, 11)
        sizes.append(size)
        covered += size
    return sizes


def legacy_sizes(n_clusters: int, rng: random.Random) -> list[int]:
    return [rng.choice((1, 1, 2, 2, 3, 4)) for _ in range(n_clusters)]


def make_page(j: int) -> PageInfo:
    key = f"crawl/part-{j // 5000:05d}.warc.gz#{j * 7919}"
    return PageInfo(key=key, source=f"crawl/part-{j // 5000:05d}.warc.gz", offset=j * 7919,
                    url=f"http://site{j % 997}.example.org/news/{j}.html",
                    capture_date="2017-05-04T10:20:30Z", http_status=200,
                    content_type="text/html", encoding="utf-8",
                    title=f"Story number {j} about something that happened",
                    checksum=f"{j:016x}", signature_count=40)


def make_run(sizes: list[int], n_pages: int, rng: random.Random
             ) -> tuple[list[PageInfo], list[Pair], list[Cluster]]:
    """Pages, all pairs inside each cluster, and the clusters, members scattered over
    the crawl as copies are. Pages in no cluster are left for save_run's singletons."""
    pages = [make_page(j) for j in range(n_pages)]
    order = list(range(n_pages))
    rng.shuffle(order)
    pairs: list[Pair] = []
    clusters: list[Cluster] = []
    start = 0
    for size in sizes:
        members = order[start:start + size]
        start += size
        sims = [1.0] + [round(rng.uniform(0.4, 1.0), 3) for _ in range(size - 1)]
        clusters.append(Cluster(members[0], members, sims))
        if size > 1000:  # the big cluster: star pairs only, as the old benchmark had
            pairs += [Pair(members[0], m, s) for m, s in zip(members[1:], sims[1:], strict=True)]
            continue
        for i, a in enumerate(members):
            pairs += [Pair(a, b, round(rng.uniform(0.3, 1.0), 3)) for b in members[i + 1:]]
        for k in range(1, size):
            pairs.append(Pair(members[0], members[k], sims[k]))
    # One pair per page pair (the reference's pairs above repeat some): keep the last.
    unique = {(min(p.a, p.b), max(p.a, p.b)): p for p in pairs}
    return pages, list(unique.values()), clusters


@dataclass
class SaveFigures:
    seconds: float
    cpu_seconds: float  # this process's CPU: steadier than wall time on a shared machine
    rss_before: float
    peak: float  # high-water mark during save_run (MiB), or the process's if not resettable
    peak_is_save_only: bool
    pages: int = 0
    pairs: int = 0


def build(path: Path, sizes: list[int], n_pages: int, seed: int = 0
          ) -> tuple[Project, SaveFigures]:
    rng = random.Random(seed)
    pages, pairs, clusters = make_run(sizes, n_pages, rng)
    project = Project.create(path, "/bench", coder="bench")
    gc.collect()
    before = rss_mib()
    resettable = reset_peak()
    started, cpu = time.perf_counter(), time.process_time()
    project.save_run({"tau": 0.4}, "spotsigs", {}, pages, pairs, clusters)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    figures = SaveFigures(seconds, cpu, before, peak_mib(), resettable, len(pages), len(pairs))
    return project, figures


# ----------------------------------------------------------- measuring
def median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def timed_ms(fn: Callable[[], object]) -> tuple[float, object]:
    t = time.perf_counter()
    result = fn()
    return (time.perf_counter() - t) * 1000, result


def median_prepared(prepare: Callable[[], T], act: Callable[[T], object], repeat: int) -> float:
    """Median time of ``act(prepare())``, the preparation untimed."""
    times = []
    for _ in range(repeat):
        arg = prepare()
        times.append(timed_ms(lambda: act(arg))[0])  # noqa: B023 - called at once
    return statistics.median(times)


@dataclass
class Report:
    lines: list[tuple[str, float, float | None]] = field(default_factory=list)

    def add(self, label: str, ms: float, target: float | None = None) -> None:
        self.lines.append((label, ms, target))

    def print(self) -> None:
        for label, ms, target in self.lines:
            goal = f" (target < {target:g} ms)" if target else ""
            verdict = "" if target is None else ("  ok" if ms < target else "  SLOWER THAN TARGET")
            print(f"  {label:<50} {ms:9.2f} ms{goal}{verdict}")


def code(project: Project, cluster_ids: list[int], tags: list[int], seed: int = 1) -> None:
    """Tag the clusters with ordinary tag actions of 5,000 clusters each."""
    rng = random.Random(seed)
    for chunk in range(0, len(cluster_ids), 5_000):
        ids = cluster_ids[chunk:chunk + 5_000]
        project.tag_clusters(ids, [rng.choice(tags)])


# ------------------------------------------------------------- opening
def time_check(path: Path, report: Report) -> None:
    """The integrity check opening makes (PRAGMA quick_check): before Project.open
    returns for a file up to integrity.SYNC_CHECK_MAX_BYTES, else on the backup thread."""
    conn = sqlite3.connect(str(path))
    try:
        ms, found = timed_ms(lambda: integrity.problems(conn))
    finally:
        conn.close()
    assert found == [], found
    size = path.stat().st_size
    where = ("before open returns" if size <= integrity.SYNC_CHECK_MAX_BYTES
             else "on the backup thread")
    report.add(f"integrity check, {size / 2**20:,.0f} MiB ({where})", ms)


def time_open(path: Path, report: Report) -> Project:
    """Open the project as the main window does (keeping a backup copy) and make the
    store calls it makes before the list shows (MainWindow._set_project, refresh,
    model.reload, show_status)."""
    t0 = time.perf_counter()
    project = Project.open(path, backups=1, backup_dir=path.parent / "backups", coder="bench")
    report.add("open the project (keeps a backup copy)", (time.perf_counter() - t0) * 1000)
    t1 = time.perf_counter()
    project.skipped_pages()
    run = project.current_run()
    assert run is not None
    project.run_filters(run.id)
    project.current_run()
    total = project.count_clusters()
    project.list_clusters(0, SCREEN)
    project.codebook()
    project.next_undo()
    project.next_redo()
    project.current_run()
    project.counts()
    screen = (time.perf_counter() - t1) * 1000
    report.add(f"  then first screen of the list ({total:,} clusters)", screen)
    report.add("open + first screen (store)", (time.perf_counter() - t0) * 1000, LIST_OPEN_MS)
    wait = getattr(project, "wait_for_backup", None)  # absent before the copy moved to a thread
    if wait is not None:
        wait()
        report.add("  backup copy written on its thread (after open)",
                   (time.perf_counter() - t0) * 1000)
    return project


def time_model(project: Project, report: Report) -> None:
    """ClusterTableModel reading its first rows, headless (skipped without PySide6)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        from PySide6.QtCore import QCoreApplication

        from workbench.gui.models import ClusterTableModel
    except ImportError as exc:
        print(f"  (ClusterTableModel not timed: {exc})")
        return
    _app = QCoreApplication.instance() or QCoreApplication([])
    model = ClusterTableModel()
    ms, _ = timed_ms(lambda: model.set_project(project))
    report.add(f"ClusterTableModel: first {model.rowCount()} rows", ms, LIST_OPEN_MS)
    ms, _ = timed_ms(model.fetchMore)
    report.add(f"  fetchMore (next {SCREEN} rows)", ms, ACTION_MS)
    ms, _ = timed_ms(lambda: model.reload(keep_rows=model.rowCount()))
    report.add("  reload as after undo, split or merge", ms, ACTION_MS)
    ms, _ = timed_ms(lambda: model.refresh_clusters({model.row_of(0).id}))
    report.add("  refresh one row as after tagging", ms, ACTION_MS)


# ------------------------------------------------------------- actions
class Pool:
    """Clusters no timed action has touched yet, so every repeat is a fresh one."""

    def __init__(self, ids: list[int]) -> None:
        self._it: Iterator[int] = iter(ids)

    def take(self, n: int = 1) -> list[int]:
        return [next(self._it) for _ in range(n)]


def time_action_with_undo(report: Report, label: str, act: Callable[[], object],
                          project: Project, repeat: int) -> None:
    """Median of an action, of undoing it and of redoing it (each on a fresh target)."""
    acts, undos, redos = [], [], []
    for _ in range(repeat):
        ms, _ = timed_ms(act)
        acts.append(ms)
        ms, _ = timed_ms(project.undo)
        undos.append(ms)
        ms, _ = timed_ms(project.redo)
        redos.append(ms)
    report.add(label, statistics.median(acts), ACTION_MS)
    report.add(f"  undo: {label}", statistics.median(undos), ACTION_MS)
    report.add(f"  redo: {label}", statistics.median(redos), ACTION_MS)


def time_actions(project: Project, report: Report, multi: Pool, singles: Pool,
                 tags: list[int], repeat: int) -> None:
    """Every kind of action a coder takes, on ordinary (2-11 page) clusters."""
    tag = tags[0]

    def tag_fresh() -> object:
        return project.tag_clusters(multi.take(), [tag])
    time_action_with_undo(report, "tag a cluster", tag_fresh, project, repeat)

    def tagged_cluster() -> int:
        (cid,) = multi.take()
        project.tag_clusters([cid], [tags[1]])
        return cid
    report.add("untag a cluster", median_prepared(
        tagged_cluster, lambda cid: project.untag_clusters([cid], [tags[1]]), repeat), ACTION_MS)
    report.add("toggle a tag (tag + check)", median_ms(
        lambda: project.toggle_tag(multi.take(), tag), repeat), ACTION_MS)
    report.add("tag 20 selected clusters", median_ms(
        lambda: project.tag_clusters(multi.take(20), [tags[2]]), repeat), ACTION_MS)

    def member_of(cid: int) -> int:
        return project.members(cid)[-1].page_id
    time_action_with_undo(report, "tag one page", lambda: project.tag_pages(
        [member_of(multi.take()[0])], [tags[3]]), project, repeat)
    time_action_with_undo(report, "untag one page", lambda: _untag_page(project, multi, tags[4]),
                          project, repeat)
    time_action_with_undo(report, "split a page out", lambda: _split_one(project, multi),
                          project, repeat)
    time_action_with_undo(report, "merge two clusters", lambda: project.merge(multi.take(2)),
                          project, repeat)
    time_action_with_undo(report, "merge a cluster and a single page",
                          lambda: project.merge(multi.take() + singles.take()), project, repeat)
    time_action_with_undo(report, "flag for review", lambda: project.set_review(
        multi.take(), True), project, repeat)
    time_action_with_undo(report, "add a memo", lambda: project.add_memo(
        multi.take()[0], "look at the dates"), project, repeat)
    memo_ids = iter([project.add_memo(c, "first thought").id or 0 for c in multi.take(repeat)])
    report.add("edit a memo", median_ms(
        lambda: project.edit_memo(next(memo_ids), "second thought"), repeat), ACTION_MS)

    def new_memo() -> int:
        return project.add_memo(multi.take()[0], "third thought").id or 0
    report.add("delete a memo", median_prepared(new_memo, project.delete_memo, repeat), ACTION_MS)
    _time_codebook(project, report, multi, repeat)


def _untag_page(project: Project, multi: Pool, tag: int) -> object:
    (cid,) = multi.take()
    project.tag_clusters([cid], [tag])
    page = project.members(cid)[-1].page_id
    return project.untag_pages([page], [tag])


def _split_one(project: Project, multi: Pool) -> object:
    (cid,) = multi.take()
    return project.split(cid, [project.members(cid)[-1].page_id])


def _time_codebook(project: Project, report: Report, multi: Pool, repeat: int) -> None:
    names = iter(range(10_000))
    time_action_with_undo(report, "add a tag to the codebook", lambda: project.add_tag(
        f"new{next(names)}"), project, repeat)
    fresh = [project.add_tag(f"spare{i}").id or 0 for i in range(repeat)]
    renames = iter(fresh)
    report.add("rename a tag", median_ms(lambda: project.edit_tag(
        next(renames), name=f"renamed{next(names)}"), repeat), ACTION_MS)
    for tag_id, cid in zip(fresh, multi.take(repeat), strict=True):
        project.tag_clusters([cid], [tag_id])
    deletes = iter(fresh)
    report.add("delete a tag used on one cluster", median_ms(
        lambda: project.delete_tag(next(deletes)), repeat), ACTION_MS)


def time_reads(project: Project, report: Report, big_id: int | None, repeat: int,
               rng: random.Random) -> None:
    total = project.count_clusters()
    offsets = iter([rng.randrange(0, max(1, total - SCREEN)) for _ in range(repeat)])
    report.add("counts()", median_ms(project.counts, repeat), COUNTS_MS)
    report.add("count_clusters()", median_ms(project.count_clusters, repeat), COUNTS_MS)
    report.add("current_run()", median_ms(project.current_run, repeat), ACTION_MS)
    report.add("first screen of the list", median_ms(
        lambda: project.list_clusters(0, SCREEN), repeat), ACTION_MS)
    report.add("a screen anywhere in the list", median_ms(
        lambda: project.list_clusters(next(offsets), SCREEN), repeat), ACTION_MS)
    report.add("first screen, uncoded only", median_ms(
        lambda: project.list_clusters(0, SCREEN, coded="none"), repeat), ACTION_MS)
    report.add("first screen, least similar first", median_ms(
        lambda: project.list_clusters(0, SCREEN, order="similarity"), repeat), ACTION_MS)
    report.add("skipped_pages()", median_ms(project.skipped_pages, repeat), ACTION_MS)
    if big_id is not None:
        report.add("members of the big cluster", median_ms(lambda: project.members(big_id), 3))


def time_big(project: Project, report: Report, big_id: int, big: int, tag: int,
             repeat: int) -> None:
    times = []
    for _ in range(max(3, repeat // 5)):
        ms, _ = timed_ms(lambda: project.tag_clusters([big_id], [tag]))
        times.append(ms)
        project.undo()
    report.add(f"tag the {big:,}-page cluster", statistics.median(times), BIG_TAG_MS)


# ---------------------------------------------------------------- main
def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Time the project file's hot paths.")
    shape = parser.add_mutually_exclusive_group()
    shape.add_argument("--pages", type=int,
                       help="crawl shape: N pages, 40 %% in clusters of 2-11, the rest single")
    shape.add_argument("--clusters", type=int, default=100_000,
                       help="old shape: N clusters of 1-4 pages (default 100,000)")
    parser.add_argument("--big", type=int, default=None,
                        help="pages in one extra big cluster (default: 10,000 with --clusters, "
                             "none with --pages)")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--dir", type=Path, help="where to build the project (default: temp)")
    parser.add_argument("--no-gui", action="store_true", help="do not time ClusterTableModel")
    return parser.parse_args(argv)


def plan(args: argparse.Namespace) -> tuple[list[int], int, int]:
    """Cluster sizes (the big one first), total pages, and the big cluster's size."""
    rng = random.Random(0)
    if args.pages is not None:
        big = args.big or 0
        sizes = gensmall_sizes(args.pages - big, rng)
        return ([big] if big else []) + sizes, args.pages, big
    big = 10_000 if args.big is None else args.big
    sizes = ([big] if big else []) + legacy_sizes(args.clusters - (1 if big else 0), rng)
    return sizes, sum(sizes), big


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    sizes, n_pages, big = plan(args)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = Path(tmp) / "bench.wbproj"
        project, save = build(path, sizes, n_pages)
        peak_what = "peak RSS during save_run" if save.peak_is_save_only else "peak RSS so far"
        print(f"save_run: {save.pages:,} pages, {save.pairs:,} pairs, {len(sizes):,} clusters "
              f"given: {save.seconds:.1f} s ({save.cpu_seconds:.1f} s CPU); "
              f"RSS before {save.rss_before:,.0f} MiB, "
              f"{peak_what} {save.peak:,.0f} MiB (+{save.peak - save.rss_before:,.0f} MiB); "
              f"file {path.stat().st_size / 2**20:,.0f} MiB")
        tags = [project.add_tag(f"tag{i}", colour=f"#{i:02d}0000").id or 0 for i in range(10)]
        rows = project.list_clusters(limit=len(sizes) + n_pages)
        big_id = rows[0].id if big else None
        multi = [r.id for r in rows if 1 < r.size < 50]
        singles = [r.id for r in rows if r.size == 1]
        del rows
        rng = random.Random(1)
        rng.shuffle(multi)
        rng.shuffle(singles)
        started = time.perf_counter()
        third = len(multi) * 3 // 10, len(singles) * 3 // 10
        code(project, multi[:third[0]] + singles[:third[1]], tags)
        c = project.counts()
        print(f"project: {c.clusters:,} clusters, {c.pages:,} pages, {c.clusters_all_coded:,} "
              f"coded by tag actions in {time.perf_counter() - started:.1f} s")
        project.close()
        del project
        gc.collect()

        report = Report()
        time_check(path, report)
        project = time_open(path, report)
        if not args.no_gui:
            time_model(project, report)
        time_reads(project, report, big_id, args.repeat, rng)
        time_actions(project, report, Pool(multi[third[0]:]), Pool(singles[third[1]:]),
                     tags, args.repeat)
        if big_id is not None:
            time_big(project, report, big_id, big, tags[5], args.repeat)
        project.close()
    print("medians:")
    report.print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
