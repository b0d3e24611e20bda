#!/usr/bin/env python3
"""Score one set of detection settings on every labelled corpus at once, over a range of tau.

A default must hold on every kind of crawl, so it is chosen on all of them together:

* the dev Gold Set (2006 browser-saved pages; one folder per true cluster),
* gencorpus crawls (modern templates; ``truth.csv`` names each page's cluster; make
  several seeds with ``python3 ../shared/tools/gencorpus.py --docs 3000 --seed S --out DIR``),
* chaos-2017 (many outlets, same events; scored by ``../shared/tools/frameeval.py``
  against human-written article texts, byte-identical files counting as true pairs).

Cluster precision/recall are over all pairs of pages that share an output cluster (what
a coder experiences). Settings are given as ``name=value`` (any SpotSigsParams field).

usage: python scripts/eval_detection.py [--gold DIR] [--gencorpus DIR ...] [--chaos DIR]
                                        [--taus 0.2,0.3,...] [name=value ...]
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from workbench.commands.cli import gold_scores
from workbench.core.clusters.evaluation import pairs_of_groups, score_pairs
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.usecases.pipeline import Corpus, DedupResult, detect, load_corpus

SHARED = Path(__file__).resolve().parents[2] / "shared"


def _value(field: dataclasses.Field, text: str):
    if field.type in ("bool", bool):
        return text.lower() in ("1", "true", "yes", "on")
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            continue
    return text


def params_from(settings: list[str]) -> SpotSigsParams:
    fields = {f.name: f for f in dataclasses.fields(SpotSigsParams)}
    kw = {}
    for item in settings:
        name, _, text = item.partition("=")
        if name not in fields:
            raise SystemExit(f"unknown setting {name!r}; one of {', '.join(fields)}")
        kw[name] = _value(fields[name], text)
    return SpotSigsParams(**kw)


def gencorpus_scores(result: DedupResult, truth_csv: Path) -> tuple[float, float]:
    keys = [p.key for p in result.pages]
    groups: dict[str, list[str]] = {}
    with truth_csv.open(newline="") as f:
        for row in csv.DictReader(f):
            if "path" in row:  # a folder of pages
                key = row["path"].removeprefix("pages/")
            else:  # WARC records: the page key is file#offset
                key = f"{row['warc_file']}#{row['warc_offset']}"
            groups.setdefault(row["cluster"], []).append(key)
    truth = pairs_of_groups(groups.values())
    clustered = pairs_of_groups([[keys[x] for x in c.members] for c in result.clusters])
    s = score_pairs(clustered, truth)
    return s.precision, s.recall


def chaos_scores(result: DedupResult, root: Path) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False, newline="") as f:
        w = csv.writer(f)
        w.writerow(["cluster", "path"])
        for k, c in enumerate(result.clusters):
            for x in c.members:
                w.writerow([k, result.pages[x].key])
    tool = SHARED / "tools" / "frameeval.py"
    out = subprocess.run([sys.executable, str(tool), str(root.parent / "gold"), f.name, str(root)],
                         capture_output=True, text=True, check=True).stdout
    Path(f.name).unlink()
    return json.loads(out)


def sweep(name: str, corpus: Corpus, taus: list[float], score) -> None:
    print(f"\n{name}: {len(corpus.pages):,} pages, "
          f"{sum(1 for p in corpus.pages if p.skip_reason):,} with too little text, "
          f"read+extract {corpus.timings.get('read+extract', 0):.1f} s")
    for tau in taus:
        result = detect(corpus, tau=tau)
        print(f"  tau {tau:.2f}  {score(result)}", flush=True)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gold", type=Path)
    ap.add_argument("--gencorpus", type=Path, nargs="*", default=[])
    ap.add_argument("--chaos", type=Path)
    ap.add_argument("--taus", default="0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.6")
    ap.add_argument("settings", nargs="*", help="name=value SpotSigsParams overrides")
    args = ap.parse_args(argv)
    params = params_from(args.settings)
    taus = [float(t) for t in args.taus.split(",")]
    print("settings:", ", ".join(args.settings) or "defaults")
    t0 = time.perf_counter()
    if args.gold:
        def gold(result: DedupResult) -> str:
            pair, clus = gold_scores(result)
            return (f"pairs P {pair.precision:.3f} R {pair.recall:.3f}   "
                    f"clusters P {clus.precision:.3f} R {clus.recall:.3f} F1 {clus.f1:.3f}")
        sweep(f"gold set {args.gold}", load_corpus(args.gold, params), taus, gold)
    for root in args.gencorpus:
        pages = root / "pages" if (root / "pages").is_dir() else root

        def gen(result: DedupResult, truth=root / "truth.csv") -> str:
            p, r = gencorpus_scores(result, truth)
            return f"clusters P {p:.3f} R {r:.3f}"
        sweep(f"gencorpus {root}", load_corpus(pages, params), taus, gen)
    if args.chaos:
        html = args.chaos / "html" if (args.chaos / "html").is_dir() else args.chaos

        def chaos(result: DedupResult) -> str:
            s = chaos_scores(result, html)
            return (f"false merges {s['false_merges']}, true pairs found {s['true_pairs_found']} "
                    f"of {s['true_pairs']} ({s['clustered_pairs']} clustered pairs)")
        sweep(f"chaos-2017 {args.chaos}", load_corpus(html, params), taus, chaos)
    print(f"\n{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
