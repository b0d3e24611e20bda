"""What an addition spends besides reading its new files (issue 34: Add Pages' fixed costs).

An addition walks the whole crawl to find what is new or changed; it must not then look at
each unchanged file again (a second ``stat`` of every file cost an addition of 10 % to
100,000 files as much CPU as half the walk), let alone open one. And the one-time setup of
numba's compiled filters runs while the new files are read, as in a full run, not after.
"""

from __future__ import annotations

import builtins
import importlib
import os
from pathlib import Path

import pytest

from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.store import Project
from workbench.usecases import grow as grow_module
from workbench.usecases.grow import grow_into_project, keep_pages
from workbench.usecases.pipeline import run_into_project

PARAMS = SpotSigsParams()
numba_setup = importlib.import_module("workbench.detect.workers.numba_setup")
TEXT = "<html><head><title>Story {k}</title></head><body><p>{words}</p></body></html>"


def _page(folder: Path, k: int) -> Path:
    path = folder / f"site{k % 3}" / f"{k:03d}.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(TEXT.format(k=k, words=" ".join(f"the story {k % 7} said word{j} and more"
                                                    for j in range(40))))
    return path


def _project_with_kept_pages(tmp_path: Path, files: int) -> tuple[Project, Path, list[Path]]:
    crawl = tmp_path / "crawl"
    old = [_page(crawl, k) for k in range(files)]
    project = Project.create(tmp_path / "p.wbproj", str(crawl))
    run_into_project(project, crawl, PARAMS, workers=1, keep=keep_pages(project.path, crawl, PARAMS))
    return project, crawl, old


def test_an_addition_neither_stats_nor_opens_an_unchanged_file_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project, crawl, old = _project_with_kept_pages(tmp_path, 24)
    new = [_page(crawl, k) for k in range(24, 27)]
    looked_at: list[str] = []
    real_stat, real_open = os.stat, builtins.open

    def stat(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        looked_at.append(os.fspath(path) if not isinstance(path, int) else "")
        return real_stat(path, *args, **kwargs)

    def opening(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        looked_at.append(os.fspath(path) if not isinstance(path, int) else "")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(builtins, "open", opening)
    _, _, growth = grow_into_project(project, crawl, PARAMS, workers=1)
    monkeypatch.undo()
    project.close()

    assert sorted(growth.new) == sorted(p.relative_to(crawl).as_posix() for p in new)
    assert growth.unchanged == len(old) and growth.read_all_because is None
    unchanged = {str(p) for p in old}
    assert [p for p in looked_at if p in unchanged] == []
    # The new files were read (in this process, as few as these are): the spies saw them.
    assert {str(p) for p in new} <= set(looked_at)


def test_the_walk_gives_each_files_modification_time(tmp_path: Path) -> None:
    from workbench.archive.scan import FileEntry, walk

    crawl = tmp_path / "crawl"
    paths = [_page(crawl, k) for k in range(4)]
    os.utime(paths[1], ns=(1_700_000_000_123_456_789, 1_600_000_000_987_654_321))
    mtimes: dict[str, int] = {}
    items = list(walk(crawl, mtimes))
    assert sorted(mtimes) == sorted(i.rel for i in items if isinstance(i, FileEntry))
    assert mtimes["site1/001.html"] == 1_600_000_000_987_654_321
    assert all(mtimes[p.relative_to(crawl).as_posix()] == p.stat().st_mtime_ns for p in paths)
    single: dict[str, int] = {}
    assert [i.rel for i in walk(paths[1], single)] == ["001.html"]  # a file opened alone
    assert single == {"001.html": 1_600_000_000_987_654_321}


def test_numba_is_set_up_while_an_addition_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Started before the new files are read and joined before the filters need it."""
    project, crawl, _ = _project_with_kept_pages(tmp_path, 6)
    _page(crawl, 6)
    events: list[str] = []
    start, read_here, filters = numba_setup.start, grow_module._read_here, grow_module.corpus_of

    def starting():  # type: ignore[no-untyped-def]
        events.append("setup started")
        return start()

    def reading(*args, **kwargs):  # type: ignore[no-untyped-def]
        events.append("files read")
        return read_here(*args, **kwargs)

    def filtering(*args, **kwargs):  # type: ignore[no-untyped-def]
        events.append("filters")
        return filters(*args, **kwargs)

    monkeypatch.setattr(numba_setup, "start", starting)
    monkeypatch.setattr(grow_module, "_read_here", reading)
    monkeypatch.setattr(grow_module, "corpus_of", filtering)
    grow_into_project(project, crawl, PARAMS, workers=1)
    project.close()
    assert events == ["setup started", "files read", "filters"]
