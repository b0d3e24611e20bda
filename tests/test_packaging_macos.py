"""The macOS app bundle's files: workbench.spec's BUNDLE step, its Info.plist and icon.

PyInstaller builds a .app only on macOS; here the spec runs with PyInstaller's build steps
replaced by recorders and sys.platform set to "darwin", and what it would give BUNDLE is
checked the way macOS reads it (plistlib)."""

from __future__ import annotations

import importlib.util
import plistlib
import sys
import types
from pathlib import Path

import pytest

from tests.conftest import REPO
from workbench import __version__
from workbench.gui.project.locations import PROJECT_SUFFIX

PACKAGING = REPO / "packaging"
SPEC = PACKAGING / "workbench.spec"


def load(name: str, path: Path) -> types.ModuleType:
    # By path: "packaging" is also the name of a library every venv has.
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Step:
    """A PyInstaller build step that records what the spec gives it."""

    made: list[Step] = []

    def __init__(self, *args, **kwargs) -> None:
        self.args, self.kwargs = args, kwargs
        self.binaries = self.datas = self.pure = self.scripts = []
        Step.made.append(self)


def run_spec(platform: str, monkeypatch) -> dict[str, Step]:
    """The spec's steps by kind ("Analysis", "EXE", "BUNDLE"...), as on ``platform``."""
    hooks = types.ModuleType("PyInstaller.utils.hooks")
    hooks.collect_data_files = lambda *a, **k: []
    hooks.collect_dynamic_libs = lambda *a, **k: []
    hooks.collect_submodules = lambda *a, **k: []
    for name in ("PyInstaller", "PyInstaller.utils"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "PyInstaller.utils.hooks", hooks)
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the spec puts packaging/ first
    monkeypatch.delitem(sys.modules, "macos_plist", raising=False)
    steps = {kind: type(kind, (Step,), {}) for kind in ("Analysis", "PYZ", "EXE", "COLLECT", "BUNDLE")}
    Step.made = []
    exec(compile(SPEC.read_text(encoding="utf-8"), str(SPEC), "exec"),
         {"SPECPATH": str(PACKAGING), "__name__": "__main__", **steps})
    return {type(step).__name__: step for step in Step.made}


def test_the_spec_bundles_an_app_on_macos(monkeypatch):
    steps = run_spec("darwin", monkeypatch)
    bundle = steps["BUNDLE"]
    assert bundle.args == (steps["COLLECT"],)
    assert bundle.kwargs["name"] == "SpotSigs Workbench.app"
    assert bundle.kwargs["bundle_identifier"] == "org.spotsigs.Workbench"
    assert bundle.kwargs["version"] == __version__
    assert Path(bundle.kwargs["icon"]).is_file()
    # A console executable would make the .app a background app: no menu bar, no Dock.
    assert steps["EXE"].kwargs["console"] is False
    assert steps["EXE"].kwargs["argv_emulation"] is False  # Finder's events go to Qt


def test_the_spec_makes_no_app_elsewhere(monkeypatch):
    for platform in ("linux", "win32"):
        steps = run_spec(platform, monkeypatch)
        assert "BUNDLE" not in steps and steps["EXE"].kwargs["console"] is True


def test_info_plist_declares_the_project_type(monkeypatch):
    plist = run_spec("darwin", monkeypatch)["BUNDLE"].kwargs["info_plist"]
    read = plistlib.loads(plistlib.dumps(plist))  # what macOS reads from the bundle
    assert read["LSMinimumSystemVersion"] == "13.0"  # the locked PySide6 wheel's floor
    assert read["NSHighResolutionCapable"] is True and read["LSBackgroundOnly"] is False
    assert read["CFBundleShortVersionString"] == __version__
    assert read["NSHumanReadableCopyright"] == "Free software under the MIT licence."
    (exported,) = read["UTExportedTypeDeclarations"]
    tags = exported["UTTypeTagSpecification"]
    assert tags["public.filename-extension"] == [PROJECT_SUFFIX.lstrip(".")]
    # The same MIME type as the Linux desktop files.
    assert tags["public.mime-type"] == ["application/x-spotsigs-workbench-project"]
    assert "application/x-spotsigs-workbench-project" in (
        PACKAGING / "linux" / "org.spotsigs.Workbench.mime.xml").read_text(encoding="utf-8")
    project, folder = read["CFBundleDocumentTypes"]
    assert project["LSItemContentTypes"] == [exported["UTTypeIdentifier"]]
    assert (project["CFBundleTypeRole"], project["LSHandlerRank"]) == ("Editor", "Owner")
    assert folder["LSItemContentTypes"] == ["public.folder"] and folder["LSHandlerRank"] == "Alternate"
    assert (PACKAGING / "macos" / project["CFBundleTypeIconFile"]).is_file()


def test_the_bundle_id_is_the_apps_desktop_id(qtbot):
    from workbench.gui.app import make_app

    plist = load("macos_plist", PACKAGING / "macos_plist.py")
    assert make_app().desktopFileName() == plist.BUNDLE_ID
    # The wheel check looks for wheels for the same oldest macOS.
    wheels = (REPO / "scripts" / "check_wheels.py").read_text(encoding="utf-8")
    assert f"macosx_{plist.MIN_MACOS.replace('.', '_')}_arm64" in wheels


def test_the_icns_holds_every_size_as_png():
    icons = load("make_icons", PACKAGING / "make_icons.py")
    data = (PACKAGING / "macos" / "workbench.icns").read_bytes()
    assert data[:4] == b"icns" and int.from_bytes(data[4:8], "big") == len(data)
    entries, at = {}, 8
    while at < len(data):
        kind, length = data[at:at + 4], int.from_bytes(data[at + 4:at + 8], "big")
        entries[kind] = data[at + 8:at + length]
        at += length
    assert at == len(data) and set(entries) == set(icons.ICNS_TYPES)
    for kind, png in entries.items():
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        size = icons.ICNS_TYPES[kind]
        assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (size, size)


@pytest.mark.parametrize("frozen", [True, False])
def test_a_frozen_mac_app_spawns_its_workers(monkeypatch, frozen):
    """A bundled executable is no Python to fork a server from: spawn (issue 32 item 1)."""
    from workbench.detect.workers import start_method

    monkeypatch.delenv(start_method.ENV_VAR, raising=False)
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(sys, "frozen", frozen, raising=False)
    assert start_method.start_method() == ("spawn" if frozen else "forkserver")


def test_the_licence_said_in_the_app_is_the_packages():
    import tomllib

    import workbench

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == workbench.LICENCE
