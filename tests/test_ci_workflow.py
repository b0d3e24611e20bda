"""The CI workflow for Linux, Windows and macOS (.github/workflows/ci.yml) cannot run here;
check-jsonschema (test extra) validates it against the GitHub Actions workflow schema it ships,
offline: keys, their nesting and types, required properties, the trigger and step forms."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

WORKFLOW = REPO / ".github" / "workflows" / "ci.yml"


def _validate(path: Path) -> subprocess.CompletedProcess:
    pytest.importorskip("check_jsonschema", reason="check-jsonschema is not installed "
                        "(pip install -c constraints.txt -e .[test])")
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema",
                           "vendor.github-workflows", str(path)],
                          capture_output=True, text=True, timeout=120, check=False, cwd=REPO)


def test_the_workflow_is_a_valid_github_actions_workflow():
    done = _validate(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(("old", "new", "says"), [
    ("    runs-on:", "    run-on:", "'runs-on' is a required property"),
    ("timeout-minutes: 60", "timeout-minutes: an hour", "timeout-minutes"),
    ("      - uses: actions/checkout@v5", "      - use: actions/checkout@v5", "steps"),
])
def test_the_check_fails_a_broken_workflow(tmp_path, old, new, says):
    """The check above can fail: a misspelt key, a wrong type, a step with neither uses nor run."""
    text = WORKFLOW.read_text(encoding="utf-8")
    assert old in text
    broken = tmp_path / "ci.yml"
    broken.write_text(text.replace(old, new), encoding="utf-8")
    done = _validate(broken)
    assert done.returncode == 1
    assert says in done.stdout + done.stderr


def test_the_workflow_tests_builds_and_keeps_the_bundle_on_every_system():
    text = WORKFLOW.read_text(encoding="utf-8")
    assert "os: [ubuntu-latest, windows-latest, macos-14, macos-15-intel]" in text
    assert "run: python scripts/run_tests.py" in text  # ./test's checks, without bash
    assert "sudo ./scripts/bootstrap.sh --system-only" in text  # Qt's libraries on Linux
    assert "python -m build --wheel" in text
    assert '-c constraints.txt ".[bundle]"' in text and "packaging/workbench.spec" in text
    assert "--smoke-test" in text and "actions/upload-artifact@" in text
