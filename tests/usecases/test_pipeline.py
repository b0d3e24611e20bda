from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DEMO_ARCHIVE, REPO
from workbench.core.progress import Cancelled
from workbench.core.records import RawPage, SkipRecord
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.usecases.pipeline import load_corpus, run_dedup


def _story(key: str) -> str:
    return key.split("/")[-1]


def test_demo_archive_clusters_each_story_across_layouts():
    result = run_dedup(DEMO_ARCHIVE)
    groups = sorted(sorted(result.pages[m].key for m in c.members) for c in result.clusters)
    assert len(result.pages) == 12
    assert len(groups) == 4
    for g in groups:
        assert len({_story(k) for k in g}) == 1, g  # one story per cluster
        assert len({k.split("/")[0] for k in g}) == len(g)  # each from another site
    clustered = {k for g in groups for k in g}
    assert "dailycourier/school-meals.html" not in clustered
    for c in result.clusters:
        assert c.similarities[0] == 1.0
        assert all(0.0 < s <= 1.0 for s in c.similarities)


def test_pipeline_runs_without_qt():
    code = (
        "import sys, workbench.usecases.pipeline, workbench.commands.cli, workbench.archive\n"
        "from workbench.usecases.pipeline import run_dedup\n"
        f"r = run_dedup({str(DEMO_ARCHIVE)!r})\n"
        "assert r.clusters\n"
        "assert not [m for m in sys.modules if m.startswith('PySide6')], 'Qt was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_progress_can_cancel():
    seen = []

    def progress(stage, done, total):
        seen.append(stage)
        if stage == "match":
            raise Cancelled

    with pytest.raises(Cancelled):
        run_dedup(DEMO_ARCHIVE, progress=progress)
    assert "extract" in seen


def test_too_little_text_is_reported_not_lost(tmp_path: Path):
    (tmp_path / "tiny.html").write_text("<html><body><p>Hello there.</p></body></html>")
    (tmp_path / "empty.html").write_bytes(b"")
    result = run_dedup(tmp_path)
    assert [p.key for p in result.pages] == ["tiny.html"]
    assert "too little text" in result.pages[0].skip_reason
    assert [(s.source, s.reason) for s in result.skipped] == [("empty.html", "empty file")]


def test_worker_processes_give_the_same_result_as_one_process():
    pages = []
    for path in sorted(DEMO_ARCHIVE.rglob("*.html")):
        data = path.read_bytes()
        for copy in range(8):  # enough pages to start worker processes
            pages.append(RawPage(f"{copy}/{path.relative_to(DEMO_ARCHIVE).as_posix()}", data))
    pages.append(SkipRecord("bad.warc", "truncated"))
    one = run_dedup(DEMO_ARCHIVE, pages=pages, workers=1)
    two = run_dedup(DEMO_ARCHIVE, pages=iter(pages), workers=2)
    assert [p.key for p in one.pages] == [p.key for p in two.pages]
    assert one.pairs.a.tolist() == two.pairs.a.tolist()
    assert one.pairs.b.tolist() == two.pairs.b.tolist()
    assert len(two.skipped) == 1
    # Exact copies are pairs with similarity 1.0.
    assert max(one.pairs.similarity) == 1.0


def test_idf_filter_is_off_for_tiny_corpora_and_on_for_larger_ones():
    small = load_corpus(DEMO_ARCHIVE)
    assert not small.idf_applied
    big = load_corpus(DEMO_ARCHIVE, SpotSigsParams(idf_min_pages=2, idf_low=0.8, idf_high=0.9))
    assert big.idf_applied
    assert big.matrix.lengths().sum() < small.matrix.lengths().sum()


def test_missing_root_is_a_clear_error(tmp_path: Path):
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        run_dedup(tmp_path / "nope")


def test_idf_filter_drops_common_signatures_and_keeps_single_page_ones_out_of_the_index_only():
    import numpy as np

    from workbench.detect.join.matcher import SignatureMatrix
    from workbench.usecases.pipeline import idf_keep

    # 1,000 pages: signature 0 on every page (idf 0: too common), signature 1 on pages 0-1
    # (idf log(500)/log(1000) = 0.90 > 0.85: rare, but shared), signature 2+i on page i only.
    vectors = []
    for i in range(1000):
        ids = [0, 2 + i] + ([1] if i < 2 else [])
        vectors.append((np.array(sorted(ids), dtype=np.int64), np.ones(len(ids), dtype=np.int64)))
    dense = {raw: d for d, raw in enumerate(sorted({x for v in vectors for x in v[0].tolist()}))}
    m = SignatureMatrix.from_vectors(vectors)
    counted, indexed, applied = idf_keep(m, SpotSigsParams())
    assert applied
    in_pages = set(m.sig[counted].tolist())
    in_index = set(m.sig[indexed].tolist())
    assert dense[0] not in in_pages and dense[0] not in in_index
    assert dense[1] in in_index
    # A page's own signatures stay in its length but are never listed.
    assert all(dense[2 + i] in in_pages for i in range(1000))
    assert not any(dense[2 + i] in in_index for i in range(1000))
    honest = m.select_entries(counted).index_only(indexed[counted])
    assert honest.lengths().tolist() == [2] * 2 + [1] * 998
