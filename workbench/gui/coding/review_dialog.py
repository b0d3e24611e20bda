"""Codebook ▸ Review Disagreements…: the queue of a sample's clusters where coders
disagree, each coder's tags, "not this story" marks and memos side by side, and keys to
settle each one. The logic is :mod:`review_presenter`'s; this draws and forwards.

Keys: Up/Down move in the queue (and select the cluster in the window's list); 1, 2…
take that coder's codes; F keeps the codes the cluster carries now (set them in the
window with the tag keys first); Ctrl+Z / Ctrl+Shift+Z undo and redo (the window's);
Escape closes. Each settlement is one undoable step.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.coding.review_presenter import (
    ReviewRow,
    keep_final,
    review_rows,
    review_samples,
    sample_title,
    take_coder,
)
from workbench.gui.host import CodingWindow
from workbench.gui.keys.keynames import key_label
from workbench.store import ProjectError

SIDE_ROWS = ("Tags", "Not this story (pages)", "Memos")


@runtime_checkable
class ReviewWindow(CodingWindow, Protocol):
    """What the review queue uses of the window: the queue it keeps open and the
    cluster list, whose selection follows the queue."""

    review_dialog: ReviewDialog | None
    actions_by_name: dict[str, QAction]  # its Undo and Redo, for Ctrl+Z in the queue

    def select_cluster(self, cluster_id: int) -> bool: ...


class ReviewDialog(QDialog):
    def __init__(self, window: ReviewWindow, sample_id: int,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent or window.window())
        self.setObjectName("reviewDialog")
        self.window_ = window
        self.sample_id = sample_id
        project = window.project
        assert project is not None
        self.setWindowTitle(f"Review Disagreements — {sample_title(project, sample_id)}")
        self.intro = QLabel(key_label(  # ⌘Z on macOS
            "Clusters where the coders disagree. ↑/↓ choose one (the window shows it); "
            "<b>1</b>, <b>2</b>… take that coder's codes; <b>F</b> keeps the codes the "
            "cluster carries now (set them in the window with the tag keys); Ctrl+Z takes a "
            "settlement back; Escape closes."))
        self.intro.setWordWrap(True)
        self.queue = QListWidget()
        self.queue.setObjectName("reviewQueue")
        self.queue.setWordWrap(True)
        self.queue.currentRowChanged.connect(self._chosen)
        self.sides = QTableWidget(len(SIDE_ROWS), 0)
        self.sides.setObjectName("reviewSides")
        self.sides.setVerticalHeaderLabels(list(SIDE_ROWS))
        self.sides.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.sides.setWordWrap(True)
        self.sides.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.sides.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.final = QLabel()
        self.final.setObjectName("reviewFinal")
        self.final.setWordWrap(True)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.queue)
        box = QWidget()
        lay = QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.sides, 1)
        lay.addWidget(self.final)
        split.addWidget(box)
        split.setSizes([220, 260])
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(split, 1)
        self.rows: list[ReviewRow] = []
        # The keys are the queue's own (an event filter, not shortcuts): the window's
        # digit shortcuts would otherwise tag the cluster instead of settling it.
        self.queue.installEventFilter(self)
        self.resize(820, 560)
        self.reload()

    def _settle_key(self, event: QKeyEvent) -> int | None:
        """1…9 (a coder), 0 for F (keep the final codes), None: not a settling key."""
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return None
        if Qt.Key.Key_1 <= event.key() <= Qt.Key.Key_9:
            return event.key() - Qt.Key.Key_0
        return 0 if event.key() == Qt.Key.Key_F else None

    def _history_key(self, event: QKeyEvent) -> str | None:
        """"undo" or "redo" for the window's Ctrl+Z / Ctrl+Shift+Z, else None."""
        for name in ("undo", "redo"):
            action = self.window_.actions_by_name.get(name)
            if action is not None and QKeySequence(event.keyCombination()) == action.shortcut():
                return name
        return None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.queue and isinstance(event, QKeyEvent):
            history = self._history_key(event)
            if history is not None:
                # Ctrl+Z here takes the last settlement back, as in the window.
                if event.type() == QEvent.Type.ShortcutOverride:
                    event.accept()
                    return True
                if event.type() == QEvent.Type.KeyPress:
                    self.window_.actions_by_name[history].trigger()  # the queue follows
                    return True
            key = self._settle_key(event)
            if key is not None:
                if event.type() == QEvent.Type.ShortcutOverride:
                    event.accept()  # ours, not the window's tag shortcut
                    return True
                if event.type() == QEvent.Type.KeyPress:
                    if key:
                        self.take(key)
                    else:
                        self.keep_final()
                    return True
        return super().eventFilter(watched, event)

    def follow_history(self) -> None:
        """After Undo or Redo: read the queue again."""
        self.reload()

    def current(self) -> ReviewRow | None:
        row = self.queue.currentRow()
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def reload(self, keep: int | None = None) -> None:
        """Read the queue again, keeping the cluster ``keep`` (else the current one)."""
        project = self.window_.project
        if project is None:
            self.close()
            return
        was = self.current()
        keep = keep if keep is not None else (was.cluster_id if was else None)
        try:
            self.rows = review_rows(project, self.sample_id)
        except ProjectError as exc:
            self.window_.prompter.error("Cannot list the disagreements", str(exc))
            self.rows = []
        blocked = self.queue.blockSignals(True)
        self.queue.clear()
        for row in self.rows:
            item = QListWidgetItem(row.line())
            item.setData(Qt.ItemDataRole.UserRole, row.cluster_id)
            self.queue.addItem(item)
        at = next((i for i, r in enumerate(self.rows) if r.cluster_id == keep), 0)
        self.queue.blockSignals(blocked)
        if self.rows:
            self.queue.setCurrentRow(at)
        self._chosen(self.queue.currentRow())

    def _chosen(self, index: int) -> None:
        row = self.rows[index] if 0 <= index < len(self.rows) else None
        self.sides.setColumnCount(len(row.sides) if row else 0)
        if row is None:
            self.final.setText("No disagreements in this sample." if not self.rows else "")
            return
        self.sides.setHorizontalHeaderLabels([f"{i}. {s.coder}"
                                              for i, s in enumerate(row.sides, 1)])
        for col, side in enumerate(row.sides):
            cells = (", ".join(side.tags) or "(no tag)",
                     "\n".join(side.excluded) or "—",
                     "\n".join(side.memos) or "—")
            for r, text in enumerate(cells):
                self.sides.setItem(r, col, QTableWidgetItem(text))
        self.sides.resizeRowsToContents()
        state = "settled" if row.settled else "not settled yet"
        self.final.setText(f"Final codes now: {', '.join(row.final) or '(none)'} — {state}.")
        self.window_.select_cluster(row.cluster_id)

    def _settle(self, what: str, act) -> None:
        row = self.current()
        project = self.window_.project
        if row is None or project is None or not self.window_.may_code():
            return
        said = self.window_.attempt(what, lambda: act(project, row))
        if said is None:
            return
        self.window_.refresh(select_ids=[row.cluster_id])
        self.window_.statusBar().showMessage(said, 8000)
        self.reload(keep=self._next_open(row.cluster_id))

    def _next_open(self, cluster_id: int) -> int:
        """After settling: the next cluster not settled yet (else stay)."""
        ids = [r.cluster_id for r in self.rows]
        start = ids.index(cluster_id) if cluster_id in ids else 0
        for r in self.rows[start + 1:] + self.rows[:start]:
            if not r.settled:
                return r.cluster_id
        return cluster_id

    def take(self, number: int) -> None:
        self._settle("Cannot settle the cluster", lambda p, r: take_coder(p, r, number))

    def keep_final(self) -> None:
        self._settle("Cannot settle the cluster", keep_final)


def review_disagreements(window: ReviewWindow) -> ReviewDialog | None:
    """Codebook ▸ Review Disagreements…: the queue of a sample (the reliability sample;
    asked when there are several). Not modal: the lead looks at the clusters too."""
    project = window.project
    if project is None:
        return None
    samples = review_samples(project)
    if not samples:
        window.prompter.info("Review Disagreements", "There is no sample yet: draw a "
                             "reliability sample (Detection ▸ Draw Sample…), hand it out and "
                             "bring the coders' work in first.")
        return None
    chosen = samples[0]
    if len(samples) > 1:
        answer = window.prompter.choose("Review Disagreements", "Which sample?",
                                        [s.name for s in samples] + ["Cancel"])
        if answer is None or answer >= len(samples):
            return None
        chosen = samples[answer]
    old = window.review_dialog
    if old is not None:
        old.close()
    dialog = window.review_dialog = ReviewDialog(window, chosen.id)
    # Undo and Redo, here or in the window, may open or settle a cluster again.
    for name in ("undo", "redo"):
        window.actions_by_name[name].triggered.connect(dialog.follow_history)
    dialog.finished.connect(lambda _r: _forget(window, dialog))
    dialog.show()
    dialog.queue.setFocus()
    return dialog


def _forget(window: ReviewWindow, dialog: ReviewDialog) -> None:
    for name in ("undo", "redo"):
        window.actions_by_name[name].triggered.disconnect(dialog.follow_history)
    if window.review_dialog is dialog:
        window.review_dialog = None
    dialog.deleteLater()
