"""Blind coding in the real window: on a reliability sample's clusters a coder sees only
their own codes and memos, never another coder's."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from workbench.gui.coding.memopane import SAVE_AFTER_MS
from workbench.gui.detection.sample_dialog import SampleOptions
from workbench.gui.project.team_dialogs import HandOutOptions
from workbench.store.team import coder_codes


def _hand_out(w, prompter, coders: list[str], out: Path) -> list[Path]:
    prompter.hand_outs.append(HandOutOptions(coders, out, only_selected=False))
    w.actions_by_name["hand_out"].trigger()
    return [out / f"{w.project.path.stem}-{name}.wbproj" for name in coders]


def _first_of_sample(qtbot, w) -> int:
    """By keyboard: the first cluster of the sample (the filter bar shows only it)."""
    w.filters.sample.setCurrentIndex(1)
    w.activateWindow()
    w.table.setFocus()
    qtbot.keyClick(w.table, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
    return w.selected_ids()[0]


def _code_by_keyboard(qtbot, w, memo: str) -> int:
    cid = _first_of_sample(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_1, Qt.KeyboardModifier.ShiftModifier)  # tag, stay
    qtbot.keyClick(w.table, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(w.memo_pane.cluster, memo)
    qtbot.keyClick(w.memo_pane.cluster, Qt.Key.Key_Escape)  # saves, back to the list
    return cid


def test_coder_a_does_not_see_coder_b_on_a_reliability_cluster(qtbot, demo_window, prompter,
                                                               tmp_path):
    w = demo_window
    lead = w.project.path
    w.project.add_tag("wire", shortcut="1")
    w.project.add_tag("local", shortcut="2")
    prompter.samples.append(SampleOptions(n=4, share=None, seed=3, stratify_by=None,
                                          include_singles=False, reliability=True, name=""))
    w.actions_by_name["draw_sample"].trigger()
    out = tmp_path / "copies"
    out.mkdir()
    [bea] = _hand_out(w, prompter, ["Bea"], out)

    # Bea codes her blind copy by keyboard: a tag and a memo on the sample's first cluster.
    assert w.open_project(bea)
    cid = _code_by_keyboard(qtbot, w, "Bea thinks wire")
    qtbot.wait(SAVE_AFTER_MS + 100)
    assert [m.text for m in w.project.memos(cid)] == ["Bea thinks wire"]
    assert [t.name for t in w.project.cluster(cid).tags] == ["wire"]

    # The lead brings Bea's work in, then hands out to Cy.
    assert w.open_project(lead)
    prompter.file_lists.append([str(bea)])
    w.actions_by_name["bring_in"].trigger()
    assert coder_codes(w.project, [cid])  # Bea's codes are in the lead's project
    [cy] = _hand_out(w, prompter, ["Cy"], out)

    # In the lead's project a coder other than Bea sees none of Bea's memos there.
    w.set_coder("Cy")
    assert _first_of_sample(qtbot, w) == cid
    assert "Bea" not in w.memo_pane.others.text()
    assert "coded blind" in w.memo_pane.others.text()
    assert w.memo_pane.cluster.toPlainText() == ""

    # Cy's copy: no trace of Bea on the cluster, neither codes nor memos.
    assert w.open_project(cy)
    assert _first_of_sample(qtbot, w) == cid
    assert w.project.cluster(cid).tags == ()
    assert w.model.row_of(w.table.currentIndex().row()).tags == ()
    assert "Bea" not in w.memo_pane.others.text()
    assert w.memo_pane.cluster.toPlainText() == ""
    # Cy codes differently, by keyboard; their own memo is theirs to see.
    _code_by_keyboard(qtbot, w, "Cy: local story")
    w.select_cluster(cid)
    assert w.memo_pane.cluster.toPlainText() == "Cy: local story"
    assert "Bea" not in w.memo_pane.others.text()


def test_outside_samples_other_coders_memos_still_show(qtbot, demo_window):
    w = demo_window
    w.select_row(0)
    cid = w.selected_ids()[0]
    w.project.use_coder("Bea")
    w.project.set_memo(cluster_id=cid, text="Bea's note")
    w.set_coder("Ada Tester")
    w.select_row(1)
    w.select_row(0)
    assert "Bea on the cluster: Bea's note" in w.memo_pane.others.text()
