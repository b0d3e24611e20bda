"""Shared fixtures: where the team's real data lives, and skipping when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"
DEMO_ARCHIVE = REPO / "workbench" / "resources" / "demo-archive"


def shared_path(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test with the reason it cannot run."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs {path} (the team's shared data beside the repo), which is absent")
    return path


@pytest.fixture
def goldset_dev() -> Path:
    return shared_path("goldset-dev")


@pytest.fixture
def warc_dir() -> Path:
    return shared_path("warc")
