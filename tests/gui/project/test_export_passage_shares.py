"""File ▸ Export on a crawl that lost a page: the passage share cells it could not compute
are empty, and a dialog says so."""

from __future__ import annotations

import csv
import shutil

from tests.conftest import DEMO_ARCHIVE
from tests.gui.conftest import RUN_TIMEOUT_MS
from workbench.gui.dialogs import ExportOptions


def open_harbour_strike(window):
    row = next(i for i, r in enumerate(window.model.rows) if "Dock workers" in r.reference_title)
    window.select_row(row)
    return window.compare


def test_export_says_in_a_dialog_which_shares_it_could_not_compute(qtbot, window, prompter, tmp_path) -> None:
    """File ▸ Export on a crawl that lost a member's file: every row is written, and a
    dialog says why its share cells are empty."""
    crawl = tmp_path / "crawl"
    shutil.copytree(DEMO_ARCHIVE, crawl)
    prompter.folders.append(str(crawl))
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        window.actions_by_name["open_archive"].trigger()
    view = open_harbour_strike(window)
    member = view.current_member()
    assert member is not None
    source = window.project.page(member.page_id).source
    (crawl / source).unlink()
    prompter.exports.append(ExportOptions(tmp_path / "all.csv", coded_only=False))
    window.actions_by_name["export"].trigger()
    ((title, text),) = prompter.errors
    assert title == "Exported, without some passage shares"
    assert text.startswith(f"1 page could not be read again from the archive folder {crawl}")
    with open(tmp_path / "all.csv", newline="", encoding="utf-8") as f:
        rows = {r["path"]: r for r in csv.DictReader(f)}
    assert rows[source]["share_from_reference"] == ""
    assert any(r["share_from_reference"] for r in rows.values())
