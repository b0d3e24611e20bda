"""Codebook ▸ Import in the window: the file is read on a worker thread, and a file over the
bounds is refused in a dialog before anything changes."""

from __future__ import annotations

import threading

from tests.export.test_codebook_bounds import csv_codebook, qdc_codebook
from workbench.store.coding.codebook import MAX_IMPORT_TAGS


def test_the_file_is_read_off_the_gui_thread(qtbot, demo_window, prompter, tmp_path):
    w = demo_window
    reader = w.tag_actions.reader
    reader.run_here = False  # as in the app (the other GUI tests read on their own thread)
    prompter.folders.append(str(csv_codebook(tmp_path / "book.csv", 3)))
    # ``settled`` is emitted on the GUI thread, once the worker's result was handled there.
    with qtbot.waitSignal(reader.settled, timeout=30_000):
        w.actions_by_name["import_codebook"].trigger()
    job = reader.last
    assert job.thread_id is not None and job.thread_id != threading.get_ident()
    assert {t.name for t in w.project.codebook()} == {"tag 0", "tag 1", "tag 2"}
    assert "Imported 3 tags" in w.statusBar().currentMessage()


def test_too_many_codes_are_refused_in_a_dialog(qtbot, demo_window, prompter, tmp_path):
    w = demo_window
    w.project.add_tag("kept")
    prompter.folders.append(str(qdc_codebook(tmp_path / "huge.qdc", MAX_IMPORT_TAGS + 1)))
    w.actions_by_name["import_codebook"].trigger()
    ((title, text),) = prompter.errors
    assert title == "Cannot import the codebook"
    assert f"holds {MAX_IMPORT_TAGS + 1:,} tags or more" in text and "Nothing was imported" in text
    assert [t.name for t in w.project.codebook()] == ["kept"]
