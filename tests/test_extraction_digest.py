"""scripts/extraction_digest.py fingerprints what extraction gives a page, and only that."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from workbench.core.records import RawPage
from workbench.detect.spotsigs.extract import extract_batch
from workbench.detect.spotsigs.params import SpotSigsParams

_SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "extraction_digest.py"


def _digest_module():
    spec = importlib.util.spec_from_file_location("extraction_digest", _SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _page(name: str, words: str) -> RawPage:
    html = (f"<html><head><title>{name}</title></head><body><p>The council said on Monday that {words} "
            f"and that the bridge opens in the spring, within the budget it set.</p></body></html>")
    return RawPage(f"{name}.html", html.encode(), content_type="text/html")


def test_a_pages_fingerprint_does_not_depend_on_the_pages_beside_it_in_its_batch():
    # The pages of a batch share one buffer: the fingerprint reads the page's own arrays.
    canonical = _digest_module().canonical
    params = SpotSigsParams()
    page, other, third = _page("a", "the ferry runs late"), _page("b", "it will rain"), _page("c", "x " * 40)
    with_other = extract_batch([page, other], params)[0]
    with_third = extract_batch([page, third], params)[0]
    alone = extract_batch([page], params)[0]
    assert repr(canonical(with_other)) == repr(canonical(with_third)) == repr(canonical(alone))
    assert repr(canonical(with_other)) != repr(canonical(extract_batch([other], params)[0]))
