"""A crawl that grew: read only its new and changed files, and detect as a full run would.

File ▸ Add Pages… and ``workbench dedup CRAWL --project P --add`` call :func:`grow_into_project`.
A file is *changed* when its size or modification time (nanoseconds) differ from when
its pages were kept (workbench.usecases.kept_pages); *removed* when it is no longer in
the crawl: its pages leave the run, and what the coder decided on them stays in the
project and is reported, as for every run that replaces another
(workbench.store.coding.carry, through ``Project.save_run``).

Every page of the grown crawl then goes through the same filters, join and clustering as
in a full run, in the order a full run reads them, so the result is the full run's: the
filters are global (a new page changes document frequencies and what a site repeats, so
an old page's kept signatures can change), and running them again over the kept
extraction costs little next to reading and extracting. Nothing here knows about Qt.

The same split serves a cluster run: the pages kept per input file are what a Dask
task per file would give back, so a distributed reading of the new files only can hand
its pages to :func:`grow_corpus` in place of :func:`extract_pages`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from workbench.archive.scan import FileEntry, scan_items, walk
from workbench.core.progress import ProgressFn, no_progress
from workbench.core.records import SkipRecord
from workbench.detect.join.matcher import PairResult, SignatureMatrix, find_pairs
from workbench.detect.spotsigs.extract import ExtractedPage
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.detect.workers import numba_setup
from workbench.detect.workers.parallel import read_and_extract
from workbench.usecases import grown_pairs
from workbench.usecases.grown_pairs import Probed, grown_join, too_many
from workbench.usecases.kept_pages import (
    ByFile,
    FileStamp,
    KeptFile,
    KeptPages,
    add_kept,
    by_file,
    kept_path,
    load_kept,
    save_kept,
)
from workbench.usecases.pipeline import (
    Corpus,
    DedupResult,
    Join,
    KeepPages,
    corpus_into_project,
    corpus_of,
    extract_pages,
)

# How a crawl's files are read: the pages and skip records of the files given, in order.
ReadFiles = Callable[[list[FileEntry | SkipRecord], SpotSigsParams, list[SkipRecord], ProgressFn, int],
                     list[ExtractedPage]]


@dataclass(slots=True)
class Growth:
    """How the crawl's files compare with the pages kept from before."""

    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    # Why every file was read (no usable kept pages, revisits across files), or None.
    read_all_because: str | None = None
    # Per page of the grown crawl, in its order: the page as kept when its file is
    # unchanged, None when it was read now (what workbench.usecases.grown_pairs needs to
    # take the project's pairs; emptied once the join has read it).
    kept_pages: list[ExtractedPage | None] = field(default_factory=list, repr=False, compare=False)
    # How the pairs were found: which pages were probed, which pairs the project gave.
    probed: Probed = field(default_factory=Probed, compare=False)

    @property
    def read(self) -> int:
        """Files read."""
        return len(self.new) + len(self.changed)

    def summary(self) -> str:
        """One line for the terminal and the window."""
        text = (f"{len(self.new):,} new, {len(self.changed):,} changed, {len(self.removed):,} removed, "
                f"{self.unchanged:,} unchanged files")
        if self.read_all_because:
            text += f"; every file was read: {self.read_all_because}"
        return text

    def join_summary(self) -> str:
        """One line on how the pairs were found (once the run matched)."""
        done = self.probed
        if done.why_all is not None:
            return f"every page was matched: {done.why_all}"
        return (f"{done.probed:,} of {done.active:,} pages matched (new, changed or with other "
                f"signatures after the filters); {done.reused:,} pairs of the others kept from the "
                "project's run")


def root_text(root: Path | str) -> str:
    """The crawl as kept pages name it (its absolute path)."""
    return str(Path(root).resolve())


def stamped_walk(root: Path) -> tuple[list[FileEntry | SkipRecord], dict[str, FileStamp]]:
    """The crawl's walk and each file's stamp, from what the walk saw of it (size and
    modification time): no file is looked at twice, none is opened."""
    mtimes: dict[str, int] = {}
    items = list(walk(root, mtimes))
    return items, {item.rel: FileStamp(item.rel, item.size, mtimes[item.rel])
                   for item in items if isinstance(item, FileEntry)}


def keep_pages(project_path: Path | str, root: Path | str, params: SpotSigsParams) -> KeepPages:
    """What a full run into a project gives ``load_corpus`` as ``keep``: the crawl's files
    are stamped now, before reading (a file changed while it is read is then read again
    next time), and the pages are kept file by file beside the project."""
    stamps = list(stamped_walk(Path(root))[1].values())

    def keep(extracted: list[ExtractedPage], skipped: list[SkipRecord]) -> None:
        found = by_file(stamps, extracted, skipped)
        if found.in_file_order and not found.unresolved_revisits:
            _save_quietly(project_path, KeptPages(root_text(root), params.to_dict(), found.files))
        else:  # see grow_corpus: such a crawl is read whole every time
            _forget(project_path)

    return keep


def _save_quietly(project_path: Path | str, kept: KeptPages, fresh: Iterable[KeptFile] | None = None,
                  removed: Sequence[str] = ()) -> None:
    """Keep ``kept`` whole, or (``fresh`` given: ``kept`` was loaded from the file) add
    the ``fresh`` files and the ``removed`` ones to the file. Keeping pages only spares
    reading later: a disk that cannot take them costs the next Add Pages a full reading,
    never the run (the old file, if any, is valid by its stamps, and a part cut short
    is left out)."""
    path = kept_path(project_path)
    try:
        if fresh is None:
            save_kept(path, kept)
        else:
            add_kept(path, kept, fresh, removed)
    except OSError:
        path.with_name(path.name + ".tmp").unlink(missing_ok=True)


def _forget(project_path: Path | str) -> None:
    """No kept pages: the next Add Pages reads every file."""
    with suppress(OSError):
        kept_path(project_path).unlink(missing_ok=True)


def grow_corpus(
    project_path: Path | str,
    root: Path | str,
    params: SpotSigsParams,
    progress: ProgressFn = no_progress,
    workers: int | None = None,
    read: ReadFiles | None = None,
) -> tuple[Corpus, Growth]:
    """The grown crawl's corpus, exactly as ``load_corpus`` makes it, reading only the
    files that are new or changed since the pages kept beside the project; the kept pages
    are brought up to date. ``read`` reads the given files (default: this machine's workers)."""
    root = Path(root)
    if not root.exists():
        raise FileNotFoundError(f"no such file or folder: {root}")
    workers = workers or os.cpu_count() or 1
    timings: dict[str, float] = {}
    # numba's one-time setup while the workers read, not in the filters after them
    # (as load_corpus does for a full run).
    setting_up = numba_setup.start()
    try:
        corpus, growth = _grown(project_path, root, params, progress, workers, read, timings)
    finally:
        setting_up.join()
    return corpus_of(str(root), params, *corpus, timings, progress), growth


def _grown(project_path: Path | str, root: Path, params: SpotSigsParams, progress: ProgressFn,
           workers: int, read: ReadFiles | None, timings: dict[str, float]
           ) -> tuple[tuple[list[ExtractedPage], list[SkipRecord]], Growth]:
    """The grown crawl's pages and skip records before the filters, what was read, and
    the kept pages brought up to date. ``timings`` gets the walk, the kept pages' load,
    the reading and extracting of the new files and their keeping."""
    t0 = time.perf_counter()
    items, stamps = stamped_walk(root)
    timings["walk"] = time.perf_counter() - t0
    t_load = time.perf_counter()
    kept = load_kept(kept_path(project_path))
    timings["load kept pages"] = time.perf_counter() - t_load
    t0 = time.perf_counter()
    growth = Growth()
    if kept is None:
        growth.read_all_because = "no pages were kept from an earlier run"
    else:
        growth.read_all_because = kept.fits(root_text(root), params.to_dict())
    before = kept.files if kept is not None and growth.read_all_because is None else {}

    to_read: list[FileEntry | SkipRecord] = []
    for item in items:
        if not isinstance(item, FileEntry):
            continue
        old = before.get(item.rel)
        if old is None:
            growth.new.append(item.rel)
        elif old.stamp != stamps[item.rel]:
            growth.changed.append(item.rel)
        else:
            growth.unchanged += 1
            continue
        to_read.append(item)
    growth.removed = [rel for rel in before if rel not in stamps]

    if not before:
        to_read = items  # the walk's skip records too: the reading is then a full run's
    found, pages, skipped = _read(to_read, stamps, params, progress, workers, read)
    if before and (not found.in_file_order or found.unresolved_revisits):
        # WARC revisit records whose original capture is in a file not read now (or comes
        # only after them): a full run would resolve them, so every file is read.
        growth.read_all_because = "revisit records in the new files refer to captures in other files"
        growth.new = [i.rel for i in items if isinstance(i, FileEntry)]
        growth.changed, growth.unchanged, before = [], 0, {}
        found, pages, skipped = _read(items, stamps, params, progress, workers, read)
    files = found.files
    if before:  # the kept pages of unchanged files and the new reading, in the crawl's order
        files, pages, skipped = {}, [], []
        for item in items:
            if isinstance(item, SkipRecord):
                skipped.append(item)
                continue
            read_now = found.files.get(item.rel)
            kept_file = before[item.rel] if read_now is None else read_now
            files[item.rel] = kept_file
            pages.extend(kept_file.pages)
            skipped.extend(kept_file.skipped)
            growth.kept_pages.extend(kept_file.pages if read_now is None else [None] * len(kept_file.pages))
    timings["read+extract"] = time.perf_counter() - t0
    t_keep = time.perf_counter()
    if found.in_file_order and not found.unresolved_revisits:
        now = KeptPages(root_text(root), params.to_dict(), files)
        if before:  # only what was read, and the names of removed files, are added
            assert kept is not None
            now.stored = kept.stored
            _save_quietly(project_path, now, found.files.values(), growth.removed)
        else:
            _save_quietly(project_path, now)
    else:
        _forget(project_path)
    timings["keep pages"] = time.perf_counter() - t_keep
    read_now = sum(1 for page in growth.kept_pages if page is None)
    if read_now > grown_pairs.MOST_PROBED * len(growth.kept_pages):
        # The project's pairs cannot serve (too many pages to probe, whatever the filters
        # do): the kept pages are let go now, so the filters free each page's arrays as
        # they read it, as in a full run (held to the join, they were all alive at once).
        growth.probed.why_all = too_many(read_now, len(growth.kept_pages))
        growth.kept_pages = []
    return (pages, skipped), growth


def _read(to_read: list[FileEntry | SkipRecord], stamps: dict[str, FileStamp], params: SpotSigsParams,
          progress: ProgressFn, workers: int, read: ReadFiles | None
          ) -> tuple[ByFile, list[ExtractedPage], list[SkipRecord]]:
    """The files' pages and skip records, as read and by file."""
    skipped: list[SkipRecord] = []
    fresh = (read or _read_here)(to_read, params, skipped, progress, workers)
    found = by_file([stamps[i.rel] for i in to_read if isinstance(i, FileEntry)], fresh, skipped)
    return found, fresh, skipped


def _read_here(files: list[FileEntry | SkipRecord], params: SpotSigsParams, skipped: list[SkipRecord],
               progress: ProgressFn, workers: int) -> list[ExtractedPage]:
    """Read and extract the files on this machine as a full run does: worker processes
    read their own files (workbench.detect.workers.parallel), or for a few files this
    process reads them and the workers extract."""
    if not files:
        return []
    if workers > 1:
        done = read_and_extract(".", params, progress, workers, items=files)
        if done is not None:
            skipped.extend(done[1])
            return done[0]
    return extract_pages(scan_items(files, progress), params, skipped, progress, workers)


def join_for(project, params: SpotSigsParams, corpus: Corpus, growth: Growth,
             join: Join = find_pairs) -> Join:
    """The join for a grown crawl's corpus: on this machine, the project's run gives the
    pairs of the pages that kept their signatures and only the others are probed
    (workbench.usecases.grown_pairs); ``join`` itself when it is another's (a Dask
    cluster's, which joins every page) or when every file was read."""
    if join is not find_pairs or not growth.kept_pages:
        growth.kept_pages = []
        if growth.probed.why_all is None:
            growth.probed.why_all = ("every file was read" if join is find_pairs
                                     else "the cluster matched them")
        return join
    return grown_join(project, params, corpus.pages, growth.kept_pages, corpus.filters, growth.probed)


def grow_into_project(
    project,
    root: Path | str,
    params: SpotSigsParams | None = None,
    progress: ProgressFn = no_progress,
    workers: int | None = None,
    *,
    read: ReadFiles | None = None,
    on_corpus: Callable[[Corpus], None] | None = None,
    on_result: Callable[[DedupResult], None] | None = None,
    join: Join = find_pairs,
    extra: dict | None = None,
) -> tuple[DedupResult, int, Growth]:
    """Add the crawl's new and changed files to the project's run: a new run that equals a
    full run on the crawl as it is now, saved as ``run_into_project`` saves one (the
    coder's decisions carried by page). Returns the result, the new run's id and what
    was read. ``read`` and ``join``: who reads the new files and who matches (a Dask
    cluster: workbench.cluster.run); ``extra``: more settings kept pending with the run's."""
    params = params or SpotSigsParams()
    grown: list[tuple[Corpus, Growth]] = []

    def read_grown() -> Corpus:
        corpus, growth = grow_corpus(project.path, root, params, progress, workers, read)
        grown.append((corpus, growth))
        return corpus

    def join_grown(m: SignatureMatrix, floor: float, groups: np.ndarray | None,
                   progress: ProgressFn) -> PairResult:
        return join_for(project, params, *grown[0], join)(m, floor, groups, progress)

    result, run_id = corpus_into_project(project, params, read_grown, progress, on_corpus=on_corpus,
                                         on_result=on_result, join=join_grown, extra=extra)
    return result, run_id, grown[0][1]


__all__ = ["Growth", "grow_corpus", "grow_into_project", "join_for", "keep_pages", "stamped_walk"]
