"""Words too long for a page's header, shortened in the middle (no Qt).

A header wraps at spaces only, so one run without a space (a long URL, a title made of
one token) is as wide as its text: 2,600 px for a 400-character address, and the window
grew past the width it was given to fit it. Such a run is shown by its start and end;
the header's tooltip holds it whole.
"""

from __future__ import annotations

import re

# Characters a run keeps: about 400 px in the window's font, half a side-by-side pane.
LONGEST = 60
ELLIPSIS = "…"


def shorten_long_words(text: str, longest: int = LONGEST) -> str:
    """``text`` with every run of non-space characters longer than ``longest`` cut to its
    first and last characters around an ellipsis, ``longest`` characters in all."""
    head = (longest - len(ELLIPSIS) + 1) // 2
    tail = longest - len(ELLIPSIS) - head

    def cut(found: re.Match[str]) -> str:
        word = found.group(0)
        return word[:head] + ELLIPSIS + (word[-tail:] if tail else "")

    return re.sub(rf"\S{{{longest + 1},}}", cut, text)
