"""``workbench dedup`` lets go of what the saved run does not need before it saves: a large
crawl's corpus holds the repeated blocks and the identical pages' groups beside the result."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from tests.conftest import DEMO_ARCHIVE
from workbench.commands.cli import main


def test_the_corpus_is_gone_before_the_run_is_saved(tmp_path: Path, monkeypatch):
    import workbench.commands.cli as cli

    seen: list[weakref.ref] = []
    alive_at_save: list[bool] = []
    detect, save = cli.detect, cli.save_result

    def detecting(corpus, **kwargs):
        seen.append(weakref.ref(corpus.checksum_group))  # an array only the corpus holds
        return detect(corpus, **kwargs)

    def saving(project, result):
        gc.collect()
        alive_at_save.append(seen[0]() is not None)
        return save(project, result)

    monkeypatch.setattr(cli, "detect", detecting)
    monkeypatch.setattr(cli, "save_result", saving)
    assert main(["dedup", str(DEMO_ARCHIVE), "--project", str(tmp_path / "p.wbproj"), "-q"]) == 0
    assert alive_at_save == [False]


def test_the_heap_is_given_back_once_the_run_is_saved(tmp_path: Path, monkeypatch):
    # The save's row batches, freed into the heap, would stay with the window after a run.
    import workbench.usecases.pipeline as pipeline
    from workbench.store import Project

    calls: list[str] = []
    save_run = Project.save_run

    def saving(self, *args, **kwargs):
        calls.append("save")
        return save_run(self, *args, **kwargs)

    monkeypatch.setattr(Project, "save_run", saving)
    monkeypatch.setattr(pipeline, "release_free_memory", lambda: calls.append("release") or True)
    assert main(["dedup", str(DEMO_ARCHIVE), "--project", str(tmp_path / "p.wbproj"), "-q"]) == 0
    assert calls[calls.index("save"):][-1] == "release"
