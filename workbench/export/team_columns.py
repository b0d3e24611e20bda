"""The export's team columns: one column of tags per coder, and the samples.

Asked for with ``coders`` (``workbench export --coders``, the export dialog's checkbox).
Each coder who brought any tag in from their copy gets a ``tags_<coder>`` column: the
tags that coder put on the page (their own codes, ``coder_codes``), beside the page's
``tags`` column, which stays the final (settled) codes. ``samples`` names the samples
the page's cluster is in.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from workbench.store.runs.page_table import PageRecord
from workbench.store.team.codes import page_codes_by_coder
from workbench.store.team.samples import sample_membership

CODER_PREFIX = "tags_"
SAMPLES = "samples"
# Control characters and line breaks in a free-text coder name: a header that R, Stata
# and a spreadsheet read as one cell on one line.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def coder_column(name: str) -> str:
    """``tags_<name>``, with runs of control characters and line breaks made one space.
    The prefix means a name like ``=cmd`` never starts a header cell (no formula); a comma
    or quote in the name is quoted by the CSV writer like any cell."""
    return CODER_PREFIX + " ".join(_CONTROL.sub(" ", name).split())


def unique_headers(names: list[str]) -> list[str]:
    """The coders' columns, a name made the same as an earlier one (two names differing
    only in line breaks or spaces) numbered `` (2)``, `` (3)``…, so every header is one
    column a script can ask for by name."""
    seen: set[str] = set()
    found = []
    for name in names:
        header, k = coder_column(name), 2
        while header.casefold() in seen:
            header, k = f"{coder_column(name)} ({k})", k + 1
        seen.add(header.casefold())
        found.append(header)
    return found


@dataclass(frozen=True)
class TeamColumns:
    """What the team columns need, read once per export."""

    coders: tuple[str, ...]  # who coded anything, in name order
    by_page: dict[int, dict[str, tuple[str, ...]]]
    samples: dict[int, list[str]]

    @classmethod
    def read(cls, conn: sqlite3.Connection) -> TeamColumns:
        by_page = page_codes_by_coder(conn)
        names = {coder for codes in by_page.values() for coder in codes}
        return cls(tuple(sorted(names, key=lambda n: (n.casefold(), n))), by_page,
                   sample_membership(conn))

    def header(self) -> list[str]:
        return [*unique_headers(list(self.coders)), SAMPLES]

    def cells(self, rec: PageRecord, separator: str) -> list[str]:
        mine = self.by_page.get(rec.page_id, {})
        tags = [separator.join(sorted(mine.get(c, ()), key=str.casefold)) for c in self.coders]
        in_samples = self.samples.get(rec.cluster_id, []) if rec.cluster_id is not None else []
        return [*tags, separator.join(in_samples)]
