"""``workbench compare GOLD_DIR | --project P [--methods ...] [--curve FILE.csv]``.

Prints, per method, pair and cluster precision, recall and F1 at the method's best
threshold (its Max F1, the papers' measure), the time and peak memory, and what the
method's papers report on the Gold Set; ``--curve`` writes every threshold's scores for
a precision-recall plot in R, Stata or a spreadsheet. cli.py wires it in with
``add_parser(subparsers)``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from workbench.core.progress_text import ProgressWriter
from workbench.core.terminal_text import terminal_safe
from workbench.detect.registry import METHODS, parse_methods
from workbench.detect.spotsigs.params import SpotSigsParams, params_from_record
from workbench.export.cells import csv_writer
from workbench.store import Project, ProjectError
from workbench.store.safety.outputs import check_output
from workbench.store.safety.whole_files import OutputRefused, whole_file
from workbench.usecases.comparison import PAPER_FIGURES, Comparison, Truth, compare, truth_of_project

EXIT_OK, EXIT_USAGE, EXIT_INPUT = 0, 2, 3


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "compare",
        help="compare detection methods against a gold folder or a project's coded clusters",
        description="Run several near-duplicate detectors on the same pages and score each "
                    "against a gold folder (one sub-folder per cluster) or the clusters "
                    "coded in a project, at every threshold of its grid.",
    )
    parser.add_argument("gold", nargs="?", type=Path, help="gold-set folder; every sub-folder is one cluster")
    parser.add_argument("--project", type=Path,
                        help="score against this project's coded clusters (its crawl is re-read)")
    parser.add_argument("--methods", default=",".join(METHODS),
                        help=f"comma-separated, from {', '.join(METHODS)} (default: all)")
    parser.add_argument("--curve", type=Path, metavar="FILE.csv",
                        help="write every method's scores at every threshold as CSV")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    parser.set_defaults(func=run)
    return parser


class CompareError(Exception):
    """What the user asked for cannot be compared; printed as a message."""


def run(args: argparse.Namespace) -> int:
    if args.curve is not None:
        try:  # before minutes of comparing: not the project, the gold set, a link
            check_output(args.curve, project=args.project, crawl=args.gold, what="--curve")
        except OutputRefused as exc:
            print(f"workbench compare: {exc}", file=sys.stderr)
            return EXIT_USAGE
    try:
        methods = parse_methods(args.methods)
        comparison = _compare(args, methods)
    except (CompareError, ValueError) as exc:
        print(f"workbench compare: {terminal_safe(exc)}", file=sys.stderr)
        return EXIT_INPUT
    print_table(comparison, sys.stdout)
    if args.curve is not None:
        try:
            with whole_file(args.curve) as fh:  # whole or not at all
                write_curve(comparison, fh)
        except ProjectError as exc:
            print(f"workbench compare: cannot write {terminal_safe(args.curve)}: "
                  f"{terminal_safe(exc)}", file=sys.stderr)
            return EXIT_INPUT
        print(f"every threshold's scores: {terminal_safe(args.curve)}")
    return EXIT_OK


def _compare(args: argparse.Namespace, methods: list[str]) -> Comparison:
    if (args.gold is None) == (args.project is None):
        raise CompareError("give a gold folder or --project FILE (one of them)")
    progress = None if args.quiet else ProgressWriter(sys.stderr, tty=sys.stderr.isatty())
    try:
        if args.gold is not None:
            gold: Path = args.gold
            if not gold.is_dir() or not any(p.is_dir() for p in gold.iterdir()):
                raise CompareError(f"{gold}: a gold set is a folder with one sub-folder per cluster")
            return compare(gold, Truth.from_gold_folder, methods, progress=progress or _quiet,
                           workers=args.workers)
        return _compare_project(args.project, methods, progress, args.workers)
    finally:
        if progress is not None:
            progress.finish()


def _compare_project(path: Path, methods: list[str], progress: ProgressWriter | None,
                     workers: int | None) -> Comparison:
    try:
        # Read-only: a comparison changes nothing, and works beside the open window.
        with Project.open(path, backups=0, readonly=True) as project:
            truth = truth_of_project(project)
            root = project.archive_root
            run = project.current_run()
            # The extraction settings the coder's clusters came from (as the window does).
            params = params_from_record(run.params) if run is not None else SpotSigsParams()
    except (ProjectError, OSError) as exc:
        raise CompareError(f"{path}: {exc}") from None
    if not truth.cluster_of:
        raise CompareError(f"{path}: no coded clusters yet; tag some clusters first, "
                           "or compare against a gold folder")
    if not root or not Path(root).exists():
        raise CompareError(f"{path}: its crawl {root or '(none recorded)'} is not there; "
                           "open the project in the workbench and point it to the crawl")
    return compare(root, truth, methods, params=params, progress=progress or _quiet, workers=workers,
                   source=str(path))


def _quiet(stage: str, done: int, total: int | None) -> None:
    """No progress display."""


def print_table(c: Comparison, out: TextIO) -> None:
    print(f"{terminal_safe(c.source)}: {c.pages:,} pages, {c.labelled_pages:,} labelled in "
          f"{c.true_clusters:,} true clusters", file=out)
    if c.read_seconds:
        print(f"reading and extracting the texts the methods other than SpotSigs share: "
              f"{c.read_seconds:.1f} s", file=out)
    print(f"{'method':<9} {'exact':<5} {'best':>5}  {'pair P':>6} {'pair R':>6} {'Max F1':>6}  "
          f"{'clus P':>6} {'clus R':>6} {'clus F1':>7}  {'time':>7} {'memory':>8}", file=out)
    for m in c.methods:
        b = m.best
        print(f"{m.method:<9} {'yes' if m.exact else 'LSH':<5} {b.threshold:>5.3g}  "
              f"{b.pairs.precision:>6.3f} {b.pairs.recall:>6.3f} {b.pairs.f1:>6.3f}  "
              f"{b.clusters.precision:>6.3f} {b.clusters.recall:>6.3f} {b.clusters.f1:>7.3f}  "
              f"{m.seconds:>6.1f}s {m.peak_bytes / 2**20:>6.0f}MB", file=out)
    print("\nwhat the papers report on their whole Gold Set (Max F1 over its 2,160 pages in 68 "
          "clusters, not over the pages compared here):", file=out)
    for m in c.methods:
        print(f"  {m.method:<9} {'; '.join(PAPER_FIGURES.get(m.method, ('none',)))}", file=out)
    notes = [f"  {m.method}: {m.note}" for m in c.methods if m.note]
    if notes:
        print("notes:", *notes, sep="\n", file=out)


def write_curve(c: Comparison, fh: TextIO) -> None:
    w = csv_writer(fh)
    w.writerow(["method", "threshold", "pair_precision", "pair_recall", "pair_f1", "pairs_found",
                "cluster_precision", "cluster_recall", "cluster_f1", "true_pairs"])
    for m in c.methods:
        for p in m.points:
            w.writerow([m.method, f"{p.threshold:g}", f"{p.pairs.precision:.4f}", f"{p.pairs.recall:.4f}",
                        f"{p.pairs.f1:.4f}", p.pairs.predicted_pairs, f"{p.clusters.precision:.4f}",
                        f"{p.clusters.recall:.4f}", f"{p.clusters.f1:.4f}", p.pairs.true_pairs])
