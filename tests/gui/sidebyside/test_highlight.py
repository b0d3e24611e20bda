"""Spot signature highlighting in the side-by-side panes."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont

from tests.conftest import DEMO_ARCHIVE
from workbench.archive import scan
from workbench.detect.spotsigs.extract import extract_text
from workbench.detect.spotsigs.hashing import chain_id, signature_id
from workbench.detect.spotsigs.signatures import Spot, page_spots
from workbench.gui.sidebyside.pagetext import PageText, highlight_spans, utf16_positions
from workbench.gui.sidebyside.view import OWN_COLOUR, SHARED_COLOUR, PagePane
from workbench.text.tokenize import tokenize


def spots_of(path, params):
    raw = next(scan(path))
    return page_spots(extract_text(raw)[0], params)


def formatted(pane, colour):
    out = set()
    for sel in pane.text.extraSelections():
        if sel.format.background().color().name() == colour:
            out.add((sel.cursor.selectionStart(), sel.cursor.selectionEnd()))
    return out


def bold(pane):
    return {(s.cursor.selectionStart(), s.cursor.selectionEnd()) for s in pane.text.extraSelections()
            if s.format.fontWeight() == QFont.Weight.Bold and s.format.fontUnderline()}


def open_harbour_strike(w):
    row = next(i for i, r in enumerate(w.model.rows) if "Dock workers" in r.reference_title)
    w.select_row(row)
    return w.compare


def test_shared_signature_formats_cover_exactly_their_token_spans(demo_window):
    w = demo_window
    view = open_harbour_strike(w)
    ref, member = view.reference(), view.current_member()
    assert member is not None and member.page_id != ref.page_id
    params = view.params
    # Independently of the view: re-read both files and find their signatures.
    a = spots_of(DEMO_ARCHIVE / w.project.page(ref.page_id).source, params)
    b = spots_of(DEMO_ARCHIVE / w.project.page(member.page_id).source, params)
    shared = {s.text for s in a.spots} & {s.text for s in b.spots}
    assert len(shared) >= 5, "the demo's harbour-strike pair shares many signatures"

    for pane, page in ((view.left, a), (view.right, b)):
        # The pane opens on the article: page offsets move to where the article shows them.
        assert pane.view is not None and pane.view.segments == page.kept

        def shown(t, pane=pane, page=page):
            return pane.view.to_shown(page.tokens.starts[t]), pane.view.to_shown(page.tokens.ends[t])

        expected = {shown(t) for s in page.spots if s.text in shared for t in (s.antecedent, *s.chain)}
        assert formatted(pane, SHARED_COLOUR) == expected
        # Unshared signatures get the other colour, on tokens not already shared.
        own = {shown(t) for s in page.spots if s.text not in shared for t in (s.antecedent, *s.chain)}
        assert formatted(pane, OWN_COLOUR) == own - expected
        # Antecedents are bold and underlined.
        antecedents = {shown(s.antecedent) for s in page.spots}
        assert bold(pane) == antecedents
        # Every formatted span is the very word it claims to be.
        text = pane.text.toPlainText()
        for start, end in expected:
            word = text[start:end].lower()
            assert word in page.tokens.words
    assert set(view.shared) == shared
    assert f"shared <b>{sum(1 for s in b.spots if s.text in shared)}</b> of {len(b.spots)}" \
        in view.right.header.text()


def test_why_these_match_scrolls_both_panes(qtbot, demo_window):
    view = open_harbour_strike(demo_window)
    assert view.why.count() == len(view.shared)
    item = view.why.item(0)
    signature = item.data(Qt.ItemDataRole.UserRole + 2)
    qtbot.mouseClick(view.why.viewport(), Qt.MouseButton.LeftButton,
                     pos=view.why.visualItemRect(item).center())
    words = signature.split(":")
    for pane in (view.left, view.right):
        chosen = pane.text.textCursor().selectedText().lower()
        assert chosen.startswith(words[0]) and chosen.endswith(words[-1])


def test_source_toggle_shows_html_as_text_without_highlights(demo_window):
    view = open_harbour_strike(demo_window)
    view.show_source.setChecked(True)
    assert "<html" in view.left.text.toPlainText().lower()
    assert view.left.text.extraSelections() == []
    view.show_source.setChecked(False)
    assert view.left.text.extraSelections()


def test_spans_use_utf16_positions_after_astral_characters(qtbot):
    text = "😀 the harbour strike 😀 the harbour"
    tokens = tokenize(text)
    the = [i for i, w in enumerate(tokens.words) if w == "the"]
    spots = [Spot("the:harbour:strike", the[0], (the[0] + 1, the[0] + 2)),
             Spot("the:harbour", the[1], (the[1] + 1,))]
    page = PageText(text, "", tokens, spots, kept=[(0, len(text))])
    pane = PagePane("reference")
    qtbot.addWidget(pane)
    pane.show_page(page, {"the:harbour": (1, 1)})
    selected = [s.cursor.selectedText() for s in pane.text.extraSelections()]
    assert selected == ["the", "harbour", "strike", "the", "harbour"]
    kinds = [s.kind for s in highlight_spans(page, {"the:harbour"})]
    assert kinds == ["own", "own", "own", "shared", "shared"]
    pos = utf16_positions(text)
    assert pos(2) == 3 and pos(len(text)) == len(text) + 2


# Runs saved before spot ids were built from word ids list the hash of the spot's text.
@pytest.mark.parametrize("id_of", [lambda key: chain_id("", key.split(":")), signature_id],
                         ids=["ids", "ids-of-older-runs"])
def test_signatures_the_run_left_out_are_grey_and_do_not_count(demo_window, id_of):
    from workbench.core.records import RunFilters
    from workbench.gui.sidebyside.view import NOT_COUNTED_COLOUR

    w = demo_window
    view = open_harbour_strike(w)
    before = dict(view.shared)
    dropped = sorted(before)[:2]  # pretend the run found these two on too many pages
    view.set_context(view.root, view.params, RunFilters(frozenset(id_of(s) for s in dropped)))
    view.show_cluster(w.project, view.cluster_id)
    assert set(view.shared) == set(before) - set(dropped)
    ref = view.reference()
    a = spots_of(DEMO_ARCHIVE / w.project.page(ref.page_id).source, view.params)

    def shown(t):
        return view.left.view.to_shown(a.tokens.starts[t]), view.left.view.to_shown(a.tokens.ends[t])

    grey = {shown(t) for s in a.spots if s.text in dropped for t in (s.antecedent, *s.chain)}
    counted = {shown(t) for s in a.spots if s.text not in dropped for t in (s.antecedent, *s.chain)}
    assert grey and formatted(view.left, NOT_COUNTED_COLOUR) == grey - counted
    kept = sum(1 for s in a.spots if s.text not in dropped)
    assert f"of {kept} signatures" in view.left.header.text()


def test_whole_page_is_one_toggle_away_with_what_was_not_compared_in_grey(demo_window):
    view = open_harbour_strike(demo_window)
    article = view.left.text.toPlainText()
    view.show_whole.setChecked(True)
    page = view.left.page
    assert view.left.text.toPlainText() == page.text
    assert len(page.text) > len(article)
    grey = {(s.cursor.selectionStart(), s.cursor.selectionEnd()) for s in view.left.text.extraSelections()
            if s.format.foreground().color().name() == "#9a9a9a"}
    assert grey == set(view.left.view.greyed) and grey
    # Everything grey lies outside the compared blocks; every compared block is shown plain.
    for lo, hi in grey:
        assert all(hi <= k_lo or lo >= k_hi for k_lo, k_hi in page.kept)
    # The highlights are the same words in both views.
    view.show_whole.setChecked(False)
    assert view.left.text.toPlainText() == article


def test_the_pane_says_when_a_page_was_compared_in_another_language_or_by_punctuation():
    from workbench.text.tokenize import Tokens

    def page(language, kind):
        return PageText("x", "", Tokens([], [], []), [], language=language, kind=kind)

    assert page("en", "spots").signature_note == ""
    assert page("de", "spots").signature_note == "language de"
    assert page("fi", "punctuation").signature_note == "language fi: punctuation signatures"
    assert page(None, "punctuation").signature_note == "language not recognised: punctuation signatures"
