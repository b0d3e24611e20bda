"""Text too long for a line of the window, shortened in the middle (no Qt).

A header wraps at spaces only, so one run without a space (a long URL, a title made of
one token) is as wide as its text: 2,600 px for a 400-character address, and the window
grew past the width it was given to fit it. Such a run is shown by its start and end;
the header's tooltip holds it whole. The status bar's project file name is shortened the
same way (a label there is as wide as its text, and so was the window).
"""

from __future__ import annotations

import re

# Characters a run keeps: about 400 px in the window's font, half a side-by-side pane.
LONGEST = 60
ELLIPSIS = "…"


def shorten_middle(text: str, longest: int = LONGEST) -> str:
    """``text`` as it is, or when longer than ``longest`` its first and last characters
    around an ellipsis, ``longest`` characters in all (a file name keeps its ending)."""
    if len(text) <= longest:
        return text
    head = (longest - len(ELLIPSIS) + 1) // 2
    tail = longest - len(ELLIPSIS) - head
    return text[:head] + ELLIPSIS + (text[-tail:] if tail else "")


def shorten_long_words(text: str, longest: int = LONGEST) -> str:
    """``text`` with every run of non-space characters longer than ``longest`` shortened
    in the middle (:func:`shorten_middle`)."""
    return re.sub(rf"\S{{{longest + 1},}}", lambda found: shorten_middle(found.group(0), longest),
                  text)
