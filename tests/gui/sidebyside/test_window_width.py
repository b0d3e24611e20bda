"""Opening a page never widens the window past the width it was given: a header wraps
to its pane, and a run without a space (a long URL or title) is shortened in the middle
there, whole in the tooltip (before: 1,600 px given, 5,955 px after opening such a page)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from tests.gui.conftest import RUN_TIMEOUT_MS  # noqa: E402
from tests.gui.test_window import focus_table  # noqa: E402
from workbench.gui.long_words import shorten_long_words  # noqa: E402
from workbench.store import Project  # noqa: E402

BODY = " ".join(f"The council said the harbour strike was over and the workers went back {i}."
                for i in range(30))
URL = "http://www.example.org/" + "a/very/long/path/segment/" * 30 + "story-"
TITLE = "Harbour strike " + "averyveryverylongwordwithoutanyspaces" * 3 + " " + "x" * 400


def _settle() -> None:
    """Let layout requests climb from the header to the window (one level a round): no
    condition to wait for, as nothing may change."""
    for _ in range(12):
        QApplication.sendPostedEvents()
        QApplication.processEvents()


def _long_archive(tmp_path):
    archive = tmp_path / "long"
    archive.mkdir()
    for name in ("a", "b", "c"):
        (archive / f"{name}.html").write_text(
            f"<html><head><title>{TITLE} {name}</title>"
            f"<link rel=canonical href='{URL}{name}.html'></head>"
            f"<body><h1>{TITLE}</h1><p>{BODY}</p></body></html>", encoding="utf-8")
    return archive


def test_the_window_keeps_its_width_after_pages_with_long_titles_and_urls_open(
        qtbot, window, tmp_path):
    w = window
    w.resize(1600, 1000)
    qtbot.waitUntil(lambda: w.width() == 1600, timeout=2000)
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        w.open_archive(_long_archive(tmp_path))
    w.select_row(0)
    _settle()
    assert w.width() == 1600
    assert w.compare.members.count() == 3
    focus_table(qtbot, w)
    for _ in range(2):  # every member in turn
        qtbot.keyClick(w.table, Qt.Key.Key_PageDown)
        _settle()
        assert w.width() == 1600
        assert w.minimumSizeHint().width() <= 1600
    header = w.compare.right.header
    tip = header.toolTip()  # the title as read (titles are kept up to 500 characters)
    assert URL in tip and "x" * 300 in tip
    assert "…" in header.text() and "x" * 300 not in header.text() and URL not in header.text()


def test_a_long_run_is_shortened_in_the_middle_and_the_rest_kept():
    shown = shorten_long_words(f"Seen at {URL}a.html today", longest=20)
    assert shown == "Seen at http://www…ry-a.html today"
    assert len(shown.split()[2]) == 20
    assert shorten_long_words("short words stay as they are") == "short words stay as they are"


def test_a_project_file_with_a_long_name_does_not_widen_the_window(qtbot, window, tmp_path):
    w = window
    w.resize(1600, 1000)
    qtbot.waitUntil(lambda: w.width() == 1600, timeout=2000)
    path = tmp_path / ("The harbour strike study, coded by the whole team in spring " * 3
                       + ".wbproj")
    Project.create(path, str(tmp_path)).close()
    assert w.open_project(path)
    _settle()
    assert w.width() == 1600
    assert w.project_label.text().endswith("spring .wbproj") and "…" in w.project_label.text()
    assert str(path) in w.project_label.toolTip()


def test_a_run_s_growing_counts_do_not_widen_the_window(qtbot, window) -> None:
    # The run panel's counts grew with a run (MB, pages, signatures, pairs, clusters):
    # 1,600 px given became 1,753 on the dev Gold Set.
    w = window
    w.resize(1600, 1000)
    qtbot.waitUntil(lambda: w.width() == 1600, timeout=2000)
    panel = w.run_panel
    panel.show()
    panel.counts = {"signatures": 9_876_543_210, "pairs": 9_876_543_210, "clusters": 9_876_543}
    panel.tasks = (123_456, 234_567)
    panel.on_progress("extract", 9_876_543_210, 19_876_543_210)
    assert "123,456 of 234,567 tasks done" in panel.detail.toolTip()  # whole, when cut
    panel.detail.setText(panel.detail.text() + " · " + "much more to say " * 40)
    _settle()
    assert w.width() == 1600


def test_a_laptop_screen_holds_the_window_with_a_page_open(qtbot, window, tmp_path):
    """The side-by-side colour legend wraps and the status bar's counts are cut at its
    edge: with a page open, the window asked for 1,382 px before on the dev Gold Set (the
    legend alone about 890), wider than a 1,366-px laptop screen."""
    w = window
    w.resize(1600, 1000)
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        w.open_archive(_long_archive(tmp_path))
    w.select_row(0)
    _settle()
    assert w.compare.members.count() == 3
    # Room for a 1,024-px screen (before: 1,276 px here, 1,382 on the dev Gold Set).
    assert w.minimumSizeHint().width() <= 1000
    w.resize(1000, 740)
    _settle()
    assert w.width() == 1000
    # The counts are whole in their tooltip when cut.
    assert w.counts_label.toolTip() == w.counts_label.text()
