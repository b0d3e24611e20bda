"""``workbench dedup|eval ...``: the detection pipeline without a display."""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Sequence
from contextlib import contextmanager, nullcontext, suppress
from pathlib import Path

from workbench import __version__
from workbench.core.clusters.evaluation import Scores, pairs_of_groups, score_pairs
from workbench.core.progress import Cancelled, no_progress
from workbench.core.progress_text import ProgressWriter
from workbench.core.records import SkipRecord
from workbench.core.terminal_text import terminal_safe
from workbench.detect.join.matcher import find_pairs
from workbench.detect.registry import METHODS, SPOTSIGS
from workbench.detect.spotsigs.params import CLUSTER_METHODS, AntecedentSpec, SpotSigsParams, default_specs
from workbench.detect.spotsigs.scheme import PUNCTUATION, SPOTS
from workbench.export.cells import csv_writer
from workbench.export.skipped import write_skipped
from workbench.store.safety.whole_files import whole_file
from workbench.text.limit import MARKUP_LIMIT_BYTES, is_markup_cut
from workbench.usecases.pipeline import Corpus, DedupResult, detect, load_corpus, pending_run, save_result

EXIT_OK, EXIT_USAGE, EXIT_INPUT, EXIT_CANCELLED = 0, 2, 3, 130
SHOWN_REASONS = 10  # skip reasons the summary lists; --skipped writes every skipped input
ALL_SKIPPED = "--skipped FILE.csv lists every skipped input"


class InputError(Exception):
    """A problem with what the user pointed us at; printed without a traceback."""


class UsageError(InputError):
    """Parameters that must not be used together (an output that is the project or a
    file of the crawl being read): exit status 2, like argparse's own."""


def _tau(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"tau must be a number, not {text!r}") from None
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"tau must be in (0, 1], not {value}")
    return value


def _unit(text: str) -> float:
    """A similarity in [0, 1] (0 turns the option off)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], not {value}")
    return value


def _idf(text: str) -> tuple[float, float]:
    try:
        low, high = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--idf wants LOW,HIGH like 0.2,0.85, not {text!r}") from None
    if not 0.0 <= low <= high <= 1.0:
        raise argparse.ArgumentTypeError(f"--idf needs 0 <= LOW <= HIGH <= 1, not {text}")
    return low, high


def _spec(text: str) -> AntecedentSpec:
    try:
        return AntecedentSpec.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_detection_options(p: argparse.ArgumentParser) -> None:
    d = SpotSigsParams()
    p.add_argument("--tau", type=_tau, default=d.tau,
                   help=f"similarity threshold (default {d.tau}): pages at least this similar "
                        f"are linked into clusters. A lower tau joins more pages to clusters, "
                        f"but below --corroborate-below ({d.corroborate_below}) it makes no new "
                        f"cluster of two pages: such a pair needs a third page linked to both. "
                        f"It does not change which pages are read or what is compared "
                        f"(pairs down to --pair-floor are found either way)")
    p.add_argument("--spec", type=_spec, action="append", metavar="WORD(D,C)|WORD[S1,S2]",
                   help="antecedent spec, repeatable (default: articles and forms of be, can, "
                        "will, have, do with d=1, c=2); WORD[3,4] is the Multi-Chain variant: the "
                        "word 3 on from WORD, then the word 4 on from that")
    p.add_argument("--distance", type=int, help="spot distance d for the default antecedents")
    p.add_argument("--chain", type=int, help="chain length c for the default antecedents")
    p.add_argument("--idf", type=_idf, default=(d.idf_low, d.idf_high), metavar="LOW,HIGH",
                   help=f"normalised IDF range (default {d.idf_low},{d.idf_high}): signatures below "
                        f"LOW are too common and dropped; HIGH has no effect (a signature on one page "
                        f"is never indexed but counts in its page's length)")
    p.add_argument("--min-sigs", type=int, default=d.min_sigs,
                   help=f"pages with fewer signatures are reported as too little text "
                        f"(default {d.min_sigs})")
    p.add_argument("--cluster-method", choices=CLUSTER_METHODS, default=d.cluster_method,
                   help=f"how pairs become clusters (default {d.cluster_method})")
    p.add_argument("--no-block-filter", action="store_true",
                   help="take signatures from every layout block, navigation included")
    p.add_argument("--no-languages", action="store_true",
                   help="give every page the English antecedents (default: each page those of its "
                        "language, punctuation signatures for languages without lists)")
    p.add_argument("--no-main-content", action="store_true",
                   help="take signatures from the whole page, not only its main content (the article)")
    p.add_argument("--no-corpus-boilerplate", action="store_true",
                   help="keep blocks that many pages of any site repeat (banners, teasers)")
    p.add_argument("--pair-floor", type=_tau, default=d.pair_floor,
                   help=f"find and save pairs down to this similarity, for calibration and weak "
                        f"joins (default {d.pair_floor})")
    p.add_argument("--pair-floor-max-pages", type=int, default=d.pair_floor_max_pages, metavar="N",
                   help=f"on a crawl of more pages, look for pairs from tau only: the floor's pairs "
                        f"grow with the square of the crawl (default {d.pair_floor_max_pages:,}; "
                        f"0: no limit)")
    p.add_argument("--corroborate-below", type=_unit, default=d.corroborate_below, metavar="SIM",
                   help=f"in a star cluster, a member less similar than this to its reference "
                        f"stays only when another member links to it too, so two pages this "
                        f"little alike are no cluster on their own (default "
                        f"{d.corroborate_below}; 0: off, every pair >= tau can make a cluster)")
    p.add_argument("--weak-join", type=_unit, default=d.weak_join,
                   help=f"star clusters of 3 or more take pages this similar to most of their "
                        f"members, below tau (default {d.weak_join}; 0: off)")
    p.add_argument("--weak-join-own-text", type=_unit, default=d.weak_join_own_text, metavar="SHARE",
                   help=f"a weak join needs this share of what the page does not share with the "
                        f"cluster to be its own text, on no other page: a page that shares one "
                        f"story among others is as similar (default {d.weak_join_own_text}; 0: no check)")
    p.add_argument("--hub-split", type=_unit, default=d.hub_split, metavar="SHARE",
                   help=f"a star cluster of 4 or more whose members (the reference left out) fall "
                        f"apart into unlinked groups, the largest under this share of them, is "
                        f"split into those groups: pages that each quote one story are not copies "
                        f"(default {d.hub_split}; 0: off)")
    p.add_argument("--workers", type=int, default=None, help="extraction processes (default: all cores)")


def _params(args: argparse.Namespace) -> SpotSigsParams:
    if args.spec and (args.distance or args.chain):
        raise InputError("give either --spec or --distance/--chain, not both")
    if args.spec:
        specs = tuple(args.spec)
    else:
        base = default_specs()
        specs = default_specs(args.distance or base[0].distance, args.chain or base[0].chain)
    if args.min_sigs < 0:
        raise InputError("--min-sigs must not be negative")
    try:
        return SpotSigsParams(
            tau=args.tau, specs=specs, idf_low=args.idf[0], idf_high=args.idf[1],
            min_sigs=args.min_sigs, cluster_method=args.cluster_method,
            block_filter=not args.no_block_filter, languages=not args.no_languages,
            main_content=not args.no_main_content, corpus_boilerplate=not args.no_corpus_boilerplate,
            pair_floor=args.pair_floor, weak_join=args.weak_join,
            weak_join_own_text=args.weak_join_own_text, pair_floor_max_pages=args.pair_floor_max_pages,
            hub_split=args.hub_split, corroborate_below=args.corroborate_below,
        )
    except ValueError as exc:
        raise InputError(str(exc)) from None


def _check_output(option: str, value: str | None) -> None:
    """Refuse an output file that cannot be written before the run, not after it."""
    if not value:
        return
    path = Path(value)
    if path.is_dir():
        raise InputError(f"{option} {value}: that is a folder; give a file name")
    folder = path.parent
    if not folder.is_dir():
        raise InputError(f"cannot write {option} {value}: there is no folder {folder}")


def _check_outputs(args: argparse.Namespace) -> None:
    """Before anything is read: refuse an output that cannot be written (exit 3), one that
    is the project, one of its files, or the crawl or a file in it, or a link, and a file
    given for two outputs (exit 2: bad parameters)."""
    from workbench.store.safety.outputs import check_output
    from workbench.store.safety.whole_files import OutputRefused

    if getattr(args, "add", False) and not args.project:
        raise UsageError("--add adds a crawl's new files to a project's run: give the project "
                         "with --project")
    if getattr(args, "add", False) and args.method != SPOTSIGS:
        raise UsageError(f"--add works with --method {SPOTSIGS} only, not {args.method}")
    seen: dict[str, str] = {}
    for option in ("pairs", "clusters", "skipped"):
        value = getattr(args, option)
        _check_output(f"--{option}", value)
        if not value:
            continue
        try:
            check_output(value, project=args.project, crawl=args.path, what=f"--{option}")
        except OutputRefused as exc:
            raise UsageError(str(exc)) from None
        where = str(Path(value).parent.resolve() / Path(value).name)
        if where in seen:
            raise UsageError(f"--{option} and {seen[where]} name the same file {value}; "
                             "give each output its own file")
        seen[where] = f"--{option}"


def _write(option: str, path: str, write) -> None:
    from workbench.store import ProjectError

    try:
        write(Path(path))  # whole or not at all (whole_files): never a half CSV
    except ProjectError as exc:
        raise InputError(f"cannot write {option} {path}: {exc}") from None
    except OSError as exc:
        raise InputError(f"cannot write {option} {path}: {exc.strerror or exc}") from None


def _check_folder(path: Path) -> None:
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    if path.is_dir() and not any(path.iterdir()):
        raise InputError(f"{path}: the folder is empty")


def _progress(args: argparse.Namespace) -> ProgressWriter | None:
    """Progress on stderr (None with -q): a line rewritten in place on a terminal, plain
    lines now and then in a log."""
    if args.quiet:
        return None
    return ProgressWriter(sys.stderr, tty=sys.stderr.isatty())


def _load(path: Path, params: SpotSigsParams, args: argparse.Namespace,
          progress: ProgressWriter | None = None, project=None, cluster=None,
          grown: list | None = None) -> Corpus:
    """The crawl's corpus: read whole, or (``--add``) only its new and changed files. A run
    into a project keeps its extracted pages beside it for the next ``--add``.
    ``cluster``: a Dask run (``--dask``: workbench.cluster.run.DaskRun) reads instead of
    this machine's workers, the whole crawl or only the new files. ``grown``: where an
    ``--add`` puts what it read (workbench.usecases.grow.Growth)."""
    _check_folder(path)
    try:
        if getattr(args, "add", False) and project is not None:
            corpus, growth = _grown(project, path, params, args, progress,
                                    cluster.read_files if cluster is not None else None)
            if grown is not None:
                grown.append(growth)
        else:
            keep = _keeper(project, path, params)
            on = {} if cluster is None else cluster.corpus_hooks
            corpus = load_corpus(path, params, progress or no_progress, args.workers, keep=keep, **on)
    finally:
        if progress is not None:
            progress.finish()
    report = getattr(args, "skipped", None)
    if not corpus.pages:
        if report:
            _write("--skipped", report, lambda out: write_skipped(corpus.skipped, out))
        counts = Counter(s.reason for s in corpus.skipped).most_common()
        reasons = "; ".join(reason for reason, _ in counts[:SHOWN_REASONS]) or "no files"
        if len(counts) > SHOWN_REASONS:
            reasons += f"; {_more_reasons(counts[SHOWN_REASONS:])}"
        where = (f"; every skipped input is in {report}" if report else
                 f"; {ALL_SKIPPED}" if len(counts) > SHOWN_REASONS else "")
        raise InputError(f"{path}: no readable pages ({reasons}){where}")
    return corpus


def _keeper(project, path: Path, params: SpotSigsParams):
    if project is None:
        return None
    from workbench.usecases.grow import keep_pages

    return keep_pages(project.path, path, params)


def _grown(project, path: Path, params: SpotSigsParams, args: argparse.Namespace,
           progress: ProgressWriter | None, read=None):
    """``--add``: the grown crawl's corpus, reading only new and changed files; says how
    many files were new, changed, removed and unchanged."""
    from workbench.usecases.grow import grow_corpus

    started = time.perf_counter()
    corpus, growth = grow_corpus(project.path, path, params, progress or no_progress, args.workers, read)
    if progress is not None:
        progress.finish()
    print(f"files:             {growth.summary()} (read in {time.perf_counter() - started:.2f} s)")
    return corpus, growth


def _more_reasons(hidden: list[tuple[str, int]]) -> str:
    n = len(hidden)
    inputs = sum(count for _, count in hidden)
    return (f"{n:,} more reason{'s' if n != 1 else ''} ({inputs:,} input"
            f"{'s' if inputs != 1 else ''})")


# Byte-identical pages (same checksum) are paired without a comparison, so a run can
# have more pairs than pages it compared.
_WITHOUT_COMPARING = "; identical pages are paired without comparing"


def print_summary(result: DedupResult, out=None, skipped_report: Path | None = None,
                  started: float | None = None) -> None:
    """The run in a few lines; ``skipped_report``: where every skipped input was written;
    ``started``: when the wall time starts (``time.time()``; None: with the run's stages)."""
    out = out or sys.stdout
    pages = result.pages
    m = result.matrix
    usable = len(pages) - len(result.too_little_text)
    print(f"pages read:        {len(pages):,}", file=out)
    print_skipped(result.skipped, out, skipped_report)
    print(f"too little text:   {len(result.too_little_text):,} (kept in the list, never clustered)",
          file=out)
    if result.params.languages:
        print(f"languages:         {_languages(pages)}", file=out)
    idf_note = "" if result.idf_applied else " (IDF filter off: corpus too small)"
    print(f"signatures:        {int(m.lengths().sum()):,} in {usable:,} pages, "
          f"{result.distinct_signatures:,} distinct shared by two or more pages{idf_note}", file=out)
    uncompared = _WITHOUT_COMPARING if len(result.pairs) > result.pairs.candidates else ""
    print(f"{'pairs >= ' + format(result.params.tau, 'g') + ':':<19}{len(result.pairs):,} "
          f"({result.pairs.candidates:,} compared{uncompared})", file=out)
    if result.floor_skipped:
        print(f"pair floor:        not used: {len(pages):,} pages is over its limit of "
              f"{result.params.pair_floor_max_pages:,} (--pair-floor-max-pages); pairs from tau only, "
              "so calibration can only raise tau", file=out)
    in_clusters = sum(len(c) for c in result.clusters)
    print(f"clusters:          {len(result.clusters):,} covering {in_clusters:,} pages "
          f"({result.params.cluster_method})", file=out)
    print(f"wall time:         {wall_time(result.timings, started)}", file=out)


def wall_time(timings: dict[str, float], started: float | None) -> str:
    """'19.20 s since the process started (read+extract 8.11 s, ...; start-up and the rest
    8.60 s)': the stages alone leave out the interpreter's start and the imports."""
    stages = ", ".join(f"{k} {v:.2f} s" for k, v in timings.items())
    in_stages = sum(timings.values())
    if started is None:
        return f"{in_stages:.2f} s ({stages})"
    total = max(time.time() - started, in_stages)
    return (f"{total:.2f} s since the process started ({stages}; start-up and the rest "
            f"{total - in_stages:.2f} s)")


def print_skipped(skipped: list[SkipRecord], out, report: Path | None) -> None:
    """How many inputs were skipped and the most common reasons; how many reasons are not
    shown, and where they all are. Notes beside pages kept in part are counted apart."""
    notes = [s for s in skipped if getattr(s, "page_kept", False)]
    skips = [s for s in skipped if not getattr(s, "page_kept", False)]
    print(f"inputs skipped:    {len(skips):,}", file=out)
    counts = Counter(s.reason for s in skips).most_common()
    for reason, n in counts[:SHOWN_REASONS]:
        print(f"  {n:>6,} x {terminal_safe(reason)}", file=out)
    where = f"every skipped input is in {terminal_safe(report)}" if report else ALL_SKIPPED
    if len(counts) > SHOWN_REASONS:
        print(f"  ... {_more_reasons(counts[SHOWN_REASONS:])} not shown: {where}", file=out)
    if notes:
        what = "page" if len(notes) == 1 else "pages"
        told = terminal_safe(report) if report else "--skipped FILE.csv"
        cut = sum(1 for s in notes if is_markup_cut(s.reason))
        why = [f"{n:,} {reason}" for n, reason in (
            (len(notes) - cut, "with compressed data cut short or damaged"),
            (cut, f"with markup past the {MARKUP_LIMIT_BYTES // 2**20} MB a page is read"))
            if n]
        print(f"kept in part:      {len(notes):,} {what} ({', '.join(why)}; {told} says how "
              "much was kept)", file=out)


def _languages(pages) -> str:
    """Pages per language and signature kind: 'en 980, de 41 (spots); ru 3 (punctuation)'."""
    parts = []
    for kind in (SPOTS, PUNCTUATION):
        counts = Counter(p.language or "undetermined" for p in pages if p.signature_kind == kind)
        if counts:
            parts.append(", ".join(f"{lang} {n:,}" for lang, n in counts.most_common()) + f" ({kind})")
    return "; ".join(parts) or "none"


def write_pairs(result: DedupResult, path: Path) -> None:
    with whole_file(path) as fh:
        w = csv_writer(fh)
        w.writerow(["doc_a", "doc_b", "similarity"])
        for a, b, s in zip(result.pairs.a, result.pairs.b, result.pairs.similarity, strict=True):
            w.writerow([result.pages[a].key, result.pages[b].key, f"{s:.6f}"])


def write_clusters(result: DedupResult, path: Path) -> None:
    with whole_file(path) as fh:
        w = csv_writer(fh)
        w.writerow(["cluster", "path", "similarity", "is_reference"])
        for k, c in enumerate(result.clusters, start=1):
            for member, sim in zip(c.members, c.similarities, strict=True):
                w.writerow([k, result.pages[member].key, f"{sim:.6f}", int(member == c.reference)])


def cmd_dedup(args: argparse.Namespace) -> int:
    params = _params(args)
    _check_outputs(args)
    from workbench.store import ProjectError

    # The project is opened before the run, so a project that is in use, read-only or
    # damaged is refused at once instead of after minutes of reading.
    project = _open_project(Path(args.project), Path(args.path)) if args.project else None
    try:
        with pending_run(project, params) if project is not None else nullcontext():
            if args.method != SPOTSIGS:
                return _method_run(args, params, project)
            result = _dedup_run(args, params, project)
    except BaseException:
        if project is not None:
            with suppress(ProjectError):  # the first error is the one to tell
                project.close()
        raise
    finally:
        _cluster_ended(args)
    if project is not None:
        _close(project)
    print_summary(result, skipped_report=Path(args.skipped) if args.skipped else None,
                  started=args.started)
    return EXIT_OK


def _dedup_run(args: argparse.Namespace, params: SpotSigsParams, project) -> DedupResult:
    """Read, match and cluster, write the CSVs asked for and save into ``project``."""
    with _cluster(args, project) as cluster:
        progress = _progress(args)
        grown: list = []
        try:
            corpus = _load(Path(args.path), params, args, progress, project, cluster, grown)
        except InputError:  # nothing to run on: no run to offer again either
            if project is not None:
                project.forget_pending_run()
            raise
        join = cluster.join if cluster is not None else find_pairs
        if grown:  # --add: on this machine only the pages that may pair otherwise are matched
            from workbench.usecases.grow import join_for

            join = join_for(project, params, corpus, grown[0], join)
        try:
            result = detect(corpus, progress=progress or no_progress, join=join)
        finally:
            if progress is not None:
                progress.finish()
        # What the result does not hold goes before the CSVs and the save: the repeated
        # blocks and the identical pages' groups (about 0.2 KB a page).
        del corpus, join
        if grown:
            print(f"matched:           {grown[0].join_summary()}")
    if args.pairs:
        _write("--pairs", args.pairs, lambda out: write_pairs(result, out))
    if args.clusters:
        _write("--clusters", args.clusters, lambda out: write_clusters(result, out))
    if args.skipped:
        _write("--skipped", args.skipped, lambda out: write_skipped(result.skipped, out))
    if project is not None:
        run_id = _saved(project, result, args.workers)
        print(f"project:           run {run_id} saved to {terminal_safe(project.path)}")
    return result


@contextmanager
def _cluster(args: argparse.Namespace, project):
    """The Dask run ``--dask`` asks for (None without it), ended with the run: its
    local cluster's workers stop and its work folder goes, in the background while the
    command writes its CSVs and saves the project (``cmd_dedup`` waits for it before it
    returns; a run that fails ends at once)."""
    if getattr(args, "dask", None) is None:
        yield None
        return
    from workbench.cluster.run import ClusterError, dask_run

    # Beside what the run writes (a crawl's shards can outgrow a small /tmp), else the
    # system's temporary folder; a real cluster needs --work-dir on shared storage.
    outputs = (args.project, args.pairs, args.clusters)
    beside = next((Path(out).resolve().parent for out in outputs if out), None)
    work_dir = args.work_dir or beside
    try:
        with dask_run(args.dask or None, work_dir, args.workers, end_later=True) as run:
            yield run
    except ClusterError as exc:
        if project is not None:
            project.forget_pending_run()
        raise InputError(str(exc)) from None


def _cluster_ended(args: argparse.Namespace) -> None:
    """Wait for the ``--dask`` run's cluster, stopping in the background, to be gone."""
    if getattr(args, "dask", None) is not None and "workbench.cluster.run" in sys.modules:
        from workbench.cluster.run import wait_ended

        wait_ended()


def _method_run(args: argparse.Namespace, params: SpotSigsParams, project) -> int:
    """A run of a detector other than SpotSigs: the same reading, CSVs and project."""
    if getattr(args, "dask", None) is not None:
        raise InputError(f"--dask runs SpotSigs only, not --method {args.method}")
    from workbench.store import ProjectError
    from workbench.usecases.detector_run import MethodChoice, run_method

    path = Path(args.path)
    _check_folder(path)
    progress = _progress(args)
    try:
        result = run_method(path, MethodChoice(args.method, args.threshold), params,
                            progress or no_progress, args.workers)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    finally:
        if progress is not None:
            progress.finish()
    if not result.pages:
        raise InputError(f"{path}: no readable pages")
    if args.pairs:
        _write("--pairs", args.pairs, lambda out: write_pairs(result, out))  # type: ignore[arg-type]
    if args.clusters:
        _write("--clusters", args.clusters, lambda out: write_clusters(result, out))  # type: ignore[arg-type]
    if args.skipped:
        _write("--skipped", args.skipped, lambda out: write_skipped(result.skipped, out))
    if project is not None:
        try:
            run_id = project.save_run(result.recorded_params(), args.method, result.timings, result.pages,
                                      result.pairs, result.clusters, skipped=result.skipped)
        except ProjectError as exc:
            raise InputError(f"{project.path}: the run was not saved: {exc}") from None
        _close(project)
        print(f"project:           run {run_id} saved to {terminal_safe(project.path)}")
    print(f"method:            {result.detector.label}")
    print(f"pages read:        {len(result.pages):,}")
    print_skipped(result.skipped, sys.stdout, Path(args.skipped) if args.skipped else None)
    print(f"{'pairs >= ' + format(result.params.tau, '.4g') + ':':<19}{len(result.pairs):,}")
    in_clusters = sum(len(c) for c in result.clusters)
    print(f"clusters:          {len(result.clusters):,} covering {in_clusters:,} pages (star)")
    print(f"wall time:         {wall_time(result.timings, args.started)}")
    return EXIT_OK


def _open_project(path: Path, root: Path):
    from workbench.store import Project, ProjectError
    from workbench.store.safety import network_drive

    # Opened anyway (a script may know only one computer uses it), but said on stderr.
    place = network_drive.network_place(path if path.exists() else path.parent)
    if place is not None:
        print(f"workbench dedup: warning: {terminal_safe(network_drive.network_warning(path, place))}",
              file=sys.stderr)
    try:
        project = (Project.open(path) if path.exists()
                   else Project.create(path, str(root.resolve())))
    except ProjectError as exc:
        raise InputError(f"{path}: {exc}") from None
    if project.readonly:
        project.close()
        raise InputError(f"{path}: cannot save a run into it: {project.readonly_reason}. "
                         "Copy it somewhere writable, or give another --project.")
    return project


def _saved(project, result: DedupResult, workers: int | None) -> int:
    from workbench.store import ProjectError
    from workbench.usecases.published_dates import date_clustered_pages

    try:
        run_id = save_result(project, result)
        # The publication dates only htmldate finds, for the pages of clusters.
        date_clustered_pages(project, workers=workers)
        return run_id
    except ProjectError as exc:
        raise InputError(f"{project.path}: the run was not saved: {exc}") from None


def _close(project) -> None:
    """Close the project; a close that cannot fold its last changes in (a full disk)
    is an error the caller sees, never a silent exit 0."""
    from workbench.store import ProjectError

    try:
        project.close()
    except ProjectError as exc:
        raise InputError(f"{project.path}: {exc}") from None


def gold_scores(result: DedupResult) -> tuple[Scores, Scores]:
    """Pair-level and cluster-level scores; the first folder level names the gold cluster."""
    keys = [p.key for p in result.pages]
    folders: dict[str, list[str]] = {}
    for k in keys:
        if "/" in k:
            folders.setdefault(k.split("/", 1)[0], []).append(k)
    truth = pairs_of_groups(folders.values())
    predicted = {(keys[a], keys[b]) for a, b in zip(result.pairs.a, result.pairs.b, strict=True)}
    clustered = pairs_of_groups([[keys[x] for x in c.members] for c in result.clusters])
    return score_pairs(predicted, truth), score_pairs(clustered, truth)


def _fmt(s: Scores) -> str:
    return f"P {s.precision:.3f}  R {s.recall:.3f}  F1 {s.f1:.3f}"


def cmd_eval(args: argparse.Namespace) -> int:
    gold = Path(args.gold)
    _check_folder(gold)
    if not gold.is_dir() or not any(p.is_dir() for p in gold.iterdir()):
        raise InputError(f"{gold}: a gold set is a folder with one sub-folder per cluster")
    params = _params(args)
    corpus = _load(gold, params, args, _progress(args))
    taus = [round(0.05 * k, 2) for k in range(2, 20)] + [1.0] if args.sweep else [params.tau]
    n_gold = len({p.key.split("/", 1)[0] for p in corpus.pages if "/" in p.key})
    print(f"gold set: {len(corpus.pages):,} pages in {n_gold} clusters; "
          f"{len([p for p in corpus.pages if p.skip_reason])} with too little text; "
          f"clustering: {params.cluster_method}")
    if args.sweep:
        print(f"{'tau':>5}  {'pair P':>7} {'pair R':>7} {'pair F1':>7}   "
              f"{'clus P':>7} {'clus R':>7} {'clus F1':>7}  {'clusters':>8}")
    detecting: Counter[str] = Counter()
    for tau in taus:
        result = detect(corpus, tau=tau)
        pair, clus = gold_scores(result)
        if args.sweep:
            print(f"{tau:>5.2f}  {pair.precision:>7.3f} {pair.recall:>7.3f} {pair.f1:>7.3f}   "
                  f"{clus.precision:>7.3f} {clus.recall:>7.3f} {clus.f1:>7.3f}  "
                  f"{len(result.clusters):>8,}")
        else:
            print(f"tau {tau:g}")
            print(f"pairs    ({pair.predicted_pairs:,} found, {pair.true_pairs:,} true): {_fmt(pair)}")
            print(f"clusters ({len(result.clusters):,} output):              {_fmt(clus)}")
        # A result's timings start with its corpus's (reading, filtering), counted once.
        detecting["match and cluster"] += sum(v for k, v in result.timings.items()
                                              if k not in corpus.timings)
    print(f"wall time: {wall_time({**corpus.timings, **detecting}, args.started)}")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="workbench",
        description="SpotSigs Workbench: find near-duplicate clusters in web archives.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("dedup", help="find near-duplicate pairs and clusters in a folder or archive")
    p.add_argument("path", help="crawl folder, HTML file or WARC/ARC/WACZ archive")
    p.add_argument("--pairs", help="write pairs CSV (doc_a,doc_b,similarity)")
    p.add_argument("--clusters", help="write clusters CSV (cluster,path,similarity,is_reference)")
    p.add_argument("--skipped", metavar="FILE",
                   help="write every skipped input as CSV (file,offset,url,reason,page_kept): "
                        "the summary shows only the most common reasons. In every CSV, a cell "
                        "a spreadsheet would run as a formula (= + - @, also full width) "
                        "starts with a quote")
    p.add_argument("--project", help="save the run into this project file (created if missing), "
                                     "for coding in the workbench and `workbench export`")
    p.add_argument("--add", action="store_true",
                   help="with --project: read only the crawl's files that are new or changed "
                        "(by path, size and modification time) since the project's last run, "
                        "and detect as a full run on the whole crawl would; pages of removed "
                        "files leave the run; tags, memos and marks carry over")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    p.add_argument("--method", choices=METHODS, default=SPOTSIGS,
                   help="the detector (default spotsigs; `workbench compare` scores them on your "
                        "data); the others read the same extracted text")
    p.add_argument("--threshold", type=_tau, default=None,
                   help="similarity threshold of a --method other than spotsigs (default: the "
                        "method's own; spotsigs uses --tau)")
    _add_detection_options(p)
    p.add_argument("--dask", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="run on a Dask cluster: the scheduler at ADDRESS (e.g. tcp://host:8786), "
                        "or without ADDRESS a local cluster of this machine's cores (docs/cluster.md)")
    p.add_argument("--work-dir", metavar="FOLDER",
                   help="with --dask: where the tasks leave their Parquet shards, in a folder of "
                        "their own removed after the run (default: beside --project or the CSVs, else "
                        "the temporary folder; on a cluster, storage every worker shares)")
    p.set_defaults(func=cmd_dedup)

    p = sub.add_parser("eval", help="score detection against a gold set (one folder per cluster)")
    p.add_argument("gold", help="gold-set folder; every sub-folder is one cluster")
    p.add_argument("--sweep", action="store_true", help="print a table over tau 0.1 ... 1.0")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    _add_detection_options(p)
    p.set_defaults(func=cmd_eval)

    try:
        from workbench.export import command as export_command
    except ImportError:  # the export layer is optional until it lands
        export_command = None
    if export_command is not None and hasattr(export_command, "add_parser"):
        export_command.add_parser(sub)
    from workbench.commands import agreement_command, compare_command

    compare_command.add_parser(sub)
    agreement_command.add_parser(sub)
    from workbench.commands import team_commands

    team_commands.add_parsers(sub)
    return parser


def command_names() -> list[str]:
    """The sub-commands of this version, in the order --help lists them (export only when
    its layer is installed): the entry point opens the window for nothing else but paths."""
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def main(argv: Sequence[str] | None = None, started: float | None = None) -> int:
    """Run a command; ``started``: when the wall time a run reports starts (``time.time()``;
    the entry point gives the process's start, so start-up counts; default: now)."""
    started = time.time() if started is None else started
    parser = build_parser()
    args = parser.parse_args(argv)
    args.started = started
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"workbench: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except InputError as exc:
        print(f"workbench: {terminal_safe(exc)}", file=sys.stderr)
        return EXIT_INPUT
    except Cancelled:
        print("workbench: cancelled", file=sys.stderr)
        return EXIT_CANCELLED
    except KeyboardInterrupt:
        print("\nworkbench: interrupted", file=sys.stderr)
        return EXIT_CANCELLED


if __name__ == "__main__":
    sys.exit(main())
