"""benchmarks/bench_floor.py keeps running: it is the evidence for what two cores allow."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "bench_floor.py"

_PAGE = ("<html><head><title>Story {n}</title></head><body><nav><a href='/'>Home</a></nav>"
         "<article><h1>Story {n}</h1>" + "<p>The council said on Monday that the bridge will"
         " open by the end of the year, within the budget it had set.</p>" * 4 + "</article></body></html>")


def _run(crawl: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), str(crawl), "--rounds", "1", *args],
                          capture_output=True, text=True, timeout=300, check=False)


def _crawl(folder: Path, pages: int) -> list[Path]:
    (folder / "site").mkdir()
    files = []
    for n in range(pages):
        files.append(folder / "site" / f"{n}.html")
        files[-1].write_text(_PAGE.format(n=n))
    (folder / "truth.csv").write_text("page,cluster\n")
    (folder / "README.txt").write_text("not a page\n")
    return files


def test_html_files_are_spread_over_the_crawl_in_path_order(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("bench_floor", SCRIPT)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    files = sorted(_crawl(tmp_path, 10))
    assert bench.html_files(tmp_path, 100) == files  # the CSV and the note are no pages
    assert bench.html_files(tmp_path, 5) == files[::2]


def test_times_the_three_stages(tmp_path: Path) -> None:
    _crawl(tmp_path, 6)
    done = _run(tmp_path, "--pages", "3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("3 pages of ")
    for stage in ("resiliparse main content", "lxml parse", "whole extraction", "both libraries alone"):
        assert stage in done.stdout


def test_a_folder_without_html_is_refused(tmp_path: Path) -> None:
    (tmp_path / "truth.csv").write_text("page,cluster\n")
    done = _run(tmp_path)
    assert done.returncode == 2
    assert "no HTML files" in done.stderr
