"""A frozen bundle's compiled code is cached in one folder whatever the current directory.

PyInstaller gives bundled modules relative source paths; numba made them absolute against
the current directory, so an app started from another folder compiled everything again.
Simulated here with a real numba function whose source path is relative, in fresh
processes that say they are frozen: compiled from one directory, loaded from another.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.detect.compile_ahead.frozen_setup import ENV_VAR

_FROZEN_RUN = '''
import sys
sys.frozen = True
sys._MEIPASS = {bundle!r}
from workbench.detect.compile_ahead.frozen_setup import use_bundle_locator
print("locator set" if use_bundle_locator() else "locator not set")
source = "from numba import njit\\n@njit(cache=True)\\ndef twice(x):\\n    return 2 * x\\n"
import types
module = sys.modules["bundled_loops"] = types.ModuleType("bundled_loops")  # as a bundle imports it
exec(compile(source, "bundled/loops.py", "exec"), vars(module))
assert module.twice(21) == 42
print("hits", sum(module.twice.stats.cache_hits.values()))
'''


def _run_frozen(cwd: Path, bundle: Path, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", _FROZEN_RUN.format(bundle=str(bundle))], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("with_locator", [True, False])
def test_a_second_start_from_another_folder_loads_the_cache(tmp_path: Path, with_locator: bool):
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", ENV_VAR)}
    env["XDG_CACHE_HOME"] = str(tmp_path / "user-cache")  # numba's user-wide cache, here
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    if not with_locator:
        env[ENV_VAR] = "UserProvidedCacheLocator,InTreeCacheLocator,UserWideCacheLocator"  # numba's own
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    first = _run_frozen(one, tmp_path / "bundle", env)
    second = _run_frozen(two, tmp_path / "bundle", env)
    assert "hits 0" in first
    if with_locator:
        assert "locator set" in first
        assert "hits 1" in second  # loaded, not compiled again
        assert list((tmp_path / "user-cache" / "numba").glob("bundled_*/loops.twice-*.nbi"))
    else:
        assert "hits 0" in second  # numba alone: another folder, compiled again


def test_nothing_changes_when_not_frozen(monkeypatch):
    from workbench.detect.compile_ahead.frozen_setup import use_bundle_locator

    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.delattr(sys, "frozen", raising=False)
    assert not use_bundle_locator()
    assert ENV_VAR not in os.environ
