"""The Title and Sites columns show their whole text on hover."""

from __future__ import annotations

import random

from PySide6.QtCore import Qt

from tests.gui.conftest import RUN_TIMEOUT_MS
from workbench.gui.models import COL_SITES, COL_TITLE

_BODY = " ".join(f"The harbour workers said on Monday that talks over pay number {i} had broken "
                 "down and the strike would go on." for i in range(40))


def test_the_sites_tip_lists_every_site_of_the_cluster(qtbot, window, tmp_path):
    sites = [f"paper{k}.example.com" for k in range(8)]  # more than the column holds
    for n, site in enumerate(sites):
        folder = tmp_path / "crawl" / site
        folder.mkdir(parents=True)
        (folder / "strike.html").write_text(
            f"<html><head><title>Dock workers walk out over night-shift pay</title></head><body>"
            f"<article><p>{_BODY}</p><p>Copy {n}.</p></article></body></html>", encoding="utf-8")
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        window.open_archive(tmp_path / "crawl")
    model = window.model
    row = next(r for r in range(model.rowCount()) if model.row_of(r).size == len(sites))
    shown = model.data(model.index(row, COL_SITES), Qt.ItemDataRole.DisplayRole)
    assert shown.endswith("+3")  # the column: five sites and how many more
    tip = model.data(model.index(row, COL_SITES), Qt.ItemDataRole.ToolTipRole)
    assert all(site in tip for site in sites), tip


def test_the_title_tip_has_the_whole_headline_and_the_sites_label(qtbot, window, tmp_path):
    """Pages of three stories on one site, titled with its label, show their articles'
    openings; the tip has the whole of one and the label."""
    crawl = tmp_path / "crawl" / "kstp.com"
    crawl.mkdir(parents=True)
    rng = random.Random(5)
    words = [f"w{rng.randrange(10**6)}" for _ in range(3000)]
    for what in ("harbour", "airport", "railway"):  # three stories
        w = [rng.choice(words) for _ in range(200)]
        body = " ".join(f"The {what} {w[k]} said that the {w[k + 1]} was in the {w[k + 2]} and "
                        f"it is not {w[k + 3]} {w[k + 4]}." for k in range(0, 195, 5))
        for copy in range(2):  # each story twice: a cluster
            (crawl / f"{what}-{copy}.html").write_text(
                f"<html><head><title>Kstp.com</title></head><body><article><p>{body}</p>"
                f"<p>Copy {copy}.</p></article></body></html>", encoding="utf-8")
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        window.open_archive(tmp_path / "crawl")
    model = window.model
    titles = [model.data(model.index(r, COL_TITLE), Qt.ItemDataRole.DisplayRole)
              for r in range(model.rowCount())]
    assert len(titles) == 3 and "Kstp.com" not in titles, titles
    assert all(t.startswith("The ") and t.endswith("…") for t in titles), titles
    tip = model.data(model.index(0, COL_TITLE), Qt.ItemDataRole.ToolTipRole)
    assert titles[0] in tip and "Kstp.com" in tip
