"""The quality bar on the dev Gold Set (skipped when ../shared is absent)."""

from __future__ import annotations

from workbench.cli import gold_scores
from workbench.pipeline import run_dedup


def test_default_settings_reach_the_papers_gold_set_figures(goldset_dev):
    result = run_dedup(goldset_dev)
    assert len(result.pages) == 1050
    pair, clusters = gold_scores(result)
    # The defaults are chosen on every labelled corpus, precision first (README, "Quality").
    assert clusters.precision >= 0.98, clusters
    assert clusters.f1 >= 0.94, clusters
    assert pair.precision >= 0.98, pair
