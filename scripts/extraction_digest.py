#!/usr/bin/env python3
"""A fingerprint of everything extraction gives for every page of a folder, to show that a
change to extraction (a faster one, say) left its output exactly as it was.

For each page (read by ``workbench.archive.scan``, in its order, in this one process) the
script writes one line ``key<TAB>sha256``: the hash of a canonical text of

* the ``Extracted`` of :func:`workbench.detect.spotsigs.extract.extract_text` with main content and
  without it (text, title, every block's start/end/words/link_words/tag/main, link_host,
  main_found, title_tag, provenance, unread) and the encoding used,
* the ``ExtractedPage`` :func:`extract_batch` makes of it in batches of 24 pages, as the
  pipeline's workers do (info, spot_ids, spot_block, block_hashes, note), or its error text,
* what :func:`extract_page_text` gives other detectors (info, PageText, note),
* what :func:`page_spots` shows a coder (tokens with their spans, spots, ids, kept ranges).

Run it before a change and after, then compare:

    python scripts/extraction_digest.py ../shared/data/goldset-dev --out /tmp/before.txt
    python scripts/extraction_digest.py ../shared/data/goldset-dev --out /tmp/after.txt \\
        --compare /tmp/before.txt

``--compare`` names every page whose digest changed (and pages found in only one of the
two) and exits with status 1 when there is any.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from workbench.archive import scan
from workbench.core.records import RawPage
from workbench.detect.spotsigs.extract import ExtractedPage, extract_batch, extract_page_text, extract_text
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.detect.spotsigs.signatures import page_spots

BATCH_PAGES = 24  # workbench.archive.tasks.BATCH_FILES: what a worker extracts at once


def canonical(value: Any) -> Any:
    """``value`` as nested tuples of plain values, the same text for equal outputs."""
    if isinstance(value, ExtractedPage):
        # Its own arrays, not the buffer it shares with the other pages of its batch.
        return ("ExtractedPage", canonical(value.info), canonical(value.spot_ids),
                canonical(value.spot_block), canonical(value.block_hashes), canonical(value.note))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__,
                tuple((f.name, canonical(getattr(value, f.name))) for f in dataclasses.fields(value)))
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, hashlib.sha256(value.tobytes()).hexdigest())
    if isinstance(value, (list, tuple)):
        return tuple(canonical(v) for v in value)
    if isinstance(value, (frozenset, set)):
        return ("set", tuple(sorted(repr(canonical(v)) for v in value)))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((repr(k), repr(canonical(v))) for k, v in value.items())))
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return value
    # A type this script does not know would be hashed by its id-bearing repr: say so.
    raise TypeError(f"extraction_digest cannot fingerprint a {type(value).__name__}: add it to canonical()")


def _outcome(run: Any) -> Any:
    """What a call returns, or the exception it raised (also part of the behaviour)."""
    try:
        return canonical(run())
    except Exception as exc:  # noqa: BLE001 - a failure is an output to compare too
        return ("raised", type(exc).__name__, str(exc))


def _spots(raw: RawPage, params: SpotSigsParams) -> Any:
    extracted, _ = extract_text(raw, params.main_content)
    shown = page_spots(extracted, params)
    return (shown.tokens, shown.spot_block, shown.block_ids, shown.language, shown.kind,
            shown.kept, shown.ids, [(s.text, s.antecedent, s.chain, s.namespace) for s in shown.spots])


def page_digests(root: Path, params: SpotSigsParams) -> Iterator[tuple[str, str]]:
    """(key, digest) of every page under ``root``, in the order scan reads them."""
    without_main = dataclasses.replace(params, main_content=False)
    pages = [p for p in scan(str(root)) if isinstance(p, RawPage)]
    for at in range(0, len(pages), BATCH_PAGES):
        batch = pages[at : at + BATCH_PAGES]
        results = extract_batch(batch, params)
        for raw, result in zip(batch, results, strict=True):
            parts = (
                _outcome(lambda raw=raw: extract_text(raw, True)),
                _outcome(lambda raw=raw: extract_text(raw, False)),
                canonical(result),
                _outcome(lambda raw=raw: extract_page_text(raw, params)),
                _outcome(lambda raw=raw: extract_page_text(raw, without_main)),
                _outcome(lambda raw=raw: _spots(raw, params)),
            )
            yield raw.key, hashlib.sha256(repr(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _read(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return dict(line.split("\t", 1) for line in lines if line)  # type: ignore[misc]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a folder or archive file, as the workbench opens it")
    parser.add_argument("--out", type=Path, help="write the digests here (default: standard output)")
    parser.add_argument("--compare", type=Path, help="digests of an earlier run to compare with")
    args = parser.parse_args(argv)
    if not args.folder.exists():
        parser.error(f"{args.folder} does not exist: name a folder or archive file to read")
    started = time.perf_counter()
    lines = [f"{key}\t{digest}" for key, digest in page_digests(args.folder, SpotSigsParams())]
    text = "\n".join(lines) + "\n" if lines else ""
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    total = hashlib.sha256(text.encode()).hexdigest()
    print(f"{args.folder}: {len(lines)} pages in {time.perf_counter() - started:.1f} s, "
          f"digest of all {total[:16]}", file=sys.stderr)
    if args.compare is None:
        return 0
    now = dict(line.split("\t", 1) for line in lines)
    before = _read(args.compare)
    changed = sorted(k for k in now.keys() & before.keys() if now[k] != before[k])
    only_now, only_before = sorted(now.keys() - before.keys()), sorted(before.keys() - now.keys())
    for key in changed:
        print(f"changed: {key}", file=sys.stderr)
    for key in only_now:
        print(f"new page: {key}", file=sys.stderr)
    for key in only_before:
        print(f"missing page: {key}", file=sys.stderr)
    same = not (changed or only_now or only_before)
    print(f"{'same' if same else 'DIFFERENT'}: {len(changed)} changed, {len(only_now)} new, "
          f"{len(only_before)} missing of {len(before)} pages in {args.compare}", file=sys.stderr)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
