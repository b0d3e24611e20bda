"""A real project made from the demo archive (once per session), copied for each test."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import DEMO_ARCHIVE
from workbench.store import Project, TagSpec
from workbench.usecases.pipeline import run_into_project

TAGS = ("unions", "feminism", "local issue")


@pytest.fixture(scope="session")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "study.wbproj"
    with Project.create(path, str(DEMO_ARCHIVE), coder="lead") as project:
        run_into_project(project, DEMO_ARCHIVE, workers=1)
        project.import_codebook([TagSpec(name) for name in TAGS])
    return path


@pytest.fixture
def lead(demo_file: Path, tmp_path: Path) -> Iterator[Project]:
    """The lead's project (coder "lead"), a fresh copy of the demo project."""
    path = tmp_path / "lead" / "study.wbproj"
    path.parent.mkdir()
    shutil.copy(demo_file, path)
    with Project.open(path, backups=0, coder="lead") as project:
        yield project


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "handout"
    folder.mkdir()
    return folder


def clusters(project: Project) -> list[int]:
    """Clusters of two pages or more, largest first."""
    return [r.id for r in project.list_clusters(limit=1000) if r.size > 1]


def tag(project: Project, name: str) -> int:
    found = project.tag_by_name(name)
    assert found is not None
    return found.id


def guid(project: Project, name: str) -> str:
    found = project.tag_by_name(name)
    assert found is not None and found.guid is not None
    return found.guid
