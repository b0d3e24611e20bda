"""While a run reads, its figures have the status bar's room, and can be read whole."""

from __future__ import annotations

from tests.conftest import DEMO_ARCHIVE
from tests.gui.conftest import RUN_TIMEOUT_MS


def test_the_keyboard_label_gives_way_to_a_running_run_and_comes_back(qtbot, window):
    w = window
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        assert w.open_archive(DEMO_ARCHIVE)
    assert not w.keyboard_label.isHidden()
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        assert w.start_run()
        assert w.keyboard_label.isHidden()  # the run's figures need the room
    assert not w.keyboard_label.isHidden()
    assert w.run_panel.detail.text()  # the run said what it read
    assert w.run_panel.detail.toolTip() == w.run_panel.detail.text()
