"""The coding flow by keyboard: focus, coding keys from anywhere, tags, dialogs."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from tests.gui.test_window import focus_table
from workbench.gui.coding.tagform import TagForm
from workbench.gui.prompter import Prompter


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


def key_to_focus(qtbot, w, key, modifier=Qt.KeyboardModifier.NoModifier):
    """Press a key where the keyboard is (as a coder does, without choosing a widget)."""
    qtbot.keyClick(QApplication.focusWidget() or w, key, modifier)


def test_tab_moves_from_pane_to_pane(qtbot, demo_window):
    """Tab stopped on every codebook button and filter box: six Tabs from the list to
    the memo. Now one stop per pane, and Shift+Tab walks back."""
    w = demo_window
    w.select_row(1)
    focus(qtbot, w, w.filters.text)
    order = [w.table, w.codebook.tree, w.memo_pane.cluster, w.memo_pane.page,
             w.compare.members, w.compare.why, w.related_pane.list, w.compare.left.text,
             w.compare.right.text,
             w.filters.text]
    for widget in order:
        key_to_focus(qtbot, w, Qt.Key.Key_Tab)
        assert QApplication.focusWidget() is widget
    for widget in reversed(order[:-1]):
        key_to_focus(qtbot, w, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
        assert QApplication.focusWidget() is widget
    # From a filter's combo box, Tab goes on to the list.
    focus(qtbot, w, w.filters.coded)
    key_to_focus(qtbot, w, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is w.table
    assert w.selected_ids() == [w.model.row_of(1).id]


def test_ctrl_m_puts_the_keyboard_in_the_memo_and_the_status_bar_says_where_it_is(
        qtbot, demo_window):
    w = demo_window
    w.select_row(0)
    focus_table(qtbot, w)
    assert w.keyboard_label.text() == "Keys: cluster list"
    key_to_focus(qtbot, w, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
    assert w.memo_pane.cluster.hasFocus()
    assert w.keyboard_label.text() == "Keys: memo on the cluster (typing)"
    qtbot.keyClicks(w.memo_pane.cluster, "Same wire 2 S")  # letters and digits type here
    assert w.memo_pane.cluster.toPlainText() == "Same wire 2 S"
    key_to_focus(qtbot, w, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
    assert w.memo_pane.page.hasFocus()
    key_to_focus(qtbot, w, Qt.Key.Key_Escape)
    assert w.table.hasFocus() and w.keyboard_label.text() == "Keys: cluster list"
    key_to_focus(qtbot, w, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert w.keyboard_label.text() == "Keys: filter box (typing)"


def test_every_coding_key_says_what_it_did(qtbot, demo_window):
    """A letter typed where the keyboard was not what the coder thought (a filter's combo
    box) split or merged without a word; each key now says what it did, or why not."""
    w = demo_window
    w.select_row(0)
    cid = w.selected_ids()[0]
    member = w.compare.current_member()
    focus(qtbot, w, w.filters.coded)  # not a text field: coding keys act here
    key_to_focus(qtbot, w, Qt.Key.Key_X)
    assert w.statusBar().currentMessage().startswith(
        f"X: “{member.title}” is marked not this story (cluster {cid})")
    key_to_focus(qtbot, w, Qt.Key.Key_X)
    key_to_focus(qtbot, w, Qt.Key.Key_S)
    message = w.statusBar().currentMessage()
    assert message.startswith(f"S: split the page “{member.title}” out of cluster {cid} into "
                              "cluster "), message
    key_to_focus(qtbot, w, Qt.Key.Key_M)
    assert w.statusBar().currentMessage().startswith("M: nothing merged")
    key_to_focus(qtbot, w, Qt.Key.Key_N)
    shown = w.selected_ids()[0]
    assert w.statusBar().currentMessage() == f"N: cluster {shown}, the next uncoded one."
    key_to_focus(qtbot, w, Qt.Key.Key_7)
    assert w.statusBar().currentMessage() == "7: no tag has the key 7; Ctrl+T adds one."


def test_shift_digit_gives_a_second_tag_without_moving_on(qtbot, demo_window):
    w = demo_window
    assert w.actions_by_name["advance"].isChecked()  # a digit alone moves on
    w.project.add_tag("economy", shortcut="1")
    w.project.add_tag("strike", shortcut="2")
    w.refresh()
    w.select_row(0)
    cid = w.selected_ids()[0]
    focus_table(qtbot, w)
    # The digit keys' codes with Shift (on many layouts the text is "!" and '"').
    qtbot.keyClick(w.table, Qt.Key.Key_1, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(w.table, Qt.Key.Key_2, Qt.KeyboardModifier.ShiftModifier)
    assert w.selected_ids() == [cid]
    assert sorted(t.name for t in w.project.cluster(cid).tags) == ["economy", "strike"]
    assert w.statusBar().currentMessage().startswith(f"Shift+2: Tagged cluster {cid} “strike” — still here")
    qtbot.keyClick(w.table, Qt.Key.Key_2, Qt.KeyboardModifier.ShiftModifier)  # toggles off
    assert [t.name for t in w.project.cluster(cid).tags] == ["economy"]
    assert w.selected_ids() == [cid]
    # Typed in the filter box, Shift+digit is text, not a tag.
    focus(qtbot, w, w.filters.text)
    qtbot.keyClick(w.filters.text, Qt.Key.Key_2, Qt.KeyboardModifier.ShiftModifier)
    assert [t.name for t in w.project.cluster(cid).tags] == ["economy"]


def test_the_first_down_after_a_run_moves_in_the_list(qtbot, demo_window):
    """The keyboard stayed in the filter box (where it starts) through the run: the first
    Down did nothing until Escape."""
    w = demo_window
    key_to_focus(qtbot, w, Qt.Key.Key_Down)
    assert w.table.currentIndex().row() == 1 and len(w.selected_ids()) == 1
    with qtbot.waitSignal(w.run_finished, timeout=30_000):
        w.actions_by_name["rerun"].trigger()
    assert w.table.currentIndex().row() == 0
    key_to_focus(qtbot, w, Qt.Key.Key_Down)
    assert w.table.currentIndex().row() == 1 and w.selected_ids() == [w.model.row_of(1).id]


def test_down_after_filtering_to_one_row_keeps_it_selected(qtbot, demo_window):
    w = demo_window
    w.select_row(0)
    focus(qtbot, w, w.filters.text)
    qtbot.keyClicks(w.filters.text, "Dock workers")
    qtbot.waitUntil(lambda: w.model.rowCount() == 1, timeout=5000)
    only = w.model.row_of(0).id
    assert w.selected_ids() == [only] and w.compare.cluster_id == only
    key_to_focus(qtbot, w, Qt.Key.Key_Tab)
    assert w.table.hasFocus()
    key_to_focus(qtbot, w, Qt.Key.Key_Down)
    assert w.selected_ids() == [only] and w.table.currentIndex().row() == 0


def test_imported_tags_get_the_free_keys(qtbot, demo_window, prompter, tmp_path):
    w = demo_window
    w.project.add_tag("economy", shortcut="1")
    w.project.add_tag("schools", shortcut="3")
    w.refresh()
    book = tmp_path / "book.csv"
    book.write_text("name,description,colour,shortcut,parent\nstrike,,,,\nlockout,,,,\n"
                    "ferries,,,9,\nschools,,,,\n", encoding="utf-8")
    prompter.folders.append(str(book))
    w.actions_by_name["import_codebook"].trigger()
    keys = {t.name: t.shortcut for t in w.project.codebook()}
    assert keys == {"economy": "1", "schools": "3", "strike": "2", "lockout": "4", "ferries": "9"}
    assert "Keys: 2 strike, 4 lockout, 3 schools." in w.statusBar().currentMessage()
    focus_table(qtbot, w)
    w.select_row(0)
    cid = w.selected_ids()[0]
    qtbot.keyClick(w.table, Qt.Key.Key_4, Qt.KeyboardModifier.ShiftModifier)
    assert [t.name for t in w.project.cluster(cid).tags] == ["lockout"]
