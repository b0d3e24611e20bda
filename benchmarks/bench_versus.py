#!/usr/bin/env python3
"""The workbench against a datasketch MinHash LSH baseline, on the same corpus, side by side.

    .venv/bin/pip install -e '.[bench]'      # or: .venv/bin/pip install 'datasketch>=1.6'
    .venv/bin/python ../shared/tools/gensmall.py --docs 3000 --out /tmp/vs3k
    .venv/bin/python benchmarks/bench_versus.py /tmp/vs3k --tau 0.9 --runs 2 --truth /tmp/vs3k/truth.csv
    .venv/bin/python benchmarks/bench_versus.py /tmp/vs3k --tau 0.44 --workbench-args "--workers 1"
    # at scale (a 100,000-page corpus, one run of each tool takes minutes):
    .venv/bin/python ../shared/tools/gensmall.py --docs 100000 --out /tmp/small100k
    .venv/bin/python benchmarks/bench_versus.py /tmp/small100k --tau 0.9 --runs 1 \\
        --truth /tmp/small100k/truth.csv

Run by hand, never from the test suite. Two commands run *interleaved* (A, B, A, B, ... for
--runs rounds), so that a slow spell of a shared machine hits both alike:

* A, the workbench: ``.venv/bin/workbench dedup <corpus> --tau T -q --pairs <file>`` plus the
  words of ``--workbench-args``; it extracts pages in worker processes (all cores by default);
* B, benchmarks/minhash_baseline.py: resiliparse plain text, word 5-gram shingles,
  ``datasketch.MinHash(num_perm=128)``, ``MinHashLSH(threshold=T)``, candidates verified by exact
  Jaccard >= T. Single process, as a practitioner would write it (see its docstring).

Each run is measured over its whole process tree with benchmarks/process_tree.py: the
workbench's workers are started by a multiprocessing forkserver, so they are not children of
the command and ``/usr/bin/time`` would miss them; they are found by session id instead.
Wall time, CPU time (user + sys; a process that ends between two 50 ms samples loses its
last <= 50 ms) and peak memory (the largest sum of the processes' resident sets: pages that
forked processes share are counted in each) are reported as medians over the runs, with the
ratios workbench/datasketch of the medians.

With ``--truth truth.csv`` (written by ../shared/tools/gensmall.py and gencorpus.py: one row
per page, ``path,cluster,...``; cluster ids starting with 'C' are near-duplicate clusters,
'S' singletons), each tool's pairs are also scored: precision and recall against every pair
of pages of one true cluster. Both tools write paths relative to the corpus folder; the truth's
paths are taken relative to the truth file's folder or, as gensmall writes them, to its
``pages/`` folder, whichever holds the first page listed. True pairs with a page outside the
corpus folder are left out, so a sub-folder of a corpus can be benchmarked too.

Pair counts are what each tool found at similarity >= T by its own measure (the workbench: its
SpotSigs signature similarity; the baseline: Jaccard of word 5-grams of the whole visible
text), so they differ by design; precision and recall make them comparable.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import os
import shlex
import statistics
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from process_tree import TreeUsage, run_measured  # noqa: E402

WORKBENCH = REPO / ".venv" / "bin" / "workbench"
BASELINE = HERE / "minhash_baseline.py"
PAGE_SUFFIXES = {".html", ".htm"}

Pair = tuple[str, str]


@dataclass
class ToolRuns:
    """One tool's command line and what each of its runs measured and found."""

    name: str
    usages: list[TreeUsage] = field(default_factory=list)
    pair_counts: list[int] = field(default_factory=list)
    last_pairs: set[Pair] = field(default_factory=set)

    def median(self, attr: str) -> float:
        """Median of one TreeUsage figure over the runs."""
        return statistics.median(getattr(u, attr) for u in self.usages)


def require_datasketch() -> None:
    """Stop early, with the fix, when the optional bench extra is not installed."""
    if importlib.util.find_spec("datasketch") is None:
        sys.exit("bench_versus: the 'datasketch' package is missing (the optional 'bench' extra); "
                 f"install it with `{REPO / '.venv/bin/pip'} install 'datasketch>=1.6'` or "
                 "`pip install -e '.[bench]'`, and run this script with that interpreter")


def count_pages(corpus: Path) -> int:
    """How many HTML files the corpus holds, for the header line."""
    return sum(1 for p in corpus.rglob("*") if p.suffix.lower() in PAGE_SUFFIXES)


def ordered(a: str, b: str) -> Pair:
    """A pair in one orientation, so that sets of pairs from different tools compare."""
    return (a, b) if a <= b else (b, a)


def read_pairs(path: Path) -> set[Pair]:
    """Pairs of a doc_a,doc_b,similarity CSV (both tools write this format)."""
    with path.open(newline="", encoding="utf-8") as fh:
        return {ordered(row["doc_a"], row["doc_b"]) for row in csv.DictReader(fh)}


def truth_base(truth: Path, first_path: str) -> Path:
    """The folder the truth's paths are relative to: the truth's own or its pages/ folder."""
    for base in (truth.parent, truth.parent / "pages"):
        if (base / first_path).exists():
            return base
    sys.exit(f"bench_versus: cannot find {first_path!r} (first page of {truth}) "
             f"in {truth.parent} or {truth.parent / 'pages'}")


def pairs_within(groups: Iterable[list[str]]) -> set[Pair]:
    """Every pair of pages of one group."""
    out: set[Pair] = set()
    for g in groups:
        members = sorted(g)
        for i, a in enumerate(members):
            out.update((a, b) for b in members[i + 1:])
    return out


def load_truth(truth: Path, corpus: Path) -> set[Pair]:
    """True near-duplicate pairs, with paths relative to the corpus folder like the tools'."""
    with truth.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    if not rows or not {"path", "cluster"} <= rows[0].keys():
        sys.exit(f"bench_versus: {truth} has no path,cluster columns")
    base = truth_base(truth, rows[0]["path"])
    corpus_abs = os.path.abspath(corpus)
    clusters: dict[str, list[str]] = {}
    for row in rows:
        if not row["cluster"].startswith("C"):
            continue
        rel = os.path.relpath(os.path.abspath(base / row["path"]), corpus_abs)
        if rel.startswith(".."):
            continue  # outside the benchmarked folder
        clusters.setdefault(row["cluster"], []).append(Path(rel).as_posix())
    return pairs_within(clusters.values())


def score(found: set[Pair], truth: set[Pair]) -> tuple[float, float]:
    """Pair precision and recall (precision 1.0 for no pair found: nothing claimed wrongly)."""
    hits = len(found & truth)
    precision = hits / len(found) if found else 1.0
    recall = hits / len(truth) if truth else 1.0
    return precision, recall


def commands(args: argparse.Namespace, work: Path, run: int) -> dict[str, tuple[list[str], Path]]:
    """The two command lines of one round and the pairs file each writes."""
    tau = format(args.tau, "g")
    wb_pairs = work / f"workbench-{run}.csv"
    mh_pairs = work / f"datasketch-{run}.csv"
    wb = [str(args.workbench), "dedup", str(args.corpus), "--tau", tau, "-q",
          "--pairs", str(wb_pairs), *shlex.split(args.workbench_args)]
    mh = [sys.executable, str(BASELINE), str(args.corpus), "--tau", tau, "--out", str(mh_pairs)]
    return {"workbench": (wb, wb_pairs), "datasketch": (mh, mh_pairs)}


def run_one(tool: ToolRuns, cmd: list[str], pairs_file: Path, log: Path, interval: float) -> None:
    """Run one measured command, its output going to a log; stop the benchmark if it fails."""
    with log.open("wb") as fh:
        usage = run_measured(cmd, interval=interval, stdout=fh, stderr=fh)
    if usage.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-15:]
        sys.exit(f"bench_versus: {tool.name} failed (exit {usage.returncode}): {shlex.join(cmd)}\n"
                 + "\n".join(tail))
    pairs = read_pairs(pairs_file)
    tool.usages.append(usage)
    tool.pair_counts.append(len(pairs))
    tool.last_pairs = pairs
    print(f"  {tool.name:<10}  wall {usage.wall_s:7.1f} s  CPU {usage.cpu_s:7.1f} s  "
          f"peak {usage.peak_rss_mb:7.0f} MB  {usage.processes:2d} processes  "
          f"{len(pairs):,} pairs", flush=True)


def ratio(a: float, b: float) -> str:
    """a/b as '0.42x', or '-' when b is zero."""
    return f"{a / b:.2f}x" if b else "-"


def print_table(tools: Sequence[ToolRuns], truth: set[Pair] | None) -> None:
    """Medians per tool, pair counts, optional precision/recall, then the ratios."""
    head = f"{'tool':<22}{'wall s':>9}{'CPU s':>9}{'peak MB':>9}{'procs':>7}{'pairs':>10}"
    if truth is not None:
        head += f"{'precision':>11}{'recall':>8}"
    print(head)
    for t in tools:
        line = (f"{t.name:<22}{t.median('wall_s'):>9.1f}{t.median('cpu_s'):>9.1f}"
                f"{t.median('peak_rss_mb'):>9.0f}{max(u.processes for u in t.usages):>7}"
                f"{t.pair_counts[-1]:>10,}")
        if truth is not None:
            p, r = score(t.last_pairs, truth)
            line += f"{p:>11.3f}{r:>8.3f}"
        print(line)
        if len(set(t.pair_counts)) > 1:
            print(f"  ({t.name}: pair counts differed between runs: {t.pair_counts})")
    wb, mh = tools
    print(f"{'workbench/datasketch':<22}{ratio(wb.median('wall_s'), mh.median('wall_s')):>9}"
          f"{ratio(wb.median('cpu_s'), mh.median('cpu_s')):>9}"
          f"{ratio(wb.median('peak_rss_mb'), mh.median('peak_rss_mb')):>9}")
    if truth is not None:
        print(f"true pairs: {len(truth):,}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command line; --help is the reference (the module docstring has worked examples)."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Each run's output goes to <tool>-<run>.log beside its pair file (see --keep); a "
               "failed run stops the benchmark with the end of its log.")
    ap.add_argument("corpus", type=Path,
                    help="folder of .html pages, nested folders included (gensmall: its output "
                         "folder or its pages/ folder)")
    ap.add_argument("--tau", type=float, default=0.9,
                    help="similarity threshold given to both tools: workbench --tau; the baseline's "
                         "MinHashLSH threshold and exact-Jaccard cut (default 0.9)")
    ap.add_argument("--runs", type=int, default=3,
                    help="rounds; each runs the workbench, then the baseline; figures are medians "
                         "(default 3)")
    ap.add_argument("--workbench-args", default="", metavar="ARGS",
                    help='extra arguments for `workbench dedup`, one quoted string: "--workers 1"; '
                         'a single option needs "=": --workbench-args=--no-main-content '
                         "(--pairs and --tau are set by the benchmark)")
    ap.add_argument("--truth", type=Path, metavar="CSV",
                    help="truth.csv of a gensmall/gencorpus corpus (path,cluster,...): also print "
                         "each tool's pair precision and recall against the true pairs")
    ap.add_argument("--keep", type=Path, metavar="DIR",
                    help="write pair files and logs (<tool>-<run>.csv/.log) here and keep them "
                         "(default: a temporary folder, deleted at the end)")
    ap.add_argument("--workbench", type=Path, default=WORKBENCH, metavar="PATH",
                    help=f"the workbench executable (default {WORKBENCH})")
    ap.add_argument("--interval", type=float, default=0.05, metavar="SECONDS",
                    help="time between two samples of /proc (default 0.05)")
    args = ap.parse_args(argv)
    if not args.corpus.is_dir():
        ap.error(f"not a folder: {args.corpus}")
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    if not 0.0 < args.tau <= 1.0:
        ap.error("--tau must be in (0, 1]")
    extra = shlex.split(args.workbench_args)
    if any(a.split("=")[0] in ("--pairs", "--tau") for a in extra):
        ap.error("--workbench-args must not hold --pairs or --tau: the benchmark sets them")
    if not os.access(args.workbench, os.X_OK):
        ap.error(f"no workbench executable at {args.workbench} (run ./run once, or pass --workbench)")
    if args.truth is not None and not args.truth.is_file():
        ap.error(f"no truth file at {args.truth}")
    return args


def bench(args: argparse.Namespace, work: Path) -> None:
    """The interleaved rounds, then the table."""
    truth = load_truth(args.truth, args.corpus) if args.truth else None
    tools = {"workbench": ToolRuns("workbench"), "datasketch": ToolRuns("datasketch")}
    extra = f", workbench args: {args.workbench_args}" if args.workbench_args else ""
    print(f"corpus {args.corpus} ({count_pages(args.corpus):,} pages), tau {args.tau:g}, "
          f"{args.runs} interleaved run(s) each{extra}", flush=True)
    for run in range(1, args.runs + 1):
        print(f"run {run}/{args.runs}", flush=True)
        for name, (cmd, pairs_file) in commands(args, work, run).items():
            run_one(tools[name], cmd, pairs_file, work / f"{name}-{run}.log", args.interval)
    print()
    print_table([tools["workbench"], tools["datasketch"]], truth)


def main(argv: list[str] | None = None) -> int:
    """Check the baseline's dependency, then benchmark in a kept or temporary folder."""
    args = parse_args(argv)
    require_datasketch()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        bench(args, args.keep)
        print(f"pair files and logs kept in {args.keep}")
    else:
        with tempfile.TemporaryDirectory(prefix="bench_versus-") as tmp:
            bench(args, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
