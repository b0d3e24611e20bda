"""A re-run's settings are in the project before it starts, until its run is saved."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import DEMO_ARCHIVE, REPO
from tests.store.builders import groups_run, new_project
from workbench.core.progress import Cancelled
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.store import Project
from workbench.store.runs import runs
from workbench.usecases.pipeline import run_into_project

NEW = dataclasses.replace(SpotSigsParams(), tau=0.44)


def _first_run(tmp_path: Path) -> tuple[Project, int]:
    """A project whose current run was made at tau 0.20."""
    project = Project.create(tmp_path / "study.wbproj", str(DEMO_ARCHIVE), coder="ann")
    _, run_id = run_into_project(project, DEMO_ARCHIVE, dataclasses.replace(NEW, tau=0.20))
    return project, run_id


def test_begin_run_keeps_the_settings_until_the_run_is_saved(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2])
    first = project.current_run()
    assert project.pending_run() is None
    project.begin_run({"tau": 0.44, "specs": ["the(1,2)"]})
    assert project.pending_run() == {"tau": 0.44, "specs": ["the(1,2)"]}
    project.close()
    with Project.open(tmp_path / "study.wbproj", backups=0) as project:
        assert project.pending_run() == {"tau": 0.44, "specs": ["the(1,2)"]}
        assert project.current_run() == first
        pages, pairs, clusters = groups_run([2, 2])
        project.save_run({"tau": 0.44}, "spotsigs", {}, pages, pairs, clusters)
        assert project.pending_run() is None
        project.begin_run({"tau": 0.5})
        project.forget_pending_run()
        assert project.pending_run() is None


def test_a_failed_save_keeps_the_pending_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """save_run clears the pending run in its own transaction: a save that fails half
    way leaves both the old run current and the new settings pending."""
    project = new_project(tmp_path, [3, 2])
    first = project.current_run()
    project.begin_run({"tau": 0.44})

    def power_cut(*_args: object) -> None:
        raise RuntimeError("power cut")

    monkeypatch.setattr(runs, "_finish", power_cut)
    pages, pairs, clusters = groups_run([2, 2])
    with pytest.raises(RuntimeError):
        project.save_run({"tau": 0.44}, "spotsigs", {}, pages, pairs, clusters)
    assert project.pending_run() == {"tau": 0.44}
    assert project.current_run() == first
    project.close()


def test_a_rerun_that_fails_midway_leaves_its_settings_pending(tmp_path: Path) -> None:
    project, first = _first_run(tmp_path)

    def fail_at_match(stage: str, _done: int, _total: int | None) -> None:
        if stage == "match":
            raise MemoryError("out of memory while matching")

    with pytest.raises(MemoryError):
        run_into_project(project, DEMO_ARCHIVE, NEW, fail_at_match)
    assert project.pending_run() == NEW.to_dict()
    assert project.current_run().id == first  # type: ignore[union-attr]
    _, second = run_into_project(project, DEMO_ARCHIVE, NEW)
    assert project.pending_run() is None
    assert project.current_run().id == second != first  # type: ignore[union-attr]
    assert project.current_run().params["tau"] == 0.44  # type: ignore[union-attr]
    project.close()


def test_a_cancelled_rerun_is_not_pending(tmp_path: Path) -> None:
    """Cancel is the coder's own choice: nothing to offer again on reopening."""
    project, first = _first_run(tmp_path)

    def cancel(stage: str, _done: int, _total: int | None) -> None:
        if stage == "match":
            raise Cancelled

    with pytest.raises(Cancelled):
        run_into_project(project, DEMO_ARCHIVE, NEW, cancel)
    assert project.pending_run() is None
    assert project.current_run().id == first  # type: ignore[union-attr]
    project.close()


@pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")
def test_a_rerun_killed_midway_leaves_its_settings_pending(tmp_path: Path) -> None:
    project, first = _first_run(tmp_path)
    path = project.path
    project.close()
    # The process kills itself while clustering, as a crash or the task manager would.
    code = textwrap.dedent(f"""
        import dataclasses, os, signal
        from workbench.detect.spotsigs.params import SpotSigsParams
        from workbench.usecases.pipeline import run_into_project
        from workbench.store import Project

        def die(stage, done, total):
            if stage == "cluster":
                os.kill(os.getpid(), signal.SIGKILL)

        project = Project.open({str(path)!r}, backups=0)
        run_into_project(project, {str(DEMO_ARCHIVE)!r},
                         dataclasses.replace(SpotSigsParams(), tau=0.44), die)
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == -signal.SIGKILL, done.stderr
    with Project.open(path, backups=0) as project:
        assert project.pending_run() == NEW.to_dict()
        assert project.current_run().id == first  # type: ignore[union-attr]
