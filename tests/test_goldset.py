"""The quality bar on the dev Gold Set (skipped when ../shared is absent)."""

from __future__ import annotations

from workbench.cli import gold_scores
from workbench.pipeline import run_dedup


def test_default_settings_keep_the_gold_sets_precision(goldset_dev):
    result = run_dedup(goldset_dev)
    assert len(result.pages) == 1050
    pair, clusters = gold_scores(result)
    # The defaults are chosen on every labelled corpus, precision first (README, "Quality"):
    # above the paper's precision (.96) on its Gold Set, below its recall (.92), since the
    # weak joins that kept rewritten copies together (recall .904, F1 .943) merged
    # different clusters wholesale on crawls made of shared stories (gensmall, .55).
    assert clusters.precision >= 0.985, clusters
    assert clusters.recall >= 0.8, clusters
    assert pair.precision >= 0.985, pair
