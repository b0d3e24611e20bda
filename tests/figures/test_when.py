"""page_when: the one date a figure uses for a page, published before captured."""

from __future__ import annotations

from datetime import datetime

import pytest

from workbench.figures.when import page_when, parse_when


@pytest.mark.parametrize(("text", "expected"), [
    ("2017-03-15T12:34:56Z", datetime(2017, 3, 15, 12, 34, 56)),
    ("2017-03-15 12:34+02:00", datetime(2017, 3, 15, 12, 34)),
    ("2017-03-15", datetime(2017, 3, 15)),
    ("20050409130612", datetime(2005, 4, 9, 13, 6, 12)),
    ("20050409", datetime(2005, 4, 9)),
])
def test_dates_as_stored_are_read(text, expected):
    assert parse_when(text) == expected


@pytest.mark.parametrize("text", [None, "", "2017", "2017-03", "2017-02-30", "yesterday"])
def test_what_names_no_day_is_no_date(text):
    assert parse_when(text) is None


def test_published_comes_before_captured():
    assert page_when("2024-05-03T09:00:00Z", "2024-05-01") == (datetime(2024, 5, 1), "published")
    assert page_when("2024-05-03T09:00:00Z", None) == (datetime(2024, 5, 3, 9), "captured")
    assert page_when("2024-05-03T09:00:00Z", "not a date") == (datetime(2024, 5, 3, 9),
                                                               "captured")
    assert page_when(None, None) is None
