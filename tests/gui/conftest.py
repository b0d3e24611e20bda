"""GUI test fixtures: offscreen Qt, isolated settings and data folders, canned answers."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from tests.conftest import DEMO_ARCHIVE  # noqa: E402

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings  # noqa: E402

from workbench.gui.compat import protect_none  # noqa: E402
from workbench.gui.prompter import Prompter  # noqa: E402

# PySide6 6.12.0 on Python 3.11 leaks a reference to None per void call (see compat.py).
protect_none()

RUN_TIMEOUT_MS = 30_000


class FakePrompter(Prompter):
    """Answers every question from queues instead of showing a modal dialog."""

    def __init__(self) -> None:
        super().__init__(None)
        self.texts: list[str | None] = []
        self.confirms: list[bool] = []
        self.choices: list[int | None] = []
        self.tag_forms: list = []  # TagForm answers for New/Edit Tag (else a name from texts)
        self.revealed: list = []
        self.chosen: list[tuple[str, str, list[str]]] = []
        self.colours: list[str | None] = []
        self.folders: list[str | None] = []
        self.exports: list = []
        self.params: list = []  # detection settings: params, or (params, where)
        self.asked_where: list = []  # where each settings dialog was opened with
        self.errors: list[tuple[str, str]] = []
        self.lists: list[tuple[str, list]] = []
        self.asked: list[str] = []
        self.infos: list[tuple[str, str]] = []
        self.hand_outs: list = []  # HandOutOptions answers
        self.samples: list = []  # SampleOptions answers
        self.file_lists: list[list[str]] = []  # answers to open_files

    def text(self, title, label, default=""):
        self.asked.append(title)
        return self.texts.pop(0) if self.texts else default

    def confirm(self, title, text):
        self.asked.append(title)
        return self.confirms.pop(0) if self.confirms else False

    def choose(self, title, text, buttons):
        self.asked.append(title)
        self.chosen.append((title, text, list(buttons)))
        return self.choices.pop(0) if self.choices else None

    def tag_form(self, title, form, tags, editing=None):
        self.asked.append(title)
        if self.tag_forms:
            return self.tag_forms.pop(0)
        if self.texts:  # older tests answer "Add Tag" with just a name
            from dataclasses import replace

            name = self.texts.pop(0)
            return replace(form, name=name) if name else None
        return None

    def open_file(self, title, start, filters):
        self.asked.append(title)
        return self.folders.pop(0) if self.folders else None

    def save_file(self, title, start, filters):
        self.asked.append(title)
        return self.folders.pop(0) if self.folders else None

    def reveal(self, path):
        self.revealed.append(path)
        return True

    def colour(self, initial):
        return self.colours.pop(0) if self.colours else None

    def folder(self, title, start=""):
        return self.folders.pop(0) if self.folders else None

    def open_project(self, start=""):
        self.asked.append(f"open project in {start}")
        return self.folders.pop(0) if self.folders else None

    def save_project(self, start=""):
        return self.folders.pop(0) if self.folders else None

    def info(self, title, text):
        self.asked.append(title)
        self.infos.append((title, text))

    def open_files(self, title, start, filters):
        self.asked.append(title)
        return self.file_lists.pop(0) if self.file_lists else []

    def hand_out_options(self, folder, selected):
        self.asked.append("Hand Out to Coders")
        return self.hand_outs.pop(0) if self.hand_outs else None

    def sample_options(self, clusters):
        self.asked.append("Draw Sample")
        return self.samples.pop(0) if self.samples else None

    def error(self, title, text, details=""):
        self.errors.append((title, text))

    def export_options(self, default_path):
        return self.exports.pop(0) if self.exports else None

    def detection_params(self, current, where=None):
        """What the test queued: (params, where), or params alone (where unchanged)."""
        self.asked_where.append(where)
        if not self.params:
            return None
        chosen = self.params.pop(0)
        return chosen if isinstance(chosen, tuple) else (chosen, where)

    def show_list(self, title, intro, headers, rows):
        self.lists.append((title, list(rows)))

    def show_shortcuts(self):
        self.asked.append("shortcuts")

    def about(self, title, text):
        self.asked.append(title)


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    s = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    s.setValue("coder", "Ada Tester")
    return s


@pytest.fixture
def prompter() -> FakePrompter:
    return FakePrompter()


@pytest.fixture
def window(qtbot, settings, prompter, tmp_path, monkeypatch):
    from workbench.gui.app import make_window

    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "data"))
    win = make_window(settings, prompter, projects_folder=tmp_path / "projects", workers=1)
    # Codebook files are read on the calling thread: a test never waits on a worker's signal
    # (test_codebook_import_bounds checks the read runs on a worker thread in the app).
    win.tag_actions.reader.run_here = True
    # So is File ▸ Export (tests/gui/project/test_export_in_background.py runs it on a worker).
    win.exporter.run_here = True
    # And the related pairs (tests/gui/coding/test_related_reading.py reads them on a worker).
    win.related.reader.run_here = True
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    yield win
    win.close_project()


@pytest.fixture
def demo_window(qtbot, window, prompter):
    """The window with the demo archive opened through the menu action."""
    prompter.folders.append(str(DEMO_ARCHIVE))
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        window.actions_by_name["open_archive"].trigger()
    return window
