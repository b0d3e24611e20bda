"""Detection ▸ Calibrate: the run's pair similarities, a τ line to drag, and what it would do.

The counting is :class:`workbench.core.clusters.calibration.Calibration`'s; this module draws it
and forwards the coder's moves. Exact counts need a clustering (30–50 ms for 20,000
pairs), so while the line moves the text says "counting…" unless that τ was counted
before; it is counted once the line rests, and idle time counts the rest of the grid.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from workbench.core.clusters.calibration import (
    Calibration,
    Counts,
    Histogram,
    clustering_options,
    corroboration_note,
    floor_note,
    labels_of,
    run_floor,
    run_vouch,
    weak_joins_note,
)
from workbench.gui.coding.carried import CarriedWindow, carried_message, show_carried
from workbench.gui.keys.keynames import key_label
from workbench.store import ProjectError

if TYPE_CHECKING:
    from workbench.gui.models import ClusterTableModel

LINKED = QColor("#3b82c4")  # pairs ≥ τ: they link pages into clusters
UNLINKED = QColor("#c3c8cf")  # pairs below τ
TAU_COLOUR = QColor("#d9480f")
RUN_TAU_COLOUR = QColor("#333333")
NOT_STORED = QColor("#eceef1")
# Wait this long after the line last moved before clustering (a drag moves it often).
SETTLE_MS = 120
# Fill the cache in idle time only while one clustering takes less than this.
IDLE_BUDGET_S = 0.15


class HistogramView(QWidget):
    """Bars of pair similarities with the floor, the run's τ and a draggable τ line.

    Keys: Left/Down and Right/Up move τ by 0.01, Page Down/Up by 0.1, Home/End to the
    floor/1.0. Clicking puts the line under the pointer; dragging moves it.
    """

    tau_changed = Signal(float)  # the line moved (by mouse or key)
    released = Signal()  # the mouse let go of the line

    MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 56, 18, 26, 34

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("calibrationHistogram")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumSize(560, 260)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setToolTip("Drag the τ line, or use the arrow keys (0.01), Page Up/Down (0.1)")
        self.histogram = Histogram(0.0, 0.02, (0,) * 50)
        self.floor = 0.0
        self.run_tau = 0.0
        self.low = 0.0
        self._tau = 0.0
        self._dragging = False

    # ------------------------------------------------------------------ API
    def set_data(self, histogram: Histogram, *, floor: float, run_tau: float, low: float) -> None:
        self.histogram, self.floor, self.run_tau, self.low = histogram, floor, run_tau, low
        self.update()

    @property
    def tau(self) -> float:
        return self._tau

    def set_tau(self, tau: float) -> None:
        """Move the line without telling anyone (the dialog calls this)."""
        self._tau = tau
        self.update()

    # ------------------------------------------------------------ geometry
    @property
    def x_start(self) -> float:
        # A little room below the floor shows the similarities that were not kept.
        return max(0.0, self.histogram.start - 0.1) if self.floor > 0 else 0.0

    def plot_rect(self) -> QRectF:
        return QRectF(self.MARGIN_L, self.MARGIN_T, max(1, self.width() - self.MARGIN_L - self.MARGIN_R),
                      max(1, self.height() - self.MARGIN_T - self.MARGIN_B))

    def x_of(self, value: float) -> float:
        r = self.plot_rect()
        return r.left() + (value - self.x_start) / (1.0 - self.x_start) * r.width()

    def value_at(self, x: float) -> float:
        r = self.plot_rect()
        return self.x_start + (x - r.left()) / r.width() * (1.0 - self.x_start)

    # -------------------------------------------------------------- input
    def _move_to(self, tau: float) -> None:
        tau = min(1.0, max(self.low, round(tau, 2)))
        if tau != self._tau:
            self._tau = tau
            self.update()
            self.tau_changed.emit(tau)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._dragging = True
            self._move_to(self.value_at(event.position().x()))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._dragging:
            self._move_to(self.value_at(event.position().x()))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._dragging and event.button() == Qt.MouseButton.LeftButton:
            self._dragging = False
            self._move_to(self.value_at(event.position().x()))
            self.released.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        steps = {Qt.Key.Key_Left: -0.01, Qt.Key.Key_Down: -0.01, Qt.Key.Key_Right: 0.01,
                 Qt.Key.Key_Up: 0.01, Qt.Key.Key_PageDown: -0.1, Qt.Key.Key_PageUp: 0.1}
        if key in steps:
            self._move_to(self._tau + steps[key])
        elif key == Qt.Key.Key_Home:
            self._move_to(self.low)
        elif key == Qt.Key.Key_End:
            self._move_to(1.0)
        else:
            super().keyPressEvent(event)

    # ------------------------------------------------------------ drawing
    def paintEvent(self, _event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        r = self.plot_rect()
        p.fillRect(self.rect(), QColor("#ffffff"))
        small = QFont(self.font())
        small.setPointSizeF(max(7.0, self.font().pointSizeF() - 1))
        p.setFont(small)

        # Below the floor nothing was stored: a grey band says so.
        if self.floor > self.x_start:
            band = QRectF(r.left(), r.top(), self.x_of(self.floor) - r.left(), r.height())
            p.fillRect(band, NOT_STORED)
            p.setPen(QColor("#777777"))
            p.drawText(band.adjusted(2, 4, -2, 0), Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
                       | Qt.TextFlag.TextWordWrap, "not stored")

        # Bars on a square-root scale: the many weak pairs near the floor and the few
        # exact copies at 1.0 both stay visible.
        h = self.histogram
        top = max(h.counts) if h.counts else 0
        scale = math.sqrt(top) if top else 1.0
        p.setPen(Qt.PenStyle.NoPen)
        for i, count in enumerate(h.counts):
            if not count:
                continue
            lo = h.start + i * h.width
            hi = min(1.0, lo + h.width)
            x0, x1 = self.x_of(lo), self.x_of(hi)
            height = math.sqrt(count) / scale * r.height()
            y = r.bottom() - height
            cut = self.x_of(self._tau)
            if cut <= x0:
                p.fillRect(QRectF(x0 + 0.5, y, x1 - x0 - 1, height), LINKED)
            elif cut >= x1:
                p.fillRect(QRectF(x0 + 0.5, y, x1 - x0 - 1, height), UNLINKED)
            else:  # the bin holds pairs on both sides of τ
                p.fillRect(QRectF(x0 + 0.5, y, cut - x0 - 0.5, height), UNLINKED)
                p.fillRect(QRectF(cut, y, x1 - cut - 0.5, height), LINKED)

        # Axes, ticks every 0.1, the largest count on the y axis.
        p.setPen(QPen(QColor("#555555"), 1))
        p.drawLine(QPointF(r.left(), r.bottom()), QPointF(r.right(), r.bottom()))
        p.drawLine(QPointF(r.left(), r.top()), QPointF(r.left(), r.bottom()))
        for k in range(11):
            v = k / 10
            if v < self.x_start - 1e-9:
                continue
            x = self.x_of(v)
            p.drawLine(QPointF(x, r.bottom()), QPointF(x, r.bottom() + 4))
            p.drawText(QRectF(x - 20, r.bottom() + 5, 40, 14), Qt.AlignmentFlag.AlignHCenter, f"{v:.1f}")
        p.drawText(QRectF(r.left(), r.bottom() + 17, r.width(), 14), Qt.AlignmentFlag.AlignHCenter,
                   "similarity of a pair of pages (multiset Jaccard of spot signatures)")
        p.drawText(QRectF(0, r.top() - 6, self.MARGIN_L - 6, 14), Qt.AlignmentFlag.AlignRight, f"{top:,}")
        p.drawText(QRectF(0, r.bottom() - 12, self.MARGIN_L - 6, 14), Qt.AlignmentFlag.AlignRight, "0")
        p.save()
        p.translate(12, r.center().y())
        p.rotate(-90)
        p.drawText(QRectF(-r.height() / 2, -8, r.height(), 14), Qt.AlignmentFlag.AlignHCenter,
                   "pairs (√ scale)")
        p.restore()

        # The floor and the run's τ: thin dashed lines with a label at the top.
        self._vline(p, self.floor, QColor("#888888"), Qt.PenStyle.DashLine, f"floor {self.floor:.2f}",
                    Qt.AlignmentFlag.AlignRight)
        if abs(self.run_tau - self.floor) > 1e-9:
            self._vline(p, self.run_tau, RUN_TAU_COLOUR, Qt.PenStyle.DashLine,
                        f"run τ {self.run_tau:.2f}", Qt.AlignmentFlag.AlignLeft)

        # The coder's τ: a strong line with a handle.
        x = self.x_of(self._tau)
        p.setPen(QPen(TAU_COLOUR, 2.5))
        p.drawLine(QPointF(x, r.top() - 4), QPointF(x, r.bottom()))
        p.setBrush(QBrush(TAU_COLOUR))
        p.setPen(Qt.PenStyle.NoPen)
        p.drawPolygon(QPolygonF([QPointF(x - 6, r.top() - 12), QPointF(x + 6, r.top() - 12),
                                 QPointF(x, r.top() - 3)]))
        bold = QFont(small)
        bold.setBold(True)
        p.setFont(bold)
        p.setPen(TAU_COLOUR)
        label_left = x + 8 if x < r.center().x() else x - 88
        p.drawText(QRectF(label_left, r.top() - 2, 80, 16),
                   Qt.AlignmentFlag.AlignLeft if x < r.center().x() else Qt.AlignmentFlag.AlignRight,
                   f"τ {self._tau:.2f}")
        if self.hasFocus():
            p.setPen(QPen(QColor("#2f6fb5"), 1, Qt.PenStyle.DotLine))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(QRectF(self.rect()).adjusted(1, 1, -1, -1))
        p.end()

    def _vline(self, p: QPainter, value: float, colour: QColor, style: Qt.PenStyle, label: str,
               side: Qt.AlignmentFlag) -> None:
        r = self.plot_rect()
        x = self.x_of(value)
        p.setPen(QPen(colour, 1.2, style))
        p.drawLine(QPointF(x, r.top() - 18), QPointF(x, r.bottom()))
        p.setPen(colour)
        box = QRectF(x - 104, r.top() - 24, 100, 14) if side == Qt.AlignmentFlag.AlignRight \
            else QRectF(x + 4, r.top() - 24, 100, 14)
        p.drawText(box, side, label)


class CalibrationDialog(QDialog):
    """The histogram, the live counts for the chosen τ, and Apply."""

    apply_requested = Signal(float)
    # The exact counts now shown (emitted on the GUI thread, so tests can wait on it).
    counted = Signal(object)

    def __init__(self, presenter: Calibration, hand_edits: int = 0, parent: QWidget | None = None,
                 *, prefetch: bool = True, floor_reason: str = "", clustering_note: str = "") -> None:
        """``prefetch``: count the whole grid in idle time (off in tests of the slow path);
        ``floor_reason``: why the run kept no pairs below τ (core.clusters.calibration.floor_note);
        ``clustering_note``: what this view leaves out of the run's clustering
        (core.clusters.calibration.weak_joins_note)."""
        super().__init__(parent)
        self.setWindowTitle("Calibrate τ")
        self.setObjectName("calibrationDialog")
        self.presenter = presenter
        self.view = HistogramView()
        self.view.set_data(presenter.histogram(), floor=presenter.floor, run_tau=presenter.run_tau,
                           low=presenter.low)
        intro = QLabel(
            "Each bar counts the pairs of pages whose similarity falls in it. Pages are linked "
            "into clusters by the pairs at or above τ (blue). Drag the τ line, or click the chart "
            "and use the arrow keys, to see what another τ would do to the clusters you have now.")
        intro.setWordWrap(True)
        self.text = QLabel()
        self.text.setObjectName("calibrationText")
        font = QFont(self.text.font())
        font.setPointSizeF(font.pointSizeF() + 1.5)
        font.setBold(True)
        self.text.setFont(font)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail = QLabel()
        self.detail.setObjectName("calibrationDetail")
        notes = []
        if presenter.floor >= presenter.run_tau - 1e-9:
            notes.append(floor_reason or floor_note({"tau": presenter.run_tau}))
        if clustering_note:
            notes.append(clustering_note)
        if hand_edits:
            notes.append(f"Apply keeps your {hand_edits:,} hand-made cluster(s) (from hand "
                         "split(s) and merge(s)) as you made them; tags, marks and memos go with "
                         "their pages.")
        self.note = QLabel(" ".join(notes))
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #8a5300")
        self.note.setVisible(bool(notes))
        legend = QLabel(
            f"<span style='color:{LINKED.name()}'>■</span> pairs ≥ τ &nbsp; "
            f"<span style='color:{UNLINKED.name()}'>■</span> pairs below τ &nbsp; "
            f"<span style='color:{TAU_COLOUR.name()}'>┃</span> τ &nbsp; "
            "┆ the run's τ and the floor (no pairs below it were kept)")

        self.reset_button = QPushButton("Back to the run's τ")
        self.reset_button.clicked.connect(lambda: self.set_tau(presenter.clamp(presenter.run_tau)))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.apply_button = buttons.addButton("Apply", QDialogButtonBox.ButtonRole.AcceptRole)
        self.apply_button.setObjectName("applyTau")
        buttons.addButton(self.reset_button, QDialogButtonBox.ButtonRole.ResetRole)
        buttons.rejected.connect(self.reject)
        # Apply asks the window, which confirms and closes the dialog when it is done
        # (the box's own accepted signal is left unconnected).
        self.apply_button.clicked.connect(lambda: self.apply_requested.emit(self.tau))

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.view, 1)
        row = QHBoxLayout()
        row.addWidget(legend)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(self.text)
        layout.addWidget(self.detail)
        layout.addWidget(self.note)
        layout.addWidget(buttons)
        self.resize(760, 520)

        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self.count_now)
        self._idle = QTimer(self)
        self._idle.setInterval(0)
        self._idle.timeout.connect(self._fill_cache)
        self._pending = presenter.grid()
        self.view.tau_changed.connect(self._moved)
        self.view.released.connect(self.count_now)
        self.set_tau(presenter.clamp(presenter.run_tau))
        self.view.setFocus()
        if prefetch:
            self._idle.start()

    # ------------------------------------------------------------------ API
    @property
    def tau(self) -> float:
        return self.view.tau

    def set_tau(self, tau: float) -> None:
        """Put the line at τ and show its exact counts at once."""
        self.view.set_tau(self.presenter.clamp(tau))
        self.count_now()

    def count_now(self) -> None:
        self._settle.stop()
        self._show(self.presenter.counts(self.tau))

    # ------------------------------------------------------------ internals
    def _moved(self, tau: float) -> None:
        known = self.presenter.cached(tau)
        if known is not None:
            self._show(known)
            return
        self.text.setText(self.presenter.describe_estimate(self.presenter.estimate(tau)))
        self.detail.setText("")
        self._update_apply(tau)
        self._settle.start()

    def _show(self, counts: Counts) -> None:
        self.text.setText(self.presenter.describe(counts))
        self.detail.setText(self.presenter.detail(counts))
        self._update_apply(counts.tau)
        self.counted.emit(counts)

    def _update_apply(self, tau: float) -> None:
        same = tau == self.presenter.clamp(self.presenter.run_tau)
        self.apply_button.setEnabled(not same)
        self.apply_button.setText(f"Apply τ {tau:.2f}…")

    def _fill_cache(self) -> None:
        """Count one more grid value while nothing else happens, nearest the run's τ
        first, so dragging soon shows exact numbers everywhere. Stops when one clustering
        takes too long to hide in idle time (a very large run): the line then counts on
        rest only."""
        while self._pending and self.presenter.cached(self._pending[0]) is not None:
            self._pending.pop(0)
        if not self._pending or self._settle.isActive():
            if not self._pending:
                self._idle.stop()
            return
        started = time.perf_counter()
        self.presenter.counts(self._pending.pop(0))
        if time.perf_counter() - started > IDLE_BUDGET_S:
            self._idle.stop()

    def done(self, result: int) -> None:
        self._idle.stop()
        self._settle.stop()
        super().done(result)


@runtime_checkable
class CalibrationWindow(CarriedWindow, Protocol):
    """What calibration uses of the window: its job (no calibrating while a run goes),
    the dialog it keeps open, and the list, whose first row is shown after applying τ."""

    job: object | None
    calibration: CalibrationDialog | None
    model: ClusterTableModel

    def select_row(self, row: int) -> None: ...


def open_calibration(window: CalibrationWindow) -> CalibrationDialog | None:
    """Detection ▸ Calibrate…: the view for the window's current run (None: nothing to show)."""
    project = window.project
    if project is None or window.job is not None:
        return None
    run = project.current_run()
    if run is None:
        window.prompter.info("Calibrate τ", "There is no detection run to calibrate yet.")
        return None
    method = str(run.params.get("cluster_method", "star"))
    try:
        graph = project.run_graph(run.id)
        vouch = run_vouch(run.params, project.run_signatures(run.id))
        presenter = Calibration(graph, labels_of(graph.n, project.run_groups(run.id)), method=method,
                                run_tau=float(run.params.get("tau", 0.2)), floor=run_floor(run.params),
                                options=clustering_options(run.params, vouch is not None), vouch=vouch)
        edits = project.hand_clusters(run.id)
    except (ProjectError, ValueError) as exc:
        window.prompter.error("Cannot calibrate", str(exc))
        return None
    dialog = CalibrationDialog(presenter, edits, window.window(), floor_reason=floor_note(run.params),
                               clustering_note=" ".join(filter(None, (
                                   weak_joins_note(run.params, vouch is not None),
                                   corroboration_note(run.params)))))
    dialog.apply_requested.connect(lambda tau: apply_tau(window, dialog, tau))
    dialog.finished.connect(lambda _r: setattr(window, "calibration", None))
    window.calibration = dialog
    dialog.open()
    return dialog


def apply_tau(window: CalibrationWindow, dialog: CalibrationDialog, tau: float) -> int | None:
    """Confirm, then store the run clustered again at τ as the current run; returns its id."""
    project = window.project
    if project is None or window.job is not None:
        return None
    counts = dialog.presenter.counts(tau)
    hand = project.hand_clusters()
    question = (
        f"Cluster the run again at τ {tau:.2f}?\n\n{dialog.presenter.describe(counts)}.\n\n"
        "This makes a new run from the pairs the project already holds (no page is read again). "
        "Everything you decided goes with its pages to the new clusters: tags, \u201cnot this "
        "story\u201d marks, cluster and page memos"
        + (f", and your {hand:,} hand-made cluster(s), kept as you split or merged them"
           if hand else ", and any cluster you split or merged by hand, kept as you made it")
        + ". A memo whose pages end up in other clusters goes to each of them, and you are "
        "shown a list of those to review. A cluster whose pages carry different tags is flagged "
        "for review. Edit \u25b8 Undo (Ctrl+Z) takes the whole step back; the current run "
        "stays in the project file.")
    if not window.prompter.confirm("Apply τ", key_label(question)):
        return None
    try:
        run_id = project.recluster(tau)
    except ProjectError as exc:
        window.prompter.error("Cannot apply τ", str(exc))
        return None
    dialog.accept()
    window.refresh(select_ids=[])
    if window.model.rowCount():
        window.select_row(0)
    change = counts.change
    window.statusBar().showMessage(
        f"Clustered again at τ {tau:.2f}: {change.clusters:,} clusters of 2 or more pages, "
        f"{change.pages:,} pages; {carried_message(window)}.", 15000)
    show_carried(window)
    return run_id
