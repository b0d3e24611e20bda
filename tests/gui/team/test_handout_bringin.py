"""File ▸ Hand Out to Coders… and File ▸ Bring In Coders' Work… through the real window."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from workbench.gui.project.team_dialogs import HandOutOptions
from workbench.store import Project


def _coder_name(project: Project) -> str:
    row = project.reader().execute("SELECT name FROM coders WHERE id = ?",
                                   (project.coder_id,)).fetchone()
    return str(row[0])


def test_hand_out_open_a_copy_as_its_coder_and_bring_it_in_once(qtbot, demo_window, prompter,
                                                                tmp_path):
    w = demo_window
    lead_path = w.project.path
    w.project.add_tag("wire", shortcut="1")
    w.refresh()
    out = tmp_path / "copies"
    out.mkdir()
    prompter.hand_outs.append(HandOutOptions(["Bea", "Cy"], out, only_selected=False))
    w.actions_by_name["hand_out"].trigger()
    copies = sorted(out.glob("*.wbproj"))
    assert [p.name for p in copies] == [f"{lead_path.stem}-Bea.wbproj",
                                         f"{lead_path.stem}-Cy.wbproj"]
    assert prompter.infos[-1][0] == "Handed out"

    # Bea's copy opens as Bea's, whoever the window's coder is (Ada Tester here).
    assert w.open_project(copies[0])
    assert w.coder == "Ada Tester"
    assert _coder_name(w.project) == "Bea"
    assert "Bea's copy" in w.coder_label.text()
    assert "Bea's copy" in w.windowTitle()
    # Changing the window's coder does not make the copy anyone else's.
    w.set_coder("Dee")
    assert _coder_name(w.project) == "Bea"
    assert "Bea's copy" in w.statusBar().currentMessage()
    w.set_coder("Ada Tester")
    w.select_row(0)
    cid = w.selected_ids()[0]
    w.activateWindow()
    w.table.setFocus()
    qtbot.keyClick(w.table, Qt.Key.Key_1)
    assert [t.name for t in w.project.cluster(cid).tags] == ["wire"]
    # The lead's tools are not offered in a copy: a dialog says why.
    w.actions_by_name["bring_in"].trigger()
    assert prompter.errors[-1][0] == "Cannot bring in"
    w.actions_by_name["draw_sample"].trigger()
    assert prompter.errors[-1][0] == "Cannot draw a sample"
    w.actions_by_name["hand_out"].trigger()
    assert prompter.errors[-1][0] == "Cannot hand out"

    assert w.open_project(lead_path)
    assert _coder_name(w.project) == "Ada Tester"
    assert "copy" not in w.coder_label.text() and "copy" not in w.windowTitle()
    prompter.file_lists.append([str(copies[0])])
    w.actions_by_name["bring_in"].trigger()
    title, text = prompter.infos[-1]
    assert title == "Coders' work brought in"
    assert text.startswith("Bea (") and "1 new action" in text and "codes added" in text
    actions = w.project.reader().execute("SELECT count(*) FROM actions").fetchone()[0]
    # The same copy again changes nothing, and says so.
    prompter.file_lists.append([str(copies[0])])
    w.actions_by_name["bring_in"].trigger()
    assert "nothing new" in prompter.infos[-1][1]
    assert w.project.reader().execute("SELECT count(*) FROM actions").fetchone()[0] == actions


def test_every_copy_refused_is_said_in_a_dialog(qtbot, demo_window, prompter, tmp_path):
    w = demo_window
    stranger = tmp_path / "other.wbproj"
    w.project.save_copy(stranger)  # a project, but nobody's copy
    not_a_project = tmp_path / "notes.wbproj"
    not_a_project.write_text("not sqlite", encoding="utf-8")
    prompter.file_lists.append([str(stranger), str(not_a_project)])
    errors = len(prompter.errors)
    w.actions_by_name["bring_in"].trigger()
    assert len(prompter.errors) == errors + 1
    title, text = prompter.errors[-1]
    assert title == "Nothing brought in"
    assert "other.wbproj" in text and "notes.wbproj" in text
    assert "Traceback" not in text


def test_a_copy_from_another_project_is_refused_in_a_dialog(qtbot, demo_window, prompter,
                                                        tmp_path):
    w = demo_window
    other = tmp_path / "elsewhere.wbproj"
    w.project.save_copy(other)  # before handing out: another project, same pages
    out = tmp_path / "copies"
    out.mkdir()
    prompter.hand_outs.append(HandOutOptions(["Bea"], out, only_selected=False))
    w.actions_by_name["hand_out"].trigger()
    copy = next(out.glob("*.wbproj"))
    lead = w.project.path
    w.close_project()
    # A second lead project: it never handed out, so Bea's copy is not from it.
    assert w.open_project(other)
    prompter.file_lists.append([str(copy)])
    w.actions_by_name["bring_in"].trigger()
    assert prompter.errors[-1][0] == "Nothing brought in"
    assert copy.name in prompter.errors[-1][1]
    assert Path(lead).exists()


def test_parse_coders_and_a_report_in_words(tmp_path):
    from workbench.gui.project.team_text import parse_coders, report_text
    from workbench.store.team import BringInReport

    assert parse_coders(" Bea, Cy;\nDee ,, ") == ["Bea", "Cy", "Dee"]
    report = BringInReport(coder="Bea", copy=tmp_path / "s-Bea.wbproj", action_id=7,
                           copy_actions=3, new_actions=3, codes_added=2, memos=1,
                           kept_aside=["Bea split page 4 out; it is gone here."])
    assert report_text(report) == ("Bea (s-Bea.wbproj): 3 new actions, 2 codes added, 1 memo."
                                   "\n  Set aside for review: Bea split page 4 out; it is gone "
                                   "here.")


def test_hand_out_dialog_by_keyboard(qtbot, tmp_path):
    from PySide6.QtWidgets import QDialogButtonBox

    from workbench.gui.project.team_dialogs import HandOutDialog

    dialog = HandOutDialog(str(tmp_path), selected=0)
    qtbot.addWidget(dialog)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert not ok.isEnabled()  # no coder named yet
    assert not dialog.only_selected.isEnabled()  # nothing selected to hand out alone
    qtbot.keyClicks(dialog.coders, "Bea, Cy")
    assert ok.isEnabled()
    assert dialog.options() == HandOutOptions(["Bea", "Cy"], tmp_path, only_selected=False)
    dialog.folder.clear()
    assert not ok.isEnabled()


def test_a_copy_from_another_run_is_refused_in_a_dialog(qtbot, demo_window, prompter, tmp_path):
    from tests.gui.conftest import RUN_TIMEOUT_MS

    w = demo_window
    out = tmp_path / "copies"
    out.mkdir()
    prompter.hand_outs.append(HandOutOptions(["Bea"], out, only_selected=False))
    w.actions_by_name["hand_out"].trigger()
    copy = next(out.glob("*.wbproj"))
    run = w.project.current_run().id
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        w.actions_by_name["rerun"].trigger()
    assert w.project.current_run().id != run
    actions = w.project.reader().execute("SELECT count(*) FROM actions").fetchone()[0]
    prompter.file_lists.append([str(copy)])
    w.actions_by_name["bring_in"].trigger()
    title, text = prompter.errors[-1]
    assert title == "Nothing brought in" and copy.name in text and "run" in text
    assert w.project.reader().execute("SELECT count(*) FROM actions").fetchone()[0] == actions
