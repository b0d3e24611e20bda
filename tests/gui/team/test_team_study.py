"""A whole team study in the real window, by keyboard: the lead draws a blind reliability
sample of 20 clusters and hands it out to two coders, each codes it in their copy, the
lead brings both back (twice: the second time changes nothing) and settles a
disagreement in the review queue, after reading the agreement table. Nothing either coder did is lost."""

from __future__ import annotations

import csv
from pathlib import Path

import krippendorff
from PySide6.QtCore import Qt

from tests.gui.conftest import RUN_TIMEOUT_MS
from tests.gui.team.stories import write_stories
from workbench.gui.coding.agreement_dialog import AgreementDialog
from workbench.gui.detection.sample_dialog import SampleOptions
from workbench.gui.dialogs import ExportOptions
from workbench.gui.project.team_dialogs import HandOutOptions
from workbench.store.team import coder_codes, disagreements, list_samples


def _actions(w) -> int:
    return int(w.project.reader().execute("SELECT count(*) FROM actions").fetchone()[0])


def _code_sample(qtbot, w, keys: list[Qt.Key], memo_on: int, memo: str) -> list[int]:
    """Code the sample's clusters from the top, one key each (Shift: tag and stay, then
    Down), and type a memo on the ``memo_on``-th; returns the clusters in list order."""
    w.filters.sample.setCurrentIndex(1)
    w.activateWindow()
    w.table.setFocus()
    qtbot.keyClick(w.table, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
    done = []
    for k, key in enumerate(keys):
        cid = w.selected_ids()[0]
        # Blind: nothing of anyone else on the cluster.
        assert w.project.cluster(cid).tags == () and "on the cluster:" not in \
            w.memo_pane.others.text()
        qtbot.keyClick(w.table, key, Qt.KeyboardModifier.ShiftModifier)
        if k == memo_on:
            qtbot.keyClick(w.table, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
            qtbot.keyClicks(w.memo_pane.cluster, memo)
            qtbot.keyClick(w.memo_pane.cluster, Qt.Key.Key_Escape)
        done.append(cid)
        qtbot.keyClick(w.table, Qt.Key.Key_Down)
    return done


def test_a_team_study_by_keyboard(qtbot, window, prompter, tmp_path):
    w = window
    archive = write_stories(tmp_path / "archive", 24)
    prompter.folders.append(str(archive))
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        w.actions_by_name["open_archive"].trigger()
    lead = w.project.path
    w.project.add_tag("wire", shortcut="1")
    w.project.add_tag("local", shortcut="2")
    w.refresh()
    prompter.samples.append(SampleOptions(n=20, share=None, seed=2026, stratify_by=None,
                                          include_singles=False, reliability=True, name=""))
    w.actions_by_name["draw_sample"].trigger()
    [sample] = list_samples(w.project.reader())
    assert len(sample.clusters) == 20 and sample.reliability
    out = tmp_path / "copies"
    out.mkdir()
    prompter.hand_outs.append(HandOutOptions(["Bea", "Cy"], out, only_selected=False))
    w.actions_by_name["hand_out"].trigger()
    bea, cy = (out / f"{lead.stem}-{name}.wbproj" for name in ("Bea", "Cy"))

    one, two = Qt.Key.Key_1, Qt.Key.Key_2
    assert w.open_project(bea)
    bea_done = _code_sample(qtbot, w, [one] * 20, 4, "Bea: wire copy")
    assert w.open_project(cy)
    cy_done = _code_sample(qtbot, w, [one] * 17 + [two] * 3, 4, "Cy: also wire")
    assert sorted(bea_done) == sorted(cy_done) == sorted(sample.clusters)

    assert w.open_project(lead)
    prompter.file_lists.append([str(bea), str(cy)])
    w.actions_by_name["bring_in"].trigger()
    text = prompter.infos[-1][1]
    # Every action of each coder came in: 20 tags and a memo.
    assert "Bea (" in text and "Cy (" in text and text.count("21 new actions") == 2
    codes = coder_codes(w.project, sample.clusters)
    assert {name: len(units) for name, units in codes.items()} == {"Bea": 20, "Cy": 20}
    before = _actions(w)
    prompter.file_lists.append([str(bea), str(cy)])
    w.actions_by_name["bring_in"].trigger()
    assert prompter.infos[-1][1].count("nothing new") == 2
    assert _actions(w) == before and coder_codes(w.project, sample.clusters) == codes

    # Codebook ▸ Agreement…: alpha per tag as the krippendorff package has it.
    w.actions_by_name["agreement"].trigger()
    [table] = [d for d in w.findChildren(AgreementDialog) if d.isVisible()]
    shown = {table.table.item(r, 0).text(): table.table.item(r, 1).text()
             for r in range(table.table.rowCount())}
    order = sorted(sample.clusters)
    bea_wire = [1.0] * 20
    cy_wire = [0.0 if c in cy_done[-3:] else 1.0 for c in order]
    expected = krippendorff.alpha(reliability_data=[bea_wire, cy_wire],
                                  level_of_measurement="nominal")
    assert shown["wire"] == f"{expected:.3f}"
    csv_out = tmp_path / "agreement.csv"
    prompter.folders.append(str(csv_out))
    table.csv_button.click()
    rows = list(csv.DictReader(csv_out.open(encoding="utf-8-sig")))
    assert {r["tag"] for r in rows} >= {"wire", "local"}
    prompter.folders.append(str(lead))  # never over the project itself
    table.html_button.click()
    assert prompter.errors[-1][0] == "Cannot save the agreement table"
    table.close()

    # The review queue lists the 3 disagreements; 1 settles the first on Bea's codes.
    assert {d.cluster_id for d in disagreements(w.project, sample.id)} == set(cy_done[-3:])
    w.actions_by_name["review_disagreements"].trigger()
    dialog = w.review_dialog
    first = dialog.current().cluster_id
    assert w.selected_ids() == [first]
    dialog.activateWindow()
    dialog.queue.setFocus()
    qtbot.keyClick(dialog.queue, Qt.Key.Key_1)
    assert [t.name for t in w.project.cluster(first).tags] == ["wire"]
    assert [d.settled for d in disagreements(w.project, sample.id)].count(True) == 1
    assert Path(bea).exists() and Path(cy).exists()

    # File ▸ Export with one column per coder: both coders' tags beside the settled ones.
    dialog.close()
    exported = tmp_path / "study.csv"
    prompter.exports.append(ExportOptions(exported, coded_only=True, coders=True))
    w.actions_by_name["export"].trigger()
    rows = list(csv.DictReader(exported.open(encoding="utf-8", newline="")))
    by_cluster = {int(r["cluster"]): r for r in rows if r["cluster"]}
    assert set(by_cluster) >= set(sample.clusters)  # every coded cluster, settled or not
    settled = by_cluster[first]
    assert (settled["tags_Bea"], settled["tags_Cy"], settled["tags"]) == ("wire", "local", "wire")
    for cid in sample.clusters:
        row = by_cluster[cid]
        assert row["tags_Bea"] == "wire" and row["samples"] == sample.name
        assert row["tags_Cy"] == ("local" if cid in cy_done[-3:] else "wire")
        assert row["tags"] == ("wire" if cid == first else "")
