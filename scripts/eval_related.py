#!/usr/bin/env python3
"""How often the related suggestions are true, on every labelled corpus.

A run keeps pairs down to its pair floor; a pair between the floor and τ whose pages lie in
two clusters (and two sites) makes the second cluster a *related* suggestion of the first
(workbench.core.related, ranked and filtered as the cluster view does; ``--same-site``
offers links within one site too, to see what leaving them out gains). A suggestion is
TRUE when the two pages of its best link (the pair shown side by side) are true near
duplicates: merging it would bring a true pair together.

For each corpus this prints, at the top k suggestions per cluster (k = 1, 3, 5, the number
the cluster view shows, and all):

* how many suggestions there are and the share that are true;
* missed true pairs (true near duplicates the clustering left in two clusters) and how
  many of them the suggestions offer (the one cluster among the other's top k);
* how many missed true pairs the run stored at all (below the floor nothing can offer
  them), the truth of suggestions whose best link lies within one site or across sites
  (with ``--same-site``), and by similarity band.

Corpora (loaded and scored as scripts/eval_detection.py does):

* the dev Gold Set (one folder per true cluster),
* gencorpus / gensmall crawls (``truth.csv``: each page's cluster; ``S…`` clusters are
  single pages),
* chaos-2017 (truth: the word sets of the human-written article texts share >= 50 %, or
  the files are byte-identical, as ``../shared/tools/frameeval.py`` scores). For it, each
  missed true pair is listed with its similarity and its rank among the suggestions of
  either page's cluster (the issue's done-when: both must be offered).

usage: python scripts/eval_related.py [--gold DIR] [--gencorpus DIR ...] [--chaos DIR]
                                      [--tau T] [--same-site] [name=value ...]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import importlib.util
import itertools
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from workbench.core.related import Related, related_clusters
from workbench.store.runs.runs import folders_are_sites, site_of
from workbench.usecases.pipeline import DedupResult, detect, load_corpus

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_detection import SHARED, params_from  # noqa: E402  (a sibling script)

# The number of related clusters the cluster view lists (workbench.gui.related.presenter).
from workbench.gui.related.presenter import SHOWN  # noqa: E402

KS = (1, 3, 5)
Truth = Callable[[str, str], bool]


@dataclass(slots=True)
class Suggestions:
    """Every cluster's related clusters, over page keys."""

    keys: list[str]
    cluster_of: list[int]  # page index -> cluster number (single pages: one of their own)
    related: dict[int, list[Related]]  # cluster number -> ranked suggestions
    stored: set[tuple[int, int]]  # page pairs the run kept (>= its floor), smaller first
    sites: list[str]  # each page's site


def suggestions(result: DedupResult, *, same_site: bool = False) -> Suggestions:
    """The related clusters of every cluster of a pipeline run (single pages included:
    the cluster list shows them too); ``same_site``: links within one site too (the
    cluster view leaves them out)."""
    n = len(result.pages)
    folders = folders_are_sites(result.pages)
    sites = [site_of(p, folder_sites=folders) for p in result.pages]
    cluster_of = list(range(len(result.clusters), len(result.clusters) + n))
    members: dict[int, list[int]] = defaultdict(list)
    for k, c in enumerate(result.clusters):
        for x in c.members:
            cluster_of[x] = k
    for x, k in enumerate(cluster_of):
        members[k].append(x)
    floor = result.floor if result.floor is not None else result.params.tau
    pairs = result.floor_pairs if result.floor_pairs is not None else result.pairs
    touching: dict[int, list[tuple[int, int, float]]] = defaultdict(list)
    for a, b, s in zip(pairs.a.tolist(), pairs.b.tolist(), pairs.similarity.tolist(), strict=True):
        if floor <= s < result.params.tau and cluster_of[a] != cluster_of[b]:
            touching[cluster_of[a]].append((a, b, s))
            touching[cluster_of[b]].append((a, b, s))
    related = {k: related_clusters(members[k], touching[k], cluster_of.__getitem__,
                                   tau=result.params.tau, floor=floor,
                                   site_of=None if same_site else sites.__getitem__)
               for k in touching}
    stored = set(zip(pairs.a.tolist(), pairs.b.tolist(), strict=True))
    return Suggestions([p.key for p in result.pages], cluster_of, related, stored, sites)


def report(name: str, found: Suggestions, truth: Truth, true_pairs: set[frozenset[str]],
           detail: bool = False) -> None:
    keys = found.keys
    with_any = sum(1 for items in found.related.values() if items)
    print(f"\n{name}: {len(keys):,} pages, {with_any:,} clusters with suggestions")
    index = {k: i for i, k in enumerate(keys)}
    missed = sorted(tuple(sorted(p)) for p in true_pairs
                    if all(k in index for k in p)
                    and found.cluster_of[index[min(p)]] != found.cluster_of[index[max(p)]])
    for k in (*KS, SHOWN, None):
        total = true = 0
        for items in found.related.values():
            for item in items[:k]:
                total += 1
                true += truth(keys[item.best.here], keys[item.best.there])
        offered = sum(_rank(found, index[a], index[b], k) is not None for a, b in missed)
        label = "all" if k is None else f"top {k}"
        share = f"{true / total:.3f}" if total else "n/a"
        print(f"  {label:>6}: {total:6,} suggestions, true {true:5,} ({share}); "
              f"missed true pairs offered {offered} of {len(missed)}")
    stored = sum((min(index[a], index[b]), max(index[a], index[b])) in found.stored
                 for a, b in missed)
    print(f"  missed true pairs the run stored (>= the pair floor): {stored} of {len(missed)}")
    bands: dict[float, list[int]] = defaultdict(lambda: [0, 0])
    for items in found.related.values():
        for item in items:
            band = bands[int(item.similarity * 20) / 20]
            band[0] += 1
            band[1] += truth(keys[item.best.here], keys[item.best.there])
    if found.sites:
        same = [0, 0, 0, 0]  # same site: suggestions, true; other sites: suggestions, true
        for items in found.related.values():
            for item in items:
                at = 0 if found.sites[item.best.here] == found.sites[item.best.there] else 2
                same[at] += 1
                same[at + 1] += truth(keys[item.best.here], keys[item.best.there])
        print(f"  best link on one site: true {same[1]} of {same[0]}; "
              f"across sites: true {same[3]} of {same[2]}")
    print("  by similarity: " + ", ".join(
        f"{lo:.2f}-{lo + 0.05:.2f} {t}/{n}" for lo, (n, t) in sorted(bands.items())))
    if detail:
        for a, b in missed:
            i, j = index[a], index[b]
            print(f"  missed true pair {a} | {b}: rank {_rank(found, i, j, None)} "
                  f"(top {SHOWN} shown: {'yes' if _rank(found, i, j, SHOWN) else 'no'})")


def _rank(found: Suggestions, i: int, j: int, k: int | None) -> int | None:
    """Where the cluster of page j stands among the suggestions of page i's cluster, or
    the other way round (the better of the two, 1-based); None: not among the top k."""
    ranks = []
    for here, there in ((i, j), (j, i)):
        items = found.related.get(found.cluster_of[here], [])[:k]
        target = found.cluster_of[there]
        ranks += [r for r, item in enumerate(items, 1) if item.cluster == target]
    return min(ranks) if ranks else None


# ------------------------------------------------------------------ truths
def gold_truth(keys: Sequence[str]) -> tuple[Truth, set[frozenset[str]]]:
    def folder(key: str) -> str | None:
        return key.split("/", 1)[0] if "/" in key else None

    groups: dict[str, list[str]] = defaultdict(list)
    for key in keys:
        if (f := folder(key)) is not None:
            groups[f].append(key)
    pairs = {frozenset(p) for g in groups.values() for p in itertools.combinations(g, 2)}
    return (lambda a, b: folder(a) is not None and folder(a) == folder(b)), pairs


def truth_csv(path: Path) -> tuple[Truth, set[frozenset[str]]]:
    cluster: dict[str, str] = {}
    with path.open(newline="") as f:
        for row in csv.DictReader(f):
            key = (row["path"].removeprefix("pages/") if "path" in row
                   else f"{row['warc_file']}#{row['warc_offset']}")
            cluster[key] = row["cluster"]
    groups: dict[str, list[str]] = defaultdict(list)
    for key, c in cluster.items():
        groups[c].append(key)
    pairs = {frozenset(p) for g in groups.values() for p in itertools.combinations(g, 2)}
    return (lambda a, b: a in cluster and cluster.get(a) == cluster.get(b)), pairs


def chaos_truth(html: Path) -> tuple[Truth, set[frozenset[str]]]:
    """frameeval.py's truth (its word sets and Jaccard, reused), keyed by page key."""
    spec = importlib.util.spec_from_file_location("frameeval", SHARED / "tools" / "frameeval.py")
    assert spec is not None and spec.loader is not None
    frameeval = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(frameeval)
    gold_root = html.parent / "gold"
    words = {str(p.relative_to(gold_root).with_suffix("")).replace("\\", "/"): frameeval.words(p)
             for p in gold_root.rglob("*.txt")}
    key_of: dict[str, str] = {}
    by_hash: dict[str, list[str]] = defaultdict(list)
    for p in html.rglob("*"):
        stem = str(p.relative_to(html).with_suffix("")).replace("\\", "/")
        if p.is_file() and stem in words:
            key_of[stem] = str(p.relative_to(html)).replace("\\", "/")
            by_hash[hashlib.sha1(p.read_bytes()).hexdigest()].append(key_of[stem])
    pairs = {frozenset((key_of[a], key_of[b]))
             for a, b in itertools.combinations(sorted(key_of), 2)
             if frameeval.jaccard(words[a], words[b]) >= 0.5}
    for same in by_hash.values():
        pairs.update(frozenset(p) for p in itertools.combinations(same, 2))
    return (lambda a, b: frozenset((a, b)) in pairs), pairs


def chaos_pages(root: Path) -> Path:
    return root / "html" if (root / "html").is_dir() else root


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gold", type=Path)
    ap.add_argument("--gencorpus", type=Path, nargs="*", default=[],
                    help="gencorpus or gensmall output folders (with truth.csv)")
    ap.add_argument("--chaos", type=Path)
    ap.add_argument("--tau", type=float, help="default: the settings' tau")
    ap.add_argument("--same-site", action="store_true",
                    help="offer links within one site too (the cluster view does not)")
    ap.add_argument("settings", nargs="*", help="name=value SpotSigsParams overrides")
    args = ap.parse_args(argv)
    params = params_from(args.settings)
    print("settings:", ", ".join(args.settings) or "defaults",
          f"(tau {args.tau or params.tau}, pair floor {params.pair_floor}; the cluster view "
          f"lists the top {SHOWN})")
    t0 = time.perf_counter()
    if args.gold:
        found = suggestions(detect(load_corpus(args.gold, params), tau=args.tau), same_site=args.same_site)
        report(f"dev Gold Set {args.gold}", found, *gold_truth(found.keys))
    for root in args.gencorpus:
        pages = root / "pages" if (root / "pages").is_dir() else root
        found = suggestions(detect(load_corpus(pages, params), tau=args.tau), same_site=args.same_site)
        report(f"{root.name} {root}", found, *truth_csv(root / "truth.csv"))
    if args.chaos:
        html = chaos_pages(args.chaos)
        found = suggestions(detect(load_corpus(html, params), tau=args.tau), same_site=args.same_site)
        report(f"chaos-2017 {args.chaos}", found, *chaos_truth(html), detail=True)
    print(f"\n{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
