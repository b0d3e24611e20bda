"""Outputs that would destroy the project or the crawl are refused, by real CLI processes.

Each case is a `workbench` process on real files and real links: the project (and the
crawl) must come out byte for byte as they went in, with exit status 2 (bad parameters)
and a message naming what the output would have destroyed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DEMO_ARCHIVE
from tests.store.builders import cluster_ids, new_project, tag_id
from tests.store.faults import btree_page_near, flip_bytes
from workbench.store import Project
from workbench.store.safety.backup import backup_dir_for

REPO = Path(__file__).resolve().parents[2]


def workbench(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)],
                          capture_output=True, text=True, cwd=REPO, timeout=300)


@pytest.fixture
def coded(tmp_path: Path) -> Path:
    """A closed project with two tagged clusters and a backup folder."""
    project = new_project(tmp_path, [3, 2, 2])
    ids = cluster_ids(project)
    project.tag_clusters(ids[:2], [tag_id(project, "unions")])
    project.set_memo(ids[0], text="the strike story")
    project.close()
    with Project.open(project.path, backups=2) as again:
        again.wait_for_backup()
    return project.path


def tags_of(path: Path) -> list[tuple[str, ...]]:
    with Project.open(path, backups=0, readonly=True) as project:
        return sorted(tuple(r.tags) for r in project.page_records())


def test_export_over_its_own_project_is_refused(coded: Path) -> None:
    before = coded.read_bytes()
    done = workbench("export", coded, "--out", coded)
    assert done.returncode == 2, done.stderr
    assert "is the project" in done.stderr and "destroy" in done.stderr
    assert coded.read_bytes() == before
    assert ("unions",) in tags_of(coded)


def test_export_over_another_name_of_the_project_is_refused(coded: Path, tmp_path: Path) -> None:
    """Identity, not name: a hard link, and a path through a linked folder."""
    before = coded.read_bytes()
    other_name = tmp_path / "tagged.csv"
    os.link(coded, other_name)
    via = tmp_path / "via"
    via.symlink_to(tmp_path, target_is_directory=True)
    for out in (other_name, via / coded.name, tmp_path / "sub" / ".." / coded.name):
        (tmp_path / "sub").mkdir(exist_ok=True)
        done = workbench("export", coded, "--out", out)
        assert done.returncode == 2, (out, done.stderr)
        assert "is the project" in done.stderr
    assert coded.read_bytes() == before


def test_export_over_the_project_side_files_and_backups_is_refused(coded: Path) -> None:
    backups = backup_dir_for(coded)
    copy = sorted(backups.glob("study-*.wbproj"))[-1]
    copy_bytes = copy.read_bytes()
    cases = {coded.with_name(coded.name + "-wal"): "write-ahead log",
             coded.with_name(coded.name + "-journal"): "journal",
             coded.with_name(coded.name + ".lock"): "lock file",
             copy: "backup copies", backups / "new.csv": "backup copies"}
    for out, said in cases.items():
        done = workbench("export", coded, "--out", out)
        assert done.returncode == 2, (out, done.stderr)
        assert said in done.stderr, done.stderr
        assert not (out.is_file() and out.read_bytes().startswith(b"cluster,"))
    assert copy.read_bytes() == copy_bytes


def test_export_over_a_page_of_its_crawl_is_refused(tmp_path: Path) -> None:
    crawl = tmp_path / "crawl"
    shutil.copytree(DEMO_ARCHIVE, crawl)
    project = tmp_path / "demo.wbproj"
    done = workbench("dedup", crawl, "--project", project, "-q")
    assert done.returncode == 0, done.stderr
    page = sorted(crawl.rglob("*.html"))[0]
    before = page.read_bytes()
    done = workbench("export", project, "--out", page, "--all")
    assert done.returncode == 2 and "inside the crawl" in done.stderr, done.stderr
    assert page.read_bytes() == before


def test_dedup_outputs_over_the_project_or_the_crawl_are_refused(coded: Path,
                                                               tmp_path: Path) -> None:
    crawl = tmp_path / "crawl"
    shutil.copytree(DEMO_ARCHIVE, crawl)
    page = sorted(crawl.rglob("*.html"))[0]
    page_bytes, project_bytes = page.read_bytes(), coded.read_bytes()
    done = workbench("dedup", crawl, "--project", coded, "--pairs", coded, "-q")
    assert done.returncode == 2 and "is the project" in done.stderr, done.stderr
    done = workbench("dedup", crawl, "--clusters", page, "-q")
    assert done.returncode == 2 and "inside the crawl" in done.stderr, done.stderr
    done = workbench("dedup", crawl, "--skipped", crawl / "skipped.csv", "-q")
    assert done.returncode == 2 and "inside the crawl" in done.stderr, done.stderr
    single = sorted(crawl.rglob("*.html"))[1]
    done = workbench("dedup", single, "--pairs", single, "-q")
    assert done.returncode == 2 and "crawl being read" in done.stderr, done.stderr
    out = tmp_path / "both.csv"
    done = workbench("dedup", crawl, "--pairs", out, "--clusters", out, "-q")
    assert done.returncode == 2 and "the same file" in done.stderr, done.stderr
    assert page.read_bytes() == page_bytes and coded.read_bytes() == project_bytes
    assert not (crawl / "skipped.csv").exists() and not out.exists()
    assert ("unions",) in tags_of(coded)


def test_outputs_are_never_written_through_links(coded: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"someone else's file\n")
    # A link at the output's name is refused with a message ...
    out = tmp_path / "out.csv"
    out.symlink_to(victim)
    done = workbench("export", coded, "--out", out, "--all")
    assert done.returncode == 2 and "symbolic link" in done.stderr, done.stderr
    done = workbench("dedup", DEMO_ARCHIVE, "--pairs", out, "-q")
    assert done.returncode == 2 and "symbolic link" in done.stderr, done.stderr
    # ... and one at the old temporary name (or the sidecar's) is never followed.
    good = tmp_path / "good.csv"
    (tmp_path / "good.csv.partial").symlink_to(victim)
    (tmp_path / "good.run.json.partial").symlink_to(victim)
    done = workbench("export", coded, "--out", good, "--all")
    assert done.returncode == 0, done.stderr
    assert victim.read_bytes() == b"someone else's file\n"
    assert good.read_text(encoding="utf-8").startswith("cluster,")
    assert not good.is_symlink() and not list(tmp_path.glob(".*partial"))


def test_export_exit_statuses_follow_the_readme(coded: Path, tmp_path: Path) -> None:
    """0 done, 2 bad parameters, 3 unusable input (a missing or damaged project)."""
    out = tmp_path / "out.csv"
    assert workbench("export", coded, "--out", out).returncode == 0
    missing = workbench("export", tmp_path / "missing.wbproj", "--out", out)
    assert missing.returncode == 3 and "does not exist" in missing.stderr
    folder = workbench("export", coded, "--out", tmp_path)
    assert folder.returncode == 2 and "is a folder" in folder.stderr
    page, size = btree_page_near(coded, 0.5)
    flip_bytes(coded, (page - 1) * size, 64)
    damaged = workbench("export", coded, "--out", out)
    assert damaged.returncode == 3 and "damaged" in damaged.stderr, damaged.stderr


def test_compare_curve_over_the_project_or_the_gold_set_is_refused(coded: Path,
                                                                 tmp_path: Path) -> None:
    gold = tmp_path / "gold"
    shutil.copytree(DEMO_ARCHIVE, gold)
    page = sorted(gold.rglob("*.html"))[0]
    before, project_bytes = page.read_bytes(), coded.read_bytes()
    done = workbench("compare", gold, "--curve", page, "-q")
    assert done.returncode == 2 and "inside the crawl" in done.stderr, done.stderr
    done = workbench("compare", "--project", coded, "--curve", coded, "-q")
    assert done.returncode == 2 and "is the project" in done.stderr, done.stderr
    assert page.read_bytes() == before and coded.read_bytes() == project_bytes
