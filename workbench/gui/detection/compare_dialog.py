"""Detection ▸ Compare Methods: score every method against clusters the coder trusts.

The coder picks the truth (a gold folder, or the clusters coded in the open project),
ticks methods and presses Run. :func:`workbench.usecases.comparison.compare` works in a process
of its own (:mod:`workbench.usecases.comparison_process`: each method's memory is then measured as
``workbench compare`` measures it, not as the growth of a window that has run SpotSigs
already), watched by a :class:`CompareJob` on the thread pool; its news comes back through
queued signals, so no widget is touched off the GUI thread, and Cancel stops it at its
next progress report.
The table and the precision-recall plot then show each method at its best threshold;
"Use This Method" emits the selected method's :class:`MethodChoice` for the window to run.
What the widgets say comes from :class:`ComparePresenter` (no Qt, tested headless).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QDialog,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.progress import Cancelled
from workbench.detect.registry import METHODS
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.gui.detection.compare_presenter import (
    COLUMN_TIPS,
    COLUMNS,
    ComparePresenter,
    ProjectTruthCount,
    Source,
    display_name,
    project_truth_problem,
)
from workbench.gui.detection.prcurve import PRCurveView, colour_of
from workbench.gui.jobs import CancellableJob, retire
from workbench.gui.prompter import Prompter
from workbench.gui.sidebyside.pagetext import params_from_dict
from workbench.store import Project, ProjectError
from workbench.usecases.comparison import Comparison, Truth, truth_of_project
from workbench.usecases.comparison_process import compare_in_child

# At most one progress signal per this many seconds, unless the stage changes.

METHOD_TIPS: dict[str, str] = {
    "spotsigs": "Spot signatures: short word chains after stopwords, which news text has and "
                "navigation and ads mostly lack (Theobald et al., SIGIR 2008)",
    "simhash": "Charikar's simhash fingerprints compared by Hamming distance",
    "minhash": "Word shingles compared by Jaccard similarity, found with MinHash LSH",
    "imatch": "I-Match: one hash of each page's mid-frequency words; only exact matches pair",
    "signcd": "Compression distance of spot signatures (SigNCD)",
    "andd": "ANDD: cosine similarity of weighted word vectors",
}


HEADERS: dict[str, str] = {
    "Best threshold": "Best\nthreshold", "Pair precision": "Pair\nprecision", "Pair recall": "Pair\nrecall",
    "Max F1": "Max F1\n(pairs)", "Cluster precision": "Cluster\nprecision",
    "Cluster recall": "Cluster\nrecall", "Cluster F1": "Cluster\nF1",
    "The papers report": "The papers report\n(Gold Set, Max F1)",
}


class CompareSignals(QObject):
    progress = Signal(str, object, object)  # stage, done, total (objects: byte counts, None)
    finished = Signal(object)  # Comparison
    failed = Signal(object, str)  # the exception, its traceback
    cancelled = Signal()
    ended = Signal()  # after any of the three above


class CompareJob(CancellableJob, QRunnable):
    """One :func:`compare` call on a worker thread; it never touches a widget."""

    def __init__(self, root: str, truth: Truth | Callable, methods: Sequence[str], *,
                 params: SpotSigsParams | None = None, workers: int | None = None,
                 source: str | None = None, runner: Callable[..., Comparison] = compare_in_child) -> None:
        """``runner``: :func:`compare`'s stand-in; by default it runs in a process of its
        own, so the memory each method takes is measured as ``workbench compare`` does."""
        super().__init__()
        self.setAutoDelete(False)
        self.root, self.truth, self.methods = root, truth, list(methods)
        self.params, self.workers, self.source = params, workers, source
        self.runner = runner
        self.signals = CompareSignals()
        self._begin_reporting()

    def run(self) -> None:  # noqa: D401 - QRunnable API
        try:
            result = self.runner(self.root, self.truth, self.methods, params=self.params,
                                 progress=self._progress, workers=self.workers, source=self.source)
        except Cancelled:
            self.signals.cancelled.emit()
        except BaseException as exc:  # noqa: BLE001 - every failure must reach the dialog
            self.signals.failed.emit(exc, "".join(traceback.format_exception(exc)))
        else:
            self.signals.finished.emit(result)
        finally:
            self.done.set()
            self.signals.ended.emit()



class CompareDialog(QDialog):
    """Pick the truth and the methods, run, read the table and the curves, use a method."""

    use_method = Signal(object)  # MethodChoice of the selected row
    # Emitted on the GUI thread (tests and the window wait on these, never on the job's).
    compared = Signal(object)  # the Comparison now shown
    cancelled = Signal()
    failed = Signal(str)  # the message shown
    progress_shown = Signal(str)

    def __init__(self, parent: QWidget | None = None, project: Project | None = None, *,
                 prompter: Prompter | None = None, workers: int | None = None,
                 methods: Sequence[str] = METHODS, pool: QThreadPool | None = None,
                 runner: Callable[..., Comparison] = compare_in_child) -> None:
        """``runner``: how the comparison runs (:class:`CompareJob`)."""
        super().__init__(parent)
        self.runner = runner
        self.setWindowTitle("Compare Methods")
        self.setObjectName("compareMethodsDialog")
        self.project = project
        self.prompter = prompter or Prompter(self)
        self.workers = workers
        self.pool = pool or QThreadPool.globalInstance()
        self.job: CompareJob | None = None
        self._root = ""  # the crawl being compared (named in a failure's message)
        self.presenter = ComparePresenter(methods, project=self._project_count())
        self._build()
        self._sync_inputs()
        self.resize(1180, 820)

    def _project_count(self) -> ProjectTruthCount | None:
        if self.project is None:
            return None
        try:
            truth = truth_of_project(self.project)
        except ProjectError:
            truth = Truth({})
        return ProjectTruthCount.of(self.project.path.name, truth)

    # ================================================================ building
    def _build(self) -> None:
        intro = QLabel(
            "Run several near-duplicate detection methods on the same pages and score each against "
            "clusters you trust. Every method is scored at each threshold of its range; the table "
            "shows it at its best threshold, the plot at all of them.")
        intro.setWordWrap(True)

        truth_box = QGroupBox("Compare against")
        self.gold_radio = QRadioButton("A gold folder (one sub-folder per true cluster):")
        self.gold_radio.setObjectName("goldSource")
        self.gold_edit = QLineEdit()
        self.gold_edit.setObjectName("goldFolder")
        self.gold_edit.setPlaceholderText("choose a folder…")
        self.gold_edit.textChanged.connect(self._gold_typed)
        self.gold_button = QPushButton("Choose &Folder…")
        self.gold_button.clicked.connect(self.choose_gold_folder)
        self.project_radio = QRadioButton(self.presenter.project_label())
        self.project_radio.setObjectName("projectSource")
        self.project_radio.setEnabled(self.project is not None)
        self.project_radio.setToolTip("A tagged cluster counts as one story, less the members marked "
                                      "“not this story”; untagged clusters are not scored.")
        self.source_group = QButtonGroup(self)
        self.source_group.addButton(self.gold_radio)
        self.source_group.addButton(self.project_radio)
        (self.project_radio if self.presenter.source is Source.PROJECT else self.gold_radio).setChecked(True)
        self.gold_radio.toggled.connect(self._source_changed)
        grid = QVBoxLayout(truth_box)
        gold_row = QHBoxLayout()
        gold_row.addWidget(self.gold_radio)
        gold_row.addWidget(self.gold_edit, 1)
        gold_row.addWidget(self.gold_button)
        grid.addLayout(gold_row)
        grid.addWidget(self.project_radio)

        methods_box = QGroupBox("Methods")
        ticks = QGridLayout(methods_box)
        self.method_boxes: dict[str, QCheckBox] = {}
        per_row = (len(self.presenter.methods) + 1) // 2
        for i, method in enumerate(self.presenter.methods):
            box = QCheckBox(display_name(method))
            box.setObjectName(f"method_{method}")
            box.setChecked(method in self.presenter.checked)
            box.setToolTip(METHOD_TIPS.get(method, method))
            box.toggled.connect(lambda on, m=method: self._method_toggled(m, on))
            ticks.addWidget(box, i // per_row, i % per_row)
            self.method_boxes[method] = box

        self.run_button = QPushButton("&Run Comparison")
        self.run_button.setObjectName("runComparison")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.run)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.bar.setFixedWidth(220)
        self.progress_label = QLabel()
        self.progress_label.setObjectName("compareProgress")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("cancelComparison")
        self.cancel_button.clicked.connect(self.cancel)
        run_row = QHBoxLayout()
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.bar)
        run_row.addWidget(self.progress_label, 1)
        run_row.addWidget(self.cancel_button)
        run_row.addStretch(0)
        self.problem_label = QLabel()
        self.problem_label.setObjectName("compareProblem")
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet("color: #8a5300")

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("comparisonTable")
        # Two-line headers keep the number columns narrow and leave room for the papers' text.
        self.table.setHorizontalHeaderLabels([HEADERS.get(c, c) for c in COLUMNS])
        for col, tip in enumerate(COLUMN_TIPS):
            self.table.horizontalHeaderItem(col).setToolTip(tip)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._row_selected)
        self.summary = QLabel()
        self.summary.setObjectName("comparisonSummary")
        self.summary.setWordWrap(True)
        self.advice = QLabel()
        self.advice.setObjectName("codingAdvice")
        self.advice.setWordWrap(True)
        self.advice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.plot = PRCurveView()

        self.use_label = QLabel()
        self.use_label.setObjectName("useMethodText")
        self.use_label.setWordWrap(True)
        self.use_button = QPushButton("&Use This Method")
        self.use_button.setObjectName("useMethod")
        self.use_button.clicked.connect(self.use_selected)
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.reject)
        bottom = QHBoxLayout()
        bottom.addWidget(self.use_label, 1)
        bottom.addWidget(self.use_button)
        bottom.addWidget(self.close_button)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        inputs = QHBoxLayout()
        inputs.addWidget(truth_box, 3)
        inputs.addWidget(methods_box, 1)
        layout.addLayout(inputs)
        layout.addLayout(run_row)
        layout.addWidget(self.problem_label)
        layout.addWidget(self.table)
        layout.addWidget(self.summary)
        layout.addWidget(self.advice)
        layout.addWidget(self.plot, 1)
        layout.addLayout(bottom)

    # ============================================================= the inputs
    def choose_gold_folder(self) -> None:
        folder = self.prompter.folder("Choose a Gold Folder", self.gold_edit.text())
        if folder:
            self.gold_edit.setText(folder)
            self.gold_radio.setChecked(True)

    def set_gold_folder(self, folder: Path | str) -> None:
        self.gold_edit.setText(str(folder))
        self.gold_radio.setChecked(True)

    def set_methods(self, methods: Sequence[str]) -> None:
        """Tick exactly ``methods``."""
        for method, box in self.method_boxes.items():
            box.setChecked(method in methods)

    def _gold_typed(self, text: str) -> None:
        self.presenter.set_gold_folder(text.strip() or None)
        self._sync_inputs()

    def _source_changed(self) -> None:
        self.presenter.set_source(Source.GOLD if self.gold_radio.isChecked() else Source.PROJECT)
        self._sync_inputs()

    def _method_toggled(self, method: str, on: bool) -> None:
        self.presenter.set_method(method, on)
        self._sync_inputs()

    def _sync_inputs(self) -> None:
        running = self.job is not None
        problem = self.presenter.run_problem()
        self.problem_label.setText("" if running else (problem or ""))
        self.problem_label.setVisible(bool(problem) and not running)
        self.run_button.setEnabled(problem is None and not running)
        for widget in (self.gold_radio, self.gold_edit, self.gold_button, *self.method_boxes.values()):
            widget.setEnabled(not running)
        self.project_radio.setEnabled(self.project is not None and not running)
        self.bar.setVisible(running)
        self.cancel_button.setVisible(running)
        self.progress_label.setVisible(running)
        use_problem = self.presenter.use_problem(self.project is not None)
        self.use_button.setEnabled(use_problem is None and not running)
        self.use_button.setToolTip(use_problem or "Run detection on the project again with this method "
                                                  "at its best threshold")
        self.use_label.setText(self.presenter.use_text() if use_problem is None else
                               (use_problem if self.presenter.comparison is not None else ""))

    # ================================================================ running
    def run(self) -> bool:
        """Start the comparison (False: it cannot start; the coder was told why)."""
        if self.job is not None:
            return False
        problem = self.presenter.run_problem()
        if problem:
            self.prompter.error("Cannot compare yet", problem)
            return False
        methods = self.presenter.checked_methods()
        if self.presenter.source is Source.GOLD:
            root = str(self.presenter.gold_folder)
            job = CompareJob(root, Truth.from_gold_folder, methods, workers=self.workers,
                             runner=self.runner)
        else:
            prepared = self._project_job(methods)
            if prepared is None:
                return False
            job, root = prepared
        self._root = root
        self.job = job
        job.signals.progress.connect(self._on_progress)
        job.signals.finished.connect(self._on_finished)
        job.signals.failed.connect(self._on_failed)
        job.signals.cancelled.connect(self._on_cancelled)
        view = self.presenter.start(methods)
        self.table.setRowCount(0)
        self.plot.set_curves([], summary=self.presenter.curve_summary())
        self.summary.setText("")
        self.advice.setText("")
        self.cancel_button.setEnabled(True)
        self._show_progress(view.text, view.value)
        self._sync_inputs()
        self.pool.start(job)
        return True

    def _project_job(self, methods: list[str]) -> tuple[CompareJob, str] | None:
        """The project's coding read here, on the GUI thread (its connection lives here),
        and handed to the worker as plain data."""
        project = self.project
        assert project is not None
        name = project.path.name
        try:
            truth = truth_of_project(project)
            root = project.archive_root
            run = project.current_run()
        except ProjectError as exc:
            self.prompter.error("Cannot read the project's coding", f"{name}: {exc}")
            return None
        problem = project_truth_problem(name, truth, root)
        if problem:
            self.prompter.error("Cannot compare yet", problem)
            return None
        # The project's own extraction settings, so SpotSigs scores what the coder sees.
        params = params_from_dict(run.params) if run is not None else SpotSigsParams()
        return CompareJob(root, truth, methods, params=params, workers=self.workers,
                          source=str(project.path), runner=self.runner), root

    def cancel(self) -> None:
        if self.job is None:
            return
        self.job.cancel()
        self.cancel_button.setEnabled(False)
        self._show_progress("Cancelling at the next step…", self.bar.value())

    def _from_job(self) -> bool:
        """Signals of a job given up on (the dialog closed mid-run) arrive late: ignore them."""
        return self.job is not None and self.sender() is self.job.signals

    def _show_progress(self, text: str, value: int) -> None:
        self.progress_label.setText(text)
        self.bar.setValue(value)
        self.progress_shown.emit(text)

    def _on_progress(self, stage: str, done: object, total: object) -> None:
        if not self._from_job() or not self.cancel_button.isEnabled():
            return
        view = self.presenter.progress(stage, done if isinstance(done, int) else None,
                                       total if isinstance(total, int) else None)
        self._show_progress(view.text, view.value)

    def _end_job(self) -> None:
        if self.job is not None:
            retire(self.job)
        self.job = None
        self._sync_inputs()

    def _on_finished(self, comparison: Comparison) -> None:
        if not self._from_job():
            return
        self._end_job()
        self.show_comparison(comparison)
        self.compared.emit(comparison)

    def _on_cancelled(self) -> None:
        if not self._from_job():
            return
        self._end_job()
        self.problem_label.setText("Comparison cancelled.")
        self.problem_label.setVisible(True)
        self.cancelled.emit()

    def _on_failed(self, exc: BaseException, details: str) -> None:
        if not self._from_job():
            return
        self._end_job()
        title, text = self.presenter.failure(exc, self._root)
        self.prompter.error(title, text, details)
        self.failed.emit(text)

    # ================================================================ results
    def show_comparison(self, comparison: Comparison) -> None:
        self.presenter.set_comparison(comparison)
        rows = self.presenter.rows
        self.table.blockSignals(True)
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row.cells):
                item = QTableWidgetItem(text)
                item.setToolTip(row.tooltip if c < len(row.cells) - 1 else text)
                if 0 < c < len(row.cells) - 1:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if c == 0:
                    item.setForeground(colour_of(row.method).darker(115))
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.table.setItem(r, c, item)
        self.table.blockSignals(False)
        self.table.resizeRowsToContents()
        self._fit_table()
        if self.presenter.selected is not None:
            self.table.selectRow(self.presenter.selected)
        self.summary.setText(self.presenter.summary())
        self.advice.setText(self.presenter.coding_advice())
        self.plot.set_curves(self.presenter.curves, self.presenter.selected_method,
                             self.presenter.curve_summary())
        self._sync_inputs()

    def _fit_table(self) -> None:
        """Tall enough for every row (a handful of methods), the plot gets the rest."""
        rows = sum(self.table.rowHeight(r) for r in range(self.table.rowCount()))
        needed = self.table.horizontalHeader().height() + rows + 2 * self.table.frameWidth() + 6
        if self.table.horizontalScrollBar().isVisible():
            needed += self.table.horizontalScrollBar().height()
        self.table.setFixedHeight(min(needed, 360))

    def _row_selected(self) -> None:
        rows = {i.row() for i in self.table.selectedIndexes()}
        self.presenter.select(min(rows) if rows else None)
        self.advice.setText(self.presenter.coding_advice())
        self.plot.set_selected(self.presenter.selected_method)
        self._sync_inputs()

    def use_selected(self) -> None:
        choice = self.presenter.choice()
        if choice is not None and self.presenter.use_problem(self.project is not None) is None:
            self.use_method.emit(choice)

    # ================================================================ closing
    def done(self, result: int) -> None:
        """Closing mid-run stops the work; its late signals are ignored."""
        if self.job is not None:
            self.job.cancel()
            retire(self.job)
            self.job = None
        super().done(result)
