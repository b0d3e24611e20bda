"""What the window asks about a run that never finished (Qt-free presenter)."""

from __future__ import annotations

from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.gui.project.opening import pending_run_question


def test_question_names_each_changed_setting_with_the_current_value():
    current = SpotSigsParams().to_dict()
    pending = dict(current, tau=0.44, min_sigs=3)
    text = pending_run_question(pending, current)
    assert f"τ 0.44 (the current run: {current['tau']})" in text
    assert f"min sigs 3 (the current run: {current['min_sigs']})" in text
    assert "idf" not in text  # unchanged settings are not listed
    assert "still shows the run before it" in text


def test_question_without_a_finished_run_says_so():
    pending = SpotSigsParams().to_dict()
    text = pending_run_question(pending, None)
    assert f"τ {pending['tau']}" in text and "no finished run yet" in text
