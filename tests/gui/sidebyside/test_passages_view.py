"""Reused passages in the side-by-side view: the share sentence and the bands beside the text."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor

from tests.conftest import DEMO_ARCHIVE
from workbench.archive import scan
from workbench.detect.spotsigs.extract import extract_text
from workbench.detect.spotsigs.signatures import page_spots
from workbench.gui.sidebyside.pagetext import PageText
from workbench.gui.sidebyside.passagemarks import bands, share_sentence
from workbench.gui.sidebyside.passagestrip import passage_colour
from workbench.text.passages import align
from workbench.text.tokenize import tokenize


def compared_words(path, params) -> list[str]:
    """The page's compared words, found apart from the view."""
    return page_spots(extract_text(next(scan(path)))[0], params).tokens.words


def open_harbour_strike(window):
    row = next(i for i, r in enumerate(window.model.rows) if "Dock workers" in r.reference_title)
    window.select_row(row)
    return window.compare


def test_bands_are_cut_at_the_kept_blocks() -> None:
    text = "alpha beta gamma\nmenu menu\ndelta epsilon"
    kept = [(0, 16), (27, 40)]  # the menu line between was not compared
    tokens = tokenize(text, 0, 16)
    rest = tokenize(text, 27, 40)
    tokens.words += rest.words
    tokens.starts += rest.starts
    tokens.ends += rest.ends
    page = PageText(text, "", tokens, [], kept=kept)
    found = bands(page, [(1, 5, 0)])  # "beta" to "epsilon", across the menu
    assert [(text[b.start : b.end], b.passage) for b in found] == [("beta gamma", 0), ("delta epsilon", 0)]


def test_the_view_shows_the_share_sentence_and_draws_bands(qtbot, demo_window) -> None:
    view = open_harbour_strike(demo_window)
    ref, member = view.reference(), view.current_member()
    assert member is not None and member.page_id != ref.page_id
    project = demo_window.project
    expected = align(compared_words(DEMO_ARCHIVE / project.page(ref.page_id).source, view.params),
                     compared_words(DEMO_ARCHIVE / project.page(member.page_id).source, view.params))
    assert expected.passages, "the demo's harbour-strike copies share passages"

    note = view.right.passage_note
    assert note.isVisible() and note.text() == share_sentence(expected)
    assert note.text().endswith("of the reference.")
    assert " % of this page is the reference's text" in note.text()
    assert view.left.passage_note.text() == (
        f"{len(expected.passages)} passage{'s' if len(expected.passages) > 1 else ''} on both pages "
        f"(bands beside the text): {expected.a_covered} of its {expected.a_words} compared words.")
    # One band (or more, across blocks) per passage in each pane, numbered alike.
    for pane in (view.left, view.right):
        assert {b.passage for b in pane.bands} == set(range(len(expected.passages)))
    # Each member band is the passage's words, as the pane shows them.
    shown = view.right.text.toPlainText().lower()
    first = expected.passages[0]
    words_shown = [w for lo, hi, k in view.right.strip.bands if k == 0 for w in tokenize(shown[lo:hi]).words]
    right_words = compared_words(DEMO_ARCHIVE / project.page(member.page_id).source, view.params)
    assert words_shown == right_words[first.b_start : first.b_end]

    # The strip paints the passage's colour beside its lines, and nothing beside others.
    for pane in (view.left, view.right):
        lines = pane.strip.line_bands()
        assert lines, "a passage is in view when the member opens"
        image = pane.strip.grab().toImage()
        top, bottom, passage = lines[0]
        middle = image.pixel(pane.strip.width() // 2, (top + bottom) // 2)
        assert QColor(middle) == QColor(passage_colour(passage))
        covered = {y for t, b, _ in lines for y in range(t, b)}
        free = next((y for y in range(2, image.height() - 2) if y not in covered), None)
        if free is not None:
            assert QColor(image.pixel(pane.strip.width() // 2, free)) != QColor(passage_colour(0))

    # Clicking a band shows that passage in both panes.
    top, bottom, passage = view.right.strip.line_bands()[-1]
    qtbot.mouseClick(view.right.strip, Qt.MouseButton.LeftButton, pos=QPoint(3, (top + bottom) // 2))
    chosen = expected.passages[passage]
    right_selected = tokenize(view.right.text.textCursor().selectedText()).words
    assert right_selected[:3] == right_words[chosen.b_start : chosen.b_start + 3]
    assert view.left.text.textCursor().hasSelection()


def test_source_and_the_reference_alone_show_no_passages(demo_window) -> None:
    view = open_harbour_strike(demo_window)
    assert view.right.strip.bands
    view.show_source.setChecked(True)
    assert view.right.strip.bands == [] and view.left.strip.bands == []
    view.show_source.setChecked(False)
    assert view.right.strip.bands
    view.members.setCurrentRow(0)  # the reference alone
    assert view.left.strip.bands == [] and not view.right.passage_note.isVisible()


def test_the_whole_page_keeps_the_bands_on_the_compared_text(demo_window) -> None:
    view = open_harbour_strike(demo_window)
    view.show_whole.setChecked(True)
    text = view.right.text.toPlainText()
    page = view.right.page
    assert page is not None
    for start, end, _ in view.right.strip.bands:
        assert any(lo <= start and end <= hi for lo, hi in page.kept), "no band over text not compared"
        assert text[start:end].strip()

