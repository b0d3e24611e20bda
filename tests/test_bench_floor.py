"""benchmarks/bench_floor.py keeps running: it is the evidence for what two cores allow."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "bench_floor.py"

_PAGE = ("<html><head><title>Story {n}</title></head><body><nav><a href='/'>Home</a></nav>"
         "<article><h1>Story {n}</h1>" + "<p>The council said on Monday that the bridge will"
         " open by the end of the year, within the budget it had set.</p>" * 4 + "</article></body></html>")


def _run(crawl: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), str(crawl), "--rounds", "1", *args],
                          capture_output=True, text=True, timeout=300, check=False)


def _crawl(folder: Path, pages: int) -> list[str]:
    """``pages`` HTML pages and two files a run skips (an image, an empty file): the pages'
    names relative to ``folder``."""
    (folder / "site").mkdir()
    names = []
    for n in range(pages):
        names.append(f"site/{n}.html")
        (folder / names[-1]).write_text(_PAGE.format(n=n))
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    (folder / "empty.html").write_bytes(b"")
    return sorted(names)


def _bench_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_floor", SCRIPT)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_samples_the_pages_a_run_reads_spread_over_the_crawl(tmp_path: Path) -> None:
    bench = _bench_module()
    names = _crawl(tmp_path, 10)
    # 12 files: every page, the skipped files left out.
    assert [p.source for p in bench.sample_pages(tmp_path, 100)] == names
    # 12 files for 4 pages: every third page, in reading order.
    assert [p.source for p in bench.sample_pages(tmp_path, 4)] == names[0:10:3]


def test_times_the_floor_and_the_whole_extraction(tmp_path: Path) -> None:
    _crawl(tmp_path, 6)
    done = _run(tmp_path, "--pages", "3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("3 pages of ")
    for stage in ("parse + main content", "whole extraction", "whole extraction / (parse + main content)"):
        assert stage in done.stdout


def test_a_folder_without_pages_is_refused(tmp_path: Path) -> None:
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    done = _run(tmp_path)
    assert done.returncode == 2
    assert "no web pages to time" in done.stderr
