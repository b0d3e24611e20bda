"""A gensmall crawl that grows: its files before, and the files a week later adds.

gensmall (../shared/tools/gensmall.py) writes one page a file, DIR/pages/<site>/<id>.html,
a fraction of them near duplicates of one another across sites. Holding back every tenth
file and adding it later brings near duplicates of pages already read and more pages
of sites already seen (their repeated blocks, and so the site and IDF filters, change).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO

GENSMALL = REPO.parent / "shared" / "tools" / "gensmall.py"


def gensmall(out: Path, docs: int, seed: int = 1) -> Path:
    """A gensmall crawl of ``docs`` pages in ``out`` (its pages folder), or skip the test."""
    if not GENSMALL.exists():
        pytest.skip(f"needs {GENSMALL} (the team's shared tools beside the repo), which is absent")
    subprocess.run([sys.executable, str(GENSMALL), "--docs", str(docs), "--out", str(out),
                    "--seed", str(seed)], check=True, capture_output=True)
    return out / "pages"


@dataclass(frozen=True, slots=True)
class Growing:
    crawl: Path  # the crawl as first read
    held: Path  # the files added later, below the same relative paths

    def added(self) -> list[str]:
        return sorted(p.relative_to(self.held).as_posix() for p in self.held.rglob("*.html"))

    def add(self) -> None:
        """Put the held-back files into the crawl."""
        for rel in self.added():
            target = self.crawl / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(self.held / rel, target)


def growing_crawl(pages: Path, where: Path, every: int = 10) -> Growing:
    """A copy of ``pages`` without every ``every``-th file (in sorted order), held back."""
    crawl, held = where / "crawl", where / "held"
    shutil.copytree(pages, crawl)
    files = sorted(crawl.rglob("*.html"))
    for path in files[every - 1 :: every]:
        target = held / path.relative_to(crawl)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(path, target)
    return Growing(crawl, held)
