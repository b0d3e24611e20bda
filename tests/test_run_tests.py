"""scripts/run_tests.py and scripts/bootstrap.py: ./test's work without bash, so Windows and
macOS (and the CI workflow) run the same checks with the same locked install."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

SCRIPTS = REPO / "scripts"


@pytest.fixture(scope="module")
def bootstrap():
    spec = importlib.util.spec_from_file_location("bootstrap", SCRIPTS / "bootstrap.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bootstrap"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("bootstrap", None)


def _commands(steps) -> list[str]:
    return [" ".join(step.command) for step in steps]


def test_a_fresh_checkout_gets_a_venv_with_the_locked_install(bootstrap, tmp_path):
    venv = tmp_path / ".venv"
    commands = _commands(bootstrap.plan(venv, python="python3.11"))
    assert commands[0] == f"python3.11 -m venv {venv}"
    installs = [command for command in commands if " pip install " in command and " -e " in command]
    assert installs == [f"{bootstrap.venv_python(venv)} -m pip install -q -c {REPO / 'constraints.txt'} "
                        f"-e {REPO}[test,bench]"]
    assert commands[-2].endswith(f"-m compileall -q {REPO / 'workbench'}")
    assert commands[-1].endswith("-m workbench.detect.compile_ahead --quiet")  # after the install


def test_numba_loops_are_compiled_ahead_after_an_install_or_a_changed_loop_only(bootstrap, tmp_path):
    venv, sources = tmp_path / ".venv", tmp_path / "workbench"
    sources.mkdir()
    loop, plain = sources / "loop.py", sources / "plain.py"
    loop.write_text("@njit(cache=True)\ndef f(): pass\n", encoding="utf-8")
    plain.write_text("x = 1\n", encoding="utf-8")
    for path in (loop, plain):
        os.utime(path, (1_000, 1_000))
    venv.mkdir()
    assert bootstrap.loops_are_cold(venv, sources)  # never warmed
    warmed, installed = venv / bootstrap.WARMED_NAME, venv / bootstrap.STAMP_NAME
    installed.touch()
    os.utime(installed, (2_000, 2_000))
    warmed.touch()
    os.utime(warmed, (3_000, 3_000))
    assert not bootstrap.loops_are_cold(venv, sources)
    os.utime(plain, (4_000, 4_000))  # a file without a cached loop changed: nothing to compile
    assert not bootstrap.loops_are_cold(venv, sources)
    os.utime(loop, (4_000, 4_000))
    assert bootstrap.loops_are_cold(venv, sources)
    os.utime(warmed, (5_000, 5_000))
    os.utime(installed, (6_000, 6_000))  # installed again since: a new numba, perhaps
    assert bootstrap.loops_are_cold(venv, sources)
    ok = [sys.executable, "-c", "pass"]
    fail = [sys.executable, "-c", "raise SystemExit(1)"]
    warmed.unlink()
    assert bootstrap.run([bootstrap.Step("", fail, may_fail=True, marks=bootstrap.WARMED_NAME)], venv) == 0
    assert not warmed.exists()  # a failed warm-up is tried again next time
    bootstrap.run([bootstrap.Step("", ok, may_fail=True, marks=bootstrap.WARMED_NAME)], venv)
    assert warmed.exists()


def test_the_venv_python_is_where_each_system_puts_it(bootstrap, tmp_path):
    expected = "Scripts/python.exe" if os.name == "nt" else "bin/python"
    assert bootstrap.venv_python(tmp_path) == tmp_path / expected


def test_an_install_older_than_the_lock_is_redone_and_a_current_one_is_not(bootstrap, tmp_path):
    venv = tmp_path / ".venv"
    python = bootstrap.venv_python(venv)
    python.parent.mkdir(parents=True)
    python.touch()
    lock, pyproject = tmp_path / "constraints.txt", tmp_path / "pyproject.toml"
    for path in (lock, pyproject):
        path.write_text("", encoding="utf-8")
        os.utime(path, (1_000, 1_000))
    inputs = (pyproject, lock)
    assert bootstrap.install_is_stale(venv, inputs)  # never installed
    stamp = venv / bootstrap.STAMP_NAME
    stamp.touch()
    os.utime(stamp, (2_000, 2_000))
    assert not bootstrap.install_is_stale(venv, inputs)
    os.utime(lock, (3_000, 3_000))  # the lock changed after the install
    assert bootstrap.install_is_stale(venv, inputs)


def test_a_failing_step_stops_the_bootstrap_and_only_an_install_marks_the_venv_current(bootstrap, tmp_path):
    venv = tmp_path / ".venv"
    venv.mkdir()
    ok = [sys.executable, "-c", "pass"]
    fail = [sys.executable, "-c", "raise SystemExit(3)"]
    Step = bootstrap.Step
    assert bootstrap.run([Step("", fail, may_fail=True), Step("", ok)], venv) == 0
    assert not (venv / bootstrap.STAMP_NAME).exists()
    assert bootstrap.run([Step("", fail, installs_project=True), Step("", ok)], venv) == 3
    assert not (venv / bootstrap.STAMP_NAME).exists()
    assert bootstrap.run([Step("", ok, installs_project=True)], venv) == 0
    assert (venv / bootstrap.STAMP_NAME).exists()


def test_dry_run_prints_ruff_then_mypy_then_pytest_with_the_arguments_and_runs_nothing():
    done = subprocess.run([sys.executable, str(SCRIPTS / "run_tests.py"), "--dry-run", "-x", "tests/x.py"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    at = {tool: next(k for k, line in enumerate(lines) if f" -m {tool}" in line)
          for tool in ("ruff", "mypy", "pytest")}
    assert at["ruff"] < at["mypy"] < at["pytest"] == len(lines) - 1
    assert lines[at["ruff"]].endswith("ruff check workbench tests scripts benchmarks packaging typings")
    assert lines[-1].endswith("-m pytest -q -x tests/x.py")
    assert all(line.startswith(str(REPO / ".venv")) for line in lines[at["ruff"]:])
    assert "bootstrap:" not in done.stderr  # nothing was installed


def test_help_says_what_it_runs_and_runs_nothing():
    done = subprocess.run([sys.executable, str(SCRIPTS / "run_tests.py"), "--help"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and "ruff, mypy" in done.stdout and "--dry-run" in done.stdout
    assert "bootstrap:" not in done.stderr


def test_the_test_script_runs_the_python_entry_point_after_the_system_libraries():
    lines = [line for line in (REPO / "test").read_text(encoding="utf-8").splitlines()
             if line and not line.startswith("#")]
    assert lines[-2:] == ['"$here/scripts/bootstrap.sh" --system-only',
                          'exec "${PYTHON:-python3}" "$here/scripts/run_tests.py" "$@"']
    script = (SCRIPTS / "bootstrap.sh").read_text(encoding="utf-8").splitlines()
    assert script[-1] == 'exec "$python" "$here/scripts/bootstrap.py"'  # ./run's venv: the same code


@pytest.mark.slow
def test_a_real_run_is_offscreen_and_a_failing_test_fails_it(tmp_path):
    """One tiny test file through the whole chain (bootstrap, ruff, mypy, pytest): about 7 s,
    mostly mypy from its cache. A failing test must fail the run, a passing one must see Qt
    offscreen."""
    tiny = tmp_path / "test_tiny.py"
    tiny.write_text("import os\n\n\ndef test_offscreen():\n"
                    "    assert os.environ['QT_QPA_PLATFORM'] == 'offscreen'\n\n\n"
                    "def test_fails():\n    assert False\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    command = [sys.executable, str(SCRIPTS / "run_tests.py"), "-p", "no:cacheprovider", str(tiny)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, check=False)
    assert done.stdout.startswith("All checks passed!"), done.stdout[-2000:]  # ruff ran, clean
    assert "Success: no issues found" in done.stdout  # then mypy
    assert "1 failed, 1 passed" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.returncode == 1
