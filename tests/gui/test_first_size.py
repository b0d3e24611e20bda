"""The window's first size fits the screen it opens on."""

from __future__ import annotations

from workbench.gui.window.first_size import DEFAULT, FRAME, LIST_MIN, first_size


def test_a_large_screen_gets_the_default_size():
    width, height, left = first_size(2560, 1400)
    assert (width, height) == DEFAULT
    assert LIST_MIN <= left < width / 2


def test_a_laptop_screen_gets_its_own_room_less_the_frame():
    width, height, left = first_size(1366, 738)
    assert (width, height) == (1366 - FRAME[0], 738 - FRAME[1])
    assert left >= LIST_MIN and width - left >= 700  # the two pages keep most of the room


def test_an_unknown_screen_gets_the_default_size():
    assert first_size(None, None)[:2] == DEFAULT
