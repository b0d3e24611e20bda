"""File ▸ Export with "One column of tags per coder, and the samples" ticked in the real
export dialog, through the real window and its keyboard."""

from __future__ import annotations

import csv
import functools
import json

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from tests.gui.test_window import focus_table
from workbench.export import COLUMNS
from workbench.gui.dialogs import ExportDialog
from workbench.gui.prompter import Prompter
from workbench.store import Project
from workbench.store.team import bring_in, draw_sample, hand_out


def test_the_export_dialog_adds_each_coders_tags_and_the_samples(qtbot, demo_window, prompter,
                                                                 monkeypatch, tmp_path):
    w = demo_window
    wire = w.project.add_tag("wire", shortcut="1")
    sample = draw_sample(w.project, n=2, seed=3, reliability=True)
    copies = tmp_path / "copies"
    copies.mkdir()
    for path in hand_out(w.project, ["Bea", "Cy"], copies):
        with Project.open(path, backups=0) as copy:
            copy.tag_clusters(list(sample.clusters), [wire.id])
        bring_in(w.project, path)
    w.refresh()
    # The real dialog (the other questions stay canned, so none can block the test).
    monkeypatch.setattr(prompter, "export_options",
                        functools.partial(Prompter.export_options, prompter))
    out = tmp_path / "team.csv"
    seen: list[ExportDialog] = []

    def fill_in() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ExportDialog):
            QTimer.singleShot(20, fill_in)
            return
        seen.append(dialog)
        dialog.path.setText(str(out))
        dialog.coders.setFocus()
        qtbot.keyClick(dialog.coders, Qt.Key.Key_Space)
        qtbot.keyClick(dialog.coders, Qt.Key.Key_Return)

    QTimer.singleShot(20, fill_in)
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert seen and seen[0].coders.text() == "One column of tags per coder, and the samples"
    with out.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
    assert reader.fieldnames == [*COLUMNS, "tags_Bea", "tags_Cy", "samples"]
    assert rows and {r["tags_Bea"] for r in rows} == {r["tags_Cy"] for r in rows} == {"wire"}
    assert {r["samples"] for r in rows} == {sample.name}
    assert {r["tags"] for r in rows} == {""}  # blind sample: nothing settled yet
    side = json.loads(out.with_name("team.run.json").read_text(encoding="utf-8"))
    assert side["export"]["coders"] is True
    assert side["team"]["coders_with_own_codes"] == ["Bea", "Cy"]
