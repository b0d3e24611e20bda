"""The command line and a project file that is in use, read-only or gets a run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import DEMO_ARCHIVE
from tests.store.faults import read_only
from workbench.commands.cli import EXIT_INPUT, main
from workbench.store import Project


@pytest.fixture
def project_path(tmp_path: Path) -> Path:
    path = tmp_path / "study.wbproj"
    assert main(["dedup", str(DEMO_ARCHIVE), "--project", str(path), "-q"]) == 0
    return path


def test_dedup_into_a_project_in_use_is_refused_before_reading(project_path, capsys, monkeypatch):
    import workbench.commands.cli as cli

    def must_not_read(*_args, **_kwargs):
        raise AssertionError("the archive was read although the project cannot take the run")

    monkeypatch.setattr(cli, "_load", must_not_read)
    with Project.open(project_path, backups=0) as holder:
        runs_before = len(holder.runs())
        assert main(["dedup", str(DEMO_ARCHIVE), "--project", str(project_path), "-q"]) == EXIT_INPUT
        err = capsys.readouterr().err
        assert "open" in err and str(project_path) in err
        assert len(holder.runs()) == runs_before


def test_dedup_into_a_read_only_project_says_so(project_path, capsys, monkeypatch):
    import workbench.commands.cli as cli

    monkeypatch.setattr(cli, "_load", lambda *a, **k: pytest.fail("read the archive"))
    with read_only(project_path):
        assert main(["dedup", str(DEMO_ARCHIVE), "--project", str(project_path), "-q"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "cannot save a run into it" in err and "read-only" in err
    assert "is not a SpotSigs Workbench project" not in err


def test_export_works_beside_a_window_and_on_a_read_only_file(project_path, tmp_path, capsys):
    out = tmp_path / "while-open.csv"
    with Project.open(project_path, backups=0):  # the window has it open for coding
        assert main(["export", str(project_path), "--out", str(out), "--all"]) == 0
    assert out.is_file()
    out2 = tmp_path / "read-only.csv"
    with read_only(project_path):
        assert main(["export", str(project_path), "--out", str(out2), "--all"]) == 0
    assert out2.read_bytes() == out.read_bytes()


def test_dedup_with_nothing_to_read_leaves_no_pending_run(project_path, tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["dedup", str(empty), "--project", str(project_path), "-q"]) == EXIT_INPUT
    with Project.open(project_path, backups=0, readonly=True) as project:
        assert project.pending_run() is None


def test_a_failed_save_leaves_the_run_pending(project_path, capsys, monkeypatch):
    """A run that could not be saved is offered again when the window opens the project."""
    import workbench.commands.cli as cli
    from workbench.store import ProjectError

    def full_disk(*_args, **_kwargs):
        raise ProjectError("the disk is full")

    monkeypatch.setattr(cli, "save_result", full_disk)
    assert main(["dedup", str(DEMO_ARCHIVE), "--project", str(project_path), "--tau", "0.5",
                 "-q"]) == EXIT_INPUT
    assert "the run was not saved: the disk is full" in capsys.readouterr().err
    with Project.open(project_path, backups=0, readonly=True) as project:
        pending = project.pending_run()
    assert pending is not None and pending["tau"] == pytest.approx(0.5)


def test_dedup_into_a_project_on_a_network_drive_warns_and_saves(project_path, capsys,
                                                                  monkeypatch):
    from workbench.store.safety import network_drive

    asked = []

    def on_nfs(path, platform=None):
        asked.append(Path(path))
        return "nfs4"

    monkeypatch.setattr(network_drive, "network_place", on_nfs)
    assert main(["dedup", str(DEMO_ARCHIVE), "--project", str(project_path), "-q"]) == 0
    err = capsys.readouterr().err
    assert "warning: study.wbproj is on a network drive (nfs4)" in err
    assert "not safe on network drives" in err and "Copy the project to this computer" in err
    assert asked == [project_path]
    with Project.open(project_path, backups=0, readonly=True) as project:
        assert len(project.runs()) == 2  # warned, not refused: the run was saved


def test_dedup_on_a_local_disk_does_not_warn(tmp_path, capsys):
    path = tmp_path / "new.wbproj"
    assert main(["dedup", str(DEMO_ARCHIVE), "--project", str(path), "-q"]) == 0
    assert "network" not in capsys.readouterr().err
