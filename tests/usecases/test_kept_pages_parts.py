"""Kept pages written in parts (issue 34 item 7, Add Pages at least 5x faster than a full run).

An addition appends only its new and changed files (and the names of removed ones) to
the project's ``.pages`` file instead of writing every page again. What loads from a file
written in parts must be what a file written whole gives, and what a full run keeps; a
part a crash cut short must be left out (its files read again), and a file whose replaced
pages pile up is written whole again.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.store import Project
from workbench.usecases.grow import grow_into_project, keep_pages
from workbench.usecases.kept_pages import KeptPages, kept_path, load_kept, save_kept
from workbench.usecases.pipeline import DedupResult, run_into_project

PARAMS = SpotSigsParams()
STORY = ("the council voted on the new budget for schools and roads after a long debate "
         "in which the mayor said that the city would raise taxes on the businesses and "
         "the people who live near the river {k} while the opposition asked for a delay")


def write_page(crawl: Path, name: str, k: int, extra: str = "") -> None:
    """A page of story ``k`` (pages of the same ``k`` are near duplicates)."""
    words = " ".join(f"and {w}{k} is the {w}" for w in ("alpha", "beta", "gamma", "delta"))
    (crawl / f"{name}.html").write_text(
        f"<html><head><title>Story {k}</title></head><body><p>{STORY.format(k=k)} {words}</p>"
        f"<p>{extra}</p></body></html>", encoding="utf-8")


def canonical(kept: KeptPages) -> dict[str, tuple]:
    """Everything a file of kept pages says, by file (their order aside)."""
    return {rel: (f.stamp, [(p.info, p.note, p.n_spots, p.n_blocks, p.packed.tobytes()) for p in f.pages],
                  f.skipped)
            for rel, f in kept.files.items()}


def pairs_of(result: DedupResult) -> list[tuple[str, str, float]]:
    keys = [p.key for p in result.pages]
    return sorted((keys[a], keys[b], s) for a, b, s in
                  zip(result.pairs.a.tolist(), result.pairs.b.tolist(), result.pairs.similarity.tolist(),
                      strict=True))


def later(path: Path) -> None:
    """A modification time that differs from the one kept, however coarse the clock."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))


@pytest.fixture
def crawl(tmp_path: Path) -> Path:
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    for k in range(12):
        write_page(crawl, f"p{k:02d}", k % 5)
    return crawl


def first_run(crawl: Path, where: Path) -> Project:
    project = Project.create(where, str(crawl))
    run_into_project(project, crawl, PARAMS, workers=1, keep=keep_pages(project.path, crawl, PARAMS))
    return project


def grow(crawl: Path) -> None:
    """Two files added, one changed, one removed."""
    write_page(crawl, "p20", 1, "a new page of story one")
    write_page(crawl, "p21", 7)
    write_page(crawl, "p03", 2, "changed: now a copy of story two")
    later(crawl / "p03.html")
    (crawl / "p05.html").unlink()


def full_kept(crawl: Path, where: Path) -> KeptPages:
    project = first_run(crawl, where)
    project.close()
    kept = load_kept(kept_path(where))
    assert kept is not None
    return kept


def test_an_addition_appends_only_its_files_and_loads_as_a_full_run_keeps(
        crawl: Path, tmp_path: Path) -> None:
    project = first_run(crawl, tmp_path / "p.wbproj")
    path = kept_path(project.path)
    before = path.read_bytes()
    grow(crawl)
    grow_into_project(project, crawl, PARAMS, workers=1)
    project.close()

    after = path.read_bytes()
    assert after[: len(before)] == before  # the pages kept before were not written again
    assert len(after) - len(before) < len(before)  # the part added holds only the files read
    kept = load_kept(path)
    assert kept is not None and kept.stored is not None and kept.stored.parts == 2
    assert "p05.html" not in kept.files and kept.files["p20.html"].pages

    # The same as a full run on the grown crawl keeps, and as the same pages written whole.
    assert canonical(kept) == canonical(full_kept(crawl, tmp_path / "full.wbproj"))
    save_kept(tmp_path / "whole.pages", kept)
    whole = load_kept(tmp_path / "whole.pages")
    assert whole is not None and whole.stored is not None and whole.stored.parts == 1
    assert canonical(whole) == canonical(kept)
    assert (whole.root, whole.params, whole.workbench) == (kept.root, kept.params, kept.workbench)


def test_a_part_cut_short_is_left_out_and_its_files_read_again(crawl: Path, tmp_path: Path) -> None:
    """A crash while an addition writes its part: the part's length is written last, so
    the file loads as it was before, and the next addition reads those files again."""
    project = first_run(crawl, tmp_path / "p.wbproj")
    path = kept_path(project.path)
    before = path.read_bytes()
    kept_before = load_kept(path)
    assert kept_before is not None
    grow(crawl)
    grow_into_project(project, crawl, PARAMS, workers=1)
    after = path.read_bytes()
    # What the disk held had the crash come before the part's length was written.
    path.write_bytes(before + bytes(8) + after[len(before) + 8 : len(after) - 100])

    cut = load_kept(path)
    assert cut is not None and canonical(cut) == canonical(kept_before)
    grown, _, growth = grow_into_project(project, crawl, PARAMS, workers=1)
    assert sorted(growth.new) == ["p20.html", "p21.html"] and growth.changed == ["p03.html"]
    assert growth.removed == ["p05.html"]
    project.close()
    assert path.read_bytes()[: len(before)] == before  # the part cut short was replaced
    kept = load_kept(path)
    assert kept is not None and kept.stored is not None and kept.stored.parts == 2
    assert canonical(kept) == canonical(full_kept(crawl, tmp_path / "full.wbproj"))

    full = Project.create(tmp_path / "again.wbproj", str(crawl))
    assert pairs_of(grown) == pairs_of(run_into_project(full, crawl, PARAMS, workers=1)[0])
    full.close()


def test_a_file_mostly_replaced_is_written_whole_again(crawl: Path, tmp_path: Path) -> None:
    """Pages of replaced files are read (and passed over) by every load: once they come
    to more than half the kept ones, the file is written whole, in one part."""
    project = first_run(crawl, tmp_path / "p.wbproj")
    for k in range(9):
        write_page(crawl, f"p{k:02d}", (k + 1) % 5, "rewritten")
        later(crawl / f"p{k:02d}.html")
    _, _, growth = grow_into_project(project, crawl, PARAMS, workers=1)
    project.close()
    assert len(growth.changed) == 9
    kept = load_kept(kept_path(tmp_path / "p.wbproj"))
    assert kept is not None and kept.stored is not None and kept.stored.parts == 1
    assert kept.stored.pages == 12
    assert canonical(kept) == canonical(full_kept(crawl, tmp_path / "full.wbproj"))
