"""The memo pane: the coder's notes on the selected cluster and on the page beside it.

Text is saved a moment after typing stops, and at once when the pane is about to
show another cluster or page, so nothing typed is lost by moving on. The saves of one
memo while it is shown are one undo step (the store joins them when nothing else
happened between), however often the coder paused.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from workbench.gui.coding.memoview import MemoView

SAVE_AFTER_MS = 800


class MemoPane(QWidget):
    # (cluster_id or None, page_id or None, text, continued): the window saves it in the
    # project; continued: this memo was saved before while shown (one undo step).
    save_requested = Signal(object, object, str, bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = MemoView(None, None, "", "", "")
        self.others = QLabel()
        self.others.setObjectName("otherMemos")
        self.others.setWordWrap(True)
        self.cluster = QPlainTextEdit()
        self.cluster.setObjectName("clusterMemo")
        self.cluster.setPlaceholderText("Memo on this cluster (saved as you type)")
        self.page = QPlainTextEdit()
        self.page.setObjectName("pageMemo")
        self.page.setPlaceholderText("Memo on the page shown on the right")
        for edit in (self.cluster, self.page):
            edit.setTabChangesFocus(True)
            edit.textChanged.connect(self._typed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("<b>Memo</b> — cluster"))
        layout.addWidget(self.cluster, 1)
        layout.addWidget(QLabel("page"))
        layout.addWidget(self.page, 1)
        layout.addWidget(self.others)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SAVE_AFTER_MS)
        self._timer.timeout.connect(self.flush)
        self._showing = False
        self._saved: set[str] = set()  # which of the shown memos were saved since shown
        self.show_view(self.view)

    def show_view(self, view: MemoView) -> None:
        """Show another cluster/page's memos (the caller flushed the old ones first)."""
        if view.cluster_id != self.view.cluster_id:
            self._saved.discard("cluster")
        if view.page_id != self.view.page_id or view.cluster_id != self.view.cluster_id:
            self._saved.discard("page")
        self.view = view
        self._showing = True
        try:
            self.cluster.setPlainText(view.cluster_text)
            self.page.setPlainText(view.page_text)
        finally:
            self._showing = False
        self.others.setText(view.others)
        self.others.setVisible(bool(view.others))
        self.cluster.setEnabled(view.cluster_id is not None)
        self.page.setEnabled(view.page_id is not None)

    def _typed(self) -> None:
        if not self._showing:
            self._timer.start()

    def flush(self) -> None:
        """Save what changed since it was shown or last saved."""
        self._timer.stop()
        view = self.view
        cluster_text = self.cluster.toPlainText().strip()
        page_text = self.page.toPlainText().strip()
        if view.cluster_id is not None and cluster_text != view.cluster_text:
            self.save_requested.emit(view.cluster_id, None, cluster_text, "cluster" in self._saved)
            self._saved.add("cluster")
        if view.page_id is not None and page_text != view.page_text:
            self.save_requested.emit(None, view.page_id, page_text, "page" in self._saved)
            self._saved.add("page")
        self.view = MemoView(view.cluster_id, view.page_id, cluster_text, page_text, view.others)
