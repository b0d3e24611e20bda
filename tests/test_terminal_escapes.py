"""Names from a crawl (file names, link targets) are printed with their control characters
escaped: a file name must not set the terminal's title or clear its screen."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from workbench.core.terminal_text import terminal_safe

TITLE = "\x1b]0;title\x07"  # sets the terminal's (window) title
CLEAR = "\x1b[2J"  # clears the screen
STORY = "<html><head><title>Story</title></head><body><p>The council voted on the budget.</p></body></html>"


def test_controls_are_escaped_and_text_is_kept() -> None:
    assert terminal_safe(TITLE + CLEAR) == "\\x1b]0;title\\x07\\x1b[2J"
    assert terminal_safe("a\nb\rc\td\x7fe\x9bf") == "a\\nb\\rc\\td\\x7fe\\x9bf"
    assert terminal_safe("Zürich — 東京 ✓") == "Zürich — 東京 ✓"
    # A file name byte that is not UTF-8 (os.fsdecode's surrogateescape) prints as the byte.
    assert terminal_safe(os.fsdecode(b"caf\xe9.html")) == "caf\\xe9.html"
    assert terminal_safe(Path("/x") / CLEAR) == "/x/\\x1b[2J"


def _no_controls(text: str) -> bool:
    return not any(ord(c) < 0x20 and c not in "\n" or 0x7F <= ord(c) <= 0x9F for c in text)


def _run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *args], cwd=REPO, capture_output=True,
                          text=True, errors="surrogateescape", timeout=300, check=False)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="control characters in file names")
def test_summary_prints_a_hostile_link_target_escaped(tmp_path: Path) -> None:
    crawl, outside = tmp_path / "crawl", tmp_path / "outside"
    crawl.mkdir()
    outside.mkdir()
    for n in range(3):
        (crawl / f"story{n}.html").write_text(STORY)
    target = outside / (TITLE + CLEAR)
    target.write_text(STORY)
    (crawl / "evil.html").symlink_to(target)
    done = _run(["dedup", str(crawl), "-q"])
    assert done.returncode == 0, done.stderr
    assert _no_controls(done.stdout) and _no_controls(done.stderr)
    assert "(to " + str(outside) + "/\\x1b]0;title\\x07\\x1b[2J)" in done.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="control characters in file names")
def test_an_error_naming_a_hostile_folder_is_escaped(tmp_path: Path) -> None:
    folder = tmp_path / ("empty" + CLEAR)
    folder.mkdir()
    done = _run(["dedup", str(folder), "-q"])
    assert done.returncode == 3
    assert _no_controls(done.stderr) and "empty\\x1b[2J: the folder is empty" in done.stderr
