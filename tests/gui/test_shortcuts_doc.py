"""The README's keyboard table is the one F1 shows (no key documented in one place only)."""

from __future__ import annotations

from tests.conftest import REPO
from workbench.gui.dialogs import SHORTCUTS


def test_readme_keyboard_table_matches_f1():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    table = text[text.index("| key | action |"):].split("\n\n", 1)[0].splitlines()[2:]
    rows = [tuple(cell.strip() for cell in line.strip("|").split(" | ")) for line in table]
    assert rows == [tuple(pair) for pair in SHORTCUTS]
