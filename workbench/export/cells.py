"""Make CSV cells safe to open in a spreadsheet.

Excel, LibreOffice and Google Sheets run a cell that starts with ``=``, ``+``,
``-`` or ``@`` (and, in some versions, tab or carriage return) as a formula:
a crawled page titled ``=HYPERLINK("http://evil")`` would become a live link
in a coder's sheet. Prefixing a single quote makes the cell plain text; the
quote is visible, which is the honest trade-off (OWASP "CSV injection").
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert(value: str) -> str:
    """One-way neutralisation for export cells."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def escape(value: str) -> str:
    """Reversible neutralisation for files we read back (the codebook CSV).

    A leading quote is escaped too, so :func:`unescape` can always tell our
    prefix from a quote the text really starts with.
    """
    return "'" + value if value.startswith((*FORMULA_STARTS, "'")) else value


def unescape(value: str) -> str:
    return value[1:] if value.startswith("'") else value
