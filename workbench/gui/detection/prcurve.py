"""A precision-recall plot drawn with QPainter (PySide6-Essentials has no QtCharts).

One line per method through its (recall, precision) points, lowest threshold first, in
a colour and marker shape of its own (the shapes tell the methods apart without colour),
the best point (highest pair F1) ringed, the selected method's threshold to code at
(highest cluster F1) flagged "code at", and a legend with each method's Max F1 beside the
plot (inside it, it covered curves). Hovering a point tells its threshold and scores; the
accessible description says the best points in words.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QHelpEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from workbench.detect.registry import METHODS
from workbench.gui.detection.compare_presenter import Curve

# Okabe & Ito's palette: told apart by people with the common colour-vision deficiencies.
PALETTE: tuple[str, ...] = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
SHAPES: tuple[str, ...] = ("circle", "square", "triangle", "diamond", "down", "cross")
GRID = QColor("#e4e7eb")
AXIS = QColor("#555555")
HOVER_PIXELS = 8
LEGEND_GAP = 12  # between the plot and the legend beside (or under) it
MIN_PLOT_WIDTH = 240  # narrower than this with the legend beside it: the legend goes under
CODE_COLOUR = QColor("#222222")


# Axis titles, longest first: the longest that fits is drawn (a short plot has no room
# for the y axis's explanation; the tooltip of each point still says what it is).
X_LABELS = ("pair recall: share of the true pairs found", "pair recall")
Y_LABELS = ("pair precision: share of found pairs that are true", "pair precision: share true",
            "precision")


def _fitting(metrics: QFontMetrics, room: float, labels: Sequence[str]) -> str:
    return next((t for t in labels if metrics.horizontalAdvance(t) <= room - 8), labels[-1])


def colour_of(method: str) -> QColor:
    """A method's colour, the same in every comparison (by its place in the registry)."""
    if method not in METHODS:
        return QColor(PALETTE[-1])
    return QColor(PALETTE[METHODS.index(method) % (len(PALETTE) - 1)])


def shape_of(method: str) -> str:
    index = METHODS.index(method) if method in METHODS else len(METHODS)
    return SHAPES[index % len(SHAPES)]


def draw_marker(p: QPainter, shape: str, centre: QPointF, r: float) -> None:
    """A marker of ``shape`` around ``centre`` with the painter's pen and brush."""
    x, y = centre.x(), centre.y()
    if shape == "circle":
        p.drawEllipse(centre, r, r)
    elif shape == "square":
        p.drawRect(QRectF(x - r * 0.9, y - r * 0.9, r * 1.8, r * 1.8))
    elif shape == "triangle":
        p.drawPolygon(QPolygonF([QPointF(x, y - r * 1.2), QPointF(x + r * 1.1, y + r * 0.8),
                                 QPointF(x - r * 1.1, y + r * 0.8)]))
    elif shape == "down":
        p.drawPolygon(QPolygonF([QPointF(x, y + r * 1.2), QPointF(x + r * 1.1, y - r * 0.8),
                                 QPointF(x - r * 1.1, y - r * 0.8)]))
    elif shape == "diamond":
        p.drawPolygon(QPolygonF([QPointF(x, y - r * 1.25), QPointF(x + r * 1.25, y),
                                 QPointF(x, y + r * 1.25), QPointF(x - r * 1.25, y)]))
    else:
        p.drawLine(QPointF(x - r, y - r), QPointF(x + r, y + r))
        p.drawLine(QPointF(x - r, y + r), QPointF(x + r, y - r))


class PRCurveView(QWidget):
    """Pair precision (y) against pair recall (x), both 0 to 1, one curve per method."""

    MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 62, 18, 14, 48

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("precisionRecallPlot")
        self.setAccessibleName("Precision-recall curves")
        self.setAccessibleDescription("Precision-recall curves: no comparison has run yet.")
        self.setMinimumSize(420, 300)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)
        self.curves: list[Curve] = []
        self.selected: str | None = None
        self.empty_text = "Run a comparison to see each method's precision and recall at every threshold."

    # ------------------------------------------------------------------ API
    def set_curves(self, curves: Sequence[Curve], selected: str | None = None, summary: str = "") -> None:
        self.curves = list(curves)
        self.selected = selected
        if summary:
            self.setAccessibleDescription(summary)
        self.update()

    def set_selected(self, method: str | None) -> None:
        self.selected = method
        self.update()

    # ------------------------------------------------------------ geometry
    def _small_font(self) -> QFont:
        small = QFont(self.font())
        small.setPointSizeF(max(7.5, self.font().pointSizeF() - 0.5))
        return small

    def _legend_lines(self) -> list[str]:
        lines = [f"{c.name}: Max F1 {c.best_f1:.3f} at {c.best_threshold:.2f}" for c in self.curves]
        lines.append("ringed: each method's best point")
        return lines

    def _legend_size(self) -> tuple[float, float, float]:
        """Width, height and row height of the legend (none without curves)."""
        if not self.curves:
            return 0.0, 0.0, 0.0
        bold = self._small_font()
        bold.setBold(True)
        metrics = QFontMetrics(bold)  # the selected method's line is bold: measure the widest
        row = metrics.height() + 4
        lines = self._legend_lines()
        return max(metrics.horizontalAdvance(t) for t in lines) + 40, row * len(lines) + 8, row

    def _legend_beside(self) -> bool:
        width, _, _ = self._legend_size()
        return self.width() - self.MARGIN_L - self.MARGIN_R - width - LEGEND_GAP >= MIN_PLOT_WIDTH

    def plot_rect(self) -> QRectF:
        """The plotting area: the widget less the axes' margins and the legend's room."""
        width, height, _ = self._legend_size()
        right, bottom = self.MARGIN_R, self.MARGIN_B
        if width:
            if self._legend_beside():
                right += width + LEGEND_GAP
            else:
                bottom += height + LEGEND_GAP
        return QRectF(self.MARGIN_L, self.MARGIN_T, max(1, self.width() - self.MARGIN_L - right),
                      max(1, self.height() - self.MARGIN_T - bottom))

    def legend_rect(self) -> QRectF:
        """Where the legend is: right of the plot, or under its axis title when narrow;
        never over a curve."""
        width, height, _ = self._legend_size()
        r = self.plot_rect()
        if self._legend_beside():
            return QRectF(r.right() + LEGEND_GAP, r.top(), width, height)
        return QRectF(r.left(), r.bottom() + self.MARGIN_B, width, height)

    def coding_point(self) -> tuple[QPointF, float] | None:
        """Where the selected method's threshold to code at is drawn, and that threshold."""
        curve = next((c for c in self.curves if c.method == self.selected), None)
        if curve is None or curve.code_at is None or curve.code_threshold is None:
            return None
        return self.to_pixel(*curve.code_at), curve.code_threshold

    def to_pixel(self, recall: float, precision: float) -> QPointF:
        r = self.plot_rect()
        return QPointF(r.left() + recall * r.width(), r.bottom() - precision * r.height())

    def point_at(self, pos: QPointF) -> tuple[Curve, int] | None:
        """The curve point nearest ``pos`` within a few pixels (the selected curve first)."""
        best: tuple[float, Curve, int] | None = None
        for curve in sorted(self.curves, key=lambda c: c.method != self.selected):
            for i, (rec, prec) in enumerate(curve.points):
                q = self.to_pixel(rec, prec)
                d = (q.x() - pos.x()) ** 2 + (q.y() - pos.y()) ** 2
                if d <= HOVER_PIXELS ** 2 and (best is None or d < best[0]):
                    best = (d, curve, i)
        return (best[1], best[2]) if best else None

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            hit = self.point_at(QPointF(event.pos()))
            if hit is None:
                QToolTip.hideText()
            else:
                curve, i = hit
                rec, prec = curve.points[i]
                f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
                code = ("\nthe threshold to code at: its clusters score best here"
                        if curve.code_threshold == curve.thresholds[i] else "")
                QToolTip.showText(event.globalPos(),
                                  f"{curve.name} at threshold {curve.thresholds[i]:.2f}\n"
                                  f"pair precision {prec:.3f}, recall {rec:.3f}, F1 {f1:.3f}{code}",
                                  self)
            return True
        return super().event(event)

    # ------------------------------------------------------------ drawing
    def paintEvent(self, _event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.fillRect(self.rect(), QColor("#ffffff"))
        r = self.plot_rect()
        small = self._small_font()
        p.setFont(small)
        self._axes(p, r)
        if not self.curves:
            p.setPen(QColor("#777777"))
            p.drawText(r.adjusted(20, 0, -20, 0), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                       self.empty_text)
            p.end()
            return
        p.save()
        p.setClipRect(r.adjusted(-10, -10, 10, 10))
        # The selected method last, so it lies on top.
        for curve in sorted(self.curves, key=lambda c: c.method == self.selected):
            self._curve(p, curve)
        self._coding_flag(p, r)
        p.restore()
        self._legend(p, small)
        p.end()

    def _axes(self, p: QPainter, r: QRectF) -> None:
        for k in range(11):
            v = k / 10
            x, y = r.left() + v * r.width(), r.bottom() - v * r.height()
            p.setPen(QPen(GRID, 1))
            if 0 < k < 10:
                p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()))
                p.drawLine(QPointF(r.left(), y), QPointF(r.right(), y))
            p.setPen(QPen(AXIS, 1))
            p.drawLine(QPointF(x, r.bottom()), QPointF(x, r.bottom() + 4))
            p.drawLine(QPointF(r.left() - 4, y), QPointF(r.left(), y))
            p.drawText(QRectF(x - 20, r.bottom() + 5, 40, 14), Qt.AlignmentFlag.AlignHCenter, f"{v:.1f}")
            p.drawText(QRectF(r.left() - 40, y - 7, 34, 14),
                       Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, f"{v:.1f}")
        p.setPen(QPen(AXIS, 1))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(r)
        metrics = QFontMetrics(p.font())
        p.drawText(QRectF(r.left(), r.bottom() + 22, r.width(), 16), Qt.AlignmentFlag.AlignHCenter,
                   _fitting(metrics, r.width(), X_LABELS))
        p.save()
        p.translate(14, r.center().y())
        p.rotate(-90)
        p.drawText(QRectF(-r.height() / 2, -8, r.height(), 16), Qt.AlignmentFlag.AlignHCenter,
                   _fitting(metrics, r.height(), Y_LABELS))
        p.restore()

    def _curve(self, p: QPainter, curve: Curve) -> None:
        colour = colour_of(curve.method)
        chosen = curve.method == self.selected
        shape = shape_of(curve.method)
        pixels = [self.to_pixel(rec, prec) for rec, prec in curve.points]
        p.setPen(QPen(colour, 3.0 if chosen else 1.8, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap,
                      Qt.PenJoinStyle.RoundJoin))
        p.setBrush(Qt.BrushStyle.NoBrush)
        if len(pixels) > 1:
            p.drawPolyline(QPolygonF(pixels))
        p.setPen(QPen(colour, 1))
        p.setBrush(QBrush(colour))
        for q in pixels:
            draw_marker(p, shape, q, 3.5 if chosen else 2.8)
        # The best point: a ring around a larger marker.
        best = self.to_pixel(*curve.best)
        p.setPen(QPen(QColor("#ffffff"), 1.5))
        draw_marker(p, shape, best, 6.0)
        p.setPen(QPen(colour, 2.2))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawEllipse(best, 10.0, 10.0)

    def _coding_flag(self, p: QPainter, r: QRectF) -> None:
        """'code at 0.45' beside the selected method's point of highest cluster F1."""
        where = self.coding_point()
        if where is None:
            return
        point, threshold = where
        p.setPen(QPen(CODE_COLOUR, 1.6, Qt.PenStyle.DashLine))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(QRectF(point.x() - 7, point.y() - 7, 14, 14))
        text = f"code at {threshold:.2f}"
        metrics = QFontMetrics(p.font())
        w, h = metrics.horizontalAdvance(text) + 8, metrics.height() + 2
        # Up and to the right of the point, kept inside the plot.
        x = min(point.x() + 10, r.right() - w)
        y = max(point.y() - 10 - h, r.top())
        box = QRectF(x, y, w, h)
        p.setPen(QPen(CODE_COLOUR, 1))
        p.setBrush(QBrush(QColor(255, 255, 255, 235)))
        p.drawRect(box)
        p.drawText(box, Qt.AlignmentFlag.AlignCenter, text)

    def _legend(self, p: QPainter, font: QFont) -> None:
        """Beside the plot (or under it when the widget is narrow), never over a curve."""
        bold = QFont(font)
        bold.setBold(True)
        lines = self._legend_lines()
        width, _, row = self._legend_size()
        box = self.legend_rect()
        p.setPen(QPen(QColor("#c9ced6"), 1))
        p.setBrush(QBrush(QColor(255, 255, 255, 235)))
        p.drawRoundedRect(box, 4, 4)
        for i, curve in enumerate(self.curves):
            y = box.top() + 4 + i * row + row / 2
            colour = colour_of(curve.method)
            p.setPen(QPen(colour, 3.0 if curve.method == self.selected else 1.8))
            p.drawLine(QPointF(box.left() + 8, y), QPointF(box.left() + 28, y))
            p.setPen(QPen(colour, 1))
            p.setBrush(QBrush(colour))
            draw_marker(p, shape_of(curve.method), QPointF(box.left() + 18, y), 3.2)
            p.setFont(bold if curve.method == self.selected else font)
            p.setPen(QColor("#222222"))
            p.drawText(QRectF(box.left() + 34, y - row / 2, width - 36, row),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, lines[i])
        p.setFont(font)
        y = box.top() + 4 + len(self.curves) * row + row / 2
        p.setPen(QPen(QColor("#555555"), 1.6))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawEllipse(QPointF(box.left() + 18, y), 6.0, 6.0)
        p.setPen(QColor("#555555"))
        p.drawText(QRectF(box.left() + 34, y - row / 2, width - 36, row),
                   Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, lines[-1])
