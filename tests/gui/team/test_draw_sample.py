"""Detection ▸ Draw Sample… through the real window, and the list filtered to a sample."""

from __future__ import annotations

from PySide6.QtCore import Qt

from workbench.gui.detection.sample_dialog import SampleDialog, SampleOptions
from workbench.store.team import list_samples, sample_clusters


def _listed(w) -> set[int]:
    return {w.model.row_of(i).id for i in range(w.model.rowCount())}


def test_draw_a_sample_lists_it_and_ctrl_z_takes_it_back(qtbot, demo_window, prompter):
    w = demo_window
    everything = _listed(w)
    prompter.samples.append(SampleOptions(n=3, share=None, seed=7, stratify_by="size",
                                          include_singles=False, reliability=True, name=""))
    w.actions_by_name["draw_sample"].trigger()
    [sample] = list_samples(w.project.reader())
    assert sample.seed == 7 and sample.reliability and len(sample.clusters) == 3
    assert sample.rule["stratify_by"] == "size"
    # The list shows the sample's clusters only, chosen in the filter bar.
    assert w.filters.sample.isVisible()
    assert w.filters.sample.currentData() == sample.id
    assert _listed(w) == set(sample_clusters(w.project.reader(), sample.id))
    assert "seed 7" in w.statusBar().currentMessage()
    # "Any sample" lists every cluster again.
    w.filters.sample.setCurrentIndex(0)
    assert _listed(w) == everything
    w.activateWindow()
    w.table.setFocus()
    qtbot.keyClick(w.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert list_samples(w.project.reader()) == []
    assert not w.filters.sample.isVisible()


def test_a_sample_too_large_is_refused_in_a_dialog(qtbot, demo_window, prompter):
    w = demo_window
    prompter.samples.append(SampleOptions(n=100_000, share=None, seed=1, stratify_by=None,
                                          include_singles=False, reliability=False, name=""))
    w.actions_by_name["draw_sample"].trigger()
    assert prompter.errors[-1][0] == "Cannot draw the sample"
    assert "Cannot draw 100000 clusters" in prompter.errors[-1][1]


def test_the_dialog_answers_a_share_strata_and_the_seed_shown(qtbot):
    dialog = SampleDialog(clusters=200, seed=42)
    qtbot.addWidget(dialog)
    dialog.by_share.setChecked(True)
    dialog.share.setValue(10.0)
    dialog.strata.setCurrentIndex(dialog.strata.findData("month"))
    dialog.reliability.setChecked(True)
    options = dialog.options()
    assert options == SampleOptions(n=None, share=0.1, seed=42, stratify_by="month",
                                    include_singles=False, reliability=True, name="")
