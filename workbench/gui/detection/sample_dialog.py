"""Detection ▸ Draw Sample…'s dialog: how many clusters (a number or a share), the seed,
the strata, single pages, and whether it is a reliability sample (coded blind by all)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

STRATA = [("None", None), ("Cluster size", "size"), ("Site", "site"), ("Capture month", "month")]


@dataclass(frozen=True, slots=True)
class SampleOptions:
    n: int | None  # this many clusters, or
    share: float | None  # this share of them (0 < share <= 1)
    seed: int
    stratify_by: str | None
    include_singles: bool
    reliability: bool
    name: str  # '' for the store's default name


def new_seed() -> int:
    """A fresh seed, shown in the dialog (and kept with the sample) so it can be redrawn."""
    return secrets.randbelow(1_000_000)


class SampleDialog(QDialog):
    def __init__(self, clusters: int, seed: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sampleDialog")
        self.setWindowTitle("Draw Sample")
        intro = QLabel(f"A reproducible random sample of the run's {clusters:,} clusters, kept "
                       "in the project with its seed and rule. A reliability sample is coded "
                       "by every coder, blind.")
        intro.setWordWrap(True)
        self.by_count = QRadioButton("&Clusters:")
        self.by_count.setChecked(True)
        self.count = QSpinBox()
        self.count.setObjectName("sampleCount")
        self.count.setRange(1, max(1, clusters) if clusters else 1_000_000)
        self.count.setValue(min(20, max(1, clusters)))
        self.by_share = QRadioButton("&Share:")
        self.share = QDoubleSpinBox()
        self.share.setObjectName("sampleShare")
        self.share.setRange(0.1, 100.0)
        self.share.setSuffix(" %")
        self.share.setValue(10.0)
        size_row = QHBoxLayout()
        for w in (self.by_count, self.count, self.by_share, self.share):
            size_row.addWidget(w)
        self.seed = QSpinBox()
        self.seed.setObjectName("sampleSeed")
        self.seed.setRange(0, 2_147_483_647)
        self.seed.setValue(seed)
        self.strata = QComboBox()
        self.strata.setObjectName("sampleStrata")
        for label, value in STRATA:
            self.strata.addItem(label, value)
        self.singles = QCheckBox("Count single &pages as clusters")
        self.reliability = QCheckBox("&Reliability sample (every coder codes it, blind)")
        self.reliability.setObjectName("sampleReliability")
        self.name = QLineEdit()
        self.name.setPlaceholderText("(a name is made up)")
        form = QFormLayout()
        form.addRow("Size:", size_row)
        form.addRow("S&eed:", self.seed)
        form.addRow("S&tratify by:", self.strata)
        form.addRow("", self.singles)
        form.addRow("", self.reliability)
        form.addRow("&Name:", self.name)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Draw")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.resize(520, 260)

    def options(self) -> SampleOptions:
        counted = self.by_count.isChecked()
        return SampleOptions(n=self.count.value() if counted else None,
                             share=None if counted else self.share.value() / 100.0,
                             seed=self.seed.value(), stratify_by=self.strata.currentData(),
                             include_singles=self.singles.isChecked(),
                             reliability=self.reliability.isChecked(),
                             name=self.name.text().strip())
