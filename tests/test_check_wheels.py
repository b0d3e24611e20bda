"""scripts/check_wheels.py: every runtime dependency installs from binary wheels on Windows and
macOS. The argument and table logic without a network; one cheap cell against the package index."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO

_SCRIPT = REPO / "scripts" / "check_wheels.py"


@pytest.fixture(scope="module")
def check_wheels():
    spec = importlib.util.spec_from_file_location("check_wheels", _SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_wheels"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("check_wheels", None)


# ------------------------------------------------------------------ no network


def test_every_runtime_dependency_is_checked_at_its_locked_version(check_wheels):
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = check_wheels.locked_versions()
    pinned = check_wheels.pinned_requirements(check_wheels.runtime_requirements(), pins)
    assert len(pinned) == len(project["dependencies"])
    assert "pyside6-essentials==" + pins["pyside6-essentials"] in pinned
    assert "numba==" + pins["numba"] in pinned
    assert all(requirement.count("==") == 1 for requirement in pinned)
    # Test and bundle extras are no runtime dependencies.
    assert not any(requirement.startswith(("pytest", "pyinstaller")) for requirement in pinned)


def test_a_requirement_missing_from_the_lock_is_named(check_wheels):
    with pytest.raises(SystemExit, match="lxml>=5.0 is not in constraints.txt"):
        check_wheels.pinned_requirements(["lxml>=5.0"], {"numpy": "2.0"})


def test_requirement_names_are_canonical(check_wheels):
    assert check_wheels.requirement_name("PySide6-Essentials>=6.6,!=6.12.0") == "pyside6-essentials"
    assert check_wheels.requirement_name("charset_normalizer>=3.3") == "charset-normalizer"
    assert check_wheels.requirement_name("stop-words==2025.11.4") == "stop-words"


def test_by_default_the_whole_matrix_is_checked(check_wheels):
    args = check_wheels.parse_args([])
    assert set(args.platform) == {"windows", "macos-arm64", "macos-x86_64"}
    assert args.python == ["3.11", "3.12", "3.13"]
    one = check_wheels.parse_args(["--platform", "windows", "--python", "3.12"])
    assert (one.platform, one.python) == (["windows"], ["3.12"])


def test_a_failing_cell_blames_the_package_without_a_wheel(check_wheels, monkeypatch):
    """The whole set does not resolve; each package alone says which one has no wheel there,
    and the transitive packages other cells reached are tried too."""
    def fake_pip(requirements, platform, python, *, no_deps=False):
        names = [requirement.split("==")[0] for requirement in requirements]
        if not no_deps:  # the whole set, with dependencies (numpy's: scipy, say)
            return (None, "ERROR: ResolutionImpossible") if "numba" in names else (
                {**dict.fromkeys(names, "1.0"), "scipy": "1.0"}, "")
        return (None, "no wheel") if names[0] in {"numba", "llvmlite"} else ({names[0]: "1.0"}, "")

    monkeypatch.setattr(check_wheels, "pip_dry_run", fake_pip)
    cell = check_wheels.check_cell("macos-x86_64", "3.12", ["numba==1.0", "numpy==1.0"])
    assert cell.missing == ["numba"] and not cell.ok
    assert cell.resolved == {"numpy": "1.0", "scipy": "1.0"}
    check_wheels.fill_in(cell, {"numpy", "llvmlite", "six"}, {"llvmlite": "1.0", "six": "1.0"})
    assert cell.missing == ["numba", "llvmlite"]
    assert cell.resolved == {"numpy": "1.0", "scipy": "1.0", "six": "1.0"}


def test_the_table_marks_missing_other_versions_and_unreached(check_wheels):
    good = check_wheels.Cell("windows", "3.12", resolved={"numba": "0.68.1", "numpy": "2.3.5"})
    bad = check_wheels.Cell("macos-x86_64", "3.12", resolved={"numpy": "2.4.6"}, missing=["numba"],
                            error="ResolutionImpossible")
    text = check_wheels.table([good, bad], {"numba": "0.68.1", "numpy": "2.4.6", "six": "1.17.0"})
    header, rule, *rows = text.splitlines()
    assert header.split() == ["package", "windows", "3.12", "macos-x86_64", "3.12"]
    assert set(rule) <= {"-", " "}
    assert rows[0].split() == ["numba", "0.68.1", "ok", "MISSING"]
    assert rows[1].split() == ["numpy", "2.4.6", "2.3.5", "ok"]


def test_an_unreachable_index_exits_2_not_1(check_wheels, monkeypatch, capsys):
    """No network is no verdict on wheels: a distinct exit code the test below skips on."""
    def offline(*args, **kwargs):
        return subprocess.CompletedProcess(args, 1, "", "WARNING: Retrying ... NewConnectionError\n"
                                           "ERROR: No matching distribution found for numba")

    monkeypatch.setattr(check_wheels.subprocess, "run", offline)
    assert check_wheels.main(["--platform", "windows", "--python", "3.12"]) == 2
    assert "cannot be reached" in capsys.readouterr().err


def test_exit_code_1_when_a_cell_has_no_wheel(check_wheels, monkeypatch, capsys):
    def fake_cell(platform, python, requirements):
        cell = check_wheels.Cell(platform, python, resolved={"numpy": "2.4.6"})
        if platform == "macos-x86_64":
            cell.missing, cell.error = ["numba"], "ResolutionImpossible"
        return cell

    monkeypatch.setattr(check_wheels, "check_cell", fake_cell)
    monkeypatch.setattr(check_wheels, "fill_in", lambda cell, names, pins: None)
    assert check_wheels.main(["--platform", "windows"]) == 0
    assert check_wheels.main(["--platform", "macos-x86_64", "--python", "3.13"]) == 1
    assert "macos-x86_64 3.13: no binary wheel for numba" in capsys.readouterr().err


def test_each_platform_is_checked_with_its_own_pins_from_the_lock(check_wheels):
    """The lock pins an older numba for Intel Macs under a marker; pip would evaluate that
    marker for this machine, so the script evaluates it for the platform checked."""
    assert check_wheels.platform_versions("macos-x86_64", "3.11")["numba"] == "0.62.1"
    assert check_wheels.platform_versions("macos-x86_64", "3.13")["llvmlite"] == "0.45.1"
    tested = check_wheels.locked_versions()["numba"]  # this machine's (Linux) pin
    for platform in ("windows", "macos-arm64"):
        assert check_wheels.platform_versions(platform, "3.12")["numba"] == tested


def test_pip_is_given_the_platforms_pins_without_markers(check_wheels, monkeypatch):
    seen = {}

    def capture(command, **kwargs):
        seen["pins"] = Path(command[command.index("-c") + 1]).read_text(encoding="utf-8")
        return subprocess.CompletedProcess(command, 1, "", "ERROR: stop here")

    monkeypatch.setattr(check_wheels.subprocess, "run", capture)
    check_wheels.pip_dry_run(["numba==0.62.1"], "macos-x86_64", "3.11")
    assert "numba==0.62.1\n" in seen["pins"] and "numpy==2.3.5\n" in seen["pins"]
    assert ";" not in seen["pins"]


# ------------------------------------------------------------------ the package index


def _check_cell(platform: str, python: str) -> str:
    """One cell of the matrix against the real index (a dry run: no wheel is downloaded);
    its report, once it passed. `scripts/check_wheels.py` without arguments checks all nine."""
    done = subprocess.run([sys.executable, str(_SCRIPT), "--platform", platform, "--python", python],
                          capture_output=True, text=True, timeout=300, cwd=Path(REPO))
    if done.returncode == 2:
        pytest.skip(f"the package index cannot be reached: {done.stderr.strip()[-300:]}")
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr[-3000:]}"
    assert "MISSING" not in done.stdout
    return done.stdout


def test_windows_python_312_has_a_binary_wheel_for_every_runtime_dependency():
    report = _check_cell("windows", "3.12")
    assert "pyside6-essentials" in report and "numba" in report


def test_intel_macs_python_311_have_a_binary_wheel_for_every_runtime_dependency():
    """The cell the lock's Intel-Mac pins are for (numba 0.68.1 has no macOS x86-64 wheel)."""
    _check_cell("macos-x86_64", "3.11")
