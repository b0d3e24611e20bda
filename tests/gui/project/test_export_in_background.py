"""File ▸ Export runs on a worker thread: the run panel shows the rows written, and
Cancel stops it leaving the CSV that was there (and its sidecar) as it was."""

from __future__ import annotations

import threading

import pytest

from tests.gui.conftest import RUN_TIMEOUT_MS
from workbench.export import pages as export_pages_module
from workbench.gui.dialogs import ExportOptions

pytest.importorskip("pytestqt")


@pytest.fixture
def background(demo_window):
    demo_window.exporter.run_here = False
    return demo_window


def _watch_cells(monkeypatch, gate: threading.Event | None = None) -> list[int]:
    """Record the thread each row's share cells are computed on; with ``gate``, the
    second row waits for it (so the test can cancel while the export is under way)."""
    threads: list[int] = []
    real = export_pages_module.PassageColumns.cells

    def cells(self, rec):
        threads.append(threading.get_ident())
        if gate is not None and len(threads) == 2:
            gate.wait(30)
        return real(self, rec)

    monkeypatch.setattr(export_pages_module.PassageColumns, "cells", cells)
    return threads


def test_export_runs_on_a_worker_and_reports_its_rows(qtbot, background, prompter, tmp_path,
                                                      monkeypatch):
    w = background
    threads = _watch_cells(monkeypatch)
    shown: list[str] = []
    w.run_panel.progress_shown.connect(shown.append)
    out = tmp_path / "all.csv"
    prompter.exports.append(ExportOptions(out, coded_only=False))
    with qtbot.waitSignal(w.exporter.exported, timeout=RUN_TIMEOUT_MS) as done:
        w.actions_by_name["export"].trigger()
        assert w.job is not None and w.run_panel.isVisible()  # the window goes on meanwhile
    result = done.args[0]
    pages = len(list(w.project.page_records(coded_only=False)))
    assert result.rows == pages and len(threads) == pages
    assert threading.get_ident() not in threads, "the rows were written off the GUI thread"
    assert "export" in shown
    assert w.run_panel.detail.text() == f"{pages:,} of {pages:,} rows"
    assert w.job is None and not w.run_panel.isVisible()
    assert w.statusBar().currentMessage() == f"Exported {pages:,} rows to {out}"
    assert len(out.read_text(encoding="utf-8").splitlines()) == pages + 1


def test_cancel_leaves_the_old_export_as_it_was(qtbot, background, prompter, tmp_path,
                                                monkeypatch):
    w = background
    out = tmp_path / "all.csv"
    sidecar = tmp_path / "all.csv.run.json"
    out.write_text("the export of last week\r\n", encoding="utf-8")
    sidecar.write_text("{}", encoding="utf-8")
    gate = threading.Event()
    _watch_cells(monkeypatch, gate)
    prompter.exports.append(ExportOptions(out, coded_only=False))
    try:
        with qtbot.waitSignal(w.run_panel.progress_shown, timeout=RUN_TIMEOUT_MS):
            w.actions_by_name["export"].trigger()
        assert w.run_panel.stage.text() == "Exporting"
        with qtbot.waitSignal(w.exporter.stopped, timeout=RUN_TIMEOUT_MS):
            w.run_panel.cancel.click()
            gate.set()
    finally:
        gate.set()
    assert out.read_bytes() == b"the export of last week\r\n"
    assert sidecar.read_text(encoding="utf-8") == "{}"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".all.csv")) == []
    assert w.job is None and not w.run_panel.isVisible()
    assert w.statusBar().currentMessage().startswith("Export cancelled; nothing was written.")
    assert prompter.errors == []
