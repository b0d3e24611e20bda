"""What a cluster run's client holds once the pages' records are back: nothing of the map
tasks it sent (Dask's debugging logs kept short: workbench.cluster.short_logs)."""

from __future__ import annotations

import gc
from pathlib import Path

import dask
import distributed  # noqa: F401 - its settings, with their defaults, are known once it is imported
import pytest

from workbench.archive import tasks
from workbench.archive.scan import FileEntry
from workbench.cluster import extract
from workbench.cluster.run import dask_run, local_cluster
from workbench.cluster.short_logs import LOG_LENGTH
from workbench.detect.spotsigs.params import SpotSigsParams

FILES = 300


def _crawl(root: Path) -> Path:
    root.mkdir()
    for k in range(FILES):
        (root / f"{k:04d}.html").write_text(
            f"<html><head><title>Page {k}</title></head><body><p>The council said on Monday that "
            f"the bridge number {k} would be closed for a week, and that the work was needed.</p>"
            "</body></html>", encoding="utf-8")
    return root


def _file_entries() -> int:
    return sum(isinstance(o, FileEntry) for o in gc.get_objects())


@pytest.mark.slow
def test_the_client_keeps_no_tasks_units_once_the_records_are_back(tmp_path: Path, monkeypatch):
    # A task a file: many more tasks than a log keeps messages.
    monkeypatch.setattr(tasks, "BATCH_FILES", 1)
    monkeypatch.setattr(extract, "TASK_FILES", 1)
    crawl = _crawl(tmp_path / "crawl")
    before = dask.config.get("distributed.admin.low-level-log-length")
    gc.collect()
    earlier = _file_entries()  # other tests' runs in this process may have left a few
    with local_cluster(2) as cluster, dask_run(None, tmp_path / "work", cluster=cluster) as run:
        pages, skipped = run.extract_all(crawl, SpotSigsParams(), lambda *_: None, 2)
        assert len(pages) == FILES and not skipped
        gc.collect()
        alive = _file_entries() - earlier
        # Each of the scheduler's two streams to the workers (and the client's to the
        # scheduler) keeps its last LOG_LENGTH messages; Dask's default kept all 300 units.
        assert alive <= 4 * LOG_LENGTH, alive
        run.checksum_groups(len(pages))  # the reductions started meanwhile end before the folder goes
    assert dask.config.get("distributed.admin.low-level-log-length") == before  # Dask's own again
