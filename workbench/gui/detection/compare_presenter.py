"""What Detection ▸ Compare Methods shows, worked out without Qt (tested headless).

The dialog asks this object what to put in its widgets: which truth the methods are
scored against (a gold folder, or the clusters coded in the open project), which
methods are ticked, why Run cannot start yet, what the progress bar and its line say
while :func:`workbench.usecases.comparison.compare` works, then the table's rows, the
precision-recall curves, the selected row and the :class:`MethodChoice` that "Use This
Method" hands to the window. Every message names the folder or the project and says
what to do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from workbench.detect.registry import METHODS, SPOTSIGS
from workbench.usecases.comparison import PAPER_FIGURES, Comparison, MethodResult, Truth
from workbench.usecases.detector_run import MethodChoice

# What a social scientist calls each method (the registry's names are for files and flags).
DISPLAY_NAMES: dict[str, str] = {
    SPOTSIGS: "SpotSigs",
    "simhash": "SimHash",
    "minhash": "MinHash",
    "imatch": "I-Match",
    "signcd": "SigNCD",
    "andd": "ANDD",
}

COLUMNS: tuple[str, ...] = (
    "Method", "Search", "Best threshold", "Pair precision", "Pair recall", "Max F1",
    "Cluster precision", "Cluster recall", "Cluster F1", "Time", "Memory", "The papers report",
)
COLUMN_TIPS: tuple[str, ...] = (
    "The detection method",
    "exact: every pair at or above the threshold is found; LSH: a hashing shortcut that "
    "can miss a few pairs in exchange for speed",
    "The threshold (on the method's own similarity scale) at which pair F1 is highest",
    "Of the pairs of pages the method put together, the share that are truly one story",
    "Of the true pairs (two pages of one story), the share the method found",
    "Pair F1 at the best threshold: the measure the papers report (Max F1)",
    "Precision of the pairs inside the clusters built from the method's pairs",
    "Recall of the pairs inside the clusters built from the method's pairs",
    "F1 of the clusters the coder would see at the best threshold",
    "How long the method worked (SpotSigs: reading the pages included)",
    "How much memory the method took: the growth of the comparison's own process while it "
    "worked, as `workbench compare` measures it",
    "Max F1 the method's papers report on the full Gold Set (2,160 pages)",
)

# What each stage of the work is called on the progress line.
STAGE_WORDS: dict[str, str] = {
    "read": "reading the pages",
    "extract": "extracting the article text",
    "filter": "filtering boilerplate signatures",
    "match": "matching pages",
    "cluster": "building clusters",
    "done": "scoring",
}


def display_name(method: str) -> str:
    return DISPLAY_NAMES.get(method, method)


class Source(Enum):
    GOLD = "gold"  # a folder with one sub-folder per true cluster
    PROJECT = "project"  # the clusters coded in the open project


@dataclass(frozen=True, slots=True)
class Row:
    """One method's line in the table: the cells as shown, and its tooltip."""

    method: str
    cells: tuple[str, ...]
    tooltip: str


@dataclass(frozen=True, slots=True)
class Curve:
    """One method's precision-recall curve: (recall, precision) at each threshold of its
    grid, lowest threshold first, and its best point (highest pair F1)."""

    method: str
    name: str
    points: tuple[tuple[float, float], ...]
    thresholds: tuple[float, ...]
    best: tuple[float, float]
    best_threshold: float
    best_f1: float
    # Where to code: the threshold of highest cluster F1 and its (recall, precision) point.
    code_threshold: float | None = None
    code_at: tuple[float, float] | None = None


@dataclass(frozen=True, slots=True)
class ProgressView:
    """What the progress line and bar show: ``value`` of 1000."""

    text: str
    value: int


@dataclass(frozen=True, slots=True)
class ProjectTruthCount:
    """How much of the open project is coded: what "this project's coded clusters" scores."""

    name: str
    labelled_pages: int
    clusters: int

    @classmethod
    def of(cls, name: str, truth: Truth) -> ProjectTruthCount:
        clusters = {c for c in truth.cluster_of.values() if c.startswith("cluster:")}
        return cls(name, len(truth.cluster_of), len(clusters))


def gold_folder_problem(folder: Path | str | None) -> str | None:
    """Why ``folder`` cannot be a gold set (None: it can)."""
    if not folder:
        return ("Choose a gold folder: a folder with one sub-folder per true cluster, "
                "each holding the saved pages of one story.")
    path = Path(folder)
    if not path.is_dir():
        return f"The gold folder {path} is not there any more. Choose it again."
    try:
        has_clusters = any(p.is_dir() for p in path.iterdir())
    except OSError as exc:
        return f"The gold folder {path} cannot be read ({exc.strerror or exc}). Choose another."
    if not has_clusters:
        return (f"{path} has no sub-folders. A gold set is a folder with one sub-folder per "
                "true cluster, each holding the saved pages of one story.")
    return None


def no_coded_clusters(project_name: str) -> str:
    return (f"{project_name} has no coded clusters yet. Tag some clusters first (a tagged "
            "cluster counts as one story, less the members marked “not this story”), or "
            "compare against a gold folder.")


def project_truth_problem(project_name: str, truth: Truth, archive_root: str | None) -> str | None:
    """Why the project's coded clusters cannot be scored against (None: they can)."""
    if not truth.cluster_of:
        return no_coded_clusters(project_name)
    if not archive_root or not Path(archive_root).exists():
        return (f"The crawl of {project_name} ({archive_root or 'none recorded'}) is not there, "
                "so its pages cannot be read again. Open the project in the workbench and point "
                "it to the crawl, or compare against a gold folder.")
    return None


def _score(x: float) -> str:
    return f"{x:.3f}"


def _memory(n_bytes: int) -> str:
    mb = n_bytes / 2**20
    return "< 1 MB" if mb < 1 else f"{mb:,.0f} MB"


def _row(m: MethodResult) -> Row:
    b = m.best
    papers = "; ".join(PAPER_FIGURES.get(m.method, ())) or "—"
    cells = (
        display_name(m.method), "exact" if m.exact else "LSH", f"{b.threshold:.2f}",
        _score(b.pairs.precision), _score(b.pairs.recall), _score(b.pairs.f1),
        _score(b.clusters.precision), _score(b.clusters.recall), _score(b.clusters.f1),
        f"{m.seconds:,.1f} s", _memory(m.peak_bytes), papers,
    )
    found = f"{b.pairs.correct_pairs:,} of {b.pairs.true_pairs:,} true pairs found, " \
            f"{b.pairs.predicted_pairs - b.pairs.correct_pairs:,} wrong pairs"
    tip = f"{m.label}\nAt threshold {b.threshold:.2f}: {found}."
    if m.note:
        tip += f"\nNote: {m.note}."
    return Row(m.method, cells, tip)


def _curve(m: MethodResult) -> Curve:
    points = sorted(m.points, key=lambda p: p.threshold)
    b, code = m.best, m.best_clusters
    return Curve(m.method, display_name(m.method),
                 tuple((p.pairs.recall, p.pairs.precision) for p in points),
                 tuple(p.threshold for p in points), (b.pairs.recall, b.pairs.precision),
                 b.threshold, b.pairs.f1, code.threshold, (code.pairs.recall, code.pairs.precision))


class ComparePresenter:
    """The state of one Compare Methods dialog."""

    def __init__(self, methods: Sequence[str] = METHODS, *,
                 project: ProjectTruthCount | None = None) -> None:
        self.methods = list(methods)
        self.checked: set[str] = set(self.methods)
        self.project = project
        # Start from the project's own coding when there is some; a gold folder otherwise.
        self.source = Source.PROJECT if project is not None and project.labelled_pages else Source.GOLD
        self.gold_folder: str | None = None
        self.comparison: Comparison | None = None
        self.rows: list[Row] = []
        self.curves: list[Curve] = []
        self.selected: int | None = None
        self._running: list[str] = []
        self._reads = False  # the methods other than SpotSigs share one reading first
        self._step = 0
        self._method: str | None = None
        self._truth_words = "the gold folder's clusters"

    # ---------------------------------------------------------- the truth
    def project_label(self) -> str:
        if self.project is None:
            return "This project's coded clusters (open a project first)"
        if not self.project.labelled_pages:
            return "This project's coded clusters (none coded yet)"
        return (f"This project's coded clusters ({self.project.clusters:,} clusters, "
                f"{self.project.labelled_pages:,} pages)")

    def set_source(self, source: Source) -> None:
        self.source = source

    def set_gold_folder(self, folder: Path | str | None) -> None:
        self.gold_folder = str(folder) if folder else None

    # ------------------------------------------------------------ methods
    def set_method(self, method: str, on: bool) -> None:
        if on:
            self.checked.add(method)
        else:
            self.checked.discard(method)

    def checked_methods(self) -> list[str]:
        """The ticked methods, in the order the registry lists them."""
        return [m for m in self.methods if m in self.checked]

    def run_problem(self) -> str | None:
        """Why Run cannot start (None: it can). The project's coding is checked when Run
        is pressed (:func:`project_truth_problem`), as reading it takes a moment."""
        if not self.checked:
            return "Tick at least one method to compare."
        if self.source is Source.GOLD:
            return gold_folder_problem(self.gold_folder)
        if self.project is None:
            return "No project is open: open one, or compare against a gold folder."
        if not self.project.labelled_pages:
            return no_coded_clusters(self.project.name)
        return None

    # ------------------------------------------------------------ progress
    def start(self, methods: Sequence[str]) -> ProgressView:
        """The work is starting on ``methods``: forget the last results."""
        self._running = list(methods)
        self._reads = any(m != SPOTSIGS for m in methods)
        self._step = 0
        self._method = None
        self.comparison, self.rows, self.curves, self.selected = None, [], [], None
        return ProgressView("Starting…", 0)

    def progress(self, stage: str, done: int | None, total: int | None) -> ProgressView:
        """The line and bar for one report from :func:`compare` (``method:NAME`` starts a
        method; the other stages are the reading and matching within it)."""
        steps = len(self._running) + (1 if self._reads else 0)
        if stage.startswith("method:"):
            self._method = stage.split(":", 1)[1]
            self._step = (done or 0) + (1 if self._reads else 0)
            inner = 0.0
        else:
            inner = min(1.0, done / total) if total and done is not None else 0.0
        value = int(1000 * min(1.0, (self._step + inner) / max(1, steps)))
        words = STAGE_WORDS.get(stage, "")
        if self._method is None:
            what = "Reading the pages the methods other than SpotSigs share"
            return ProgressView(f"{what}: {words}…" if words else f"{what}…", value)
        k = self._running.index(self._method) + 1 if self._method in self._running else self._step
        head = f"{display_name(self._method)} ({k} of {len(self._running)})"
        if stage == "match" and total:
            words = f"matching pages: {done or 0:,} of {total:,}"
        return ProgressView(f"{head}: {words}…" if words else f"{head}: starting…", value)

    @property
    def current_method(self) -> str | None:
        """The method the last progress report named (what a failure is blamed on)."""
        return self._method

    # ------------------------------------------------------------- results
    def set_comparison(self, comparison: Comparison) -> None:
        """Show ``comparison``; the row of highest Max F1 is selected."""
        self.comparison = comparison
        self._truth_words = ("your coded clusters" if self.source is Source.PROJECT
                             else "the gold folder's clusters")
        self.rows = [_row(m) for m in comparison.methods]
        self.curves = [_curve(m) for m in comparison.methods]
        best = max(range(len(comparison.methods)), key=lambda i: comparison.methods[i].best.pairs.f1,
                   default=None)
        self.selected = best

    def select(self, index: int | None) -> None:
        if index is not None and not 0 <= index < len(self.rows):
            index = None
        self.selected = index

    @property
    def selected_method(self) -> str | None:
        return self.rows[self.selected].method if self.selected is not None else None

    def choice(self) -> MethodChoice | None:
        """What "Use This Method" runs: the selected method at the threshold to code at
        (its highest cluster F1, :meth:`coding_advice`)."""
        if self.comparison is None or self.selected is None:
            return None
        m = self.comparison.methods[self.selected]
        return MethodChoice(m.method, m.best_clusters.threshold)

    def coding_advice(self) -> str:
        """Which threshold to code at with the selected method, in words: where its
        clusters match the truth best (cluster F1), the point marked on its curve."""
        if self.comparison is None or self.selected is None:
            return ""
        m = self.comparison.methods[self.selected]
        code = m.best_clusters.clusters
        at = m.best_clusters.threshold
        text = (f"To code with {display_name(m.method)}, use threshold {at:.2f}: there its "
                f"clusters match {self._truth_words} best (cluster F1 {code.f1:.3f}: precision "
                f"{code.precision:.3f}, recall {code.recall:.3f}); marked “code at {at:.2f}” on "
                "its curve.")
        if abs(at - m.best.threshold) > 1e-9:
            text += (f" Its pairs alone score best at {m.best.threshold:.2f} (Max F1, the papers' "
                     "measure), but you code clusters, not pairs.")
        return text

    def use_problem(self, project_open: bool) -> str | None:
        """Why "Use This Method" cannot be pressed (None: it can)."""
        if self.comparison is None:
            return "Run a comparison first."
        if self.selected is None:
            return "Select a method in the table."
        if not project_open:
            return "Open a project to run detection on it with the chosen method."
        return None

    def use_text(self) -> str:
        """The line beside "Use This Method": what pressing it does."""
        choice = self.choice()
        if choice is None or self.comparison is None or self.selected is None:
            return ""
        f1 = self.comparison.methods[self.selected].best_clusters.clusters.f1
        return (f"Selected: {display_name(choice.name)} at threshold {choice.threshold:.2f} "
                f"(cluster F1 {f1:.3f}). Use This Method runs detection on the project again with "
                "it; your tags stay on their pages.")

    def summary(self) -> str:
        """What was compared, and how the times are to be read."""
        c = self.comparison
        if c is None:
            return ""
        where = Path(c.source).name or c.source
        text = (f"{where}: {c.pages:,} pages, {c.labelled_pages:,} of them labelled in "
                f"{c.true_clusters:,} true clusters. Scores count pairs of labelled pages.")
        if c.read_seconds:
            text += (f" SpotSigs' time includes reading the pages; the other methods share one "
                     f"reading ({c.read_seconds:,.1f} s), not counted in their times.")
        return text

    def curve_summary(self) -> str:
        """The plot in words (its accessible description)."""
        if not self.curves:
            return "Precision-recall curves: no comparison has run yet."
        parts = [f"{c.name}: best F1 {c.best_f1:.3f} at threshold {c.best_threshold:.2f} "
                 f"(precision {c.best[1]:.3f}, recall {c.best[0]:.3f})" for c in self.curves]
        return "Precision-recall curves, one per method. " + "; ".join(parts) + "."

    # ------------------------------------------------------------- failures
    def failure(self, exc: BaseException, root: str) -> tuple[str, str]:
        """The title and text of the message box for ``exc`` raised by the comparison."""
        method = self.current_method
        who = f"while running {display_name(method)}" if method else "while reading the pages"
        if isinstance(exc, ImportError):
            missing = getattr(exc, "name", None) or str(exc)
            return ("Method not available",
                    f"The comparison stopped {who}: its code ({missing}) is not installed in this "
                    "copy of the workbench. Untick that method and run again.")
        if isinstance(exc, MemoryError):
            return ("Out of memory",
                    f"The comparison ran out of memory {who}. Untick the slower methods, or close "
                    "other programs, and run again. Nothing in the project was changed.")
        if isinstance(exc, OSError):
            name = f" ({exc.filename})" if exc.filename else ""
            return ("Cannot read the pages",
                    f"A file of {root} could not be read{name}: {exc.strerror or exc}. Check that "
                    "the folder is there and readable, then run again.")
        return ("Comparison failed",
                f"Something went wrong {who}: {type(exc).__name__}: {exc}. Nothing in the project "
                "was changed. The details below can be sent with a report.")
