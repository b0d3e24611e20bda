"""The action modules see the window through narrow protocols, never MainWindow itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from workbench.gui.coding.carried import CarriedWindow
from workbench.gui.coding.codebook_actions import CodebookWindow
from workbench.gui.coding.coding_actions import CodingKeysWindow
from workbench.gui.detection.andd_actions import AnddWindow
from workbench.gui.detection.calibration import CalibrationWindow
from workbench.gui.detection.compare_actions import CompareWindow
from workbench.gui.host import CodingWindow, ProjectWindow
from workbench.gui.project.export_actions import ExportWindow

GUI = Path(__file__).resolve().parents[2] / "workbench" / "gui"
ACTION_MODULES = ["coding/coding_actions.py", "coding/codebook_actions.py", "coding/carried.py",
                  "project/export_actions.py", "detection/calibration.py",
                  "detection/compare_actions.py", "detection/andd_actions.py", "host.py"]


def imported_modules(path: Path) -> set[str]:
    """Every module the file imports, type-checking-only imports included."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("module", ACTION_MODULES)
def test_action_modules_do_not_import_the_window(module):
    """mainwindow imports them; they import it not even for type hints (no import circle)."""
    assert "workbench.gui.mainwindow" not in imported_modules(GUI / module)


@pytest.mark.parametrize("protocol", [ProjectWindow, CodingWindow, CodingKeysWindow, CodebookWindow,
                                      ExportWindow, CarriedWindow, CalibrationWindow, CompareWindow,
                                      AnddWindow])
def test_the_main_window_is_every_protocol_its_actions_name(window, protocol):
    assert isinstance(window, protocol)


def test_a_protocol_names_what_is_missing(window):
    """The check above can fail: an object without the coding keys' members is not one."""
    assert not isinstance(object(), CodingKeysWindow)
    assert isinstance(window, CodingKeysWindow)
    assert not isinstance(window.compare, CodingKeysWindow)
