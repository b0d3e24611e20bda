"""Running another detector from the window: recorded, re-run with the same method, tags kept."""

from __future__ import annotations

from tests.conftest import DEMO_ARCHIVE
from tests.gui.conftest import RUN_TIMEOUT_MS
from workbench.usecases.detector_run import MethodChoice


def test_use_another_method_then_run_again_keeps_that_method_and_the_tags(qtbot, window):
    w = window
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        assert w.open_archive(DEMO_ARCHIVE)
    cluster = next(r for r in w.project.list_clusters(0, 100) if r.size > 1)
    tag = w.project.add_tag("school meals")
    w.project.tag_clusters([cluster.id], [tag.id])
    tagged = {r.source for r in w.project.page_records(coded_only=True)}

    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        assert w.start_method_run(MethodChoice("minhash", 0.3))
    assert w.project.current_run().method == "minhash"
    assert w.current_method() == MethodChoice("minhash", 0.3)
    assert w.model.rowCount() > 0

    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        w.actions_by_name["rerun"].trigger()
    newest = sorted(w.project.runs(), key=lambda r: r.id)[-2:]
    assert [r.method for r in newest] == ["minhash", "minhash"]
    assert {r.source for r in w.project.page_records(coded_only=True)} == tagged


def test_a_pending_method_run_is_offered_with_its_method(tmp_path):
    from workbench.store import Project

    with Project.create(tmp_path / "p.wbproj", str(DEMO_ARCHIVE)) as project:
        from workbench.detect.spotsigs.params import SpotSigsParams
        from workbench.usecases.detector_run import _pending_record
        from workbench.usecases.pipeline import pending_run

        try:
            with pending_run(project, SpotSigsParams(), _pending_record(MethodChoice("simhash", 0.9))):
                raise RuntimeError("killed half way")
        except RuntimeError:
            pass
        pending = project.pending_run()
    assert MethodChoice.of_run("", pending) == MethodChoice("simhash", 0.9)


def test_a_run_over_the_pair_floor_limit_says_so_in_the_status_bar(qtbot, window):
    import dataclasses

    from workbench.detect.spotsigs.params import SpotSigsParams

    w = window
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        assert w.open_archive(DEMO_ARCHIVE)
    assert "pair floor" not in w.statusBar().currentMessage()
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        assert w.start_run(dataclasses.replace(SpotSigsParams(), pair_floor_max_pages=3))
    assert "Pairs below τ were not looked for" in w.statusBar().currentMessage()
    assert "limit of 3" in w.statusBar().currentMessage()
