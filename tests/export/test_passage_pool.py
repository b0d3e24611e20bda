"""A large export computes the passage shares in worker processes: the same cells, the
same pages counted as unread, as computing each row as it is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.export.test_passage_columns import demo_project  # noqa: F401 - a fixture
from workbench.export import export_pages
from workbench.export import passage_columns as columns
from workbench.store import Project


def test_shares_in_worker_processes_are_the_shares_row_by_row(demo_project: Project,  # noqa: F811
                                                              tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # A member's file gone: its cells stay empty and it is counted unread, either way.
    member = next(r for r in demo_project.page_records() if r.cluster_id and not r.is_reference)
    (Path(demo_project.archive_root) / member.source).unlink()
    alone = export_pages(demo_project, tmp_path / "alone.csv", coded_only=False)
    monkeypatch.setattr(columns, "POOL_ROWS", 0)  # the demo is small: the pool all the same
    monkeypatch.setattr(columns, "TASK_ROWS", 1)  # a task per cluster
    reports: list[tuple[str, int, int | None]] = []
    pooled = export_pages(demo_project, tmp_path / "pooled.csv", coded_only=False, workers=2,
                          progress=lambda stage, done, total: reports.append((stage, done, total)))
    assert (tmp_path / "pooled.csv").read_bytes() == (tmp_path / "alone.csv").read_bytes()
    assert pooled.passages_unread == alone.passages_unread == 1
    shares = [r for r in reports if r[0] == "shares"]
    members = sum(1 for r in demo_project.page_records() if r.cluster_id and not r.is_reference)
    assert shares[0] == ("shares", 0, members) and shares[-1] == ("shares", members, members)
    assert reports[-1] == ("export", pooled.rows, pooled.rows)


def test_a_small_export_computes_no_shares_ahead(demo_project: Project,  # noqa: F811
                                                 tmp_path: Path) -> None:
    reports: list[str] = []
    export_pages(demo_project, tmp_path / "all.csv", coded_only=False, workers=2,
                 progress=lambda stage, done, total: reports.append(stage))
    assert "shares" not in reports and "export" in reports


def test_the_command_line_export_computes_the_shares_in_worker_processes(
        demo_project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    from workbench.commands.cli import main

    path = Path(demo_project.path)
    demo_project.close()
    monkeypatch.setattr(columns, "POOL_ROWS", 0)  # the demo is small: the pool all the same
    pools: list[int] = []
    real = columns.PassageColumns.compute_ahead

    def counted(self, records, workers, progress=None):  # type: ignore[no-untyped-def]
        pools.append(workers)
        return real(self, records, workers) if progress is None else real(self, records, workers, progress)

    monkeypatch.setattr(columns.PassageColumns, "compute_ahead", counted)
    assert main(["export", str(path), "--out", str(tmp_path / "two.csv"), "--all", "--workers", "2"]) == 0
    assert main(["export", str(path), "--out", str(tmp_path / "one.csv"), "--all", "--workers", "1"]) == 0
    assert pools == [2, 1]
    assert (tmp_path / "two.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    assert main(["export", str(path), "--out", str(tmp_path / "no.csv"), "--workers", "0"]) == 2
