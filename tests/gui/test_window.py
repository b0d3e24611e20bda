"""The real main window, driven like a coder would: menus, keys, the store underneath."""

from __future__ import annotations

import csv

from PySide6.QtCore import QItemSelectionModel, Qt

from tests.conftest import DEMO_ARCHIVE
from tests.gui.conftest import RUN_TIMEOUT_MS
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.gui.dialogs import ExportOptions


def focus_table(qtbot, w):
    w.activateWindow()
    w.table.setFocus()
    qtbot.waitUntil(lambda: w.table.hasFocus(), timeout=2000)


def add_tag(qtbot, w, prompter, name):
    prompter.texts.append(name)
    qtbot.mouseClick(w.codebook.buttons["add"], Qt.MouseButton.LeftButton)
    tag = w.project.tag_by_name(name)
    assert tag is not None
    return tag


def row_of_size(w, size):
    return next(i for i, r in enumerate(w.model.rows) if r.size == size)


def test_open_demo_archive_lists_clusters(demo_window):
    w = demo_window
    assert w.project is not None and w.project.path.parent.name == "projects"
    assert w.project.path.name == "demo-archive.wbproj"
    assert sorted(r.size for r in w.model.rows) == [1, 2, 3, 3, 3]
    assert w.counts_label.text() == "4 clusters and 1 single page: 0 of 5 coded — 0 of 12 pages"
    assert w.coder_label.text() == "Coder: Ada Tester"
    # The first cluster is selected and shown side by side.
    assert w.compare.cluster_id == w.model.rows[0].id
    assert w.compare.left.text.toPlainText() and w.compare.right.text.toPlainText()
    assert str(w.project.path) in w.recent.items()


def stay_after_tagging(w):
    """Tests of what a key does to the selection it was pressed on: no advancing."""
    w.actions_by_name["advance"].setChecked(False)


def test_key_1_tags_selected_cluster_and_undo_redo(qtbot, demo_window, prompter):
    w = demo_window
    tag = add_tag(qtbot, w, prompter, "unions")
    assert tag.shortcut == "1"
    w.select_row(0)
    cid = w.model.rows[0].id
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_1)
    row = w.project.cluster(cid)
    assert [(t.name, t.state) for t in row.tags] == [("unions", "all")]
    assert w.counts_label.text() == (
        f"4 clusters and 1 single page: 1 of 5 coded — {row.size} of 12 pages")
    assert w.model.rows[0].tags and w.model.rows[0].coded == "all"
    # Tag and advance (on by default): the next uncoded cluster is selected, and said so.
    assert w.selected_ids() == [w.model.rows[1].id] and w.model.rows[1].coded == "none"
    assert w.statusBar().currentMessage().startswith(f"1: Tagged cluster {cid} “unions”")

    # Undo says what it undid and shows the cluster it changed, even when off-screen.
    qtbot.keyClick(w.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert w.project.cluster(cid).tags == ()
    assert ": 0 of 5 coded" in w.counts_label.text()
    assert w.selected_ids() == [cid]
    assert w.statusBar().currentMessage() == (
        f"Undid: Tag 1 cluster with unions (now showing cluster {cid}).")
    w.select_row(3)
    qtbot.keyClick(w.table, Qt.Key.Key_Z,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert [t.name for t in w.project.cluster(cid).tags] == ["unions"]
    assert w.selected_ids() == [cid] and w.statusBar().currentMessage().startswith("Redid: ")
    assert w.codebook.state_of(tag.id) == "all"
    # Pressing 1 again on a fully tagged cluster removes the tag, and stays there.
    qtbot.keyClick(w.table, Qt.Key.Key_1)
    assert w.project.cluster(cid).tags == ()
    assert w.selected_ids() == [cid]
    assert w.statusBar().currentMessage() == f"1: Removed “unions” from cluster {cid}."


def test_tag_several_selected_clusters(qtbot, demo_window, prompter):
    w = demo_window
    stay_after_tagging(w)
    tag = add_tag(qtbot, w, prompter, "local issue")
    sel = w.table.selectionModel()
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    w.select_row(0)
    sel.select(w.model.index(1, 0), flags)
    ids = w.selected_ids()
    assert len(ids) == 2
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_1)
    for cid in ids:
        assert [t.name for t in w.project.cluster(cid).tags] == ["local issue"]
    # One of two selected clusters untagged: the codebook shows "some".
    w.project.untag_clusters([ids[0]], [tag.id])
    w.refresh()
    assert w.codebook.state_of(tag.id) == "some"


def test_split_and_merge_with_keys(qtbot, demo_window):
    w = demo_window
    w.select_row(row_of_size(w, 3))
    cid = w.selected_ids()[0]
    member = w.compare.current_member()
    assert member is not None and not member.is_reference
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_S)
    assert w.project.cluster(cid).size == 2
    assert w.project.cluster_of_page(member.page_id) not in (None, cid)
    assert w.project.count_clusters() == 6
    assert w.compare.cluster_id == cid and w.compare.members.count() == 2

    new_cid = w.project.cluster_of_page(member.page_id)
    w.select_cluster(cid)
    w.table.selectionModel().select(
        w.model.index(w.model.find_row(new_cid), 0),
        QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)
    assert sorted(w.selected_ids()) == sorted([cid, new_cid])
    qtbot.keyClick(w.table, Qt.Key.Key_M)
    assert w.project.count_clusters() == 5
    merged = w.project.cluster_of_page(member.page_id)
    assert w.project.cluster(merged).size == 3
    assert w.selected_ids() == [merged]

    qtbot.keyClick(w.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert w.project.count_clusters() == 6
    qtbot.keyClick(w.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert w.project.count_clusters() == 5
    assert w.project.cluster(cid).size == 3


def test_merge_needs_two_clusters(qtbot, demo_window):
    w = demo_window
    w.select_row(0)
    w.coding.merge_selected()
    assert w.project.count_clusters() == 5
    assert w.statusBar().currentMessage().startswith("M: nothing merged: select two or more")


def test_split_refuses_reference(qtbot, demo_window):
    w = demo_window
    w.select_row(row_of_size(w, 1))
    w.coding.split_member()
    assert w.project.count_clusters() == 5


def test_export_and_read_back(qtbot, demo_window, prompter, tmp_path):
    w = demo_window
    add_tag(qtbot, w, prompter, "feminism")
    w.select_row(0)
    cid = w.selected_ids()[0]
    size = w.model.rows[0].size
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_1)
    out = tmp_path / "out" / "tagged.csv"
    out.parent.mkdir()
    prompter.exports.append(ExportOptions(out, coded_only=True, wide=True))
    qtbot.keyClick(w.table, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == size
    assert {r["cluster"] for r in rows} == {str(cid)}
    assert {r["tags"] for r in rows} == {"feminism"}
    assert {r["coder"] for r in rows} == {"Ada Tester"}
    assert {r["tag_feminism"] for r in rows} == {"1"}
    assert sum(r["is_reference"] == "1" for r in rows) == 1
    assert all(r["path"].endswith(".html") for r in rows)
    assert out.with_name("tagged.run.json").exists()
    assert "Exported" in w.statusBar().currentMessage()


def test_next_uncoded_and_filters(qtbot, demo_window, prompter):
    w = demo_window
    stay_after_tagging(w)
    add_tag(qtbot, w, prompter, "unions")
    w.select_row(0)
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_1)
    qtbot.keyClick(w.table, Qt.Key.Key_N)
    assert w.table.currentIndex().row() == 1
    assert w.selected_rows()[0].coded == "none"
    # Coded filter, then the text filter (typed digits go into the field, not to tags).
    w.filters.coded.setCurrentIndex(3)  # "Coded"
    assert [r.coded for r in w.model.rows] == ["all"]
    w.filters.coded.setCurrentIndex(0)
    w.filters.text.setFocus()
    qtbot.keyClicks(w.filters.text, "harbour 1")
    assert w.filters.text.text() == "harbour 1"
    w.filters.text.setText("Dock workers")
    w._apply_filters()
    assert w.model.rowCount() == 1 and "Dock" in w.model.rows[0].reference_title
    w.filters.text.setText("")
    w.filters.size.setValue(2)
    w._apply_filters()
    assert sorted(r.size for r in w.model.rows) == [2, 3, 3, 3]


def test_tag_filter_and_single_pages_view(qtbot, demo_window, prompter):
    w = demo_window
    stay_after_tagging(w)
    add_tag(qtbot, w, prompter, "unions")
    add_tag(qtbot, w, prompter, "schools")
    assert [w.filters.tag.itemText(i) for i in range(w.filters.tag.count())] == [
        "Any tag", "unions", "schools"]
    w.select_row(1)
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_2)
    tagged = w.selected_ids()
    w.filters.tag.setCurrentIndex(2)  # "schools"
    assert [r.id for r in w.model.rows] == tagged
    w.filters.tag.setCurrentIndex(1)  # "unions": nothing carries it yet
    assert w.model.rowCount() == 0
    w.filters.tag.setCurrentIndex(0)
    w.filters.singles.setChecked(True)
    assert [r.size for r in w.model.rows] == [1]  # the demo's one story with no copy
    w.filters.singles.setChecked(False)
    assert w.model.rowCount() == 5


def test_sorting_by_columns(qtbot, demo_window):
    w = demo_window
    w.table.sortByColumn(4, Qt.SortOrder.AscendingOrder)  # reference title
    titles = [r.reference_title for r in w.model.rows]
    assert titles == sorted(titles, key=str.casefold)
    w.table.sortByColumn(1, Qt.SortOrder.AscendingOrder)  # size, ascending: done in Python
    assert [r.size for r in w.model.rows] == [1, 2, 3, 3, 3]
    w.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)  # id: the store's own order, lazy
    ids = [r.id for r in w.model.rows]
    assert ids == sorted(ids)


def test_page_down_steps_members(qtbot, demo_window):
    w = demo_window
    w.select_row(row_of_size(w, 3))
    assert w.compare.members.currentRow() == 1
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_PageDown)
    assert w.compare.members.currentRow() == 2
    qtbot.keyClick(w.table, Qt.Key.Key_PageUp)
    assert w.compare.members.currentRow() == 1
    qtbot.keyClick(w.table, Qt.Key.Key_PageUp)
    assert w.compare.members.currentRow() == 1  # the reference is always on the left


def test_codebook_rename_recolour_delete(qtbot, demo_window, prompter):
    w = demo_window
    tag = add_tag(qtbot, w, prompter, "unions")
    w.select_row(0)
    w.coding.toggle_tag(tag.id)
    w.codebook.tree.setCurrentItem(w.codebook.tree.topLevelItem(0))
    prompter.texts.append("labour")
    qtbot.mouseClick(w.codebook.buttons["rename"], Qt.MouseButton.LeftButton)
    assert w.project.tag_by_name("labour") is not None
    prompter.colours.append("#123456")
    qtbot.mouseClick(w.codebook.buttons["colour"], Qt.MouseButton.LeftButton)
    assert w.project.tag_by_name("labour").colour == "#123456"
    # Deleting a used tag asks first; "no" keeps it.
    prompter.confirms.append(False)
    qtbot.mouseClick(w.codebook.buttons["delete"], Qt.MouseButton.LeftButton)
    assert "Delete Tag" in prompter.asked
    assert w.project.tag_by_name("labour") is not None
    prompter.confirms.append(True)
    qtbot.mouseClick(w.codebook.buttons["delete"], Qt.MouseButton.LeftButton)
    assert w.project.tag_by_name("labour") is None
    assert w.project.cluster(w.model.rows[0].id).tags == ()
    w.coding.undo()
    assert w.project.tag_by_name("labour") is not None


def test_duplicate_tag_name_is_a_message(qtbot, demo_window, prompter):
    w = demo_window
    add_tag(qtbot, w, prompter, "unions")
    prompter.texts.append("unions")
    qtbot.mouseClick(w.codebook.buttons["add"], Qt.MouseButton.LeftButton)
    assert prompter.errors and "already has a tag" in prompter.errors[-1][1]


def test_rerun_with_new_settings_keeps_tags(qtbot, demo_window, prompter):
    w = demo_window
    tag = add_tag(qtbot, w, prompter, "unions")
    w.select_row(0)
    pages = [m.page_id for m in w.project.members(w.selected_ids()[0])]
    w.coding.toggle_tag(tag.id)
    prompter.params.append(SpotSigsParams(tau=0.3))
    first_run = w.project.current_run().id
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        w.actions_by_name["settings"].trigger()
    run = w.project.current_run()
    assert run.id != first_run and run.params["tau"] == 0.3
    for pid in pages:
        assert [t.name for t in w.project.page(pid).tags] == ["unions"]


def test_skipped_files_dialog_lists_reasons(qtbot, window, prompter, tmp_path):
    archive = tmp_path / "crawl"
    archive.mkdir()
    for p in DEMO_ARCHIVE.glob("*/*.html"):
        (archive / f"{p.parent.name}-{p.name}").write_bytes(p.read_bytes())
    (archive / "empty.html").write_bytes(b"")
    (archive / "tiny.html").write_text("<p>Too short.</p>")
    (archive / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        window.open_archive(archive)
    window.actions_by_name["skipped"].trigger()
    title, rows = prompter.lists[-1]
    reasons = dict(rows)
    assert title == "Skipped Files"
    assert reasons["empty.html"] == "empty file"
    assert "too little text" in reasons["tiny.html"]
    assert "not a web page" in reasons["logo.png"]


def test_reopening_the_archive_reuses_its_project(qtbot, demo_window, prompter):
    w = demo_window
    path = w.project.path
    add_tag(qtbot, w, prompter, "unions")
    assert w.open_archive(DEMO_ARCHIVE)  # has a run: no new run starts
    assert w.job is None and w.project.path == path
    assert w.project.tag_by_name("unions") is not None
    # Open Project… and the recent list reach the same file.
    prompter.folders.append(str(path))
    w.actions_by_name["open_project"].trigger()
    assert w.project.path == path
    assert w.recent_menu.actions()[0].text() == str(path)


def test_missing_folder_is_a_message(window, prompter, tmp_path):
    assert not window.open_archive(tmp_path / "nope")
    assert prompter.errors and "does not exist" in prompter.errors[-1][1]


def test_help_and_about(demo_window, prompter):
    demo_window.actions_by_name["shortcuts"].trigger()
    demo_window.actions_by_name["about"].trigger()
    assert "shortcuts" in prompter.asked and any("About" in a for a in prompter.asked)


def test_first_start_asks_for_coder(qtbot, tmp_path, prompter):
    from PySide6.QtCore import QSettings

    from workbench.gui.app import make_window

    settings = QSettings(str(tmp_path / "fresh.ini"), QSettings.Format.IniFormat)
    prompter.texts.append("Grace Coder")
    w = make_window(settings, prompter, projects_folder=tmp_path / "p", workers=1)
    qtbot.addWidget(w)
    assert w.coder == "Grace Coder" and settings.value("coder") == "Grace Coder"
    assert prompter.asked == ["Welcome"]
    w2 = make_window(settings, prompter, projects_folder=tmp_path / "p", workers=1)
    qtbot.addWidget(w2)
    assert prompter.asked == ["Welcome"]  # asked once only


def test_layout_is_remembered(qtbot, window, settings, prompter, tmp_path):
    from workbench.gui.app import make_window

    # The offscreen screen is 800 px wide; restoreGeometry() clamps to it, so check the height.
    window.resize(900, 640)
    window.main_splitter.setSizes([300, 500])
    window.save_layout()
    w2 = make_window(settings, prompter, projects_folder=tmp_path / "projects", workers=1)
    qtbot.addWidget(w2)
    w2.show()
    assert w2.size().height() == 640
    assert abs(w2.main_splitter.sizes()[0] - window.main_splitter.sizes()[0]) <= 2


def test_project_file_path_is_named_after_archive(tmp_path):
    from workbench.gui.project.locations import project_for_archive
    from workbench.store import Project

    folder = tmp_path / "projects"
    folder.mkdir()
    path, exists = project_for_archive(DEMO_ARCHIVE, folder)
    assert (path.name, exists) == ("demo-archive.wbproj", False)
    Project.create(path, str(tmp_path / "elsewhere" / "demo-archive")).close()
    other, exists = project_for_archive(DEMO_ARCHIVE, folder)
    assert (other.name, exists) == ("demo-archive-2.wbproj", False)
    Project.create(other, str(DEMO_ARCHIVE.resolve())).close()
    assert project_for_archive(DEMO_ARCHIVE, folder) == (other, True)


def test_markup_in_a_page_is_shown_as_text_never_rendered(qtbot, window, tmp_path):
    archive = tmp_path / "hostile"
    archive.mkdir()
    body = " ".join(f"The council said the harbour strike was over and the workers went back {i}."
                    for i in range(30))
    for name in ("a", "b"):
        (archive / f"{name}.html").write_text(
            "<html><head><title>&lt;img src=&quot;http://example.invalid/x.png&quot;&gt; Strike"
            f"</title></head><body><p>{body}</p></body></html>", encoding="utf-8")
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        window.open_archive(archive)
    window.select_row(0)
    title = window.model.rows[0].reference_title
    assert title.startswith('<img src="http://example.invalid')
    tip = window.model.data(window.model.index(0, 4), Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("<qt>&lt;img src=&quot;http://example.invalid")
    assert "&lt;img src=" in window.compare.left.header.text()
    assert "<img" not in window.compare.left.header.text()


def test_keys_work_with_focus_in_a_page_pane(qtbot, demo_window, prompter):
    w = demo_window
    stay_after_tagging(w)
    add_tag(qtbot, w, prompter, "unions")
    w.select_row(row_of_size(w, 3))
    cid = w.selected_ids()[0]
    w.activateWindow()
    w.compare.right.text.setFocus()
    qtbot.waitUntil(lambda: w.compare.right.text.hasFocus(), timeout=2000)
    qtbot.keyClick(w.compare.right.text, Qt.Key.Key_1)
    assert [t.name for t in w.project.cluster(cid).tags] == ["unions"]
    qtbot.keyClick(w.compare.right.text, Qt.Key.Key_PageDown)
    assert w.compare.members.currentRow() == 2
    qtbot.keyClick(w.compare.right.text, Qt.Key.Key_S)
    assert w.project.cluster(cid).size == 2


def test_save_project_as_copies_and_switches(qtbot, demo_window, prompter, tmp_path):
    w = demo_window
    add_tag(qtbot, w, prompter, "unions")
    old = w.project.path
    target = tmp_path / "elsewhere" / "study"
    target.parent.mkdir()
    prompter.folders.append(str(target))
    w.actions_by_name["save_as"].trigger()
    assert w.project.path == target.with_suffix(".wbproj")
    assert w.project.tag_by_name("unions") is not None and w.project.count_clusters() == 5
    assert old.exists()


def _drop(window, path):
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    enter = QDragEnterEvent(window.rect().center(), Qt.DropAction.CopyAction, mime,
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    window.dragEnterEvent(enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(window.rect().center()), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    window.dropEvent(drop)


def test_dropping_a_folder_opens_it_and_dropping_the_project_reopens_it(qtbot, window):
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        _drop(window, DEMO_ARCHIVE)
    assert window.project.archive_root == str(DEMO_ARCHIVE)
    assert window.model.rowCount() == 5
    project_file = window.project.path
    window.project.close()
    window.project = None
    window.refresh()
    _drop(window, project_file)
    assert window.project is not None and window.project.path == project_file
    assert window.model.rowCount() == 5
