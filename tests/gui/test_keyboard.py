"""The coding flow by keyboard: focus, coding keys from anywhere, tags, dialogs."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from tests.gui.test_window import focus_table
from workbench.gui.prompter import Prompter
from workbench.gui.tagform import TagForm


def focus(qtbot, w, widget):
    w.activateWindow()
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus, timeout=2000)


def test_escape_in_the_filter_box_returns_to_the_list(qtbot, demo_window):
    w = demo_window
    focus(qtbot, w, w.filters.text)
    qtbot.keyClicks(w.filters.text, "harbour")
    qtbot.keyClick(w.filters.text, Qt.Key.Key_Escape)
    assert w.table.hasFocus()
    assert w.filters.text.text() == "harbour"  # the filter stays; only focus moved


def test_ctrl_z_in_the_filter_box_undoes_coding_not_the_text(qtbot, demo_window):
    w = demo_window
    w.project.add_tag("unions", shortcut="1")
    w.refresh()
    w.select_row(0)
    cid = w.selected_ids()[0]
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_1)
    assert w.project.cluster(cid).tags
    focus(qtbot, w, w.filters.text)
    qtbot.keyClicks(w.filters.text, "dock 1")  # digits typed in a field stay text
    assert w.filters.text.text() == "dock 1"
    qtbot.keyClick(w.filters.text, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert w.project.cluster(cid).tags == ()
    assert w.filters.text.text() == "dock 1"
    qtbot.keyClick(w.filters.text, Qt.Key.Key_Z,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert w.project.cluster(cid).tags


def test_ctrl_home_and_end_select_the_first_and_last_cluster(qtbot, demo_window):
    w = demo_window
    w.select_row(2)
    focus(qtbot, w, w.compare.right.text)  # from a page pane too, not only the list
    qtbot.keyClick(w.compare.right.text, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    assert w.table.currentIndex().row() == w.model.rowCount() - 1 and w.table.hasFocus()
    qtbot.keyClick(w.table, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
    assert w.table.currentIndex().row() == 0 and len(w.selected_ids()) == 1


def test_tab_leaves_the_list_without_changing_the_cluster(qtbot, demo_window):
    w = demo_window
    w.select_row(1)
    before = w.selected_ids()
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_Tab)
    assert not w.table.hasFocus()
    assert w.selected_ids() == before


def test_focus_returns_to_the_list_after_a_dialog(qtbot, demo_window):
    """With the real prompter: a message box closed by Enter leaves the keyboard in the list."""
    w = demo_window
    w.prompter = Prompter(w)
    w.prompter.after_dialog = w.focus_list
    focus(qtbot, w, w.filters.text)

    def press_enter():
        box = QApplication.activeModalWidget()
        if box is None:
            QTimer.singleShot(20, press_enter)
            return
        qtbot.keyClick(box, Qt.Key.Key_Return)

    QTimer.singleShot(20, press_enter)
    w.prompter.info("Hello", "A message the coder dismisses with Enter.")
    # The widget that has the keyboard once the window is active again (offscreen, the
    # window need not become active at once).
    qtbot.waitUntil(lambda: w.focusWidget() is w.table, timeout=2000)


def test_ctrl_t_makes_a_sub_tag_and_ctrl_shift_t_edits_it(qtbot, demo_window, prompter):
    w = demo_window
    parent = w.project.add_tag("economy", shortcut="1")
    w.refresh()
    prompter.tag_forms.append(TagForm("labour dispute", "2", "#3cb44b", "Strikes, lockouts",
                                      parent.id))
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    tag = w.project.tag_by_name("labour dispute")
    assert tag is not None and tag.parent_id == parent.id and tag.shortcut == "2"
    assert tag.description == "Strikes, lockouts" and tag.colour == "#3cb44b"
    assert w.statusBar().currentMessage() == "Added tag “labour dispute” (key 2)."
    assert w.codebook.tree.topLevelItem(0).child(0).text(1) == "labour dispute"  # nested
    # Choose it in the codebook by keyboard, then edit every field at once.
    qtbot.keyClick(w.table, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert w.codebook.tree.hasFocus()
    qtbot.keyClick(w.codebook.tree, Qt.Key.Key_Down)
    assert w.codebook.current_tag_id() == tag.id
    prompter.tag_forms.append(TagForm("strike", None, "#4363d8", "Work stoppages", None))
    qtbot.keyClick(w.codebook.tree, Qt.Key.Key_T,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    edited = w.project.tag_by_name("strike")
    assert edited is not None and edited.id == tag.id
    assert (edited.shortcut, edited.colour, edited.description, edited.parent_id) == (
        None, "#4363d8", "Work stoppages", None)
    # One undo brings the whole edit back.
    w.coding.undo()
    assert w.project.tag_by_name("labour dispute").parent_id == parent.id


def test_show_project_file_and_open_dialog_start(qtbot, demo_window, prompter):
    w = demo_window
    w.actions_by_name["show_project"].trigger()
    assert prompter.revealed == [w.project.path]
    assert w.project.path.name in w.project_label.text()
    w.actions_by_name["open_project"].trigger()
    assert prompter.asked[-1] == f"open project in {w.projects_folder}"
