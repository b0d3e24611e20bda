"""File ▸ Add Pages… through the real window: only the new file is read, the new page joins
its story's cluster, and the coder's tag stays (issue 34 item 7)."""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import pytest

from tests.conftest import DEMO_ARCHIVE
from tests.gui.conftest import RUN_TIMEOUT_MS

scan_module = importlib.import_module("workbench.archive.scan")


def file_menu_action(window, text: str):
    """The File menu's action with this text (as the coder sees it, without the '&')."""
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    return next(a for a in file_menu.actions() if a.text().replace("&", "") == text)


def test_add_pages_reads_only_the_new_file_and_keeps_the_tags(qtbot, window, prompter, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    crawl = tmp_path / "crawl"
    shutil.copytree(DEMO_ARCHIVE, crawl)
    w = window
    prompter.folders.append(str(crawl))
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        w.actions_by_name["open_archive"].trigger()
    strike = w.project.cluster_of_page(w.project.page_id("dailycourier/harbour-strike.html"))
    before = {m.key for m in w.project.members(strike)}
    prompter.texts.append("strike")
    w.tag_actions.new_tag()
    tag = w.project.tag_by_name("strike")
    w.project.tag_clusters([strike], [tag.id])

    # A new site carries the strike story: one new file in the folder.
    (crawl / "harbourgazette").mkdir()
    text = (crawl / "dailycourier" / "harbour-strike.html").read_text(encoding="utf-8")
    (crawl / "harbourgazette" / "harbour-strike.html").write_text(
        text.replace("</body>", "<p>Reported by the Harbour Gazette.</p></body>"), encoding="utf-8")
    read: list[str] = []
    reader = scan_module.read_file

    def counting(item, tracker, index):  # type: ignore[no-untyped-def]
        read.append(item.rel)
        return reader(item, tracker, index)

    monkeypatch.setattr(scan_module, "read_file", counting)
    add = file_menu_action(w, "Add Pages…")
    assert add.isEnabled()
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        add.trigger()

    # Detection reads the new file only; once the run is saved, the publication-date pass
    # reads it once more (a clustered page that states no date for machines:
    # workbench.usecases.published_dates, by its path within the file it reads). The
    # old pages' dates were settled by the first run and are not read again.
    assert read == ["harbourgazette/harbour-strike.html", "harbour-strike.html"]
    assert "Files: 1 new, 0 changed, 0 removed, 12 unchanged files" in w.statusBar().currentMessage()
    new_page = w.project.page_id("harbourgazette/harbour-strike.html")
    assert new_page is not None
    cluster = w.project.cluster_of_page(new_page)
    assert {m.key for m in w.project.members(cluster)} == before | {"harbourgazette/harbour-strike.html"}
    tags = {r.source: r.tags for r in w.project.page_records()}
    assert all(tags[key] == ("strike",) for key in before)
    assert w.project.integrity_problems() == []
