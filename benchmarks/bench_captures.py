"""How long stripping replay inserts and recovering provenance take on a large page.

    python benchmarks/bench_captures.py [--repeat 20]

The capture fixtures (a Wayback replay and an ordinary page) with 170 kB of story
paragraphs added to their article: the time of ``strip_replay_inserts`` plus
``recover_provenance`` a call (an lxml parse of such a page takes several milliseconds).
A benchmark, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def main() -> int:
    from tests.text.test_captures import large_page, page
    from workbench.text.provenance.captures import recover_provenance, strip_replay_inserts

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    for name in ("wayback.html", "ordinary.html"):
        big = large_page(page(name))
        spent = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            strip_replay_inserts(big)
            recover_provenance(None, None, big)
            spent.append(time.perf_counter() - start)
        print(f"{name}: {len(big) / 1000:.0f} kB, median {statistics.median(spent) * 1000:.1f} ms "
              f"a call, worst {max(spent) * 1000:.1f} ms ({args.repeat} calls)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
