"""Make CSV cells safe to open in a spreadsheet: the one rule every CSV writer follows.

Excel, LibreOffice and Google Sheets run a cell that starts with ``=``, ``+``,
``-`` or ``@`` (and, in some versions, tab or carriage return) as a formula:
a crawled page titled ``=HYPERLINK("http://evil")``, or a file of that name,
would become a live link in a coder's sheet. Some spreadsheets also read the
full-width forms (＝ ＋ － ＠, typed by Japanese and Chinese input methods) and
other compatibility forms of these characters as the characters themselves, so
the first character is compared after Unicode NFKC normalisation. Prefixing a
single quote makes the cell plain text; the quote is visible, which is the honest
trade-off (OWASP "CSV injection").

Every CSV the program writes is written through :func:`csv_writer`, which applies
the rule to every text cell; a test fails if a ``csv.writer`` appears anywhere else.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any, TextIO

from workbench.core.formula import is_formula


def inert(value: str) -> str:
    """One-way neutralisation for export cells."""
    return "'" + value if is_formula(value) else value


def escape(value: str) -> str:
    """Reversible neutralisation for files we read back (the codebook CSV).

    A leading quote is escaped too, so :func:`unescape` can always tell our
    prefix from a quote the text really starts with.
    """
    return "'" + value if is_formula(value) or value.startswith("'") else value


def unescape(value: str) -> str:
    return value[1:] if value.startswith("'") else value


class SafeWriter:
    """A ``csv.writer`` whose text cells pass through the rule (numbers are written as
    they are: the program's own numbers never start with a sign)."""

    def __init__(self, fh: TextIO, *, reversible: bool = False, **fmt: Any) -> None:
        self._writer = csv.writer(fh, **fmt)
        self._cell = escape if reversible else inert

    def writerow(self, row: Iterable[object]) -> None:
        self._writer.writerow([self._cell(c) if isinstance(c, str) else c for c in row])

    def writerows(self, rows: Iterable[Iterable[object]]) -> None:
        for row in rows:
            self.writerow(row)


def csv_writer(fh: TextIO, *, reversible: bool = False, **fmt: Any) -> SafeWriter:
    """The CSV writer for every file the program writes. ``reversible``: the file is read
    back (:func:`unescape` undoes the rule); ``fmt``: ``csv.writer``'s format options."""
    return SafeWriter(fh, reversible=reversible, **fmt)
