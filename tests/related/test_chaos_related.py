"""chaos-2017: are the true pairs the clustering misses among the related suggestions?

The issue's done-when asks for both. One is: "atmosphere (7)" and "(9)" (0.24, below τ)
are each other's first suggestion. The other, "atmosphere (1)" and "(2)", is a true pair
only by its gold texts: the gold text of (2) holds (1)'s article and then the Washington
Post's, while the two pages share no sentence; their compared texts share 4 of 39
signatures each (0.05), under the pair floor, so no run stores the pair and nothing can
offer it. The test pins both facts, so a change to either shows.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from tests.conftest import REPO, shared_path
from workbench.gui.related.presenter import SHOWN
from workbench.usecases.pipeline import detect, load_corpus


def _eval_related():
    spec = importlib.util.spec_from_file_location("eval_related", REPO / "scripts" / "eval_related.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("eval_related", module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # reads and matches 360 pages: 10 s alone, up to 50 s on a busy 2-core machine
def test_chaos_missed_true_pairs_among_related_suggestions():
    html = shared_path("chaos-2017", "html")
    shared_path("..", "tools", "frameeval.py")
    ev = _eval_related()
    found = ev.suggestions(detect(load_corpus(html, workers=1)))
    _, true_pairs = ev.chaos_truth(html)
    at = {k: i for i, k in enumerate(found.keys)}
    missed = sorted(tuple(sorted(p)) for p in true_pairs
                    if found.cluster_of[at[min(p)]] != found.cluster_of[at[max(p)]])
    rewrite = ("atmosphere (7).htm", "atmosphere (9).htm")
    mislabelled = ("atmosphere (1).htm", "atmosphere (2).htm")
    assert missed == [mislabelled, rewrite]
    assert ev._rank(found, at[rewrite[0]], at[rewrite[1]], SHOWN) == 1
    i, j = sorted((at[mislabelled[0]], at[mislabelled[1]]))
    assert (i, j) not in found.stored  # below the pair floor: see the module's docstring
