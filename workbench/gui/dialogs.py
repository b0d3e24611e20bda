"""Dialogs: detection settings, export options, skipped files, keyboard shortcuts."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSlider,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.cluster.where import HERE, LOCAL, SCHEDULER, RunWhere
from workbench.detect.spotsigs.params import CLUSTER_METHODS, AntecedentSpec, SpotSigsParams, default_specs
from workbench.gui.keys import keynames
from workbench.gui.keys.keynames import is_mac, shortcut_rows

_OK = QDialogButtonBox.StandardButton.Ok
_CANCEL = QDialogButtonBox.StandardButton.Cancel

# The keys as Linux and Windows name them (the README's table is this one); on macOS the F1
# dialog renders them with keynames.shortcut_rows (⌘ for Ctrl, ⇧⌘M for the memo).
SHORTCUTS = [
    ("Ctrl+O", "Open an archive folder"),
    ("Ctrl+Shift+O", "Open a project file"),
    ("Ctrl+E", "Export tagged pages to CSV"),
    ("Escape", "Put the keyboard in the cluster list (from the filter, codebook, a page or a memo)"),
    ("Up / Down", "Previous / next cluster (Shift or Ctrl to select several)"),
    ("Ctrl+Home / Ctrl+End", "First / last cluster"),
    ("N", "Next uncoded cluster"),
    ("1 – 9", "Toggle the tag with that key on every selected cluster (then, with View ▸ "
              "Advance After Tagging, on to the next uncoded cluster)"),
    ("Shift+1 – Shift+9", "Toggle the tag with that key and stay on the cluster (to give it "
                          "another tag)"),
    ("Alt+1 – Alt+9", "Toggle the tag on the page shown on the right only"),
    ("X", "The page on the right is not this cluster's story (or is again)"),
    ("S", "Split the member shown on the right out of its cluster (it keeps its tags)"),
    ("M", "Merge the selected clusters; in the related list, the related cluster chosen there "
          "into the cluster shown"),
    ("Shift+M", "Merge the page chosen in the related list into the cluster shown, as a member"),
    ("D", "Dismiss the cluster chosen in the related list: not this story, never offered again"),
    ("Ctrl+R", "Put the keyboard in the related list: other clusters' pages this one resembles "
               "below τ, most similar first (choosing one shows it against the reference)"),
    ("Page Up / Page Down", "Previous / next member of the cluster"),
    ("Ctrl+Z / Ctrl+Shift+Z", "Undo / redo the last coding action (also from the filter box); "
                              "the status bar says what, and its cluster is selected"),
    ("Ctrl+T", "New tag: name, key, colour, parent tag, description"),
    ("Ctrl+B", "Put the keyboard in the codebook (arrow keys choose a tag)"),
    ("Ctrl+M", "Put the keyboard in the memo on the cluster (again: the memo on the page)"),
    ("Ctrl+Shift+T", "Edit the tag chosen in the codebook"),
    ("Ctrl+F", "Filter the cluster list"),
    ("Ctrl+K", "Calibrate τ: see what another threshold would do (arrow keys move it)"),
    ("Alt+W", "Side by side: the article (the text compared) or the whole page, the rest grey"),
    ("Ctrl+L", "Story timeline of the selected cluster: its pages by date and site, the first "
               "publisher marked"),
    ("Ctrl+Shift+L", "Save the selected cluster's timeline as PNG or SVG (by the file's extension)"),
    ("Ctrl+D", "Corpus dashboard: cluster sizes, copies per site, duplication over time, "
               "sources copied most"),
    ("Ctrl+Shift+D", "Export every dashboard plot (PNG and SVG) and its numbers (CSV) into a "
                     "folder"),
    ("Tab / Shift+Tab", "Next / previous pane: filter box, cluster list, codebook, the two "
                        "memos, members, why these match, related, the two pages (the cluster "
                        "list keeps its selection)"),
    ("F1", "This list"),
    ("Ctrl+Q", "Quit"),
]


class SettingsDialog(QDialog):
    """τ, corroboration, antecedent specs, IDF range, minimum signatures; "Paper defaults"
    resets. And where the run goes: this machine, a Dask cluster started here, or the
    Dask scheduler at an address (workbench.cluster.where)."""

    def __init__(self, params: SpotSigsParams, parent: QWidget | None = None,
                 where: RunWhere | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Detection Settings")
        self._base = params
        self.run_here = QRadioButton("This machine")
        self.run_local = QRadioButton("A Dask cluster on this machine")
        self.run_scheduler = QRadioButton("The Dask scheduler at")
        self.scheduler_address = QLineEdit()
        self.scheduler_address.setPlaceholderText("tcp://10.1.2.3:8786")
        self.scheduler_address.setToolTip("A scheduler already running (Slurm through dask-jobqueue, SSH "
                                          "hosts, Kubernetes...). Its workers need the workbench, and the "
                                          "archive and the project's folder under the same paths: the "
                                          "run's shards go beside the project file")
        self.scheduler_address.textEdited.connect(lambda _: self.run_scheduler.setChecked(True))
        where = where or RunWhere()
        {HERE: self.run_here, LOCAL: self.run_local}.get(where.mode, self.run_scheduler).setChecked(True)
        self.scheduler_address.setText(where.address)
        self.tau = QSlider(Qt.Orientation.Horizontal)
        self.tau.setRange(1, 100)
        self.tau_label = QLabel()
        self.tau.valueChanged.connect(lambda v: self.tau_label.setText(f"τ = {v / 100:.2f}"))
        self.pair_floor = QDoubleSpinBox()
        self.pair_floor.setRange(0.05, 1.0)
        self.pair_floor.setSingleStep(0.05)
        self.pair_floor.setDecimals(2)
        self.pair_floor.setToolTip("Pairs this similar are kept with the run even below τ, so "
                                   "Detection ▸ Calibrate can show what a lower τ would merge "
                                   f"(on crawls of up to {params.pair_floor_max_pages:,} pages: "
                                   "above, pairs grow with the square of the crawl)")
        self.corroborate = QDoubleSpinBox()
        self.corroborate.setRange(0.0, 1.0)
        self.corroborate.setSingleStep(0.05)
        self.corroborate.setDecimals(2)
        self.corroborate.setSpecialValueText("off")
        self.corroborate.setToolTip("Star clusters: a member less similar than this to its "
                                    "reference stays only when another member links to it too. "
                                    "A τ below it joins pages to clusters of three or more but "
                                    "makes no cluster of two pages (0: off)")
        self.specs = QTableWidget(0, 4)
        # Multi-Chain specs (the tech report's a(m,n)) have steps of their own; a row with
        # steps ignores distance and chain, so is[3,4] survives a trip through the dialog.
        self.specs.setHorizontalHeaderLabels(["Antecedent", "Distance", "Chain", "Multi-Chain steps"])
        self.specs.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.specs.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        add, remove = QPushButton("Add"), QPushButton("Remove")
        add.clicked.connect(lambda: self._add_spec(AntecedentSpec("the", 1, 2)))
        remove.clicked.connect(lambda: self.specs.removeRow(self.specs.currentRow()))
        self.idf_low, self.idf_high = QDoubleSpinBox(), QDoubleSpinBox()
        for box in (self.idf_low, self.idf_high):
            box.setRange(0.0, 1.0)
            box.setSingleStep(0.05)
            box.setDecimals(2)
        # The upper end has no effect (a signature on one page counts in its length and is
        # never indexed); shown for the paper's range, not editable.
        self.idf_high.setEnabled(False)
        self.idf_high.setToolTip("No effect: a signature found on one page only is never compared "
                                 "but counts in its page's length")
        self.min_sigs = QSpinBox()
        self.min_sigs.setRange(0, 1000)
        self.method = QComboBox()
        self.method.addItems(CLUSTER_METHODS)
        self.block_filter = QCheckBox("Leave out navigation-like blocks")
        self.main_content = QCheckBox("Compare the article only (main content)")
        self.main_content.setToolTip("Find each page's main content and take signatures from it; "
                                     "off: from the whole page")
        self.languages = QCheckBox("Use each page's language (antecedents and stopwords)")
        self.error = QLabel()
        self.error.setStyleSheet("color: #a00")
        paper = QPushButton("Paper defaults")
        paper.setToolTip("The SIGIR 2008 paper's settings: τ = 0.44, antecedents(2,3), IDF [0.2, 0.85]")
        paper.clicked.connect(self.paper_defaults)
        ours = QPushButton("Workbench defaults")
        ours.clicked.connect(lambda: self.load(SpotSigsParams()))

        form = QFormLayout()
        tau_row = QHBoxLayout()
        tau_row.addWidget(self.tau, 1)
        tau_row.addWidget(self.tau_label)
        form.addRow("Similarity threshold", tau_row)
        form.addRow("Keep pairs down to", self.pair_floor)
        form.addRow("Corroborate members below", self.corroborate)
        idf_row = QHBoxLayout()
        idf_row.addWidget(self.idf_low)
        idf_row.addWidget(QLabel("to"))
        idf_row.addWidget(self.idf_high)
        form.addRow("IDF range", idf_row)
        form.addRow("Minimum signatures", self.min_sigs)
        form.addRow("Clustering", self.method)
        form.addRow("", self.block_filter)
        form.addRow("", self.main_content)
        form.addRow("", self.languages)
        form.addRow("Run on", self.run_here)
        form.addRow("", self.run_local)
        scheduler_row = QHBoxLayout()
        scheduler_row.addWidget(self.run_scheduler)
        scheduler_row.addWidget(self.scheduler_address, 1)
        form.addRow("", scheduler_row)
        spec_buttons = QHBoxLayout()
        spec_buttons.addWidget(add)
        spec_buttons.addWidget(remove)
        spec_buttons.addStretch(1)
        buttons = QDialogButtonBox(_OK | _CANCEL)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Run Detection")
        buttons.addButton(paper, QDialogButtonBox.ButtonRole.ResetRole)
        buttons.addButton(ours, QDialogButtonBox.ButtonRole.ResetRole)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(QLabel("Antecedent specs: at each antecedent word, a chain of <i>chain</i> "
                                "words, each <i>distance</i> words after the previous one; or, "
                                "with Multi-Chain steps such as 3,4, the word 3 on, then 4 on from it"))
        layout.addWidget(self.specs)
        layout.addLayout(spec_buttons)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.load(params)
        self.resize(520, 640)

    def _add_spec(self, spec: AntecedentSpec) -> None:
        r = self.specs.rowCount()
        self.specs.insertRow(r)
        steps = ",".join(str(step) for step in spec.multi)
        for c, v in enumerate((spec.word, spec.distance, spec.chain, steps)):
            self.specs.setItem(r, c, QTableWidgetItem(str(v)))

    def load(self, p: SpotSigsParams) -> None:
        self.tau.setValue(round(p.tau * 100))
        self.tau_label.setText(f"τ = {p.tau:.2f}")
        self.pair_floor.setValue(p.pair_floor)
        self.corroborate.setValue(p.corroborate_below)
        self.specs.setRowCount(0)
        for spec in p.specs:
            self._add_spec(spec)
        self.idf_low.setValue(p.idf_low)
        self.idf_high.setValue(p.idf_high)
        self.min_sigs.setValue(p.min_sigs)
        self.method.setCurrentText(p.cluster_method)
        self.block_filter.setChecked(p.block_filter)
        self.main_content.setChecked(p.main_content)
        self.languages.setChecked(p.languages)

    def paper_defaults(self) -> None:
        self.load(dataclasses.replace(SpotSigsParams(), tau=0.44, specs=default_specs(2, 3),
                                      idf_low=0.2, idf_high=0.85, min_sigs=5))

    def params(self) -> SpotSigsParams:
        """The edited parameters; ValueError with a readable message when they are not valid."""
        specs = []
        for r in range(self.specs.rowCount()):
            items = [self.specs.item(r, c) for c in range(4)]
            cells = [(item.text() if item else "").strip() for item in items]
            if not any(cells):
                continue
            try:
                if cells[3]:
                    steps = tuple(int(step) for step in cells[3].replace(" ", "").split(","))
                    specs.append(AntecedentSpec(cells[0].lower(), multi=steps))
                else:
                    specs.append(AntecedentSpec(cells[0].lower(), int(cells[1]), int(cells[2])))
            except ValueError as exc:
                raise ValueError(f"Row {r + 1}: {exc}") from exc
        return dataclasses.replace(
            self._base, tau=self.tau.value() / 100, pair_floor=self.pair_floor.value(), specs=tuple(specs),
            corroborate_below=self.corroborate.value(),
            idf_low=self.idf_low.value(),
            idf_high=self.idf_high.value(), min_sigs=self.min_sigs.value(),
            cluster_method=self.method.currentText(), block_filter=self.block_filter.isChecked(),
            main_content=self.main_content.isChecked(), languages=self.languages.isChecked())

    def where(self) -> RunWhere:
        """Where the run goes (check it with ``RunWhere.check``)."""
        if self.run_scheduler.isChecked():
            return RunWhere(SCHEDULER, self.scheduler_address.text().strip())
        return RunWhere(LOCAL) if self.run_local.isChecked() else RunWhere()

    def _accept(self) -> None:
        try:
            self.params()
            self.where().check()
        except ValueError as exc:
            self.error.setText(str(exc))
            return
        self.accept()


@dataclass(frozen=True, slots=True)
class ExportOptions:
    path: Path
    coded_only: bool = True
    wide: bool = False
    excel: bool = False
    coders: bool = False  # one column of tags per coder, and the samples


class ExportDialog(QDialog):
    def __init__(self, default_path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export Tagged Pages")
        self.path = QLineEdit(str(default_path))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        self.coded = QRadioButton("Only coded pages (tagged, marked not this story, or with a memo)")
        self.every = QRadioButton("Every page (untagged and skipped ones too)")
        self.coded.setChecked(True)
        self.wide = QCheckBox("One 0/1 column per tag (wide)")
        self.excel = QCheckBox("For Excel (UTF-8 with BOM)")
        self.coders = QCheckBox("One column of tags per coder, and the samples")
        self.coders.setToolTip("The tags each coder gave the page in their copy, beside the "
                               "final (settled) tags, and the samples its cluster is in")
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        buttons = QDialogButtonBox(_OK | _CANCEL)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("One CSV row per page with its cluster, tags, coder, similarity to the "
                                "reference and provenance, plus a .run.json file with the parameters."))
        layout.addLayout(row)
        for w in (self.coded, self.every, self.wide, self.coders, self.excel):
            layout.addWidget(w)
        layout.addWidget(buttons)
        self.resize(560, 240)

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export to", self.path.text(), "CSV files (*.csv)")
        if path:
            self.path.setText(path)

    def options(self) -> ExportOptions:
        return ExportOptions(Path(self.path.text()), self.coded.isChecked(), self.wide.isChecked(),
                             self.excel.isChecked(), self.coders.isChecked())


class ListDialog(QDialog):
    """A read-only two-column table (skipped files and their reasons)."""

    def __init__(self, title: str, intro: str, headers: list[str], rows: list[tuple[str, str]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.table = QTableWidget(len(rows), len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(True)  # a long message or reason is read whole
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                item = QTableWidgetItem(value)
                item.setToolTip(value)
                self.table.setItem(r, c, item)
        self.table.resizeColumnToContents(0)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        layout = QVBoxLayout(self)
        label = QLabel(intro)
        label.setWordWrap(True)
        layout.addWidget(label)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(760, 420)
        self.table.resizeRowsToContents()


SHORTCUTS_INTRO = ("Coding keys work wherever the keyboard is, except while you type in a text "
                   "field (the filter, a memo); Escape leaves the field.")
# On macOS the table shows the keys as the menus do (keynames.key_label): say what the
# symbols are once, for a coder who has not met them.
MAC_KEYS_NOTE = " ⌘ is Command, ⌥ Option, ⇧ Shift."


def shortcuts_dialog(parent: QWidget | None = None, platform: str | None = None) -> ListDialog:
    """F1: the SHORTCUTS table, its keys named as this system (or ``platform``) names them."""
    intro = SHORTCUTS_INTRO + (MAC_KEYS_NOTE if is_mac(platform or keynames.PLATFORM) else "")
    return ListDialog("Keyboard Shortcuts", intro, ["Key", "Action"],
                      shortcut_rows(SHORTCUTS, platform), parent)
