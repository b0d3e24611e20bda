"""Which text a spreadsheet would run as a formula (no I/O).

Excel, LibreOffice and Google Sheets run a cell that starts with ``=``, ``+``, ``-``
or ``@`` (and, in some versions, tab or carriage return) as a formula. Some also read
the full-width forms (＝ ＋ － ＠) and other compatibility forms as the characters
themselves, so the first character is compared after Unicode NFKC normalisation.
The CSV writers neutralise such cells (:mod:`workbench.export.cells`) and the
codebook refuses tag names that start so, which keeps tag cells exact on export.
"""

from __future__ import annotations

import unicodedata

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def is_formula(value: str) -> bool:
    """Would a spreadsheet read this cell as a formula (or the start of one)?"""
    if not value:
        return False
    if value.startswith(FORMULA_STARTS):
        return True
    first = value[0]
    return not first.isascii() and unicodedata.normalize("NFKC", first).startswith(
        FORMULA_STARTS)
