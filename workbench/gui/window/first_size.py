"""The window's size the first time it opens (later starts restore the coder's own)."""

from __future__ import annotations

DEFAULT = (1480, 900)
# The cluster list's column's share of the width: the rest goes to the two pages.
LIST_SHARE = 0.42
LIST_MIN = 500  # its filter bar's row needs about 490 px
FRAME = (16, 48)  # room left for the window's own frame and title bar, on a small screen


def first_size(room_width: int | None, room_height: int | None) -> tuple[int, int, int]:
    """(width, height, the cluster list's width) for a screen whose free room is given
    (None: not known). The default size, or the screen's room less the frame when that is
    smaller: a 1,366 x 768 laptop got a 1,480 x 900 window before, wider and taller than
    its screen."""
    width, height = DEFAULT
    if room_width:
        width = min(width, room_width - FRAME[0])
    if room_height:
        height = min(height, room_height - FRAME[1])
    left = max(LIST_MIN, round(width * LIST_SHARE))
    return width, height, left
