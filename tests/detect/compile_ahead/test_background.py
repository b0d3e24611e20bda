"""The window's start-up warm-up: a low-priority child that checks the cache first, started
the way this installation can start it (a frozen bundle has no ``-m``)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from workbench.detect.compile_ahead import background


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[list[str], dict]] = []

    def __call__(self, cmd: list[str], **kwargs):
        self.calls.append((cmd, kwargs))
        return object()


@pytest.fixture
def popen(monkeypatch) -> _Recorder:
    recorder = _Recorder()
    monkeypatch.setattr(background.subprocess, "Popen", recorder)
    monkeypatch.setattr(background, "_started", [])
    return recorder


def test_a_source_install_starts_the_module_with_if_cold(popen: _Recorder):
    assert background.start_if_cold() is not None
    (cmd, kwargs), = popen.calls
    assert cmd == [sys.executable, "-m", "workbench.detect.compile_ahead", "--if-cold", "--background",
                   "--quiet"]
    assert kwargs["stdin"] == kwargs["stdout"] == kwargs["stderr"] == subprocess.DEVNULL


def test_a_frozen_bundle_asks_its_own_executable(popen: _Recorder, monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    background.start_if_cold()
    (cmd, _), = popen.calls
    assert cmd == [sys.executable, "--compile-ahead", "--if-cold", "--background", "--quiet"]


def test_a_child_that_cannot_start_is_no_error(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("no such executable")

    monkeypatch.setattr(background.subprocess, "Popen", refuse)
    assert background.start_if_cold() is None


def test_the_window_starts_it_when_the_app_starts(monkeypatch):
    """run_app, with the window and the event loop stood in for: the warm-up is started
    before the first archive is opened."""
    from workbench.gui import app

    order: list[str] = []

    class _Window:
        class error_reporter:  # noqa: N801 - stands in for an attribute
            @staticmethod
            def install() -> None:
                pass

        def show(self) -> None:
            order.append("show")

    class _App:
        def exec(self) -> int:
            return 0

    class _Requests:  # Finder's open requests (gui/fileopen), not asked for here
        def __init__(self, _app: object) -> None:
            pass

        def attach(self, _window: object) -> None:
            pass

        def detach(self) -> None:
            pass

    monkeypatch.setattr(app, "make_app", _App)
    monkeypatch.setattr(app, "make_window", _Window)
    monkeypatch.setattr(app, "FileOpenRequests", _Requests)
    monkeypatch.setattr(app, "open_target", lambda window, target: order.append("open"))
    monkeypatch.setattr(background, "start_if_cold", lambda: order.append("warm"))
    assert app.run_app(["crawl"]) == 0
    assert order == ["show", "warm", "open"]
