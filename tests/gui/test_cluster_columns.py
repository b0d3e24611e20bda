"""The cluster list's columns as a coder reads them in a window of ordinary size: the
title keeps a headline's first words beside the twelve columns (issue 35's dates squeezed
it to "Saddam …"), and each date column shows its whole header and a date."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from workbench.gui.models import (  # noqa: E402
    COL_FIRST,
    COL_LAST,
    COL_SITE_COUNT,
    COL_SPAN,
    COL_TITLE,
    COLUMNS,
)


def test_the_title_keeps_its_first_words_and_the_date_columns_their_headers(qtbot, window):
    w = window
    w.main_splitter.setSizes([660, 940])  # the list's share of a 1600 px window
    qtbot.wait(10)  # one turn of the event loop for the layout (no wall-clock bound)
    fit = w.table.fontMetrics().horizontalAdvance
    header = w.table.horizontalHeader()
    assert header.sectionSize(COL_TITLE) >= fit("Saddam hanged at dawn"), header.sectionSize(COL_TITLE)
    for col in (COL_FIRST, COL_LAST, COL_SPAN, COL_SITE_COUNT):
        assert header.sectionSize(col) >= fit(COLUMNS[col]) + 16, COLUMNS[col]
    for col, sample in ((COL_FIRST, "2007-01-18"), (COL_LAST, "2007-01-18"), (COL_SPAN, "41.5 d")):
        assert header.sectionSize(col) >= fit(sample) + 8, COLUMNS[col]
    # The list scrolls sideways to the columns it has no room for, none is hidden.
    assert not any(header.isSectionHidden(c) for c in range(len(COLUMNS)))
