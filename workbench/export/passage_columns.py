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

from workbench.detect.spotsigs.extract import extract_text
from workbench.detect.spotsigs.params import SpotSigsParams, params_from_record
from workbench.detect.spotsigs.signatures import kept_blocks

# The view's reading of a page again (Qt-free): the export reads the very bytes it shows.
from workbench.gui.sidebyside.pagetext import read_raw
from workbench.store import PageRecord, Project
from workbench.text.passages import align
from workbench.text.tokenize import words_of

PASSAGE_COLUMNS = ["share_from_reference", "share_of_reference"]


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

    def header(self) -> list[str]:
        return list(PASSAGE_COLUMNS)

    def cells(self, rec: PageRecord) -> list[str]:
        if not self.computed or rec.cluster_id is None or rec.is_reference:
            return ["", ""]
        reference = self._reference_words(rec.cluster_id)
        if reference is None:
            return ["", ""]
        words = compared_words(self.root, rec.source, rec.offset, self.params)
        if words is None:
            self.unread += 1
            return ["", ""]
        alignment = align(reference, words)
        return [_share(alignment.share_of_b), _share(alignment.share_of_a)]

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
