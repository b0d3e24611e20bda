#!/usr/bin/env python3
"""MinHash LSH near-duplicate baseline, written with datasketch the way a practitioner would.

    .venv/bin/python benchmarks/minhash_baseline.py /tmp/small100k --tau 0.9 --out /tmp/mh.csv

For every ``.html``/``.htm`` file under the corpus folder (nested folders included):

1. visible text with resiliparse's ``extract_plain_text`` (bytes decoded as UTF-8, errors
   replaced); no main-content extraction, no boilerplate removal: the baseline sees the
   navigation, teasers and footers a web page carries, as a quick script would;
2. lower-cased word tokens (``\\w+``) and word 5-gram shingles; a page with fewer than 5 words
   is one shingle (its whole token list); a page with no word at all is skipped;
3. ``datasketch.MinHash(num_perm=128)`` fed each shingle's UTF-8 bytes (``update_batch``);
4. a ``MinHashLSH(threshold=tau, num_perm=128)`` index. Each page is queried *before* it is
   inserted: two pages that share an LSH band collide whichever is queried, so this yields
   exactly the candidate pairs of "insert all, then query every page", each once, without
   keeping 128-value MinHash objects for every page;
5. every candidate pair is verified by the exact Jaccard similarity of the two shingle sets
   and kept when >= tau.

The shingle sets are kept as sorted arrays of 64-bit hashes of the shingles (Python's
``hash``, stable within the process), 8 bytes a shingle instead of ~100 for a set of
strings; with 2**64 values a collision changing a Jaccard value is not to be expected.

Single process, as a practitioner would first write it: it uses one core while the workbench
uses all of them (compare CPU time, not only wall time).

Output: CSV ``doc_a,doc_b,similarity`` with paths relative to the corpus folder and '/' as
separator, the same convention as ``workbench dedup --pairs``; doc_a < doc_b. A summary goes
to stderr. Needs the optional ``bench`` extra (``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from resiliparse.extract.html2text import extract_plain_text

try:
    from datasketch import MinHash, MinHashLSH
except ImportError:  # the bench extra is optional: say how to get it instead of a traceback
    sys.exit("minhash_baseline: the 'datasketch' package is missing; install it with "
             "`.venv/bin/pip install 'datasketch>=1.6'` (or `pip install -e '.[bench]'`)")

NUM_PERM = 128
SHINGLE_WORDS = 5
PAGE_SUFFIXES = {".html", ".htm"}
WORD = re.compile(r"\w+")


@dataclass
class BaselineStats:
    """Counts for the summary line, so a surprising pair count can be traced to its cause."""

    pages: int = 0
    no_text: int = 0
    candidates: int = 0
    pairs: int = 0
    seconds: float = 0.0


def page_files(root: Path) -> Iterator[Path]:
    """The corpus's HTML files in a stable order (so that runs are comparable)."""
    for path in sorted(root.rglob("*")):
        if path.suffix.lower() in PAGE_SUFFIXES and path.is_file():
            yield path


def visible_text(path: Path) -> str:
    """The page's visible text: resiliparse's plain-text extraction with its defaults."""
    html = path.read_bytes().decode("utf-8", errors="replace")
    return extract_plain_text(html)


def shingles(text: str) -> set[str]:
    """Word 5-gram shingles of the lower-cased text; a shorter page is one shingle."""
    words = WORD.findall(text.lower())
    if len(words) < SHINGLE_WORDS:
        return {" ".join(words)} if words else set()
    return {" ".join(words[i:i + SHINGLE_WORDS]) for i in range(len(words) - SHINGLE_WORDS + 1)}


def minhash(shingle_set: set[str]) -> MinHash:
    """The page's MinHash over the UTF-8 bytes of its shingles."""
    m = MinHash(num_perm=NUM_PERM)
    m.update_batch([s.encode("utf-8") for s in shingle_set])
    return m


def hashed(shingle_set: set[str]) -> np.ndarray:
    """The shingle set as a sorted array of unique 64-bit hashes, for the exact Jaccard check."""
    return np.unique(np.fromiter((hash(s) for s in shingle_set), dtype=np.int64,
                                 count=len(shingle_set)))


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Exact Jaccard similarity of two sorted unique hash arrays."""
    common = np.intersect1d(a, b, assume_unique=True).size
    return common / (a.size + b.size - common)


def find_pairs(root: Path, tau: float, stats: BaselineStats) -> list[tuple[str, str, float]]:
    """Query-then-insert every page into one LSH index; verify candidates by exact Jaccard."""
    lsh = MinHashLSH(threshold=tau, num_perm=NUM_PERM)
    sets: dict[str, np.ndarray] = {}
    pairs: list[tuple[str, str, float]] = []
    for path in page_files(root):
        stats.pages += 1
        sh = shingles(visible_text(path))
        if not sh:
            stats.no_text += 1
            continue
        key = path.relative_to(root).as_posix()
        m = minhash(sh)
        own = hashed(sh)
        for other in lsh.query(m):
            stats.candidates += 1
            sim = jaccard(own, sets[other])
            if sim >= tau:
                a, b = sorted((key, other))
                pairs.append((a, b, sim))
        lsh.insert(key, m)
        sets[key] = own
    stats.pairs = len(pairs)
    return pairs


def write_pairs(pairs: list[tuple[str, str, float]], out: Path) -> None:
    """Write the pairs CSV in the workbench's own format (doc_a,doc_b,similarity)."""
    with out.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["doc_a", "doc_b", "similarity"])
        for a, b, s in sorted(pairs):
            w.writerow([a, b, f"{s:.6f}"])


def main(argv: list[str] | None = None) -> int:
    """Command line: corpus folder, --tau, --out."""
    ap = argparse.ArgumentParser(
        description="MinHash LSH (datasketch) near-duplicate pairs of a folder of HTML pages: "
                    "resiliparse plain text, word 5-gram shingles, MinHash with 128 permutations, "
                    "LSH candidates verified by exact Jaccard. Single process.")
    ap.add_argument("corpus", type=Path, help="folder of .html/.htm files (searched recursively)")
    ap.add_argument("--tau", type=float, default=0.9,
                    help="Jaccard threshold, for the LSH index and the exact check (default 0.9)")
    ap.add_argument("--out", type=Path, required=True,
                    help="pairs CSV to write (doc_a,doc_b,similarity; paths relative to the corpus)")
    args = ap.parse_args(argv)
    if not args.corpus.is_dir():
        ap.error(f"not a folder: {args.corpus}")
    if not 0.0 < args.tau <= 1.0:
        ap.error("--tau must be in (0, 1]")
    stats = BaselineStats()
    started = time.perf_counter()
    pairs = find_pairs(args.corpus, args.tau, stats)
    write_pairs(pairs, args.out)
    stats.seconds = time.perf_counter() - started
    print(f"minhash_baseline: {stats.pages:,} pages ({stats.no_text:,} without words), "
          f"{stats.candidates:,} LSH candidates, {stats.pairs:,} pairs >= {args.tau:g}, "
          f"{stats.seconds:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
