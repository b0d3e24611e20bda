"""Status messages after coding, undo and redo (Qt-free)."""

from __future__ import annotations

from workbench.gui.coding.feedback import progress_text, run_done_message, tag_message, undo_message


def test_tag_message_says_what_where_and_whether_it_moved_on():
    assert tag_message("unions", [7], True, True) == (
        "Tagged cluster 7 “unions” — on to the next uncoded cluster.")
    assert tag_message("unions", [7, 9], False, False) == "Removed “unions” from 2 clusters."


def test_undo_message_names_the_action_and_what_is_shown():
    assert undo_message("Undid", "Split 1 page out of cluster 4", [4]) == (
        "Undid: Split 1 page out of cluster 4 (now showing cluster 4).")
    assert undo_message("Redid", "Tag 2 clusters with unions", []) == (
        "Redid: Tag 2 clusters with unions.")
    assert undo_message("Undid", None, []) == "Nothing to undo."


def test_progress_text_separates_clusters_from_single_pages():
    assert progress_text(0, 58, 14, 0, 102) == (
        "44 clusters and 14 single pages: 0 of 58 coded — 0 of 102 pages")
    assert progress_text(1, 2, 1, 3, 4) == "1 cluster and 1 single page: 1 of 2 coded — 3 of 4 pages"


def test_run_done_message_says_what_was_found_skipped_and_carried():
    assert run_done_message(2.04, 12, 10, 4, 1, 0) == (
        "Detection done in 2.0 s: 12 pages, 10 pairs, 4 clusters and 1 single page; "
        "nothing skipped.")
    assert run_done_message(1.0, 1, 1, 1, 2, 3, " Worth knowing.", "tags stayed on their pages") == (
        "Detection done in 1.0 s: 1 page, 1 pair, 1 cluster and 2 single pages; 3 files or "
        "records gave no page to compare (File ▸ Skipped Files says why). Worth knowing. "
        "Your tags stayed on their pages.")

