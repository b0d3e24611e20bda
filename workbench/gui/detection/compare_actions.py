"""Detection ▸ Compare Methods…: the menu action, the dialog, and "Use This Method".

The main window adds the action with one line,
``install_compare_action(self, detect)``, where ``detect`` is its Detection menu. The
window is a :class:`CompareWindow`: ``project``, ``prompter``, ``statusBar()`` and
``start_method_run(choice) -> bool``; ``job``, ``workers`` and ``settings`` (the gold
folder last used is remembered there) when it has them.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from workbench.gui.detection.compare_dialog import CompareDialog
from workbench.gui.detection.compare_presenter import Source, display_name
from workbench.gui.host import ProjectWindow
from workbench.usecases.detector_run import MethodChoice

ACTION_NAME = "compare_methods"
GOLD_SETTING = "compare/goldFolder"


@runtime_checkable
class CompareWindow(ProjectWindow, Protocol):
    """What Compare Methods uses of the window: it runs the method the coder chose."""

    def start_method_run(self, choice: MethodChoice) -> bool: ...


def install_compare_action(window: CompareWindow, menu: QMenu) -> QAction:
    """Add "Compare Methods…" to ``menu``; it opens the dialog for ``window.project``."""
    action = QAction("Compare &Methods…", window.window())
    action.setObjectName(ACTION_NAME)
    action.setMenuRole(QAction.MenuRole.NoRole)  # stays in its menu on macOS (menus.NO_ROLE)
    action.setStatusTip("Score every detection method against a gold folder or your coded clusters, "
                        "and run the best one")
    action.triggered.connect(lambda _checked=False: open_compare(window))
    menu.addAction(action)
    named = getattr(window, "actions_by_name", None)
    if isinstance(named, dict):
        named[ACTION_NAME] = action
    return action


def open_compare(window: CompareWindow) -> CompareDialog:
    """Show the dialog (window-modal) for the window's project; the gold folder last used
    is filled in."""
    dialog = CompareDialog(window.window(), window.project, prompter=window.prompter,
                           workers=getattr(window, "workers", None))
    settings = getattr(window, "settings", None)
    if settings is not None:
        last = settings.value(GOLD_SETTING)
        if last:
            dialog.gold_edit.setText(str(last))
        dialog.compared.connect(lambda _c: _remember_gold(settings, dialog))
    dialog.use_method.connect(lambda choice: use_method(window, dialog, choice))
    dialog.finished.connect(lambda _result: dialog.deleteLater())
    dialog.open()
    return dialog


def _remember_gold(settings: Any, dialog: CompareDialog) -> None:
    if dialog.presenter.source is Source.GOLD and dialog.presenter.gold_folder:
        settings.setValue(GOLD_SETTING, dialog.presenter.gold_folder)


def use_method(window: CompareWindow, dialog: CompareDialog, choice: MethodChoice) -> bool:
    """Run detection on the window's project with ``choice``; close the dialog once it started."""
    name = display_name(choice.name)
    if window.project is None:
        window.prompter.error("No project open", f"Open a project to run {name} on it.")
        return False
    if getattr(window, "job", None) is not None:
        window.prompter.error("Detection is running",
                              f"A detection run is going on. Wait for it to finish (or cancel it), "
                              f"then press Use This Method again to run {name}.")
        return False
    if not window.start_method_run(choice):
        return False
    dialog.accept()
    window.statusBar().showMessage(
        f"Running detection with {name} at threshold {choice.threshold:.2f}; your tags, marks, "
        "memos and hand-made clusters go with their pages, and Ctrl+Z takes the run back.", 15000)
    return True
