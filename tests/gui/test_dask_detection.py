"""Detection ▸ Detection Settings can send a run to a Dask cluster (issue 34 item 6): the
Dask scheduler at an address (here a LocalCluster the test starts, its workers threads of
this process), with the local run's results, the same progress (tasks done of all) and
Cancel, the choice kept with the project's pending settings, and an unreachable
scheduler said in a dialog."""

from __future__ import annotations

import logging

import pytest

from tests.gui.conftest import RUN_TIMEOUT_MS
from tests.gui.test_runs import big_archive, cancel_at_first_progress  # noqa: F401 - a fixture
from workbench.cluster import run as cluster_run
from workbench.cluster.where import HERE, LOCAL, SCHEDULER, RunWhere
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.gui.dialogs import SettingsDialog
from workbench.usecases.pipeline import corpus_into_project

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    # tcp, not the in-process transport processes=False picks: the window connects by address.
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp://", host="127.0.0.1",
                      dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR) as running:
        yield running


def _ran_on(cluster) -> set[str]:
    """The kinds of task the cluster's scheduler has seen (extraction: ``sharded``, the
    join: ``probe_task``)."""
    return set(cluster.scheduler.task_prefixes)


def _computed(cluster) -> float:
    """The seconds the cluster's extraction tasks have computed, in all (it only grows)."""
    prefix = cluster.scheduler.task_prefixes.get("sharded")
    return prefix.all_durations.get("compute", 0.0) if prefix is not None else 0.0


def _clusters(project) -> list[list[str]]:
    """Every cluster of the current run by its pages' keys (singletons too)."""
    rows = project.list_clusters(limit=10**6)
    return sorted(sorted(m.key for m in project.members(c.id)) for c in rows)


def test_a_run_on_the_dask_scheduler_at_an_address_is_the_local_run(qtbot, demo_window, prompter, cluster):
    w = demo_window
    local = w.project.current_run()
    local_clusters = _clusters(w.project)
    where = RunWhere(SCHEDULER, cluster.scheduler_address)
    prompter.params.append((SpotSigsParams(), where))
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        w.actions_by_name["settings"].trigger()
    assert prompter.asked_where == [RunWhere()]  # the dialog opened on "this machine"
    assert {"sharded", "probe_task"} <= _ran_on(cluster), "the run did not go to the cluster"
    run = w.project.current_run()
    assert run.id != local.id
    assert _clusters(w.project) == local_clusters
    assert w.project.count_clusters() > 0 and not prompter.errors
    done, total = w.run_panel.tasks
    assert total > 0 and done == total  # the panel counted the cluster's tasks
    # The next run (Run Detection Again, Add Pages) goes there too; the dialog offers it.
    assert w.run_where == where
    prompter.params.append(SpotSigsParams())
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        w.actions_by_name["settings"].trigger()
    assert prompter.asked_where[-1] == where


def test_cancel_stops_a_run_on_dask(qtbot, window, prompter, cluster, big_archive):  # noqa: F811
    w = window
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        assert w.open_archive(big_archive)
    first = w.project.current_run().id
    prompter.params.append((SpotSigsParams(tau=0.3), RunWhere(SCHEDULER, cluster.scheduler_address)))
    w.actions_by_name["settings"].trigger()
    cancel_at_first_progress(qtbot, w)
    assert w.job is None and w.project.current_run().id == first
    assert w.project.pending_run() is None  # cancelling is the coder's choice: nothing to offer again
    # The cluster holds nothing of the run (its tasks cancelled, their futures let go).
    qtbot.waitUntil(lambda: not cluster.scheduler.tasks, timeout=10_000)


def test_an_unreachable_scheduler_is_said_in_a_dialog(qtbot, demo_window, prompter, monkeypatch):
    monkeypatch.setattr(cluster_run, "CONNECT_TIMEOUT", "1s")
    w = demo_window
    first = w.project.current_run().id
    prompter.params.append((SpotSigsParams(), RunWhere(SCHEDULER, "tcp://127.0.0.1:9")))
    with qtbot.waitSignal(w.run_failed, timeout=RUN_TIMEOUT_MS):
        w.actions_by_name["settings"].trigger()
    assert prompter.errors and prompter.errors[-1][0] == "Detection failed"
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in prompter.errors[-1][1]
    assert "Traceback" not in prompter.errors[-1][1]
    assert w.project.current_run().id == first and w.job is None


def test_a_pending_run_on_dask_is_offered_again_there(qtbot, window, prompter, cluster, tmp_path):
    """The choice is kept with the project's pending settings: a run killed half way is
    offered again on reopening, and runs where it was to run."""
    from tests.conftest import DEMO_ARCHIVE
    from workbench.gui.project.opening import RUN_AGAIN
    from workbench.store import Project

    where = RunWhere(SCHEDULER, cluster.scheduler_address)
    path = tmp_path / "killed.wbproj"
    project = Project.create(path, str(DEMO_ARCHIVE))

    def killed() -> None:
        raise RuntimeError("the window was killed while the run read")

    with pytest.raises(RuntimeError):
        corpus_into_project(project, SpotSigsParams(), killed, extra=where.setting())
    assert project.pending_run()["dask"] == cluster.scheduler_address
    project.close()
    computed = _computed(cluster)
    prompter.choices.append(0)  # the buttons' first: Run Again
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        window.open_project(path)
    assert prompter.chosen[-1][2][0] == RUN_AGAIN
    assert window.run_where == where
    assert _computed(cluster) > computed, "the run offered again did not go to the cluster"


def test_the_settings_dialog_says_where_to_run(qtbot):
    dialog = SettingsDialog(SpotSigsParams(), where=RunWhere(LOCAL))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.run_local.isChecked() and dialog.where() == RunWhere(LOCAL)
    dialog.run_scheduler.click()
    dialog._accept()  # no address: refused with a message, the dialog stays open
    assert "Give the Dask scheduler's address" in dialog.error.text() and not dialog.result()
    qtbot.keyClicks(dialog.scheduler_address, "tcp://10.1.2.3:8786")
    assert dialog.where() == RunWhere(SCHEDULER, "tcp://10.1.2.3:8786")
    dialog.run_here.click()
    assert dialog.where().mode == HERE and dialog.where().setting() == {}
    assert RunWhere.of_setting({"dask": ""}) == RunWhere(LOCAL)
    assert RunWhere.of_setting({"dask": "tcp://h:1"}) == RunWhere(SCHEDULER, "tcp://h:1")
    assert RunWhere.of_setting({"tau": 0.4}) == RunWhere()
