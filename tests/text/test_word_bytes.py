"""word_bytes: a text's words as ASCII bytes, for the compiled word lookup, exactly as
words_of finds them, or None when it cannot be done in ASCII."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.text.tokenize import word_bytes, words_of

# ASCII of every kind, characters beyond ASCII that are no word characters (a pound sign, a
# copyright sign, curly quotes, a lone surrogate) and some that are ('é', 'ß', the dotted
# capital I whose lower case is two characters, the Kelvin sign whose lower case is 'k').
_CHARACTERS = st.sampled_from(list("aZ9_ \t\n.,-'!") + ["£", "©", "’", "“", "\u00a0", "\ud800",
                                                         "é", "ß", "İ", "\u212a", "日"])


@settings(max_examples=500, deadline=None)
@given(st.lists(_CHARACTERS, max_size=40).map("".join))
def test_word_bytes_hold_the_words_of_words_of_one_byte_a_character(text):
    data = word_bytes(text)
    if re.search(r"[^\W\x00-\x7f]", text):
        assert data is None
        return
    assert data is not None
    assert len(data) == len(text)
    assert data.decode("ascii").split() == words_of(text)


def test_a_page_with_only_symbols_beyond_ascii_is_read_in_ascii():
    assert word_bytes("Tickets £20 © The Times’ Review") == b"tickets  20   the times  review"
    assert word_bytes("Café opens") is None
