"""Fuzz: damaged WARC bytes never raise out of the reader and never hang.

A bounded run for CI; ``scripts/fuzz_archive.py`` does the long run by hand.
"""

from __future__ import annotations

import gzip
import re
import signal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.archive.warcs import Builder, page
from tests.conftest import SHARED_DATA
from workbench.archive import scan

# A hang guard, not a speed bound: reading a few kB never takes a minute unless it loops
# for ever (a bound near the usual time failed on a loaded machine). Speed is the
# benchmarks' to print.
BUDGET_S = 60.0


def _seeds() -> list[bytes]:
    b = Builder()
    b.request("http://x.test/")
    for n in range(3):
        b.response(f"http://x.test/{n}", page(n), date=f"2020-01-0{n + 1}T00:00:00Z")
    out = [b.bytes()]
    plain = Builder(gzip=False)
    for n in range(3):
        plain.response(f"http://x.test/{n}", page(n))
    out += [plain.bytes(), gzip.compress(plain.bytes())]
    warc = SHARED_DATA / "warc"
    for name in ("webrecorder+warcio/example.warc.gz", "webrecorder+warcio/example.arc",
                 "webrecorder+warcio/example-iana.org-chunked.warc",
                 "chatnoir-eu+chatnoir-resiliparse/warcfile.warc.gz",
                 "archivesunleashed+aut/issue-493.warc"):
        if (warc / name).exists():
            out.append((warc / name).read_bytes())
    return out


SEEDS = _seeds()


class _OverBudget(BaseException):
    pass


def _alarm(signum, frame):
    raise _OverBudget()


@st.composite
def damaged(draw):
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["truncate", "flip", "length", "delete", "insert"]))
        n = len(data)
        if n == 0:
            break
        at = draw(st.integers(0, n - 1))
        if op == "truncate":
            del data[at:]
        elif op == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "length":
            spans = [m.span(1) for m in re.finditer(rb"Content-Length: *(\d+)", bytes(data))]
            if spans:
                a, b = draw(st.sampled_from(spans))
                value = draw(st.sampled_from([0, 1, 7, 1000, 10**6, 2**40]))
                data[a:b] = str(value).encode()
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 500))]
        else:
            data[at:at] = draw(st.sampled_from([b"\x1f\x8b\x08\x00", b"WARC/1.0\r\n", b"\r\n",
                                                b"\x00" * 16]))
    return bytes(data)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX timers")
@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=damaged())
def test_damaged_archives_never_raise_or_hang(tmp_path, data):
    path = tmp_path / "input.warc"
    path.write_bytes(data)
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, BUDGET_S)
    try:
        items = list(scan(path))
    except _OverBudget:
        pytest.fail(f"reading {len(data)} damaged bytes took over {BUDGET_S} s")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    keys = [i.key for i in items if hasattr(i, "key")]
    assert len(keys) == len(set(keys))
    assert items, "every input yields at least one page or skip record"
