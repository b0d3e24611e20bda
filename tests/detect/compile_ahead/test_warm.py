"""After the warm-up (what scripts/bootstrap.sh runs after installing), a detection in a
fresh process compiles nothing: no numba cache file is added or rewritten, in the command's
process or its workers. Each test starts from an empty numba cache of its own
(``NUMBA_CACHE_DIR``, which numba prefers to the caches beside the sources)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.archive.tasks import BATCH_FILES
from workbench.detect.compile_ahead.crawl import write_crawl
from workbench.resources import DEMO_ARCHIVE

WARM = [sys.executable, "-m", "workbench.detect.compile_ahead"]


def _env(cache: Path) -> dict[str, str]:
    return {**os.environ, "NUMBA_CACHE_DIR": str(cache)}


def _cache_files(cache: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(cache)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in cache.rglob("*") if p.suffix in (".nbi", ".nbc")}


def _run(cmd: list[str], cache: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, env=_env(cache), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done


def _crawl_for_workers(out: Path) -> Path:
    """Not the warm-up's own crawl: the same kinds of page, and enough files that the
    command reads and extracts them in worker processes (two batches or more)."""
    write_crawl(DEMO_ARCHIVE, out)
    for n in range(3):
        shutil.copytree(DEMO_ARCHIVE, out / f"more-{n}")
    assert sum(1 for p in out.rglob("*.html")) >= 2 * BATCH_FILES
    return out


@pytest.mark.slow
def test_a_detection_after_the_warm_up_compiles_nothing(tmp_path: Path):
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    report = _run(WARM, cache)
    # Every path ran, and every cached function of a module the app uses was reached by one.
    assert "failed" not in report.stderr and "not compiled" not in report.stderr, report.stderr
    warmed = _cache_files(cache)
    assert len(warmed) >= 40  # an index and a code file for each of 20-odd functions

    crawl = _crawl_for_workers(tmp_path / "crawl")
    _run([sys.executable, "-m", "workbench", "dedup", str(crawl), "-q"], cache)
    after = _cache_files(cache)
    added = sorted(set(after) - set(warmed))
    rewritten = sorted(k for k in warmed if after.get(k) != warmed[k])
    assert not added and not rewritten, f"compiled by the detection: {added + rewritten}"

    # And the window's start-up check agrees: nothing left to warm.
    assert "already" in _run([*WARM, "--if-cold"], cache).stdout
    assert _cache_files(cache) == after


def test_an_empty_cache_is_cold(tmp_path: Path):
    probe = ("from workbench.detect.compile_ahead.readiness import cold_detection_functions as c;"
             "print(len(c()))")
    done = _run([sys.executable, "-c", probe], tmp_path)
    assert int(done.stdout) >= 20
