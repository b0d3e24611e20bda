"""WORKBENCH_START_METHOD picks the workers' start method; a value we do not know is refused."""

from __future__ import annotations

import multiprocessing
import sys

import pytest

from workbench.__main__ import EXIT_USAGE, main
from workbench.detect.workers import job_object, pool
from workbench.detect.workers.start_method import ENV_VAR, StartMethodError, start_method


@pytest.mark.parametrize("value, method", [("spawn", "spawn"), ("forkserver", "forkserver"),
                                           (" Spawn ", "spawn")])
def test_the_variable_picks_the_start_method(monkeypatch, value, method):
    monkeypatch.setenv(ENV_VAR, value)
    assert start_method() == method
    assert pool.worker_context().get_start_method() == method


def test_unset_it_is_forkserver_where_multiprocessing_has_one(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert start_method() == "forkserver"


def test_unset_it_is_spawn_in_a_frozen_macos_app_and_without_a_fork_server(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert start_method() == "spawn"
    monkeypatch.setattr(sys, "frozen", False)
    assert start_method() == "forkserver"
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])  # Windows
    assert start_method() == "spawn"
    monkeypatch.setenv(ENV_VAR, "forkserver")
    with pytest.raises(StartMethodError, match="no forkserver start method"):
        start_method()


@pytest.mark.parametrize("value", ["fork", "threads", "forkserver,spawn"])
def test_an_unknown_value_is_refused_with_a_clear_message(monkeypatch, capsys, value):
    monkeypatch.setenv(ENV_VAR, value)
    with pytest.raises(StartMethodError, match="use one of forkserver, spawn"):
        start_method()
    assert main(["dedup", "--help"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert f"WORKBENCH_START_METHOD={value!r} is not a start method" in err
    assert "Traceback" not in err


def test_no_fork_server_is_started_under_spawn(monkeypatch):
    monkeypatch.setenv(ENV_VAR, "spawn")

    def refuse() -> None:
        raise AssertionError("a fork server was started under spawn")

    monkeypatch.setattr(pool.forkserver, "ensure_running", refuse)
    pool.start_fork_server()


def test_the_windows_job_object_does_nothing_elsewhere(monkeypatch):
    assert sys.platform != "win32"
    assert job_object.kill_children_with_app() is False
    assert job_object._job is None
    # The structure Windows reads: JOBOBJECT_EXTENDED_LIMIT_INFORMATION is 144 bytes on 64-bit.
    if sys.maxsize > 2**32:
        import ctypes
        assert ctypes.sizeof(job_object._ExtendedLimits) == 144
