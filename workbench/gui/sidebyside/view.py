"""Side by side: the cluster's reference page and one member, spot signatures highlighted."""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtCore import QSettings, QSignalBlocker, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QIcon, QPixmap, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QSizePolicy,
    QSplitter,
    QStyle,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from workbench.core.clusters.doubt import DEFAULT_MARGIN, doubt_reasons, doubt_threshold, similarity_label
from workbench.core.dates_shown import dates_line
from workbench.core.records import RunFilters
from workbench.detect.spotsigs.boilerplate import site_of
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.gui.long_words import shorten_long_words
from workbench.gui.sidebyside.pagetext import (
    NOT_COUNTED,
    OWN,
    SHARED,
    PageCache,
    PageText,
    ShownText,
    Span,
    article_view,
    highlight_spans,
    occurrences,
    plain_tip,
    readable,
    shared_signatures,
    utf16_positions,
    whole_view,
)
from workbench.gui.sidebyside.passagemarks import Band, MarksCache, PassageMarks
from workbench.gui.sidebyside.passagestrip import PASSAGE_COLOURS, PassageStrip
from workbench.store import MemberRow, PageDetail, Project

SHARED_COLOUR = "#b9dcff"  # blue: found on both pages
OWN_COLOUR = "#ffe0a8"  # amber: only on this page
NOT_COUNTED_COLOUR = "#e4e4e4"  # grey: left out by the run (too common, site template)
_COLOURS = {SHARED: SHARED_COLOUR, OWN: OWN_COLOUR, NOT_COUNTED: NOT_COUNTED_COLOUR}
DOUBT_COLOUR = "#b34700"  # members to look at twice
MemberRole = Qt.ItemDataRole.UserRole + 1
SignatureRole = Qt.ItemDataRole.UserRole + 2
DoubtRole = Qt.ItemDataRole.UserRole + 3  # the reasons a member is doubtful (empty: it is not)
MARGIN_KEY = "review/doubtMargin"


_FORMATS: dict[tuple[str, bool], QTextCharFormat] = {}


def span_format(span: Span) -> QTextCharFormat:
    """The text format of a highlighted token (six kinds, made once)."""
    key = (span.kind, span.antecedent)
    fmt = _FORMATS.get(key)
    if fmt is None:
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(_COLOURS[span.kind]))
        if span.antecedent:
            fmt.setFontWeight(QFont.Weight.Bold)
            fmt.setFontUnderline(True)
        _FORMATS[key] = fmt
    return fmt


def _greyed_format() -> QTextCharFormat:
    """Text that was not compared: grey letters (highlights keep their own backgrounds)."""
    fmt = _FORMATS.get(("greyed", False))
    if fmt is None:
        fmt = QTextCharFormat()
        fmt.setForeground(QColor("#9a9a9a"))
        _FORMATS[("greyed", False)] = fmt
    return fmt


class PagePane(QWidget):
    """A header (title, where from, similarity, shared count) over read-only plain text."""

    def __init__(self, role: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.role = role
        self.header = QLabel()
        self.header.setObjectName("paneHeader")
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        self.header.setOpenExternalLinks(False)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # The header wraps to the pane's width and never asks for more: the window keeps
        # the width it was given whatever page is opened (long words are shortened in the
        # header, whole in its tooltip).
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setObjectName(f"{role}Text")
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.strip = PassageStrip(self.text)
        self.strip.setObjectName(f"{role}Passages")
        self.passage_note = QLabel()  # how much of the page is the other's text
        self.passage_note.setObjectName(f"{role}PassageNote")
        self.passage_note.setWordWrap(True)
        self.passage_note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.passage_note.hide()
        self.bands: list[Band] = []
        self.page: PageText | None = None
        self.view: ShownText | None = None  # what the pane shows of the page
        self.spans: list[Span] = []
        self._pos = lambda i: i
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.header)
        layout.addWidget(self.passage_note)
        body = QWidget()  # the strip and the text, level with each other
        row = QHBoxLayout(body)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        row.addWidget(self.strip)
        row.addWidget(self.text, 1)
        layout.addWidget(body, 1)
        self.clear()

    def clear(self, message: str = "") -> None:
        self.page = None
        self.view = None
        self.spans = []
        self.set_passages([], "")
        self.header.setText(f"<b>{html.escape(self.role.title())}</b>")
        self.text.setExtraSelections([])
        self.text.setPlainText(message)

    def set_header(self, detail: PageDetail | MemberRow | None, sim: str,
                   shared: int, total: int, note: str = "") -> None:
        """``sim``: "reference", or the member's similarity as words."""
        if detail is None:
            self.header.setText("")
            self.header.setToolTip("")
            return
        whole_title = detail.title or "(no title)"
        whole_where = detail.url or getattr(detail, "source", None) or detail.key
        title = html.escape(shorten_long_words(whole_title))
        where = html.escape(shorten_long_words(whole_where))
        self.header.setToolTip(f"<qt>{html.escape(whole_title)}<br>{html.escape(whole_where)}"
                               "</qt>")
        date = dates_line(detail)
        compared = self.page.signature_note if self.page is not None else ""
        lines = [f"<b>{self.role.title()}:</b> {title}",
                 f"<span style='color:#555'>{where}{' · ' + html.escape(date) if date else ''}"
                 f"{' · ' + html.escape(compared) if compared else ''}</span>",
                 f"{sim} · shared <b>{shared}</b> of {total} signatures"
                 + (f" · <i>{html.escape(note)}</i>" if note else "")]
        self.header.setText("<br>".join(lines))

    def show_page(self, page: PageText, shared: dict, *, source: bool = False,
                  whole: bool = False) -> None:
        """The page's article (the text compared), or with ``whole`` its whole text with
        what was not compared in grey, or with ``source`` its HTML as plain text."""
        self.page = page
        self.view = None
        self.bands = []  # the note stays until the view sets it: hiding it re-lays the pane out
        self.strip.set_bands([])
        if page.error:
            self.spans = []
            self.text.setExtraSelections([])
            self.text.setPlainText(page.error)
            return
        if source:
            body = page.source_html
        else:
            self.view = whole_view(page) if whole else article_view(page)
            body = self.view.text
        # A carriage return would start a new block too; a newline keeps offsets 1:1.
        self.text.setPlainText(body.replace("\r", "\n"))
        self._pos = utf16_positions(body)
        if self.view is None:
            self.spans = []
            self.text.setExtraSelections([])
            return
        self.spans = self.view.spans(highlight_spans(page, shared))
        selections = [self._selection(lo, hi, _greyed_format()) for lo, hi in self.view.greyed]
        selections += [self._selection(span.start, span.end, span_format(span)) for span in self.spans]
        self.text.setExtraSelections(selections)

    def set_passages(self, bands: list[Band], note: str) -> None:
        """Bands beside the passages shown (none for the source), and the note above."""
        self.bands = bands
        # Only when they change: a label shown, hidden or re-wrapped lays the pane out again.
        if note != self.passage_note.text():
            self.passage_note.setText(note)
        if bool(note) != self.passage_note.isVisibleTo(self):
            self.passage_note.setVisible(bool(note))
        shown = []
        for band in bands if self.view is not None else ():
            start, end = self.view.to_shown(band.start), self.view.to_shown(band.end)
            if start is not None and end is not None:
                shown.append((self._pos(start), self._pos(end), band.passage))
        self.strip.set_bands(shown)

    def show_passage(self, passage: int) -> None:
        """Select and scroll to the start of a passage's first band."""
        band = next((b for b in self.bands if b.passage == passage), None)
        if band is not None:
            self.show_span(band.start, band.end)

    def _selection(self, start: int, end: int, fmt: QTextCharFormat) -> QTextEdit.ExtraSelection:
        sel = QTextEdit.ExtraSelection()
        cursor = QTextCursor(self.text.document())
        cursor.setPosition(self._pos(start))
        cursor.setPosition(self._pos(end), QTextCursor.MoveMode.KeepAnchor)
        sel.cursor = cursor
        sel.format = fmt
        return sel

    def show_span(self, start: int, end: int) -> None:
        """Select and scroll to characters ``[start, end)`` of the extracted text."""
        if self.view is not None:
            shown_start, shown_end = self.view.to_shown(start), self.view.to_shown(end)
            if shown_start is None or shown_end is None:
                return
            start, end = shown_start, shown_end
        cursor = self.text.textCursor()
        cursor.setPosition(self._pos(start))
        cursor.setPosition(self._pos(end), QTextCursor.MoveMode.KeepAnchor)
        self.text.setTextCursor(cursor)
        self.text.centerCursor()


@dataclass(slots=True)
class _Shown:
    project: Project
    cluster_id: int
    members: list[MemberRow]


class CompareView(QWidget):
    """Members of the chosen cluster, the two panes, and "Why these match"."""

    member_changed = Signal(int)  # page id of the member in the right pane
    cluster_shown = Signal(object)  # the cluster now shown (None: none)

    def __init__(self, parent: QWidget | None = None, settings: QSettings | None = None) -> None:
        super().__init__(parent)
        self.cache = PageCache()
        self.marks = MarksCache()
        self.params = SpotSigsParams()
        self.floor = self.params.tau
        self.root = ""
        self.filters = RunFilters()
        self.settings = settings
        self._shown: _Shown | None = None
        self.shared: dict[str, tuple[int, int]] = {}
        self._occurrence = 0
        self._syncing = False
        # A page of another cluster shown against the reference (the related pane's):
        # (page id, its similarity in words); None: the member chosen in the list.
        self._other: tuple[int, str] | None = None
        # The passages of the two pages shown (None: one page, the source, or an error).
        self.shown_marks: PassageMarks | None = None

        self.members = QListWidget()
        self.members.setObjectName("memberList")
        self.members.setToolTip("Pages of this cluster (Page Up / Page Down step through them)")
        self.members_title = QLabel("<b>Members</b>")
        self.margin = QDoubleSpinBox()
        self.margin.setObjectName("doubtMargin")
        self.margin.setRange(0.0, 0.9)
        self.margin.setSingleStep(0.05)
        self.margin.setDecimals(2)
        self.margin.setPrefix("τ + ")
        self.margin.setToolTip("Members less similar than this to the reference are marked as doubtful")
        stored = settings.value(MARGIN_KEY, DEFAULT_MARGIN) if settings is not None else DEFAULT_MARGIN
        try:
            self.margin.setValue(float(stored))
        except (TypeError, ValueError):
            self.margin.setValue(DEFAULT_MARGIN)
        self.threshold_label = QLabel()
        self.margin.valueChanged.connect(self._margin_changed)
        self._doubt_icon = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        # Every row gets an icon (a blank one when not doubtful) so rows keep one height
        # and the similarities stay in one column.
        self.members.setIconSize(QSize(14, 14))
        blank = QPixmap(14, 14)
        blank.fill(Qt.GlobalColor.transparent)
        self._no_icon = QIcon(blank)
        self.why = QListWidget()
        self.why.setObjectName("whyList")
        self.why.setToolTip("Signatures found on both pages; choose one to see it in both panes")
        self.left = PagePane("reference")
        self.right = PagePane("member")

        self.sync_scroll = QCheckBox("Sync scrolling")
        self.sync_scroll.setChecked(True)
        self.show_whole = QCheckBox("&Whole page")
        self.show_whole.setToolTip("Show the whole page text; the parts not compared (outside the "
                                   "article, navigation, boilerplate) are grey. Off: the article only.")
        self.show_source = QCheckBox("Source")
        self.show_source.setToolTip("Show the raw HTML as plain text (never rendered)")
        legend = QLabel(
            f"<span style='background:{SHARED_COLOUR}'>&nbsp;on both pages&nbsp;</span> "
            f"<span style='background:{OWN_COLOUR}'>&nbsp;only on this page&nbsp;</span> "
            f"<span style='background:{NOT_COUNTED_COLOUR}'>&nbsp;not counted&nbsp;</span> "
            "<b><u>antecedent</u></b> "
            + "".join(f"<span style='color:{c}'>▌</span>" for c in PASSAGE_COLOURS)
            + "&nbsp;passage&nbsp;on&nbsp;both&nbsp;pages")
        legend.setToolTip("Spot signatures: an antecedent word and the chain of words after it. "
                          "Grey ones were left out by the run (shared by too many pages, or in a "
                          "block the site repeats on many pages), so they do not count towards "
                          "the similarity. Bands beside the text: passages found on both pages, "
                          "verbatim or with small edits (a changed word or punctuation).")
        # Wrapped, not one long line: on one line it alone asked for about 890 px, and a page
        # shown then kept the window wider than a 1,366-px laptop screen.
        legend.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(legend, 1)
        top.addWidget(self.sync_scroll)
        top.addWidget(self.show_whole)
        top.addWidget(self.show_source)

        side = QSplitter(Qt.Orientation.Vertical)
        side.addWidget(self._members_box())
        side.addWidget(self._titled("Why these match", self.why))
        side.setSizes([200, 300])
        self.side = side  # the window adds the related pane below (workbench.gui.related.pane)
        self.panes = QSplitter(Qt.Orientation.Horizontal)
        self.panes.addWidget(self.left)
        self.panes.addWidget(self.right)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("compareSplitter")
        self.splitter.addWidget(side)
        self.splitter.addWidget(self.panes)
        self.splitter.setStretchFactor(1, 1)
        # Room for the doubt threshold row, titles and a related line up to its headline.
        self.splitter.setSizes([310, 850])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)

        self.members.currentRowChanged.connect(self._member_chosen)
        self.why.itemClicked.connect(self._signature_chosen)
        self.why.itemActivated.connect(self._signature_chosen)
        self.left.strip.passage_clicked.connect(self.choose_passage)
        self.right.strip.passage_clicked.connect(self.choose_passage)
        self.show_source.toggled.connect(lambda _on: self._render())
        self.show_whole.toggled.connect(lambda _on: self._render())
        self.left.text.verticalScrollBar().valueChanged.connect(lambda v: self._sync(self.left, self.right))
        self.right.text.verticalScrollBar().valueChanged.connect(lambda v: self._sync(self.right, self.left))
        self.clear()

    def _members_box(self) -> QWidget:
        box = QWidget()
        lay = QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.members_title)
        row = QHBoxLayout()
        row.addWidget(QLabel("Doubtful below"))
        row.addWidget(self.margin)
        row.addWidget(self.threshold_label)
        row.addStretch(1)
        lay.addLayout(row)
        lay.addWidget(self.members, 1)
        return box

    @staticmethod
    def _titled(title: str, widget: QWidget) -> QWidget:
        box = QWidget()
        lay = QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        label = QLabel(f"<b>{title}</b>")
        lay.addWidget(label)
        lay.addWidget(widget, 1)
        return box

    # -------------------------------------------------------------- API
    def set_context(self, root: str, params: SpotSigsParams,
                    filters: RunFilters | None = None, floor: float | None = None) -> None:
        """The run whose clusters are shown; ``floor``: the lowest similarity it stored
        pairs for (default: its τ)."""
        if (root, params) != (self.root, self.params):
            self.cache.clear()
            self.marks.clear()
        self.root, self.params = root, params
        self.filters = filters or RunFilters()
        self.floor = params.tau if floor is None else floor
        self._show_threshold()

    @property
    def threshold(self) -> float:
        """Members less similar than this to the reference are doubtful."""
        return doubt_threshold(self.params.tau, self.margin.value())

    def clear(self, message: str = "Choose a cluster to see its pages side by side.") -> None:
        self._shown = None
        self._other = None
        with QSignalBlocker(self.members):
            self.members.clear()
        self.why.clear()
        self.shared = {}
        self.left.clear(message)
        self.right.clear()
        self.cluster_shown.emit(None)

    @property
    def cluster_id(self) -> int | None:
        return self._shown.cluster_id if self._shown else None

    def show_cluster(self, project: Project, cluster_id: int, member_page: int | None = None) -> None:
        members = project.members(cluster_id)
        if not members:
            self.clear("This cluster no longer exists.")
            return
        self._shown = _Shown(project, cluster_id, members)
        self._other = None
        with QSignalBlocker(self.members):
            self.members.clear()
            for m in members:
                sim = similarity_label(m.similarity, m.is_reference)
                item = QListWidgetItem(f"{sim}  {m.title or m.key}")
                item.setData(MemberRole, m.page_id)
                if m.excluded:  # "not this story": kept in view, struck through
                    item.setText(f"{sim}  ✗ {m.title or m.key}")
                    font = item.font()
                    font.setStrikeOut(True)
                    item.setFont(font)
                    item.setToolTip("Not this story: the cluster's tags pass this page by "
                                    "(X marks it as the story again)")
                self.members.addItem(item)
        self._mark_doubts()
        row = 1 if len(members) > 1 else 0
        if member_page is not None:
            row = next((i for i, m in enumerate(members) if m.page_id == member_page), row)
        with QSignalBlocker(self.members):
            self.members.setCurrentRow(row)
        self._render()
        self.cluster_shown.emit(cluster_id)

    def show_other(self, page_id: int, similarity: str) -> None:
        """A page of another cluster (a related one) on the right, against this cluster's
        reference; no member is chosen meanwhile, so the member keys (S, X, Alt+digit)
        act on none. Choosing a member shows members again."""
        if not self._shown:
            return
        self._other = (page_id, similarity)
        with QSignalBlocker(self.members):
            self.members.setCurrentRow(-1)
        self._render()

    @property
    def other_page(self) -> int | None:
        """The page of another cluster shown on the right (None: a member, or nothing)."""
        return self._other[0] if self._other is not None else None

    def current_member(self) -> MemberRow | None:
        if not self._shown or self._other is not None:
            return None
        row = self.members.currentRow()
        return self._shown.members[row] if 0 <= row < len(self._shown.members) else None

    def reference(self) -> MemberRow | None:
        return self._shown.members[0] if self._shown else None

    def step_member(self, delta: int) -> None:
        if not self._shown:
            return
        n = len(self._shown.members)
        row = max(0, min(n - 1, self.members.currentRow() + delta))
        if n > 1 and row == 0:
            row = 1 if delta < 0 else 0
        self.members.setCurrentRow(row)

    def choose_signature(self, signature: str) -> None:
        """Scroll both panes to the next occurrence of a shared signature."""
        for pane in (self.left, self.right):
            if pane.page is None:
                continue
            spans = occurrences(pane.page, signature)
            if spans:
                start, end = spans[self._occurrence % len(spans)]
                with QSignalBlocker(pane.text.verticalScrollBar()):
                    pane.show_span(start, end)
        self._occurrence += 1

    def choose_passage(self, passage: int) -> None:
        """Show one passage in both panes."""
        for pane in (self.left, self.right):
            with QSignalBlocker(pane.text.verticalScrollBar()):
                pane.show_passage(passage)

    # ---------------------------------------------------------- internals
    def _mark_doubts(self) -> None:
        """Icon, colour and the reasons in the tooltip for each doubtful member."""
        if not self._shown:
            self.members_title.setText("<b>Members</b>")
            return
        doubtful = 0
        for row, m in enumerate(self._shown.members):
            item = self.members.item(row)
            reasons = doubt_reasons(m.similarity, m.boilerplate_share, threshold=self.threshold,
                                    floor=self.floor, is_reference=m.is_reference)
            doubtful += bool(reasons)
            item.setData(DoubtRole, reasons)
            item.setIcon(self._doubt_icon if reasons else self._no_icon)
            item.setForeground(QBrush(QColor(DOUBT_COLOUR)) if reasons else QBrush())
            tip = f"{m.title}\n{m.url or m.key}\nsite: {m.site}"
            if reasons:
                tip += "\n\nDoubtful:\n" + "\n".join(f"• {r}" for r in reasons)
            item.setToolTip(plain_tip(tip))
        self.members_title.setText(f"<b>Members</b> ({len(self._shown.members)}"
                                   + (f", <span style='color:{DOUBT_COLOUR}'>{doubtful} doubtful</span>"
                                      if doubtful else "") + ")")

    def _show_threshold(self) -> None:
        self.threshold_label.setText(f"= {self.threshold:.2f}")

    def _margin_changed(self, value: float) -> None:
        if self.settings is not None:
            self.settings.setValue(MARGIN_KEY, value)
        self._show_threshold()
        self._mark_doubts()

    def _member_chosen(self, _row: int) -> None:
        self._other = None
        self._render()
        m = self.current_member()
        if m is not None:
            self.member_changed.emit(m.page_id)

    def _load(self, page_id: int) -> tuple[PageDetail | None, PageText]:
        assert self._shown is not None
        detail = self._shown.project.page(page_id)
        if detail is None:
            from workbench.text.tokenize import Tokens
            return None, PageText("", "", Tokens([], [], []), [], error="This page is not in the project.")
        page = self.cache.get(self.root, detail.source, detail.offset, self.params)
        if not page.error:
            page.apply_filters(self.filters, site_of(detail))
        return detail, page

    def _render(self) -> None:
        self.shown_marks = None
        if not self._shown:
            return
        ref = self.reference()
        member = self.current_member()
        assert ref is not None
        self.right.role = "member" if self._other is None else "related, not merged"
        ref_detail, ref_page = self._load(ref.page_id)
        source = self.show_source.isChecked()
        whole = self.show_whole.isChecked()
        if self._other is not None:
            self._render_pair(ref_detail, ref_page, self._other[0], self._other[1])
            return
        if member is None or member.page_id == ref.page_id:
            self.shared = {}
            self.left.show_page(ref_page, {}, source=source, whole=whole)
            self.left.set_passages([], "")
            n = len(ref_page.counted_spots())
            self.left.set_header(ref_detail, "reference", 0, n, "a single page"
                                 if len(self._shown.members) == 1 else "the reference itself")
            self.right.clear("Only the reference page is chosen." if len(self._shown.members) > 1
                             else "This page has no near duplicates.")
            self.why.clear()
            return
        sim = (f"similarity {member.similarity:.2f}" if member.similarity is not None
               else f"similarity below the floor {self.floor:.2f} (not stored)")
        self._render_pair(ref_detail, ref_page, member.page_id, sim)

    def _render_pair(self, ref_detail: PageDetail | None, ref_page: PageText, page_id: int,
                     sim: str) -> None:
        """The reference and another page (a member, or a related cluster's page), with
        the signatures they share highlighted and listed, and the passages they share
        as bands beside the text with the share sentence above."""
        source = self.show_source.isChecked()
        whole = self.show_whole.isChecked()
        m_detail, m_page = self._load(page_id)
        self.shared = shared_signatures(ref_page, m_page)
        self.left.show_page(ref_page, self.shared, source=source, whole=whole)
        self.right.show_page(m_page, self.shared, source=source, whole=whole)
        if ref_page.error or m_page.error:
            self.left.set_passages([], "")
            self.right.set_passages([], "")
        else:
            marks = self.shown_marks = self.marks.get(ref_page, m_page)
            self.left.set_passages(marks.reference, marks.reference_note)
            self.right.set_passages(marks.member, marks.sentence)
        self.left.set_header(ref_detail, "reference", sum(c for t, c in ref_page.signature_counts.items()
                                                          if t in self.shared), len(ref_page.counted_spots()))
        self.right.set_header(m_detail, sim,
                              sum(c for t, c in m_page.signature_counts.items() if t in self.shared),
                              len(m_page.counted_spots()))
        self.why.clear()
        for sig, (ca, cb) in self.shared.items():
            item = QListWidgetItem(f"{readable(sig)}    {ca} | {cb}")
            item.setData(SignatureRole, sig)
            item.setToolTip(plain_tip(f"{readable(sig)}: {ca}× in the reference, {cb}× in this member"))
            self.why.addItem(item)
        self._occurrence = 0

    def _signature_chosen(self, item: QListWidgetItem) -> None:
        sig = item.data(SignatureRole)
        if sig:
            self.choose_signature(sig)

    def _sync(self, source: PagePane, target: PagePane) -> None:
        if self._syncing or not self.sync_scroll.isChecked():
            return
        sb, tb = source.text.verticalScrollBar(), target.text.verticalScrollBar()
        if sb.maximum() <= 0:
            return
        self._syncing = True
        try:
            tb.setValue(round(sb.value() / sb.maximum() * tb.maximum()))
        finally:
            self._syncing = False
