"""A page's memory is bounded: at most a fixed amount of its markup is read, and the run says so."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from workbench.core.records import RawPage
from workbench.detect.spotsigs.extract import extract_text
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.detect.workers.parallel import read_and_extract
from workbench.text.limit import MARKUP_LIMIT_BYTES
from workbench.usecases.pipeline import load_corpus

PARAGRAPH = ("<p>Paragraph {k}: the council said on Monday that the new school meals plan will be "
             "paid for by a tax on sugary drinks, which parents have asked for.</p>\n")


def _long_page(size: int, script: str = "") -> bytes:
    parts = [f"<html><head><title>Long</title>{script}</head><body>"]
    n, k = 0, 0
    while n < size:
        parts.append(PARAGRAPH.format(k=k))
        n += len(parts[-1])
        k += 1
    parts.append("<p>The very last words.</p></body></html>")
    return "".join(parts).encode()


def test_a_page_over_the_limit_is_read_up_to_it_and_says_so():
    data = _long_page(MARKUP_LIMIT_BYTES + MARKUP_LIMIT_BYTES // 2)
    extracted, _ = extract_text(RawPage("long.html", data, content_type="text/html"))
    assert "Paragraph 0:" in extracted.text and "The very last words." not in extracted.text
    # Cut at a tag: every paragraph read is whole.
    assert extracted.text.rstrip().endswith("asked for.")
    assert extracted.unread is not None
    assert f"only the first 2.0 MB of this page's {len(data) / 2**20:.1f} MB of markup" in extracted.unread


def test_scripts_go_before_anything_is_cut():
    script = "<script>var state = " + "[1, 2, 3], " * (MARKUP_LIMIT_BYTES // 8) + "0;</script>"
    data = _long_page(100_000, script)
    assert len(data) > MARKUP_LIMIT_BYTES
    extracted, _ = extract_text(RawPage("app.html", data, content_type="text/html"))
    assert extracted.unread is None and "The very last words." in extracted.text


def test_a_page_under_the_limit_is_read_whole():
    data = _long_page(MARKUP_LIMIT_BYTES - 1000)
    extracted, _ = extract_text(RawPage("big.html", data, content_type="text/html"))
    assert extracted.unread is None and "The very last words." in extracted.text


def test_the_note_reaches_the_run_beside_the_page(tmp_path: Path):
    big = _long_page(MARKUP_LIMIT_BYTES + 100_000)
    (tmp_path / "big.html").write_bytes(big)
    (tmp_path / "small.html").write_bytes(_long_page(3000))
    for_pages = load_corpus(tmp_path, pages=[RawPage("big.html", big, content_type="text/html")])
    done = read_and_extract(tmp_path, SpotSigsParams(), lambda *_: None, 2, small_here=False)
    assert done is not None
    for pages, skipped in ((for_pages.pages, for_pages.skipped), ([p.info for p in done[0]], done[1])):
        assert "big.html" in [p.key for p in pages]
        notes = [s for s in skipped if s.source == "big.html"]
        assert len(notes) == 1 and getattr(notes[0], "page_kept", False)
        assert "only the first 2.0 MB" in notes[0].reason


_MEASURE = """
import resource, sys
from workbench.core.records import RawPage
from workbench.detect.spotsigs.extract import extract_batch
from workbench.detect.spotsigs.params import SpotSigsParams
params = SpotSigsParams()
extract_batch([RawPage("warm.html", b"<html><body><p>warm up</p></body></html>")], params)
data = b"<html><body>" + b"<p><span>w</span> <span>x</span></p>" * (24 * 2**20 // 37) + b"</body></html>"
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
extract_batch([RawPage("tiny-elements.html", data, content_type="text/html")], params)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((after - before) // 1024)
"""


def test_the_memory_of_one_huge_page_is_bounded():
    # 24 MB of tiny elements: 1.6 GB more at the peak before the limit. The page's own bytes
    # (24 MB) are counted before, so this is what reading it adds.
    grown = subprocess.run([sys.executable, "-c", _MEASURE], cwd=REPO, check=True,
                           capture_output=True, text=True).stdout
    assert int(grown) < 300, f"reading one page added {grown} MiB"
