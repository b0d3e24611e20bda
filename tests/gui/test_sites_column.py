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


def test_title_column_shows_the_headline_and_the_title_tag_in_its_tip(qtbot, window, tmp_path):
    from workbench.gui.models import COL_TITLE

    folder = tmp_path / "saved"
    folder.mkdir()
    body = " ".join(f"The harbour workers said on Monday that talks over pay number {i} had "
                    "broken down and the strike would go on." for i in range(40))
    for n in range(2):
        (folder / f"page-{n}.html").write_text(
            f"<html><head><title>680News - ALL NEWS RADIO</title></head><body>"
            f"<h1>Dock workers walk out over night-shift pay</h1><p>{body}</p>"
            f"<p>Copy {n}.</p></body></html>", encoding="utf-8")
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        window.open_archive(folder)
    model = window.model
    index = model.index(0, COL_TITLE)
    assert model.data(index, Qt.ItemDataRole.DisplayRole) == "Dock workers walk out over night-shift pay"
    assert "680News - ALL NEWS RADIO" in model.data(index, Qt.ItemDataRole.ToolTipRole)
