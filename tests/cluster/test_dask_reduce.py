"""The site boilerplate's counts, reduced as a tree on the cluster (workbench.cluster.filters.reduce),
give exactly ``site_boilerplate``'s answer: the same sites, in the same order, with the same
block ids; and a run's reduction happens on the workers, not by gathering pages."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.cluster.test_dask_same_results import cluster, small_pages  # noqa: F401 - fixtures
from workbench.archive.scan import scan
from workbench.cluster.filters import reduce
from workbench.cluster.run import dask_run
from workbench.core.records import RawPage
from workbench.detect.spotsigs.boilerplate import site_boilerplate
from workbench.detect.spotsigs.extract import ExtractedPage, extract_batch
from workbench.detect.spotsigs.params import SpotSigsParams

PARAMS = SpotSigsParams()


def _same(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert list(got) == list(want)  # the same sites in the same order
    for site in want:
        assert got[site].dtype == want[site].dtype and np.array_equal(got[site], want[site]), site


def test_counts_merged_in_any_split_decide_as_site_boilerplate(goldset_dev: Path):
    raw = [p for p in scan(goldset_dev) if isinstance(p, RawPage)]
    pages = [p for p in extract_batch(raw, PARAMS) if isinstance(p, ExtractedPage)]
    infos, hashes = [p.info for p in pages], [p.block_hashes for p in pages]
    # Low bars, so that many sites have boilerplate to find.
    for min_pages, share in ((PARAMS.site_min_pages, PARAMS.site_block_share), (2, 0.2)):
        want = site_boilerplate(infos, hashes, min_pages, share)
        assert want, "nothing to compare"
        rng = np.random.default_rng(7)
        cuts = sorted(set(rng.integers(1, len(pages), 9).tolist()))
        parts = [reduce.page_counts(pages[a:b]) for a, b in zip([0, *cuts], [*cuts, len(pages)], strict=True)]
        # Merged as a tree of pairs, in a shuffled order: addition does not care.
        order = rng.permutation(len(parts)).tolist()
        level = [parts[k] for k in order]
        while len(level) > 1:
            level = [reduce.merge(level[k:k + 2]) for k in range(0, len(level), 2)]
        _same(reduce.boilerplate_of(level[0], infos, min_pages, share), want)


@pytest.mark.slow
def test_a_runs_site_counts_are_reduced_on_the_cluster(cluster, small_pages: Path, tmp_path: Path,  # noqa: F811
                                                       monkeypatch):
    monkeypatch.setattr(reduce, "SPLIT_EVERY", 2)  # a tree of several levels even for a few shards
    with dask_run(None, tmp_path / "work", cluster=cluster) as run:
        pages, _ = run.extract_all(small_pages, PARAMS, lambda *_: None, 2)
        shards = len({p for p in (tmp_path / "work").rglob("pages-*.parquet")})
        assert shards >= 3
        infos, hashes = [p.info for p in pages], [p.block_hashes for p in pages]
        got = run.site_boilerplate(infos, hashes, PARAMS.site_min_pages, PARAMS.site_block_share)
        ran = run.client.run_on_scheduler(lambda dask_scheduler: sorted(dask_scheduler.task_prefixes))
    _same(got, site_boilerplate(infos, hashes, PARAMS.site_min_pages, PARAMS.site_block_share))
    assert got, "gensmall's sites have boilerplate"
    # The shards were counted by tasks (dask.bag's reduction: its partitions' and the
    # tree's aggregating tasks), not read by the client for the filter.
    assert any(name.startswith("site-counts-part") for name in ran), ran
    assert any(name.startswith("site-counts-aggregate") for name in ran), ran
