"""File ▸ Export on a project with a damaged text cell: the file is written and a dialog
names the damaged cell (no exception reaches the window)."""

from __future__ import annotations

import csv
import sqlite3

from workbench.gui.dialogs import ExportOptions
from workbench.gui.project.export_actions import export_csv


def test_export_names_damaged_text_in_a_dialog(demo_window, prompter, tmp_path):
    w = demo_window
    pages = sum(1 for _ in w.project.page_records(coded_only=False))
    page_id = next(iter(w.project.page_records(coded_only=False))).page_id
    conn = sqlite3.connect(w.project.path)
    conn.execute("UPDATE pages SET url = CAST(x'687474703a2f2fff' AS TEXT) WHERE id = ?", (page_id,))
    conn.commit()
    conn.close()
    out = tmp_path / "all.csv"
    assert export_csv(w, ExportOptions(out, coded_only=False)) == pages
    ((title, text),) = prompter.errors
    assert title == "Exported, with damaged text"
    assert f"pages row {page_id}, column url" in text
    with out.open(encoding="utf-8") as fh:
        assert sum(1 for _ in csv.DictReader(fh)) == pages
    # The window reads as before afterwards (a sound cell, the normal way).
    assert w.project.page(page_id + 1) is not None
