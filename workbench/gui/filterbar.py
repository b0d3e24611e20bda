"""The row of filters above the cluster list: text, coded state, size, tag, sample, single
pages."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLineEdit, QSpinBox, QWidget

from workbench.store import Tag
from workbench.store.team import Sample

CODED_CHOICES = [("All clusters", None), ("Uncoded", "none"), ("Partly coded", "some"), ("Coded", "all")]


class FilterBar(QWidget):
    """Emits ``changed`` when a filter changes (typing and the size box after a pause)."""
    DEBOUNCE_MS = 250  # typing re-filters this long after the last key


    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = QLineEdit()
        self.text.setPlaceholderText("Filter by title, site, tag…")
        self.text.setClearButtonEnabled(True)
        self.coded = QComboBox()
        for label, value in CODED_CHOICES:
            self.coded.addItem(label, value)
        self.size = QSpinBox()
        self.size.setRange(1, 100000)
        self.size.setPrefix("size ≥ ")
        self.size.setToolTip("Smallest cluster size to list (1 lists single pages too)")
        self.tag = QComboBox()
        self.tag.setToolTip("Only clusters where some page carries this tag")
        self.tag.addItem("Any tag", None)
        self.sample = QComboBox()
        self.sample.setObjectName("sampleFilter")
        self.sample.setToolTip("Only the clusters of this sample (Detection ▸ Draw Sample…)")
        self.sample.addItem("Any sample", None)
        self.sample.setVisible(False)  # until the project has a sample
        # As wide as a short name: a long sample name must not squeeze the text filter.
        self.sample.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.sample.setMinimumContentsLength(10)
        self.sample.setMaximumWidth(self.sample.fontMetrics().horizontalAdvance("M" * 9) + 30)
        self.singles = QCheckBox("Single pages")
        self.singles.setToolTip("Only pages that have no near duplicate")
        # Typing re-filters after a pause, not on every key (a list may hold 100,000 rows).
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(self.DEBOUNCE_MS)
        self._timer.timeout.connect(self.changed.emit)
        self.text.textChanged.connect(lambda _t: self._timer.start())
        self.size.valueChanged.connect(lambda _v: self._timer.start())
        self.coded.currentIndexChanged.connect(lambda _i: self.changed.emit())
        self.tag.currentIndexChanged.connect(lambda _i: self.changed.emit())
        self.sample.currentIndexChanged.connect(lambda _i: self.changed.emit())
        self.singles.toggled.connect(lambda _b: self.changed.emit())
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.text, 1)
        for w in (self.coded, self.size, self.tag, self.sample, self.singles):
            layout.addWidget(w)

    def values(self) -> dict:
        """Keyword arguments for ``ClusterTableModel.set_filters``."""
        return {"text": self.text.text(), "coded": self.coded.currentData(), "min_size": self.size.value(),
                "tag_id": self.tag.currentData(), "singles_only": self.singles.isChecked(),
                "sample_id": self.sample.currentData()}

    def set_tags(self, tags: Sequence[Tag]) -> None:
        """Keep the tag choices equal to the codebook, keeping the chosen tag; a chosen tag
        that was deleted falls back to "Any tag" (and ``changed`` is emitted)."""
        self._set_choices(self.tag, [(t.name, t.id) for t in tags])

    def set_samples(self, samples: Sequence[Sample]) -> None:
        """Keep the sample choices equal to the project's samples (shown once there is
        one); a sample undone falls back to "Any sample"."""
        self._set_choices(self.sample, [(f"{s.name} ({len(s.clusters)})", s.id)
                                        for s in samples])
        self.sample.setVisible(bool(samples))

    def _set_choices(self, box: QComboBox, wanted: list[tuple[str, int]]) -> None:
        have = [(box.itemText(i), box.itemData(i)) for i in range(1, box.count())]
        if wanted == have:
            return
        chosen = box.currentData()
        blocked = box.blockSignals(True)
        while box.count() > 1:
            box.removeItem(1)
        for name, value in wanted:
            box.addItem(name, value)
        index = box.findData(chosen) if chosen is not None else 0
        box.setCurrentIndex(max(index, 0))
        box.blockSignals(blocked)
        if chosen is not None and index < 0:
            self.changed.emit()
