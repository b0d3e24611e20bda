"""Packaging: the wheel works outside the repo, the entry dispatches only known commands or
existing paths, and the desktop files in packaging/ pass their validators."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import REPO
from workbench import __main__ as entry
from workbench import __version__

# ------------------------------------------------------------------ the entry's dispatch


@pytest.fixture
def window_calls(monkeypatch) -> list[list[str]]:
    """Record what would open the desktop window instead of opening it."""
    import workbench.gui.app as app

    calls: list[list[str]] = []
    monkeypatch.setattr(app, "run_app", lambda argv: calls.append(list(argv)) or 0)
    return calls


def test_an_unknown_command_is_a_usage_error_listing_the_commands(window_calls, capsys, tmp_path,
                                                                  monkeypatch):
    monkeypatch.chdir(tmp_path)  # 'summarise' is no file here
    assert entry.main(["summarise", "x"]) == 2
    assert window_calls == []
    err = capsys.readouterr().err
    assert "summarise" in err
    for command in ("dedup", "eval", "export", "compare"):
        assert command in err


def test_a_missing_project_file_is_an_error_not_an_empty_window(window_calls, capsys, tmp_path):
    missing = tmp_path / "gone.wbproj"
    assert entry.main([str(missing)]) == 2
    assert window_calls == []
    assert str(missing) in capsys.readouterr().err


def test_an_existing_folder_or_project_file_opens_the_window(window_calls, tmp_path):
    project = tmp_path / "study.wbproj"
    project.write_bytes(b"")
    assert entry.main([str(tmp_path)]) == 0
    assert entry.main([str(project)]) == 0
    assert window_calls == [[str(tmp_path)], [str(project)]]


def test_no_argument_opens_the_window_without_a_target(window_calls):
    # run_app opens the demo archive itself (tests/gui/test_app.py), unless macOS asked it
    # to open a file as it started (Finder gives no argument; tests/gui/test_file_open.py).
    assert entry.main([]) == 0
    assert window_calls == [[]]


def test_a_finder_process_number_is_no_command_line_error(window_calls):
    assert entry.main(["-psn_0_1234567"]) == 0
    assert window_calls == [[]]


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        entry.main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"workbench {__version__}"


# ------------------------------------------------------------------ resources as package data


def test_resources_live_inside_the_package():
    import workbench
    from workbench.resources import DEMO_ARCHIVE, ICONS, STYLESHEET

    package = Path(workbench.__file__).resolve().parent
    for path in (DEMO_ARCHIVE, ICONS, STYLESHEET):
        assert path.exists(), path
        assert package in path.resolve().parents
    assert (ICONS / "app.svg").is_file()
    assert any(DEMO_ARCHIVE.rglob("*.html"))


def test_the_gui_uses_the_package_resources():
    pytest.importorskip("PySide6")
    from workbench import resources
    from workbench.gui import app, mainwindow

    assert app.DEMO_ARCHIVE == resources.DEMO_ARCHIVE
    assert app.STYLE == resources.STYLESHEET
    assert mainwindow.ICONS == resources.ICONS


# ------------------------------------------------------------------ the wheel, installed elsewhere


def _run(cmd: list[str | Path], cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 240) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{cmd} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done


def test_the_built_wheel_installs_and_runs_outside_the_repo(tmp_path):
    pytest.importorskip("build", reason="the test extra 'build' builds the wheel: pip install -e .[test]")
    dist = tmp_path / "dist"
    # Without isolation: the build backend comes from this venv (the test extra), so the
    # test needs no package index. Building the sdist first and the wheel from it checks
    # that the sdist carries everything (resources included).
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, REPO], cwd=tmp_path)
    wheels = list(dist.glob("spotsigs_workbench-*.whl"))
    assert len(wheels) == 1 and list(dist.glob("spotsigs_workbench-*.tar.gz"))

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=tmp_path)
    python = venv / "bin" / "python"
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                     cwd=tmp_path).stdout.strip())
    # The heavy dependencies (Qt, numba...) come from this venv; a .pth line adds its
    # site-packages after the new venv's own, and its own .pth files (our editable
    # install among them) are not run, so `workbench` can only be the installed wheel.
    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    _run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index",
          wheels[0]], cwd=tmp_path)

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    workbench = shutil.which("workbench", path=str(venv / "bin"))
    assert workbench and Path(workbench).parent == venv / "bin"

    version = _run([workbench, "--version"], cwd=outside, env=env).stdout.strip()
    assert version == f"workbench {__version__}"

    where = _run([python, "-c", "import workbench, workbench.resources as r; "
                  "print(workbench.__file__); print(r.DEMO_ARCHIVE)"], cwd=outside, env=env).stdout.split()
    package, demo = Path(where[0]).parent, Path(where[1])
    assert site in package.parents and package in demo.parents
    assert REPO not in demo.parents

    clusters = outside / "clusters.csv"
    done = _run([workbench, "dedup", demo, "--clusters", clusters, "--workers", "1", "-q"], cwd=outside,
                env=env)
    assert "clusters:" in done.stdout
    rows = clusters.read_text(encoding="utf-8").splitlines()
    assert rows[0] == "cluster,path,similarity,is_reference" and len(rows) > 1
    # The installed package holds the icons and stylesheet the window needs.
    _run([python, "-c", "from workbench.resources import ICONS, STYLESHEET; "
          "assert (ICONS / 'app.svg').is_file() and STYLESHEET.is_file()"], cwd=outside, env=env)


def test_smoke_test_opens_the_demo_archive_runs_and_quits(tmp_path):
    pytest.importorskip("PySide6")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    done = _run([sys.executable, "-m", "workbench", "--smoke-test"], cwd=tmp_path, env=env, timeout=120)
    from workbench.resources import DEMO_ARCHIVE

    line = done.stdout.strip()
    assert line.startswith(f"smoke test: {DEMO_ARCHIVE}: ") and "clusters" in line
    assert "\n" not in line


def test_smoke_test_refuses_a_missing_archive(capsys, tmp_path):
    assert entry.main(["--smoke-test", str(tmp_path / "gone")]) == 2
    assert "gone" in capsys.readouterr().err


# ------------------------------------------------------------------ desktop integration (Linux)

LINUX = REPO / "packaging" / "linux"
APP_ID = "org.spotsigs.Workbench"
DESKTOP_FILE = LINUX / f"{APP_ID}.desktop"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"
MIME_XML = LINUX / f"{APP_ID}.mime.xml"
PROJECT_MIME = "application/x-spotsigs-workbench-project"
MIME_NS = "{http://www.freedesktop.org/standards/shared-mime-info}"


def _tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (Debian package {package}: apt-get install {package})")
    return path


def _desktop_entry() -> dict[str, str]:
    entry = {}
    for line in DESKTOP_FILE.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            entry[key] = value
    return entry


def test_desktop_file_passes_desktop_file_validate():
    validate = _tool("desktop-file-validate", "desktop-file-utils")
    done = subprocess.run([validate, DESKTOP_FILE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "error" not in done.stdout.lower(), done.stdout + done.stderr


def test_metainfo_passes_appstreamcli_validate():
    appstreamcli = _tool("appstreamcli", "appstream")
    done = subprocess.run([appstreamcli, "validate", "--no-net", METAINFO], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mime_file_is_accepted_by_update_mime_database(tmp_path):
    update = _tool("update-mime-database", "shared-mime-info")
    (tmp_path / "packages").mkdir()
    shutil.copy(MIME_XML, tmp_path / "packages")
    done = subprocess.run([update, "-V", tmp_path], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "error" not in done.stderr.lower(), done.stderr
    from workbench.gui.project.locations import PROJECT_SUFFIX

    assert f"{PROJECT_MIME}:*{PROJECT_SUFFIX}" in (tmp_path / "globs2").read_text(encoding="utf-8")


def test_desktop_files_agree_with_each_other_and_the_package():
    import tomllib
    import xml.etree.ElementTree as ET

    from workbench.gui.project.locations import PROJECT_SUFFIX

    entry = _desktop_entry()
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert entry["Exec"].split()[0] in scripts
    assert entry["Exec"].split()[1] == "%f"  # one file: the window opens one project
    assert entry["Icon"] == APP_ID
    assert entry["MimeType"].rstrip(";").split(";") == [PROJECT_MIME]

    mime = ET.parse(MIME_XML).getroot().find(f"{MIME_NS}mime-type")
    assert mime is not None and mime.get("type") == PROJECT_MIME
    assert [g.get("pattern") for g in mime.iter(f"{MIME_NS}glob")] == [f"*{PROJECT_SUFFIX}"]

    meta = ET.parse(METAINFO).getroot()
    assert meta.findtext("id") == APP_ID
    assert meta.find("launchable").text == DESKTOP_FILE.name
    assert meta.find("provides/mediatype").text == PROJECT_MIME
    assert meta.find("releases/release").get("version") == __version__


def test_app_icon_in_the_sizes_desktops_want():
    hicolor = LINUX / "icons" / "hicolor"
    for size in (16, 24, 32, 48, 64, 128, 256, 512):
        data = (hicolor / f"{size}x{size}" / "apps" / f"{APP_ID}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        # IHDR: width and height are the first two big-endian words of the first chunk.
        assert (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")) == (size, size)
    assert (hicolor / "scalable" / "apps" / f"{APP_ID}.svg").read_bytes() == \
        (REPO / "workbench" / "resources" / "icons" / "app.svg").read_bytes()


def test_install_script_puts_the_desktop_files_in_the_users_data_folder(tmp_path):
    command = tmp_path / "my apps" / "workbench"  # a bundle's executable, in a folder with a space
    command.parent.mkdir()
    command.write_text("#!/bin/sh\n", encoding="utf-8")
    command.chmod(0o755)
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    _run(["bash", LINUX / "install.sh", command], cwd=tmp_path, env=env, timeout=60)
    data = tmp_path / "data"
    installed = (data / "applications" / DESKTOP_FILE.name).read_text(encoding="utf-8")
    assert f'Exec="{command}" %f' in installed.splitlines()
    assert (data / "mime" / "packages" / f"{APP_ID}.xml").read_bytes() == MIME_XML.read_bytes()
    assert (data / "icons" / "hicolor" / "48x48" / "apps" / f"{APP_ID}.png").is_file()


# ------------------------------------------------------------------ the lock (constraints.txt)

LOCK = REPO / "constraints.txt"


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _locked() -> dict[str, str]:
    """The lock's pins for this system (a line with a marker holds only where it is true)."""
    from packaging.requirements import Requirement

    pins = {}
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate():
                pins[_canonical(requirement.name)] = str(requirement.specifier).removeprefix("==")
    return pins


def test_the_lock_pins_every_requirement_exactly():
    import re
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = list(project["dependencies"])
    for extra in ("test", "bench", "bundle"):
        wanted += project["optional-dependencies"][extra]
    pins = _locked()
    for requirement in wanted:
        name = _canonical(re.match(r"[A-Za-z0-9_.-]+", requirement).group(0))
        assert name in pins, f"{requirement} is not in constraints.txt: run packaging/lock.py"


def test_the_tests_run_with_the_locked_versions():
    from importlib.metadata import distributions

    installed = {_canonical(d.metadata["Name"]): d.version for d in distributions()}
    drift = {name: (version, installed[name]) for name, version in _locked().items()
             if name in installed and installed[name] != version}
    assert not drift, f"locked != installed (rerun ./test to reinstall, or packaging/lock.py): {drift}"


def test_bootstrap_installs_with_the_lock(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("bootstrap", REPO / "scripts" / "bootstrap.py")
    bootstrap = importlib.util.module_from_spec(spec)
    sys.modules["bootstrap"] = bootstrap  # dataclasses look their module up there
    try:
        spec.loader.exec_module(bootstrap)
    finally:
        sys.modules.pop("bootstrap", None)
    install = [step.command for step in bootstrap.plan(tmp_path / ".venv") if "-e" in step.command]
    assert install and all(command[command.index("-c") + 1] == str(LOCK) for command in install)


def test_the_package_index_has_every_locked_version(tmp_path):
    """A fresh clone bootstraps: pip resolves the project to exactly the locked versions
    (a dry run against the package index; nothing is installed)."""
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
                           "--quiet", "--report", report, "-c", LOCK, f"{REPO}[test,bench,bundle]"],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, f"pip cannot install the lock from the package index:\n{done.stderr}"
    import json

    chosen = {_canonical(item["metadata"]["name"]): item["metadata"]["version"]
              for item in json.loads(report.read_text(encoding="utf-8"))["install"]}
    chosen.pop("spotsigs-workbench")
    assert chosen == _locked()


# ------------------------------------------------------------------ the desktop bundle's files


def test_bundle_spec_and_build_script_are_complete():
    """build.sh itself is run by hand (a minute, 400 MB); here: its files hang together."""
    spec = REPO / "packaging" / "workbench.spec"
    compile(spec.read_text(encoding="utf-8"), str(spec), "exec")  # valid Python
    text = spec.read_text(encoding="utf-8")
    assert '"entry.py"' in text and (REPO / "packaging" / "entry.py").is_file()
    assert 'collect_data_files("workbench", includes=["resources/**/*"])' in text
    build = (REPO / "packaging" / "build.sh").read_text(encoding="utf-8")
    assert '-c "$repo/constraints.txt" "$repo[bundle]"' in build  # the lock, not editable
    assert "--smoke-test" in build


def test_smoke_test_of_a_project_with_a_run_reports_it_and_quits(tmp_path):
    # A project that has a run starts none when opened: the smoke test waited for one
    # until its ten-minute timeout (killed after 300 s on a demo project).
    pytest.importorskip("PySide6")
    from workbench.commands.cli import main as cli
    from workbench.resources import DEMO_ARCHIVE

    project = tmp_path / "demo.wbproj"
    assert cli(["dedup", str(DEMO_ARCHIVE), "--project", str(project), "-q", "--workers", "1"]) == 0
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    # The timeout only guards against the hang; a pass takes seconds.
    done = _run([sys.executable, "-m", "workbench", "--smoke-test", str(project)], cwd=tmp_path,
                env=env, timeout=120)
    from workbench.store import Project

    with Project.open(project, backups=0, readonly=True) as opened:
        pages = opened.current_run().page_count
        clusters = opened.count_clusters() - opened.count_single_pages()
    assert pages > 0 and clusters > 0
    assert done.stdout.strip() == (f"smoke test: {project}: {pages:,} pages, {clusters:,} clusters "
                                   "(run 1, opened with the project)")
