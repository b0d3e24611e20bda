"""Status messages after coding, undo and redo (Qt-free)."""

from __future__ import annotations

from workbench.gui.coding.feedback import progress_text, tag_message, undo_message


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
