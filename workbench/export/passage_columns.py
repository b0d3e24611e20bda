"""The export's passage columns: how much of each page is its cluster's reference's text.

``share_from_reference``: the share of the page's compared words (its kept blocks, the
words its signatures came from) inside passages it shares with its cluster's reference
(:mod:`workbench.text.passages`, as the side-by-side view shows them);
``share_of_reference``: the share of the reference's compared words the page carries.

Both are empty for the reference itself (it is the yardstick, not a copy: a 1.0 there
would count it as a copy of itself in every mean taken over a cluster), for pages in no
cluster, and for pages that can no longer be read from the archive folder (moved or
gone): a script then sees NA, never a share made up.

The pages are read again from the archive (the project keeps no text), the reference
of a cluster once for all its rows; extraction is most of the cost (about 5 ms a page on
the Gold Set: benchmarks/bench_passages.py --export measures it); ``workbench export
--no-passages`` leaves the columns empty and reads nothing.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from concurrent.futures import Future

from workbench.core.progress import ProgressFn, no_progress
from workbench.detect.spotsigs.extract import extract_text
from workbench.detect.spotsigs.params import SpotSigsParams, params_from_record
from workbench.detect.spotsigs.signatures import kept_blocks

# The view's reading of a page again (Qt-free): the export reads the very bytes it shows.
from workbench.gui.sidebyside.pagetext import read_raw
from workbench.store import PageRecord, Project
from workbench.text.passages import align
from workbench.text.tokenize import words_of

PASSAGE_COLUMNS = ["share_from_reference", "share_of_reference"]
# Member rows from which the shares are computed in worker processes (starting them
# costs about a second; a row costs 5-10 ms on one core).
POOL_ROWS = 2_000
# Member rows a worker takes at a time (whole clusters: each reads its reference once).
TASK_ROWS = 100

# A page to read again: (source, offset).
Where = tuple[str, int | None]
# A cluster's reference and its member rows: (reference, [(page id, member)]).
ClusterTask = tuple[Where, list[tuple[int, Where]]]


def compared_words(root: str, source: str, offset: int | None, params: SpotSigsParams) -> list[str] | None:
    """The page's compared words as detection and the view find them (None: unreadable)."""
    try:
        raw = read_raw(root, source, offset)
        if raw is None:
            return None
        extracted, _ = extract_text(raw, params.main_content)
    except Exception:  # noqa: BLE001 - an unreadable page leaves its cells empty, never the export
        return None
    text = extracted.text
    return [w for block in kept_blocks(extracted, params) for w in words_of(text[block.start : block.end])]


def shares(reference: list[str], words: list[str]) -> list[str]:
    """The two cells of a member read again (``words``) against its reference's words."""
    alignment = align(reference, words)
    return [_share(alignment.share_of_b), _share(alignment.share_of_a)]


def cluster_cells(root: str, params: SpotSigsParams,
                  clusters: Sequence[ClusterTask]) -> tuple[dict[int, list[str]], int]:
    """The cells of the member rows of some clusters, by page id, and how many pages could
    not be read again (a worker process's task; the same cells :meth:`PassageColumns.cells`
    gives)."""
    cells: dict[int, list[str]] = {}
    unread = 0
    for (ref_source, ref_offset), members in clusters:
        reference = compared_words(root, ref_source, ref_offset, params)
        unread += reference is None
        for page_id, (source, offset) in members:
            words = None if reference is None else compared_words(root, source, offset, params)
            unread += reference is not None and words is None
            cells[page_id] = ["", ""] if reference is None or words is None \
                else shares(reference, words)
    return cells, unread


class PassageColumns:
    """The two cells of every row; the last cluster's reference is kept for its members."""

    def __init__(self, project: Project, computed: bool = True) -> None:
        self.project = project
        self.computed = computed  # False: the columns are there, empty (nothing read)
        self.root = project.archive_root
        run = project.current_run()
        self.params = params_from_record(run.params) if run is not None else SpotSigsParams()
        self._reference: tuple[int, list[str] | None] | None = None
        self.unread = 0  # pages (references counted once) that could not be read again
        self._ahead: dict[int, list[str]] = {}  # cells computed by compute_ahead

    def header(self) -> list[str]:
        return list(PASSAGE_COLUMNS)

    def cells(self, rec: PageRecord) -> list[str]:
        if not self.computed or rec.cluster_id is None or rec.is_reference:
            return ["", ""]
        ahead = self._ahead.get(rec.page_id)
        if ahead is not None:
            return ahead
        reference = self._reference_words(rec.cluster_id)
        if reference is None:
            return ["", ""]
        words = compared_words(self.root, rec.source, rec.offset, self.params)
        if words is None:
            self.unread += 1
            return ["", ""]
        return shares(reference, words)

    def compute_ahead(self, records: Iterable[PageRecord], workers: int,
                      progress: ProgressFn = no_progress) -> None:
        """The cells of every member row of ``records`` in ``workers`` processes, when
        there are :data:`POOL_ROWS` or more of them (fewer: :meth:`cells` computes each as
        it is written). ``progress("shares", members done, members)``; a Cancelled it
        raises stops the workers."""
        if not self.computed or workers <= 1:
            return
        by_cluster: dict[int, list[tuple[int, Where]]] = {}
        for rec in records:
            if rec.cluster_id is not None and not rec.is_reference:
                by_cluster.setdefault(rec.cluster_id, []).append(
                    (rec.page_id, (rec.source, rec.offset)))
        total = sum(len(m) for m in by_cluster.values())
        if total < POOL_ROWS:
            return
        from workbench.detect.workers.pool import worker_pool

        progress("shares", 0, total)
        pool = worker_pool(workers)
        window: deque[Future[tuple[dict[int, list[str]], int]]] = deque()
        done = 0

        def take(future: Future[tuple[dict[int, list[str]], int]]) -> None:
            nonlocal done
            cells, unread = future.result()
            self._ahead.update(cells)
            self.unread += unread
            done += len(cells)
            progress("shares", done, total)

        try:
            for task in self._tasks(by_cluster):
                window.append(pool.submit(cluster_cells, self.root, self.params, task))
                if len(window) >= 3 * workers:  # bounded: memory stays flat
                    take(window.popleft())
            while window:
                take(window.popleft())
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)

    def _tasks(self, by_cluster: dict[int, list[tuple[int, Where]]]) -> Iterable[list[ClusterTask]]:
        """Whole clusters, about TASK_ROWS member rows a task."""
        task: list[ClusterTask] = []
        rows = 0
        for cluster_id, members in by_cluster.items():
            cluster = self.project.cluster(cluster_id)
            page = self.project.page(cluster.reference_page_id) if cluster is not None else None
            reference: Where = (page.source, page.offset) if page is not None else ("", None)
            task.append((reference, members))
            rows += len(members)
            if rows >= TASK_ROWS:
                yield task
                task, rows = [], 0
        if task:
            yield task

    def _reference_words(self, cluster_id: int) -> list[str] | None:
        if self._reference is None or self._reference[0] != cluster_id:
            cluster = self.project.cluster(cluster_id)
            page = self.project.page(cluster.reference_page_id) if cluster is not None else None
            words = compared_words(self.root, page.source, page.offset, self.params) if page else None
            self.unread += words is None
            self._reference = (cluster_id, words)
        return self._reference[1]


def unread_report(unread: int, root: str) -> str:
    """What the coder is told when pages could not be read again ('' for none)."""
    if not unread:
        return ""
    noun = "page" if unread == 1 else "pages"
    return (f"{unread:,} {noun} could not be read again from the archive folder {root} (moved or "
            f"gone): their share_from_reference and share_of_reference cells, and those of the "
            f"members of a cluster whose reference it is, are empty. Every row was exported.")


def _share(value: float | None) -> str:
    return "" if value is None else repr(round(value, 4))
