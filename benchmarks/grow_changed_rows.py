"""How many old pages' kept signatures a crawl's growth changes, and what the join costs.

usage: grow_changed_rows.py BEFORE.wbproj.pages AFTER.wbproj.pages

Both files are kept pages (workbench.usecases.kept_pages) of one crawl before and after it
grew (bench_grow.py leaves them: base.wbproj.pages and add0.wbproj.pages). Both are run
through the filters (no reading), and for every page in both the multiset it is matched
on (64-bit ids and counts, and its length) is compared. Then the join of the grown crawl
is timed: a full join (what Add Pages runs) against the incremental join of the new and
changed pages only (workbench.detect.join.incremental.find_new_pairs, rows reordered so
they come last) - what matching only those pages would save.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from workbench.detect.join.incremental import find_new_pairs
from workbench.detect.join.matcher import SignatureMatrix, find_pairs
from workbench.detect.spotsigs.params import params_from_record
from workbench.usecases.kept_pages import load_kept
from workbench.usecases.pipeline import Corpus, corpus_of


def corpus(path: Path) -> Corpus:
    kept = load_kept(path)
    assert kept is not None, path
    pages = [p for f in kept.files.values() for p in f.pages]
    skipped = [s for f in kept.files.values() for s in f.skipped]
    return corpus_of(kept.root, params_from_record(kept.params), pages, skipped, {})


def rows(c: Corpus) -> dict[str, bytes]:
    m = c.matrix
    raw = m.raw_ids if m.raw_ids is not None else np.arange(m.n_signatures)
    lengths = m.lengths()
    out = {}
    for i, page in enumerate(c.pages):
        lo, hi = m.ptr[i], m.ptr[i + 1]
        ids, counts = raw[m.sig[lo:hi]].astype(np.int64), m.cnt[lo:hi].astype(np.int64)
        out[page.key] = ids.tobytes() + counts.tobytes() + int(lengths[i]).to_bytes(8, "little")
    return out


def reordered(m: SignatureMatrix, order: np.ndarray) -> SignatureMatrix:
    starts, ends = m.ptr[:-1][order], m.ptr[1:][order]
    ptr = np.zeros(len(order) + 1, dtype=np.int64)
    np.cumsum(ends - starts, out=ptr[1:])
    take = np.concatenate([np.arange(a, b) for a, b in zip(starts, ends, strict=True)]) if len(order) else []
    unindexed = None if m.unindexed is None else m.unindexed[order]
    return SignatureMatrix(ptr, m.sig[take], m.cnt[take], m.raw_ids, unindexed)


def main() -> None:
    before_path, after_path = map(Path, sys.argv[1:3])
    t = time.perf_counter()
    before, after = corpus(before_path), corpus(after_path)
    print(f"filters over kept pages, both: {time.perf_counter() - t:.1f} s")
    old, new = rows(before), rows(after)
    common = [k for k in new if k in old]
    changed = [k for k in common if old[k] != new[k]]
    print(f"pages before {len(old):,}, after {len(new):,}; old pages still there {len(common):,}; "
          f"their matched signatures changed: {len(changed):,} ({len(changed) / max(len(common), 1):.1%})")

    m = after.matrix
    tau = after.params.floor_for(len(after.pages))
    t = time.perf_counter()
    full = find_pairs(m, tau, after.checksum_group)
    full_s = time.perf_counter() - t
    moved = np.array([page.key not in old or old[page.key] != new[page.key] for page in after.pages])
    order = np.concatenate([np.flatnonzero(~moved), np.flatnonzero(moved)])
    t = time.perf_counter()
    part = find_new_pairs(reordered(m, order), int((~moved).sum()), tau)
    part_s = time.perf_counter() - t
    print(f"join of the grown crawl at {tau}: full {full_s:.2f} s ({len(full):,} pairs); incremental over "
          f"the {int(moved.sum()):,} new or changed pages {part_s:.2f} s "
          f"({len(part):,} pairs with one of them)")


if __name__ == "__main__":
    main()
