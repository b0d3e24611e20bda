"""Read a reliability-data table (text, no I/O): one row per coder, one column per unit.

Cells are separated by commas (or, when the first line has no comma, by semicolons or
tabs, as spreadsheets in many countries save CSV); an empty cell is a missing code.
Blank lines, and lines of nothing but empty cells, are left out.

A header row of unit names and a first column of coder names are recognised by one rule,
the same for both: the first row (column) holds names when its cells past the corner are
all filled in, all different, at least one of them is not a number, and none of them
occurs as a code in the rest of the table. Codes repeat across a table and names do not,
so a row of codes is never taken for names; names that are all plain numbers (1, 2, 3)
cannot be told from codes and are read as codes (a note says so when they run 1, 2, 3...).

At the ordinal, interval and ratio levels every code must be a number. At the nominal
level codes may be words (yes, no): when any code is not a number, every code is a
category of its own, compared as written.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

import numpy as np

from workbench.core.agreement.matrix import LEVELS, AgreementError, Level, Matrix

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_DELIMITERS = (",", ";", "\t")


@dataclass(frozen=True)
class ReliabilityTable:
    """The table as a matrix (coders x units, NaN missing) with its names; ``categories``:
    the words of a nominal table, in the order of their codes 0, 1, 2... (None: numbers);
    ``notes``: what the reader should know about how the table was read."""

    matrix: Matrix
    coders: tuple[str, ...]
    units: tuple[str, ...]
    has_header: bool
    has_coder_column: bool
    categories: tuple[str, ...] | None
    notes: tuple[str, ...]


def is_number(cell: str) -> bool:
    """A finite decimal number (not nan or inf, which Python's float() would take)."""
    return _NUMBER.fullmatch(cell) is not None


def parse_table(text: str, level: Level = "nominal") -> ReliabilityTable:
    """The table in ``text``, or AgreementError saying what is wrong and where."""
    if level not in LEVELS:
        raise AgreementError(f"unknown level of measurement {level!r}; one of {', '.join(LEVELS)}")
    lines, rows = _rows(text)
    if not rows:
        raise AgreementError("the table is empty: give one row per coder, one column per unit")
    width = len(rows[0])
    for line, row in zip(lines, rows, strict=True):
        if len(row) != width:
            raise AgreementError(
                f"line {line} has {len(row)} cells, line {lines[0]} has {width}: every row needs one "
                "cell per unit (leave a missing code empty, keeping its separator)")
    has_header = _are_names([c for c in rows[0][1:]], [c for r in rows[1:] for c in r[1:]])
    first = 1 if has_header else 0
    has_coder_column = _are_names([r[0] for r in rows[first:]], [c for r in rows[first:] for c in r[1:]])
    body = [r[1:] if has_coder_column else r for r in rows[first:]]
    body_lines = lines[first:]
    if not body or not body[0]:
        raise AgreementError("the table has names but no codes")
    names = rows[0][1 if has_coder_column else 0:] if has_header else [""] * len(body[0])
    units = tuple(name or str(k) for k, name in enumerate(names, start=1))
    coders = tuple(r[0] for r in rows[first:]) if has_coder_column else tuple(
        f"coder {k}" for k in range(1, len(body) + 1))
    matrix, categories = _values(body, body_lines, level, has_coder_column)
    notes = tuple(note for note in (
        _numbered("first row", rows[0]) if not has_header else None,
        _numbered("first column", [r[0] for r in rows]) if not has_coder_column else None,
    ) if note)
    return ReliabilityTable(matrix=matrix, coders=coders, units=units, has_header=has_header,
                            has_coder_column=has_coder_column, categories=categories, notes=notes)


def _rows(text: str) -> tuple[list[int], list[list[str]]]:
    """The non-blank rows, cells stripped, and the line each starts on."""
    first_line = next((line for line in text.splitlines() if line.strip()), "")
    delimiter = ","
    if "," not in first_line:
        delimiter = max(_DELIMITERS[1:], key=first_line.count)
        if delimiter not in first_line:
            delimiter = ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    lines: list[int] = []
    rows: list[list[str]] = []
    start = 1
    try:
        for row in reader:
            cells = [cell.strip() for cell in row]
            if any(cells):
                lines.append(start)
                rows.append(cells)
            start = reader.line_num + 1
    except csv.Error as exc:
        raise AgreementError(f"line {reader.line_num}: not readable as CSV ({exc})") from None
    return lines, rows


def _are_names(cells: list[str], codes: list[str]) -> bool:
    """The rule of the module docstring: filled in, all different, not all numbers, and
    never a code of the rest of the table."""
    if not cells or not all(cells) or len(set(cells)) != len(cells):
        return False
    if all(is_number(c) for c in cells):
        return False
    return not set(cells) & set(codes)


def _values(body: list[list[str]], lines: list[int], level: Level,
            named: bool) -> tuple[Matrix, tuple[str, ...] | None]:
    filled = [c for row in body for c in row if c]
    if level == "nominal" and any(not is_number(c) for c in filled):
        categories = tuple(sorted(set(filled)))
        code = {word: float(k) for k, word in enumerate(categories)}
        coded = np.array([[code[c] if c else np.nan for c in row] for row in body], dtype=np.float64)
        return coded, categories
    matrix = np.full((len(body), len(body[0])), np.nan)
    for r, (line, row) in enumerate(zip(lines, body, strict=True)):
        for k, cell in enumerate(row):
            if not cell:
                continue
            if not is_number(cell):
                column = k + 1 + int(named)
                raise AgreementError(
                    f"line {line}, column {column}: {cell!r} is not a number; at the {level} level "
                    "every code must be a number, and a missing code an empty cell")
            matrix[r, k] = float(cell)
    if level == "ratio" and (matrix[~np.isnan(matrix)] < 0).any():
        raise AgreementError("a code is negative: ratio data have a true zero and no negative values "
                             "(use --level interval)")
    return matrix, None


def _numbered(where: str, cells: list[str]) -> str | None:
    """A note when a row or column that was read as codes runs 1, 2, 3 ... (unit or coder
    numbers, perhaps, which the rule cannot tell from codes)."""
    if len(cells) < 3 or not all(c.isdigit() for c in cells):
        return None
    numbers = [int(c) for c in cells]
    if numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        return None
    return (f"the {where} ({', '.join(cells[:3])}, ...) was read as codes; if it numbers the "
            f"{'units' if where == 'first row' else 'coders'}, write names such as "
            f"{'u1, u2' if where == 'first row' else 'A, B'} instead")
