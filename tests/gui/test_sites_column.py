"""The Sites column of a flat folder of saved pages: sites when known, else the page count."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.conftest import DEMO_ARCHIVE
from tests.gui.conftest import RUN_TIMEOUT_MS
from workbench.gui.models import COL_SITES


def test_flat_folder_without_sites_shows_page_counts(qtbot, window, tmp_path):
    flat = tmp_path / "html"
    flat.mkdir()
    # The demo's copies, side by side in one folder, their site folders and links gone.
    for n, page in enumerate(sorted(DEMO_ARCHIVE.glob("*/harbour-strike.html"))):
        text = page.read_text(encoding="utf-8")
        text = text.replace("href=", "data-x=").replace("<link", "<x-link")
        (flat / f"saved-{n}.html").write_text(text, encoding="utf-8")
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        window.open_archive(flat)
    model = window.model
    cells = [model.data(model.index(r, COL_SITES), Qt.ItemDataRole.DisplayRole)
             for r in range(model.rowCount())]
    assert cells and all(c.endswith("pages") or c == "1 page" for c in cells), cells
    assert "html" not in " ".join(cells)  # the folder's name is not a site
