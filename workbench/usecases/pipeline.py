"""Headless use case: read an archive, extract signatures, match, cluster.

The CLI and the GUI's background job both call :func:`run_dedup` (into a project:
:func:`run_into_project`); nothing here knows about Qt.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path

import numpy as np

from workbench.archive.tasks import Scan, scan  # scan's pages, or workers read them (extract_pages)
from workbench.core.clusters.calibration import STORED_FLOOR
from workbench.core.clusters.clustering import Vouch, cluster_pairs
from workbench.core.clusters.heap import map_large_blocks, release_free_memory
from workbench.core.clusters.own_text import OwnTextCheck
from workbench.core.distinct import distinct
from workbench.core.mapped_arrays import RowReads
from workbench.core.progress import Cancelled, ProgressFn, no_progress
from workbench.core.records import Cluster, PageInfo, RawPage, RunFilters, SkipRecord
from workbench.detect.join.matcher import (
    FilteredRows,
    MatrixBuilder,
    PairResult,
    SignatureMatrix,
    find_pairs,
    intersections,
)
from workbench.detect.spotsigs import matrix_kernels
from workbench.detect.spotsigs.boilerplate import (
    ANY_SITE,
    boilerplate_masks,
    corpus_boilerplate,
    site_boilerplate,
    site_of,
)
from workbench.detect.spotsigs.corpus_boilerplate import block_weights
from workbench.detect.spotsigs.extract import ExtractedPage, PageArrays, extract_batch, page_multisets
from workbench.detect.spotsigs.member_overlap import (
    RepeatedBlocks,
    RepeatedSource,
    boilerplate_shares,
    repeated_blocks,
    with_matrix_ids,
)
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.detect.workers import numba_setup
from workbench.detect.workers.parallel import read_and_extract
from workbench.detect.workers.pool import worker_pool
from workbench.store.runs.signatures import RunSignatures
from workbench.text.site_titles import matrix_similarity, retitle_site_labels

# Pages handed to a worker at once. An archive that fits in one batch is extracted in
# this process: starting worker processes would cost more than it saves.
_BATCH_PAGES = 24
_BATCH_BYTES = 8 * 2**20
# Pages turned into matrix rows at once after the filters: their spots are gathered into
# temporaries of a few MB, and their arrays are let go batch by batch.
_PAGES_AT_ONCE = 8192
# Batches of pages between two returns of freed heap memory while the matrix is built.
_TRIM_EVERY = 4

# Reads and extracts an opened folder: (root, params, progress, workers) -> (pages in scan
# order, skip records in reading order).
ExtractAll = Callable[[Path, SpotSigsParams, ProgressFn, int],
                      tuple[list[ExtractedPage], list[SkipRecord]]]
# Finds the pairs: find_pairs' signature.
Join = Callable[[SignatureMatrix, float, np.ndarray | None, ProgressFn], PairResult]
# Finds each site's boilerplate blocks: site_boilerplate's signature (or a cluster's
# reduction of the same counts: workbench.cluster.filters.reduce).
SiteBoiler = Callable[[Sequence[PageInfo], Sequence[np.ndarray], int, float], dict[str, np.ndarray]]
# Starts counting the document frequencies with the boilerplate decided (each site's blocks
# and anyone's left out); the call returned gives the pages with any signature and the
# 64-bit ids too common to keep (None: the IDF filter does not run), or None: counted here
# after all. A cluster's tree reduction over its page shards: workbench.cluster.filters.doc_freqs.
TooCommonIds = Callable[[dict[str, np.ndarray], SpotSigsParams],
                        Callable[[], tuple[int, np.ndarray | None] | None]]
# Given the number of pages, per page a number shared only by the pages with its checksum
# (identical content), or None: found here after all. A cluster's tree reduction over its
# page shards: workbench.cluster.filters.identical.
ChecksumGroups = Callable[[int], np.ndarray | None]
# The boilerplate found, the document frequencies counted (TooCommonIds' answer), the
# repeated blocks (for doubtful members: the table, or where it is read from once clusters
# ask) and the signature matrix before the IDF filter, or its rows with the filters applied
# where they were made (a cluster's tasks: FilteredRows).
MadeRows = tuple[dict[str, np.ndarray], Callable[[], tuple[int, np.ndarray | None] | None] | None,
                 RepeatedSource, SignatureMatrix | FilteredRows]
# Given the extracted pages (whose arrays may never have come here), the settings and
# progress: MadeRows made elsewhere, the same as filter_corpus makes them here, or None:
# made here after all. A cluster's tasks, from the pages' shards: workbench.cluster.filters.rows.
MatrixRows = Callable[[Sequence[ExtractedPage], SpotSigsParams, ProgressFn], MadeRows | None]
# What load_corpus hands the extracted pages and skip records to before filtering them.
KeepPages = Callable[[list[ExtractedPage], list[SkipRecord]], None]


@dataclass(slots=True)
class DedupResult:
    root: str
    params: SpotSigsParams
    # A list, or a --dask run's records table (workbench.cluster.records.page_table).
    pages: Sequence[PageInfo]
    skipped: list[SkipRecord]
    pairs: PairResult  # every pair >= tau
    clusters: list[Cluster]
    matrix: SignatureMatrix  # after the IDF filter; rows = pages
    timings: dict[str, float] = field(default_factory=dict)
    idf_applied: bool = True
    distinct_signatures: int = 0
    filters: RunFilters = field(default_factory=RunFilters)
    # Every pair >= floor: what the calibration view works from.
    floor_pairs: PairResult | None = None
    # The similarity pairs were looked for down to (SpotSigsParams.floor_for: tau on a
    # crawl too large for the pair floor).
    floor: float | None = None

    @property
    def floor_skipped(self) -> bool:
        """Whether the crawl was too large for the pair floor (pairs from tau only)."""
        return self.floor is not None and min(self.params.tau, self.params.pair_floor) < self.floor

    @property
    def too_little_text(self) -> list[PageInfo]:
        return [p for p in self.pages if p.skip_reason]


def _batches(items: Iterable[RawPage | SkipRecord], skipped: list[SkipRecord]) -> Iterator[list[RawPage]]:
    batch: list[RawPage] = []
    size = 0
    for item in items:
        if isinstance(item, SkipRecord):
            skipped.append(item)
            continue
        batch.append(item)
        size += len(item.data)
        if len(batch) >= _BATCH_PAGES or size >= _BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def extract_pages(
    items: Iterable[RawPage | SkipRecord],
    params: SpotSigsParams,
    skipped: list[SkipRecord],
    progress: ProgressFn,
    workers: int,
) -> list[ExtractedPage]:
    """Extract every page, in input order, using worker processes for the parsing.

    An opened folder (not a list of pages) is read by the workers themselves, each its own
    files and WARC ranges; only a crawl too small for that is read here.
    """
    if isinstance(items, Scan) and workers > 1:
        done = read_and_extract(items.root, params, progress, workers)
        if done is not None:
            skipped.extend(done[1])
            return done[0]
    out: list[ExtractedPage] = []

    def take(batch: list[RawPage], results: list[ExtractedPage | str]) -> None:
        for raw, res in zip(batch, results, strict=True):
            if isinstance(res, str):
                skipped.append(SkipRecord(raw.source, res, raw.offset))
            else:
                out.append(res)
                if res.note is not None:
                    skipped.append(res.note)  # what of the page was left unread, beside it
        progress("extract", len(out), None)

    batches = _batches(items, skipped)
    head = list(itertools.islice(batches, 2))
    if workers <= 1 or len(head) < 2:
        for batch in itertools.chain(head, batches):
            take(batch, extract_batch(batch, params))
        return out

    # Workers that end with this process however it ends (workbench.detect.workers.pool).
    pool = worker_pool(workers)
    window: deque[tuple[list[RawPage], Future]] = deque()  # bounded: memory stays flat
    try:
        for batch in itertools.chain(head, batches):
            window.append((batch, pool.submit(extract_batch, batch, params)))
            if len(window) >= 3 * workers:
                done_batch, fut = window.popleft()
                take(done_batch, fut.result())
        while window:
            done_batch, fut = window.popleft()
            take(done_batch, fut.result())
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return out


def too_common(matrix: SignatureMatrix, counted: np.ndarray) -> frozenset[int]:
    """The 64-bit ids of signatures the IDF filter dropped from the pages (too common)."""
    if matrix.raw_ids is None or counted.all():
        return frozenset()
    return frozenset(matrix.raw_ids[distinct(matrix.sig[~counted])].tolist())


def idf_keep(matrix: SignatureMatrix, params: SpotSigsParams) -> tuple[np.ndarray, np.ndarray, bool]:
    """Per entry: does it count in its page, is it indexed; and whether the IDF filter ran.

    idf_j = log(N / df_j) / log(N) with N the pages that have any signature. Signatures
    below ``idf_low`` are too common to say anything (like stopwords) and leave the pages.
    Everything else counts in its page's length, so similarity is measured against the
    whole page; only signatures that can be shared are indexed. So ``idf_high`` has no
    effect (kept so recorded runs and ``--idf LOW,HIGH`` stay valid): the paper's 0.85
    would take away signatures that 2 or 3 pages share (df < N^0.15), exactly the
    evidence that small clusters are near duplicates; and dropping single-page
    signatures from the pages (not just the index) shrank every page to the part it shares
    with others - for a different story its boilerplate - so unrelated pages looked alike.
    On a corpus smaller than ``params.idf_min_pages`` frequencies mean little (in a
    two-page corpus every shared signature has idf 0), so nothing is dropped there.
    """
    if not len(matrix.sig):
        empty = np.ones(0, dtype=bool)
        return empty, empty, False
    counted, indexed, applied = idf_flags(matrix, params)
    return counted[matrix.sig], indexed[matrix.sig], applied


def idf_flags(matrix: SignatureMatrix, params: SpotSigsParams,
              decided: tuple[int, np.ndarray | None] | None = None) -> tuple[np.ndarray, np.ndarray, bool]:
    """:func:`idf_keep`'s answer per signature id instead of per entry (arrays the size
    of the vocabulary, not of the matrix). ``decided``: the filter's answer counted
    elsewhere (:data:`TooCommonIds`), taken instead of this matrix's frequencies."""
    df = matrix.id_counts()  # no int64 copy of sig
    shareable = df >= 2
    rows_with_sigs = int((np.diff(matrix.ptr) > 0).sum())
    if decided is not None:
        return _decided_flags(matrix, shareable, rows_with_sigs, *decided)
    if rows_with_sigs < max(params.idf_min_pages, 2):
        return np.ones(len(df), dtype=bool), shareable, False
    idf = np.log(rows_with_sigs / np.maximum(df, 1)) / math.log(rows_with_sigs)
    counted = idf >= params.idf_low - 1e-12
    return counted, counted & shareable, True


def _decided_flags(matrix: SignatureMatrix, shareable: np.ndarray, rows_with_sigs: int, counted_pages: int,
                   dropped: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, bool]:
    if counted_pages != rows_with_sigs:  # the counts were not of these pages: never a silent difference
        raise RuntimeError(f"the document frequencies were counted over {counted_pages:,} pages "
                           f"with signatures, the signature matrix has {rows_with_sigs:,}")
    if dropped is None:
        return np.ones(len(shareable), dtype=bool), shareable, False
    raw = matrix.raw_ids if matrix.raw_ids is not None else np.empty(0, np.int64)
    counted = ~np.isin(raw, dropped, assume_unique=True)
    return counted, counted & shareable, True


def reference_similarities(matrix: SignatureMatrix, clusters: list[Cluster]) -> None:
    """Fill in exact similarities to the reference for members not paired with it."""
    need_i, need_j, where = [], [], []
    for ci, c in enumerate(clusters):
        for k, s in enumerate(c.similarities):
            if s < 0:
                need_i.append(c.reference)
                need_j.append(c.members[k])
                where.append((ci, k))
    if not need_i:
        return
    i = np.asarray(need_i, dtype=np.int64)
    j = np.asarray(need_j, dtype=np.int64)
    inter = np.empty(len(i), dtype=np.float64)  # as intersections gives them
    step = RowReads.ROWS // 2
    for lo in range(0, len(i), step):  # a mapped matrix's rows let go as they are read
        inter[lo : lo + step] = intersections(matrix, i[lo : lo + step], j[lo : lo + step])
        matrix.let_go()
    lengths = matrix.lengths()
    union = lengths[i] + lengths[j] - inter
    sims = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    for (ci, k), s in zip(where, sims, strict=True):
        clusters[ci].similarities[k] = float(s)


@dataclass(slots=True)
class Corpus:
    """Pages with their signatures after the filters: everything detection needs."""

    root: str
    params: SpotSigsParams
    pages: Sequence[PageInfo]
    skipped: list[SkipRecord]
    matrix: SignatureMatrix
    checksum_group: np.ndarray  # pages with the same number have identical content
    idf_applied: bool
    timings: dict[str, float]
    filters: RunFilters = field(default_factory=RunFilters)
    # For doubtful members: blocks found on more than one page, and their signatures (the
    # table, or where boilerplate_shares reads the rows it needs from: a cluster's files).
    repeated: RepeatedSource | None = None


def load_corpus(
    root: Path | str,
    params: SpotSigsParams | None = None,
    progress: ProgressFn = no_progress,
    workers: int | None = None,
    pages: Iterable[RawPage | SkipRecord] | None = None,
    keep: KeepPages | None = None,
    *,
    extract_all: ExtractAll | None = None,
    site_boiler: SiteBoiler = site_boilerplate,
    too_common_ids: TooCommonIds | None = None,
    checksum_groups: ChecksumGroups | None = None,
    matrix_rows: MatrixRows | None = None,
) -> Corpus:
    """Read ``root`` (or the given pages), extract and filter signatures.

    ``keep`` sees the extracted pages and skip records before the filters (which use the
    pages up): a project keeps them so that a crawl that grows reads only its new files
    (workbench.usecases.grow). ``extract_all``: who reads and extracts an opened folder
    instead of this machine's workers (a Dask cluster: workbench.cluster.run), with the same
    results in the same order; ``site_boiler``: who finds each site's boilerplate (the
    cluster, from counts it reduced while the client read the pages back); ``too_common_ids``:
    who counts the document frequencies (:data:`TooCommonIds`; default: this process);
    ``checksum_groups``: who finds the identical pages (:data:`ChecksumGroups`);
    ``matrix_rows``: who decides the boilerplate and makes the matrix's rows (:data:`MatrixRows`).
    """
    params = params or SpotSigsParams()
    root = Path(root)
    if pages is None and not root.exists():
        raise FileNotFoundError(f"no such file or folder: {root}")
    workers = workers or os.cpu_count() or 1
    timings: dict[str, float] = {}
    skipped: list[SkipRecord] = []

    t0 = time.perf_counter()
    map_large_blocks()  # freed chunk-sized temporaries go back to the system (workbench.core.clusters.heap)
    items = pages if pages is not None else scan(root, progress)
    setting_up = numba_setup.start()  # while this process mostly waits for the workers
    try:
        if extract_all is not None and pages is None:
            extracted, skips = extract_all(root, params, progress, workers)
            skipped.extend(skips)
        else:
            extracted = extract_pages(items, params, skipped, progress, workers)
    finally:
        setting_up.join()
    timings["read+extract"] = time.perf_counter() - t0
    if keep is not None:
        t_keep = time.perf_counter()
        keep(extracted, skipped)
        timings["keep pages"] = time.perf_counter() - t_keep
    return corpus_of(str(root), params, extracted, skipped, timings, progress, site_boiler, too_common_ids,
                     checksum_groups, matrix_rows)


def corpus_of(root: str, params: SpotSigsParams, extracted: list[ExtractedPage], skipped: list[SkipRecord],
              timings: dict[str, float], progress: ProgressFn = no_progress,
              site_boiler: SiteBoiler = site_boilerplate,
              too_common_ids: TooCommonIds | None = None,
              checksum_groups: ChecksumGroups | None = None, matrix_rows: MatrixRows | None = None) -> Corpus:
    """The extracted pages (in reading order) as a filtered corpus, as :func:`load_corpus`
    makes it (``extracted`` is used up)."""
    corpus = filter_corpus(root, params, extracted, skipped, timings, progress, site_boiler, too_common_ids,
                           checksum_groups, matrix_rows)
    retitle_corpus(corpus)
    return corpus


def retitle_corpus(corpus: Corpus) -> None:
    """A title many pages of a site share, each another story, is the site's label: they
    take their next candidates (display only: detection never reads a title)."""
    m = corpus.matrix
    similar = matrix_similarity(m.ptr, m.sig, m.cnt, m.lengths())
    reads = RowReads(m.sig, m.cnt)  # a mapped matrix's rows let go as they are read

    def similarity(i: int, j: int) -> float:
        reads.read(2)
        return similar(i, j)

    retitle_site_labels(corpus.pages, site_of, similarity)
    m.let_go()



def _block_weights(page: ExtractedPage) -> np.ndarray:
    """The page's spots in each of its blocks."""
    return block_weights(page.spot_block, page.n_blocks)


def _rows_here(params: SpotSigsParams, extracted: list[ExtractedPage], infos: list[PageInfo],
               site_boiler: SiteBoiler, too_common_ids: TooCommonIds | None) -> MadeRows:
    """:data:`MadeRows` from the pages' arrays in this process (``extracted`` is emptied as
    it is read: its arrays go as soon as they are used, to keep a large run's peak down)."""
    hashes = [e.block_hashes for e in extracted]
    boiler = (site_boiler(infos, hashes, params.site_min_pages, params.site_block_share)
              if params.site_boilerplate else {})
    if params.corpus_boilerplate:
        weights = PageArrays(extracted, _block_weights)
        everywhere = corpus_boilerplate(hashes, weights, params.corpus_min_pages, params.corpus_core_share,
                                        min_own_share=params.corpus_own_share)
        if len(everywhere):
            boiler[ANY_SITE] = everywhere
        del weights
        # Its temporaries, freed into the heap, go back to the system before the next
        # step's peak: on 300,000 small pages they held 264 MB there.
        release_free_memory()
    # The frequencies are counted elsewhere meanwhile, once the boilerplate is known.
    decided = too_common_ids(boiler, params) if too_common_ids is not None else None
    masks = boilerplate_masks(infos, hashes, boiler)
    repeated = repeated_blocks(PageArrays(extracted, attrgetter("spot_ids")),
                               PageArrays(extracted, attrgetter("spot_block")), hashes, masks)
    release_free_memory()  # the same for the repeated blocks' temporaries, before the builder's
    # Straight into the matrix's arrays, a batch of pages at a time, with their spot arrays
    # let go as soon as they are read (workbench.detect.join.matcher.MatrixBuilder says why).
    builder = MatrixBuilder(len(extracted), sum(e.n_spots for e in extracted))
    for k, lo in enumerate(range(0, len(extracted), _PAGES_AT_ONCE)):
        hi = min(lo + _PAGES_AT_ONCE, len(extracted))
        builder.add_rows(*page_multisets(extracted[lo:hi], masks[lo:hi]))
        # The block hashes are views of the pages' buffers: they go too, or no buffer could.
        extracted[lo:hi] = hashes[lo:hi] = masks[lo:hi] = [None] * (hi - lo)  # type: ignore[list-item]
        if k % _TRIM_EVERY == _TRIM_EVERY - 1:
            # The buffers (a batch's, under a megabyte) were freed into the heap: handed
            # back as the builder's arrays fill, the two are not held at once.
            release_free_memory()
    del extracted, masks, hashes
    release_free_memory()
    return boiler, decided, repeated, builder.finish()


def _infos_of(extracted: Sequence[ExtractedPage]) -> Sequence[PageInfo]:
    """The pages' records: a cluster run's light pages hold theirs as one table, with no
    object a page (workbench.cluster.records.light_pages), which stands in for the list."""
    table = getattr(extracted, "infos", None)
    return table if table is not None else [e.info for e in extracted]


def filter_corpus(root: str, params: SpotSigsParams, extracted: list[ExtractedPage],
                  skipped: list[SkipRecord], timings: dict[str, float],
                  progress: ProgressFn = no_progress, site_boiler: SiteBoiler = site_boilerplate,
                  too_common_ids: TooCommonIds | None = None, checksum_groups: ChecksumGroups | None = None,
                  matrix_rows: MatrixRows | None = None) -> Corpus:
    """The extracted pages as a corpus: boilerplate left out, the IDF filter applied, the
    signature matrix built. ``extracted`` is emptied as it is read (its arrays are let go
    as soon as they are used, to keep a large run's peak memory down)."""
    t1 = time.perf_counter()
    progress("filter", 0, None)
    infos = _infos_of(extracted)
    made = matrix_rows(extracted, params, progress) if matrix_rows is not None else None
    if made is None:
        made = _rows_here(params, extracted, infos, site_boiler, too_common_ids)
    extracted.clear()
    boiler, decided, repeated, raw_matrix = made
    del made
    if isinstance(raw_matrix, FilteredRows):  # filtered where the rows were made (a cluster's tasks)
        too_common_ids, idf_applied = raw_matrix.too_common_ids, raw_matrix.idf_applied
    else:
        counted, indexed, idf_applied = idf_flags(raw_matrix, params,
                                                  decided() if decided is not None else None)
        dropped = ~counted & (matrix_kernels.id_counts(raw_matrix.sig, len(counted)) > 0)
        too_common_ids = (frozenset(raw_matrix.raw_ids[dropped].tolist())
                          if raw_matrix.raw_ids is not None else frozenset())
    filters = RunFilters(too_common_ids, {site: frozenset(ids.tolist()) for site, ids in boiler.items()})

    def usable(lengths: np.ndarray) -> np.ndarray:
        for info, length in zip(infos, lengths.tolist(), strict=True):
            before = info.signature_count
            info.signature_count = length  # what matching counts, after every filter
            if length < max(params.min_sigs, 1):
                info.skip_reason = (
                    f"too little text: {length} signatures after the filters "
                    f"({before} before; minimum {params.min_sigs})"
                    if before
                    else "too little text: no spot signatures"
                )
        return np.array([info.skip_reason is None for info in infos], dtype=bool)

    # The IDF filter, unindexed single-page signatures and pages with too little text, in
    # one pass (SignatureMatrix.filtered: the same as select_entries, index_only and
    # select_rows one after the other, without their matrix-sized temporaries).
    if isinstance(raw_matrix, FilteredRows):
        matrix = raw_matrix.finish(usable(raw_matrix.lengths))
    else:
        matrix, _ = raw_matrix.filtered(counted, indexed, usable)
    del raw_matrix
    if isinstance(repeated, RepeatedBlocks):  # a table made elsewhere has the matrix's ids already
        repeated = with_matrix_ids(repeated, matrix.raw_ids)
    found = checksum_groups(len(infos)) if checksum_groups is not None else None
    if found is not None:
        checksums = found
    elif infos:
        # As bytes: a str array takes 4 bytes a character (160 MB for a million sha1s)
        # and np.unique sorts copies of it.
        checksums = np.unique(np.array([i.checksum.encode() for i in infos], dtype=bytes),
                              return_inverse=True)[1]
    else:
        checksums = np.empty(0, dtype=np.int64)
    timings["filter"] = time.perf_counter() - t1
    return Corpus(root, params, infos, skipped, matrix, checksums, idf_applied, timings, filters,
                  repeated)


def detect(
    corpus: Corpus,
    tau: float | None = None,
    cluster_method: str | None = None,
    progress: ProgressFn = no_progress,
    *,
    join: Join = find_pairs,
) -> DedupResult:
    """Match and cluster a loaded corpus (tau and method default to the corpus params).

    ``join``: who finds the pairs (:func:`find_pairs` here, or on a Dask cluster with the
    same kernels and results: workbench.cluster.run)."""
    params = corpus.params
    if tau is not None or cluster_method is not None:
        params = dataclasses.replace(
            params, tau=params.tau if tau is None else tau,
            cluster_method=cluster_method or params.cluster_method,
        )
    timings = dict(corpus.timings)
    t2 = time.perf_counter()
    progress("match", 0, None)
    n = len(corpus.pages)
    floor = params.floor_for(n)
    floor_pairs = join(corpus.matrix, floor, corpus.checksum_group, progress)
    pairs = _at_least(floor_pairs, params.tau) if floor < params.tau else floor_pairs
    release_free_memory()  # the join's index, freed into the heap, goes back to the system
    timings["match"] = time.perf_counter() - t2

    t3 = time.perf_counter()
    progress("cluster", 0, None)
    if params.weak_join_for(floor) != params.weak_join:
        # Recorded as made: the run's saved settings then say it had no weak joins, and
        # the calibration view and Apply repeat its clusters from them.
        params = dataclasses.replace(params, weak_join=params.weak_join_for(floor))
    m = corpus.matrix
    clusters = cluster_pairs(params.cluster_method, n, floor_pairs.a, floor_pairs.b, floor_pairs.similarity,
                             params.corroborate_below, params.tau, params.weak_join,
                             weak_join_check(m, params), params.hub_split)
    m.let_go()  # the rows the weak joins' checks read (a mapped matrix: SignatureMatrix)
    reference_similarities(m, clusters)
    m.let_go()
    if corpus.repeated is not None:
        boilerplate_shares(m, clusters, corpus.repeated, floor_pairs.a, floor_pairs.b)
        m.let_go()
    release_free_memory()  # clustering's small objects, freed into the heap
    timings["cluster"] = time.perf_counter() - t3
    return DedupResult(
        root=corpus.root,
        params=params,
        pages=corpus.pages,
        skipped=corpus.skipped,
        pairs=pairs,
        clusters=clusters,
        matrix=m,
        timings=timings,
        idf_applied=corpus.idf_applied,
        distinct_signatures=m.distinct_signatures(),
        filters=corpus.filters,
        floor_pairs=floor_pairs,
        floor=floor,
    )


def weak_join_check(matrix: SignatureMatrix, params: SpotSigsParams) -> Vouch | None:
    """What vouches for star clustering's weak joins (workbench.core.clusters.own_text): None
    when weak joins or their check are off."""
    if not params.weak_join or not params.weak_join_own_text:
        return None
    return OwnTextCheck(matrix.ptr, matrix.sig, matrix.unindexed_counts()).vouch(params.weak_join_own_text)


def _at_least(pairs: PairResult, tau: float) -> PairResult:
    """The pairs with similarity >= tau (the same test the matcher makes)."""
    keep = pairs.similarity >= tau
    return PairResult(pairs.a[keep], pairs.b[keep], pairs.similarity[keep], pairs.candidates)


def run_dedup(
    root: Path | str,
    params: SpotSigsParams | None = None,
    progress: ProgressFn = no_progress,
    workers: int | None = None,
    pages: Iterable[RawPage | SkipRecord] | None = None,
) -> DedupResult:
    """Read ``root`` (or the given pages), find near-duplicate pairs and clusters.

    Raises :class:`Cancelled` when ``progress`` does, ``FileNotFoundError`` for a missing root.
    """
    corpus = load_corpus(root, params, progress, workers, pages)
    result = detect(corpus, progress=progress)
    progress("done", 1, 1)
    return result


def save_result(project, result: DedupResult, progress: ProgressFn = no_progress) -> int:
    """Store a run (pages, pairs down to the pair floor, clusters, parameters, timings)."""
    found = result.floor_pairs if result.floor_pairs is not None else result.pairs
    # The matcher's arrays as they are: a Pair object per pair cost 218 MB and 8 s on a
    # million pages before saving even began.
    record = result.params.to_dict()
    if result.floor is not None:
        record[STORED_FLOOR] = result.floor  # what run_floor reads: the pairs' real lower end
    run_id = project.save_run(record, "spotsigs", result.timings, result.pages,
                              found, result.clusters, progress=progress, filters=result.filters,
                              skipped=result.skipped, signatures=_kept_signatures(result))
    # The rows' batches, freed into the heap, go back to the system: otherwise the window
    # keeps them after a run (about 60 MB at 100,000 small pages, 144 MB at a million).
    release_free_memory()
    return run_id


def _kept_signatures(result: DedupResult) -> RunSignatures | None:
    """The signature matrix a run keeps in the project: only when its clusters need it to
    be repeated from the stored pairs (weak joins checked against the text, with pairs
    below tau to join by; workbench.store.runs.signatures)."""
    m, params = result.matrix, result.params
    if m is None or not (params.weak_join and params.weak_join_own_text):
        return None
    return RunSignatures(m.ptr, m.sig, m.unindexed_counts())


def run_into_project(
    project,
    root: Path | str,
    params: SpotSigsParams | None = None,
    progress: ProgressFn = no_progress,
    workers: int | None = None,
    *,
    keep: KeepPages | None = None,
    on_corpus: Callable[[Corpus], None] | None = None,
    on_result: Callable[[DedupResult], None] | None = None,
    extract_all: ExtractAll | None = None,
    site_boiler: SiteBoiler = site_boilerplate,
    too_common_ids: TooCommonIds | None = None,
    checksum_groups: ChecksumGroups | None = None,
    matrix_rows: MatrixRows | None = None,
    join: Join = find_pairs,
    extra: dict | None = None,
) -> tuple[DedupResult, int]:
    """A detection run into an open project: read, match, cluster and save; returns the
    result and the new run's id.

    The requested settings go into the project before anything is read
    (``project.begin_run``) and leave it with the saved run, so a run killed half way
    leaves them there for the next session to offer again (``project.pending_run()``),
    while the previous run stays the current one. Cancelling is the coder's choice, so a
    cancelled run is not left pending; any other failure is. ``on_corpus`` and
    ``on_result`` see the stages' results as they come (for running counts); ``keep``
    the extracted pages (see :func:`load_corpus`). ``extract_all``, ``site_boiler``,
    ``too_common_ids``, ``checksum_groups``, ``matrix_rows`` and ``join``: who reads, counts the
    sites' blocks and the document frequencies, finds identical pages, makes the matrix's rows
    and matches (a Dask cluster:
    workbench.cluster.run); ``extra``: more
    settings to keep pending with the run's (where it runs: workbench.cluster.where).
    """
    params = params or SpotSigsParams()
    return corpus_into_project(project, params,
                               lambda: load_corpus(root, params, progress, workers, keep=keep,
                                                   extract_all=extract_all, site_boiler=site_boiler,
                                                   too_common_ids=too_common_ids,
                                                   checksum_groups=checksum_groups, matrix_rows=matrix_rows),
                               progress, on_corpus=on_corpus, on_result=on_result, join=join, extra=extra)


def corpus_into_project(
    project,
    params: SpotSigsParams,
    read: Callable[[], Corpus],
    progress: ProgressFn = no_progress,
    *,
    on_corpus: Callable[[Corpus], None] | None = None,
    on_result: Callable[[DedupResult], None] | None = None,
    join: Join = find_pairs,
    extra: dict | None = None,
) -> tuple[DedupResult, int]:
    """A run into a project from the corpus ``read`` gives (a whole crawl, or a grown one):
    match (``join``), cluster and save it, the settings (and ``extra``) pending in the
    project until it is saved."""
    with pending_run(project, params, extra):
        corpus = read()
        if on_corpus is not None:
            on_corpus(corpus)
        result = detect(corpus, progress=progress, join=join)
        if on_result is not None:
            on_result(result)
        run_id = save_result(project, result, progress)
    return result, run_id


@contextmanager
def pending_run(project, params: SpotSigsParams, extra: dict | None = None) -> Iterator[None]:
    """Keep a run's settings in the project from before anything is read until the run
    is saved (``save_run`` removes them), so a run killed half way is offered again when
    the project reopens. A run the user stopped (Cancel, Ctrl+C) is not left pending.
    ``extra``: more to keep (another detector's name and threshold)."""
    project.begin_run({**params.to_dict(), **(extra or {})})
    try:
        yield
    except (Cancelled, KeyboardInterrupt):
        project.forget_pending_run()
        raise


__all__ = ["Corpus", "DedupResult", "KeepPages", "corpus_into_project", "corpus_of", "detect",
           "extract_pages", "load_corpus", "pending_run", "run_dedup", "run_into_project", "save_result",
           "Cancelled"]
