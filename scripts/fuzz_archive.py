#!/usr/bin/env python3
"""Long by-hand fuzz run of the archive reader: mutate real WARC/ARC bytes, scan them.

usage: python scripts/fuzz_archive.py [--minutes 30] [--seed 1] [--budget 10]

Each example takes a real file from ../shared/data/warc (plus a few made here),
damages it (truncation, bit flips, wrong Content-Length, deleted or repeated
spans, spliced gzip members, a line of up to 4 MB, a compression bomb: a gzip member
of 300 MB of zeros, bare or as a record's payload), writes it to a temporary folder and reads it with
``workbench.archive.scan``. Any exception that escapes, or a file that takes
longer than the per-file budget, is a failure; the mutated bytes are kept in
``$TMPDIR/workbench-fuzz-failures/`` for replay. Prints a summary at the end (and every minute).
"""

from __future__ import annotations

import argparse
import gzip
import random
import re
import signal
import sys
import tempfile
import time
import traceback
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from workbench.archive import scan  # noqa: E402
from workbench.core.records import RawPage  # noqa: E402

SHARED = REPO.parent / "shared" / "data" / "warc"


class Timeout(BaseException):
    """Raised by the alarm; a BaseException so that the reader cannot swallow it."""


def _alarm(signum, frame):
    raise Timeout()


def seeds() -> list[bytes]:
    out = []
    if SHARED.exists():
        for path in sorted(SHARED.rglob("*")):
            if path.is_file() and path.stat().st_size <= 3_000_000:
                out.append(path.read_bytes())
    # A small made-up WARC, plain and whole-gzipped, so the run works without shared data.
    rec = (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://x.test/\r\n"
        b"WARC-Date: 2020-01-01T00:00:00Z\r\nContent-Type: application/http; msgtype=response"
        b"\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n"
    )
    body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><title>t</title>hi</html>"
    plain = (rec % (len(body), body)) * 3
    out += [plain, gzip.compress(plain)]
    return out


_BOMBS: list[bytes] = []


def bombs() -> list[bytes]:
    """Gzip members of 300 MB of zeros (about 300 KB each): bare, and a record's payload."""
    if not _BOMBS:
        size = 300 * 2**20
        head = (b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://bomb.test/\r\n"
                b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")
        http = len(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")
        for first in (b"", head % (http + size)):
            c = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
            parts = [c.compress(first)]
            zeros = bytes(2**20)
            parts += [c.compress(zeros) for _ in range(size // len(zeros))]
            _BOMBS.append(b"".join(parts) + c.compress(b"\r\n\r\n") + c.flush())
    return _BOMBS


def mutate(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(9)
        n = len(buf)
        if n == 0:
            break
        if op == 0:  # truncate
            del buf[rng.randrange(n):]
        elif op == 1:  # bit flips
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(n)
                buf[i] ^= 1 << rng.randrange(8)
        elif op == 2:  # wrong Content-Length
            lengths = [m.span(1) for m in re.finditer(rb"Content-Length: *(\d+)", bytes(buf))]
            if lengths:
                a, b = rng.choice(lengths)
                new = str(rng.choice([0, 1, rng.randrange(10**6), 2**40, -5])).encode()
                buf[a:b] = new
        elif op == 3:  # delete a span
            i = rng.randrange(n)
            del buf[i:i + rng.randint(1, 2000)]
        elif op == 4:  # repeat a span
            i = rng.randrange(n)
            buf[i:i] = buf[i:i + rng.randint(1, 2000)]
        elif op == 5:  # random bytes
            i = rng.randrange(n)
            buf[i:i + rng.randint(1, 64)] = rng.randbytes(rng.randint(1, 64))
        elif op == 6:  # a gzip member header in the middle
            i = rng.randrange(n)
            buf[i:i] = b"\x1f\x8b\x08\x00" + rng.randbytes(rng.randint(0, 40))
        elif op == 7:  # a long line (a header stretched, or junk between records)
            i = rng.randrange(n)
            buf[i:i] = bytes([rng.choice(b"a\x00 :")]) * rng.randint(1, 4 * 2**20)
        else:  # a compression bomb, where a gzip member could start
            starts = [m.start() for m in re.finditer(rb"\x1f\x8b\x08", bytes(buf))] or [n]
            i = rng.choice(starts)
            buf[i:i] = rng.choice(bombs())
    return bytes(buf)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=float, default=10.0, help="seconds allowed per file")
    ap.add_argument("--failures", type=Path,
                    default=Path(tempfile.gettempdir()) / "workbench-fuzz-failures")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    corpus = seeds()
    signal.signal(signal.SIGALRM, _alarm)
    stop = time.monotonic() + args.minutes * 60
    examples = pages = skips = escaped = hangs = 0
    slowest = 0.0
    in_bytes = 0
    next_report = time.monotonic() + 60
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "input.warc"
        while time.monotonic() < stop:
            data = mutate(rng.choice(corpus), rng)
            target.write_bytes(data)
            in_bytes += len(data)
            t0 = time.monotonic()
            signal.setitimer(signal.ITIMER_REAL, args.budget)
            try:
                for item in scan(target):
                    if isinstance(item, RawPage):
                        pages += 1
                    else:
                        skips += 1
            except Timeout:
                hangs += 1
                _keep(args.failures, data, f"hang-{examples}", "")
            except BaseException:  # noqa: BLE001 - counting what escaped is the point
                escaped += 1
                _keep(args.failures, data, f"exc-{examples}", traceback.format_exc())
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            slowest = max(slowest, time.monotonic() - t0)
            examples += 1
            if time.monotonic() >= next_report:
                next_report += 60
                _summary(examples, pages, skips, escaped, hangs, slowest, in_bytes, started)
    _summary(examples, pages, skips, escaped, hangs, slowest, in_bytes, started)
    return 1 if escaped or hangs else 0


def _keep(folder: Path, data: bytes, name: str, text: str) -> None:
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.bin").write_bytes(data)
    if text:
        (folder / f"{name}.txt").write_text(text)


def _summary(examples, pages, skips, escaped, hangs, slowest, in_bytes, started) -> None:
    elapsed = time.monotonic() - started
    print(
        f"{elapsed / 60:5.1f} min: {examples:,} files ({in_bytes / 2**20:,.0f} MB), "
        f"{pages:,} pages, {skips:,} skip records, {escaped} exceptions escaped, "
        f"{hangs} over budget, slowest file {slowest:.2f} s",
        flush=True,
    )


if __name__ == "__main__":
    raise SystemExit(main())
