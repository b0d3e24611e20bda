"""The type checker: ./test (and so CI) runs mypy in strict mode on the core packages."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO

CHECKED = {"workbench/core", "workbench/text", "workbench/detect", "workbench/store",
           "workbench/archive"}


def _mypy_config() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def test_the_test_script_type_checks_after_ruff_and_before_pytest():
    """./test runs scripts/run_tests.py, which stops at the first check that fails
    (tests/test_run_tests.py runs it)."""
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "run_tests.py"), "--dry-run"],
                          capture_output=True, text=True, timeout=60, check=True)
    lines = done.stdout.splitlines()
    at = {tool: next(k for k, line in enumerate(lines) if f"-m {tool}" in line)
          for tool in ("ruff", "mypy", "pytest")}
    assert at["ruff"] < at["mypy"] < at["pytest"]


def test_mypy_is_strict_on_the_core_packages_and_installed_with_the_tests():
    config = _mypy_config()
    assert config["strict"] is True
    assert set(config["files"]) >= CHECKED
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(req.startswith("mypy") for req in project["optional-dependencies"]["test"])


def test_no_checked_package_is_silenced():
    """A package on ``files`` must not also be on the follow_imports = "silent" list, which
    would hide the errors its imports make mypy find in it."""
    silenced = {module.removesuffix(".*").replace(".", "/")
                for override in _mypy_config().get("overrides", [])
                if override.get("follow_imports") == "silent"
                for module in override["module"]}
    assert not silenced & set(_mypy_config()["files"])
    assert not silenced & CHECKED


def test_the_configuration_rejects_an_unannotated_function(tmp_path: Path):
    """The settings in pyproject.toml are strict in fact: a function without annotations,
    which plain mypy accepts, is an error."""
    module = tmp_path / "untyped.py"
    module.write_text("def double(x):\n    return 2 * x\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"),
                           "--cache-dir", str(tmp_path / "cache"), str(module)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "[no-untyped-def]" in done.stdout


def test_the_warcio_stubs_match_the_installed_warcio(tmp_path: Path):
    """warcio ships no types; workbench.archive subclasses its readers, so typings/warcio
    declares the parts it uses. mypy's stubtest compares them with the warcio installed:
    a parameter, attribute or class the stubs get wrong (or a warcio upgrade that changes
    one) fails here instead of being believed by the type check."""
    done = subprocess.run([sys.executable, "-m", "mypy.stubtest", "warcio", "--mypy-config-file",
                           str(REPO / "pyproject.toml"), "--ignore-missing-stub"],
                          capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "MYPY_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues found" in done.stdout


@pytest.mark.parametrize("platform", ["win32", "darwin"])
def test_the_core_type_checks_as_windows_and_macos_would_run_it(platform, tmp_path):
    """POSIX-only names (os.WNOHANG, signal.SIGKILL, resource, posix_fadvise, the fork-server
    context) must sit behind platform checks: on Windows an unguarded one is an import or
    attribute error when the code runs, and CI's Windows and macOS runners type-check too."""
    done = subprocess.run([sys.executable, "-m", "mypy", "--platform", platform,
                           "--cache-dir", str(tmp_path / "cache")],
                          capture_output=True, text=True, timeout=300, cwd=REPO, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
