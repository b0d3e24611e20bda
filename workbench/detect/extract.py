"""One page's bytes to its provenance record and signature multiset (runs in workers)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import numpy as np

from workbench.core.records import PageInfo, RawPage
from workbench.detect.params import SpotSigsParams
from workbench.detect.signatures import page_signatures, signature_vector
from workbench.text.decode import decode_bytes
from workbench.text.html import Extracted, extract, extract_plain

_LOOKS_LIKE_HTML = re.compile(rb"<\s*(!doctype|html|head|body|title|p|div|table|br|meta)\b", re.I)


@dataclass(slots=True)
class ExtractedPage:
    info: PageInfo
    ids: np.ndarray  # sorted unique signature ids (int64)
    counts: np.ndarray  # their counts


def is_html(raw: RawPage) -> bool:
    ctype = (raw.content_type or "").lower()
    if "html" in ctype or "xml" in ctype:
        return True
    if ctype.startswith("text/plain"):
        return False
    return _LOOKS_LIKE_HTML.search(raw.data[:8192]) is not None


def extract_text(raw: RawPage) -> tuple[Extracted, str]:
    """The page's visible text and blocks, and the encoding used to read it."""
    decoded = decode_bytes(raw.data, raw.charset_hint)
    text = decoded.text.replace("\x00", "")
    extracted = extract(text) if is_html(raw) else extract_plain(text)
    return extracted, decoded.encoding


def extract_page(raw: RawPage, params: SpotSigsParams) -> ExtractedPage:
    extracted, encoding = extract_text(raw)
    ids, counts = signature_vector(page_signatures(extracted, params))
    checksum = hashlib.sha1(extracted.text.encode("utf-8", "surrogatepass")).hexdigest()
    info = PageInfo(
        key=raw.key,
        source=raw.source,
        offset=raw.offset,
        url=raw.url,
        capture_date=raw.capture_date,
        http_status=raw.http_status,
        content_type=raw.content_type,
        encoding=encoding,
        title=extracted.title[:500],
        checksum=checksum,
        signature_count=int(counts.sum()),
    )
    return ExtractedPage(info, ids, counts)


def extract_batch(batch: list[RawPage], params: SpotSigsParams) -> list[ExtractedPage | str]:
    """Extract a batch; a page that fails yields its error text instead of stopping the run."""
    out: list[ExtractedPage | str] = []
    for raw in batch:
        try:
            out.append(extract_page(raw, params))
        except Exception as exc:  # noqa: BLE001 - one bad page must never end a run
            out.append(f"could not extract text: {type(exc).__name__}: {exc}")
    return out
