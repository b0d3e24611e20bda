"""Qt models over the project's read queries."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from workbench.core.dates_shown import short_time, span_text
from workbench.gui.coding.feedback import count_of
from workbench.gui.sidebyside.pagetext import plain_tip
from workbench.store import ClusterRow, Project
from workbench.store.team import sample_clusters

PAGE_SIZE = 200

COLUMNS = ["ID", "Size", "Min", "Mean", "Reference title", "Sites", "Tags", "Coded",
           "First seen", "Last seen", "Span", "Site count"]
HEADER_TIPS = ["Cluster id", "Pages in the cluster", "Lowest similarity of a member to the reference",
               "Mean similarity of the members to the reference", "Title of the reference page",
               "Sites the pages come from", "Tags (* on some pages only)", "Do the pages carry a tag?",
               "The earliest date of its pages: published where the page says, else captured",
               "The latest date of its pages: published where the page says, else captured",
               "Time from the first to the last date of its pages",
               "How many sites its pages come from"]
(COL_ID, COL_SIZE, COL_MIN, COL_MEAN, COL_TITLE, COL_SITES, COL_TAGS, COL_CODED, COL_FIRST, COL_LAST,
 COL_SPAN, COL_SITE_COUNT) = range(len(COLUMNS))
# Columns the store can order by itself (ascending in that order), so paging stays lazy.
_STORE_ORDERS = {(COL_ID, Qt.SortOrder.AscendingOrder): "id",
                 (COL_SIZE, Qt.SortOrder.DescendingOrder): "size",
                 (COL_MIN, Qt.SortOrder.AscendingOrder): "similarity"}
CODED_LABELS = {"none": "no", "some": "partly", "all": "yes"}
CODED_TIPS = {"none": "No page of this cluster has a tag yet.",
              "some": "Some of this cluster's pages have a tag, others not yet.",
              "all": "Every page of this cluster has a tag."}

ClusterIdRole = Qt.ItemDataRole.UserRole + 1
RowRole = Qt.ItemDataRole.UserRole + 2

_Index = QModelIndex | QPersistentModelIndex


def _sim(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _sort_key(column: int):
    def key(r: ClusterRow):
        if column == COL_ID:
            return (r.id,)
        if column == COL_SIZE:
            return (r.size, -r.id)
        if column == COL_MIN:  # as the store orders it: below the floor first, single pages last
            return (r.min_similarity is None and not r.below_floor,
                    -1.0 if r.below_floor else r.min_similarity or 0.0, r.id)
        if column == COL_MEAN:
            return (r.mean_similarity is None, r.mean_similarity or 0.0, r.id)
        if column == COL_TITLE:
            return (r.reference_title.casefold(), r.id)
        if column == COL_SITES:
            return (", ".join(r.sites).casefold(), r.id)
        if column == COL_TAGS:
            return (", ".join(t.name for t in r.tags).casefold(), r.id)
        if column in (COL_FIRST, COL_LAST):  # undated clusters after the dated ones
            seen = r.first_seen if column == COL_FIRST else r.last_seen
            return (seen is None, seen or "", r.id)
        if column == COL_SPAN:
            span = r.span_days
            return (span is None, span or 0.0, r.id)
        if column == COL_SITE_COUNT:
            return (r.site_count, r.id)
        return ({"none": 0, "some": 1, "all": 2}[r.coded], r.id)
    return key


def _seen_tip(r: ClusterRow) -> str:
    if r.first_seen is None:
        return "No page of this cluster says when it was published or captured."
    return (f"First seen {short_time(r.first_seen)}, last seen {short_time(r.last_seen)} "
            "(each page's publication date where it states one, else its capture date)")


def tags_tip(r: ClusterRow) -> str:
    """The Tags cell's tooltip: each tag on how many of the cluster's pages, and what the
    "*" after a name means."""
    lines = [f"{t.name}{'' if t.state == 'all' else '*'}: on "
             + (f"all {count_of(r.size, 'page', 'pages')}" if t.state == "all"
                else f"{count_of(t.pages, 'page', 'pages')} of {r.size}")
             for t in r.tags]
    if any(t.state != "all" for t in r.tags):
        lines.append("* the tag is on some of the cluster's pages only")
    return "\n".join(lines)


class ClusterTableModel(QAbstractTableModel):
    """The current run's clusters, read page by page through ``Project.list_clusters``.

    With the store's own orders and no text/size filter, rows arrive lazily
    (``canFetchMore``/``fetchMore``); any other sort or filter reads every row once
    and sorts/filters in Python.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self._rows: list[ClusterRow] = []
        self._total = 0
        self._lazy = True
        self._order = "size"
        self._sort = (COL_SIZE, Qt.SortOrder.DescendingOrder)
        self.coded_filter: str | None = None
        self.text_filter = ""
        self.min_size = 1
        self.tag_filter: int | None = None  # only clusters with some page carrying this tag
        self.singles_only = False  # only one-page "clusters" (pages with no near duplicate)
        self.sample_filter: int | None = None  # only the clusters of this sample
        self._in_sample: set[int] = set()

    # ------------------------------------------------------------ setup
    def set_project(self, project: Project | None) -> None:
        self.project = project
        self.reload()

    def set_filters(self, *, text: str | None = None, coded: str | None | bool = False,
                    min_size: int | None = None, tag_id: int | None | bool = False,
                    singles_only: bool | None = None,
                    sample_id: int | None | bool = False) -> None:
        """Change some filters (arguments left out keep their value) and reload."""
        if sample_id is not False:
            self.sample_filter = sample_id  # type: ignore[assignment]
        if tag_id is not False:
            self.tag_filter = tag_id  # type: ignore[assignment]
        if singles_only is not None:
            self.singles_only = singles_only
        if text is not None:
            self.text_filter = text.strip()
        if coded is not False:
            self.coded_filter = coded  # type: ignore[assignment]
        if min_size is not None:
            self.min_size = max(1, min_size)
        self.reload()

    def reload(self, keep_rows: int = 0) -> None:
        """Read the rows again (at least ``keep_rows`` of them, for a lazy list)."""
        self.beginResetModel()
        self._rows = []
        self._total = 0
        if self.project is not None and self.project.current_run() is not None:
            store_order = _STORE_ORDERS.get(self._sort)
            self._lazy = (store_order is not None and not self.text_filter and self.min_size <= 1
                          and self.tag_filter is None and not self.singles_only
                          and self.sample_filter is None)
            self._in_sample = set() if self.sample_filter is None else \
                set(sample_clusters(self.project.reader(), self.sample_filter))
            self._order = store_order or "size"
            self._total = self.project.count_clusters(coded=self.coded_filter)
            if self._lazy:
                self._rows = self._page(0, max(PAGE_SIZE, keep_rows))
            else:
                rows = self._page(0, self._total)
                self._rows = [r for r in rows if self._accept(r)]
                self._rows.sort(key=_sort_key(self._sort[0]),
                                reverse=self._sort[1] == Qt.SortOrder.DescendingOrder)
                self._total = len(self._rows)
        self.endResetModel()

    def _page(self, offset: int, limit: int) -> list[ClusterRow]:
        assert self.project is not None
        return self.project.list_clusters(offset, limit, order=self._order, coded=self.coded_filter)

    def _accept(self, r: ClusterRow) -> bool:
        if r.size < self.min_size or (self.singles_only and r.size > 1):
            return False
        if self.tag_filter is not None and all(t.tag_id != self.tag_filter for t in r.tags):
            return False
        if self.sample_filter is not None and r.id not in self._in_sample:
            return False
        if self.text_filter:
            needle = self.text_filter.casefold()
            hay = " ".join([str(r.id), r.reference_title, *r.sites, *(t.name for t in r.tags)])
            return needle in hay.casefold()
        return True

    # ------------------------------------------------------- Qt model API
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def canFetchMore(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and self._lazy and len(self._rows) < self._total

    def fetchMore(self, parent: _Index = QModelIndex()) -> None:  # noqa: B008
        if not self.canFetchMore(parent):
            return
        more = self._page(len(self._rows), PAGE_SIZE)
        if not more:
            self._total = len(self._rows)
            return
        self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(more) - 1)
        self._rows.extend(more)
        self.endInsertRows()

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return HEADER_TIPS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        r = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(r, col)
        if role == ClusterIdRole:
            return r.id
        if role == RowRole:
            return r
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == COL_TITLE:
                # The headline is shown; the page's <title> (often the site's name) is here.
                page = self.project.page(r.reference_page_id) if self.project else None
                tag = page.title_tag if page is not None else ""
                return plain_tip(r.reference_title + (f"\n<title>: {tag}" if tag and
                                                      tag != r.reference_title else ""))
            if col == COL_SITES:
                if not r.sites:
                    return plain_tip("No page of this cluster says which site it is from "
                                     "(no URL, canonical link or site-wide links).")
                return plain_tip("\n".join(self._all_sites(r)))
            if col == COL_MIN and r.below_floor:
                return plain_tip("Some member's similarity to the reference is below the run's "
                                 "pair floor (not stored): it joined through other members.")
            if col == COL_TAGS and r.tags:
                return plain_tip(tags_tip(r))
            if col == COL_CODED:
                return plain_tip(CODED_TIPS.get(r.coded, ""))
            if col in (COL_FIRST, COL_LAST, COL_SPAN):
                return plain_tip(_seen_tip(r))
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (COL_ID, COL_SIZE, COL_MIN, COL_MEAN,
                                                                 COL_SPAN, COL_SITE_COUNT):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and col == COL_CODED and r.coded == "none":
            return QBrush(QColor("#a33"))
        if role == Qt.ItemDataRole.DecorationRole and col == COL_TAGS and r.tags:
            colour = r.tags[0].colour or "#888888"
            return QColor(colour)
        return None

    def _all_sites(self, r: ClusterRow) -> list[str]:
        """Every site of the cluster (the row holds the first few): the whole of what the
        Sites column cuts short, read when the pointer rests on it."""
        if r.site_count <= len(r.sites) or self.project is None:
            return list(r.sites)
        return sorted({m.site for m in self.project.members(r.id) if m.site})

    @staticmethod
    def _display(r: ClusterRow, col: int) -> str:
        if col == COL_ID:
            return str(r.id)
        if col == COL_SIZE:
            return str(r.size)
        if col == COL_MIN:
            return "< floor" if r.below_floor else _sim(r.min_similarity)
        if col == COL_MEAN:
            return _sim(r.mean_similarity)
        if col == COL_TITLE:
            return r.reference_title
        if col == COL_SITES:
            if not r.sites:  # no page's site is known (a flat folder of saved pages)
                return "1 page" if r.size == 1 else f"{r.size} pages"
            more = r.site_count - len(r.sites)
            return ", ".join(r.sites) + (f" +{more}" if more > 0 else "")
        if col == COL_TAGS:
            return ", ".join(t.name + ("" if t.state == "all" else "*") for t in r.tags)
        if col == COL_FIRST:
            return (r.first_seen or "")[:10]
        if col == COL_LAST:
            return (r.last_seen or "")[:10]
        if col == COL_SPAN:
            return span_text(r.span_days)
        if col == COL_SITE_COUNT:
            return str(r.site_count) if r.site_count else ""
        return CODED_LABELS.get(r.coded, r.coded)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if (column, order) == self._sort:
            return
        self._sort = (column, order)
        self.reload(keep_rows=len(self._rows))

    # ------------------------------------------------------------ helpers
    def row_of(self, index: int) -> ClusterRow:
        return self._rows[index]

    @property
    def rows(self) -> list[ClusterRow]:
        return self._rows

    @property
    def total(self) -> int:
        return self._total

    def find_row(self, cluster_id: int) -> int:
        """Row of a cluster, fetching more pages if needed (-1: not in the list)."""
        while True:
            for i, r in enumerate(self._rows):
                if r.id == cluster_id:
                    return i
            if not self.canFetchMore():
                return -1
            self.fetchMore()

    def refresh_clusters(self, cluster_ids: set[int]) -> None:
        """Re-read the given rows in place (after tagging: sizes and order unchanged)."""
        if self.project is None:
            return
        for i, r in enumerate(self._rows):
            if r.id in cluster_ids:
                fresh = self.project.cluster(r.id)
                if fresh is not None:
                    self._rows[i] = fresh
                    self.dataChanged.emit(self.index(i, 0), self.index(i, len(COLUMNS) - 1))
