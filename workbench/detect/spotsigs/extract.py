"""One page's bytes to its provenance record and signature multiset (runs in workers)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np

from workbench.archive.common import skipped
from workbench.core.records import PageInfo, RawPage, SkipRecord
from workbench.detect.detector import PageText
from workbench.detect.spotsigs.matrix_kernels import row_multisets
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.detect.spotsigs.scheme import page_scheme
from workbench.detect.spotsigs.signatures import (
    BlockSignatures,
    batch_signatures,
    block_id,
    block_signatures,
    kept_blocks,
)
from workbench.text.decode import decode_bytes
from workbench.text.headline import TITLE_MAX_CHARS
from workbench.text.html import Extracted, extract, extract_plain
from workbench.text.limit import bounded
from workbench.text.provenance.captures import recover_provenance, strip_replay_inserts
from workbench.text.provenance.published import stated_date
from workbench.text.site_titles import shown_opening

_URL_HOST = re.compile(r"[a-z][a-z0-9+.-]*://([^/:?#\s@]+)", re.I)
_LOOKS_LIKE_HTML = re.compile(rb"<\s*(!doctype|html|head|body|title|p|div|table|br|meta)\b", re.I)


# The narrowest type that numbers a page's blocks (a page has rarely more than 255), and
# how many blocks each numbers.
_BLOCK_TYPES = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.int32))
_BLOCKS_NUMBERED = tuple(int(np.iinfo(t).max) + 1 for t in _BLOCK_TYPES)


def _block_type(n_blocks: int) -> np.dtype:
    """The narrowest type that numbers ``n_blocks`` blocks.

    Plain comparisons: every access to a page's arrays asks this, several times a page in
    the filters, and building np.iinfo each time was most of their cost per page (about
    a fifth of filtering 300,000 small pages)."""
    if n_blocks <= _BLOCKS_NUMBERED[0]:
        return _BLOCK_TYPES[0]
    if n_blocks <= _BLOCKS_NUMBERED[1]:
        return _BLOCK_TYPES[1]
    if n_blocks <= _BLOCKS_NUMBERED[2]:
        return _BLOCK_TYPES[2]
    raise ValueError(f"{n_blocks:,} blocks are more than a page can number")


def share_buffer(pages: Sequence[ExtractedPage]) -> None:
    """Move the pages' packed arrays into one new buffer that they share, each page's
    bytes starting at a multiple of 8 (its int64 arrays stay aligned). Pickled together,
    the pages then carry one array between them."""
    if not pages:
        return
    sizes = np.fromiter((p.nbytes for p in pages), dtype=np.int64, count=len(pages))
    starts = np.zeros(len(pages) + 1, dtype=np.int64)
    np.cumsum((sizes + 7) // 8 * 8, out=starts[1:])
    # Zeros, not np.empty: the padding between pages is then the same on every run.
    buffer = np.zeros(int(starts[-1]), dtype=np.uint8)
    for page, start, size in zip(pages, starts.tolist(), sizes.tolist(), strict=False):
        buffer[start : start + size] = page.packed
        page.buffer, page.start = buffer, start


@dataclass(slots=True)
class ExtractedPage:
    """A page's record and its signatures, one entry per spot, with the block it came from.

    Signatures are kept per block (not yet summed into a multiset) so that blocks a
    whole site repeats can still be left out once every page has been read.

    The main process holds one of these per page until every page is read (a million of
    them in a large run), so the three arrays are packed into one run of bytes (spot ids
    and block hashes as int64, then each spot's block in the narrowest unsigned type that
    numbers the page's blocks: a byte a spot instead of four), and the pages of a batch
    share one buffer (:func:`share_buffer`): it crosses from the worker as one array, and
    the main process keeps no array object per page. Those objects, freed by the filters
    among the page records that stay, left the small-object heap full of holes: on 300,000
    small pages 466 MB of its 663 MB were free but could not be given back. Make one with
    :meth:`of`.
    """

    info: PageInfo
    buffer: np.ndarray  # uint8: this page's bytes start at ``start`` (see above)
    start: int
    n_spots: int
    n_blocks: int
    # A note for the run's skip list beside the page (kept): what of it was left unread.
    note: SkipRecord | None = None

    @classmethod
    def of(cls, info: PageInfo, spot_ids: np.ndarray, spot_block: np.ndarray, block_hashes: np.ndarray,
           note: SkipRecord | None = None) -> ExtractedPage:
        """``spot_ids`` (int64, one per spot occurrence), ``spot_block`` (index into
        ``block_hashes`` of each spot's block), ``block_hashes`` (int64 id of each kept
        block's normalised text)."""
        n_spots, n_blocks = len(spot_ids), len(block_hashes)
        if len(spot_block) != n_spots:
            raise ValueError(f"{len(spot_block)} spot blocks for {n_spots} spots")
        kind = _block_type(n_blocks)
        wide = 8 * (n_spots + n_blocks)
        packed = np.empty(wide + kind.itemsize * n_spots, dtype=np.uint8)
        packed[: 8 * n_spots].view(np.int64)[:] = spot_ids
        packed[8 * n_spots : wide].view(np.int64)[:] = block_hashes
        packed[wide:].view(kind)[:] = spot_block
        return cls(info, packed, 0, n_spots, n_blocks, note)

    @property
    def nbytes(self) -> int:
        """The size of the page's packed arrays."""
        return (8 + _block_type(self.n_blocks).itemsize) * self.n_spots + 8 * self.n_blocks

    @property
    def packed(self) -> np.ndarray:
        """The page's packed arrays (a view of its buffer)."""
        return self.buffer[self.start : self.start + self.nbytes]

    # The three accessors below slice the buffer straight away (not through ``packed``):
    # the filters call them for every page, several times a run.

    @property
    def spot_ids(self) -> np.ndarray:
        """int64, one per spot occurrence (a view)."""
        start = self.start
        return self.buffer[start : start + 8 * self.n_spots].view(np.int64)

    @property
    def block_hashes(self) -> np.ndarray:
        """int64 id of each kept block's normalised text (a view)."""
        start = self.start + 8 * self.n_spots
        return self.buffer[start : start + 8 * self.n_blocks].view(np.int64)

    @property
    def spot_block(self) -> np.ndarray:
        """int32 index into ``block_hashes`` of each spot's block (a new array: arithmetic
        on the narrow stored type could overflow)."""
        if not self.n_spots:
            return np.empty(0, np.int32)
        kind = _block_type(self.n_blocks)
        start = self.start + 8 * (self.n_spots + self.n_blocks)
        return self.buffer[start : start + kind.itemsize * self.n_spots].view(kind).astype(np.int32)

    def vector(self, drop_blocks: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The page as a multiset (sorted unique ids, counts), without the given blocks."""
        _, ids, counts = page_multisets([self], [drop_blocks])
        return ids, counts


class PageArrays(Sequence[np.ndarray]):
    """One array of every page, made when it is asked for: ``of(pages[k])``.

    The filters read each page's spot blocks or block weights once, a batch at a time; as
    a list made beforehand they were a million arrays held at once (on a million small
    pages the repeated-blocks step peaked 664 MB lower without them)."""

    def __init__(self, pages: Sequence[ExtractedPage], of: Callable[[ExtractedPage], np.ndarray]) -> None:
        self._pages, self._of = pages, of

    def __len__(self) -> int:
        return len(self._pages)

    @overload
    def __getitem__(self, k: int) -> np.ndarray: ...

    @overload
    def __getitem__(self, k: slice) -> list[np.ndarray]: ...

    def __getitem__(self, k: int | slice) -> np.ndarray | list[np.ndarray]:
        if isinstance(k, slice):
            return [self._of(page) for page in self._pages[k]]
        return self._of(self._pages[k])

    def __iter__(self) -> Iterator[np.ndarray]:
        return map(self._of, self._pages)


def page_multisets(pages: Sequence[ExtractedPage], drop: Sequence[np.ndarray | None]
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every page as a multiset without its ``drop[i]`` blocks (a mask over its blocks, or
    None), all at once: row pointers, each page's sorted distinct ids, their counts.

    A np.unique a page cost about 21 us on small pages (mostly numpy's overhead for a
    call): 2 s of a 100,000-page run's filters, 20 s at a million pages. Here the kept
    spots of all the pages are gathered with a few array operations and counted in one
    compiled pass (workbench.detect.spotsigs.matrix_kernels.row_multisets): about 8 us a page.
    """
    n = len(pages)
    if not n:
        return np.zeros(1, np.int64), np.empty(0, np.int64), np.empty(0, np.int64)
    n_spots = np.fromiter((p.n_spots for p in pages), dtype=np.int64, count=n)
    n_blocks = np.fromiter((p.n_blocks for p in pages), dtype=np.int64, count=n)
    ids = np.concatenate([p.spot_ids for p in pages])
    dropped = np.concatenate([np.zeros(p.n_blocks, dtype=bool) if d is None or not len(d) else d
                              for p, d in zip(pages, drop, strict=True)])
    if len(dropped) != int(n_blocks.sum()):
        raise ValueError("a page's mask of dropped blocks does not match its blocks")
    if dropped.any():
        block_start = np.cumsum(n_blocks) - n_blocks
        blocks = np.concatenate([p.spot_block for p in pages])
        keep = ~dropped[np.repeat(block_start, n_spots) + blocks]
        n_spots = np.bincount(np.repeat(np.arange(n), n_spots)[keep], minlength=n)
        ids = ids[keep]
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(n_spots, out=ptr[1:])
    return row_multisets(ptr, ids)


def is_html(raw: RawPage) -> bool:
    ctype = (raw.content_type or "").lower()
    if "html" in ctype or "xml" in ctype:
        return True
    if ctype.startswith("text/plain"):
        return False
    return _LOOKS_LIKE_HTML.search(raw.data[:8192]) is not None


def extract_text(raw: RawPage, main_content: bool = True) -> tuple[Extracted, str]:
    """The page's visible text and blocks (main content marked), and the encoding used.

    A page larger than :data:`workbench.text.limit.MARKUP_LIMIT_BYTES` is read only that
    far, and ``Extracted.unread`` says so.

    Web-archive replays (Wayback, Archive-It, pywb) lose their banners and scripts before
    anything else, and the page's original URL and capture time are recovered from
    replay addresses, ``<link rel=canonical>``, ``og:url``, ``<base>`` or a browser's
    "saved from url" note (``Extracted.provenance``).
    """
    html = is_html(raw)
    read = bounded(raw.data, html)  # a page's memory is bounded by what is read of it
    decoded = decode_bytes(read.data, raw.charset_hint)
    text = decoded.text.replace("\x00", "")
    if html:
        cleaned, inserts = strip_replay_inserts(text)
        # A saved file's path may be its replay address, and its name finds the page's
        # own link among a replay's rewritten links.
        saved_as = raw.source if raw.offset is None else None
        origin = recover_provenance(raw.url, raw.capture_date, text, inserts=inserts, saved_as=saved_as)
        # The page's own host (not a replay service's) helps tell its headline from its
        # site's name.
        extracted = extract(cleaned, main_content, hosts=_hosts(origin.url))
        extracted.provenance = origin
        extracted.published = _published(cleaned, origin.capture_date)
    else:
        extracted = extract_plain(text)
        extracted.provenance = recover_provenance(raw.url, raw.capture_date, "", inserts=False)
    extracted.unread = read.note
    return extracted, decoded.encoding


def _published(markup: str, captured: str | None) -> tuple[str, str] | None:
    """The publication date the page states for machines (meta, JSON-LD, <time>), and
    where; None when it states none, or one after its capture (a page cannot be
    published after it was captured: such a date is the template's or a later edit's)."""
    found = stated_date(markup)
    if found is None or (captured and found[0] > captured[:10]):
        return None
    return found


def _hosts(*urls: str | None) -> list[str]:
    """The hosts of the given addresses."""
    hosts = []
    for url in urls:
        match = _URL_HOST.match(url or "")
        if match:
            hosts.append(match.group(1).lower())
    return hosts


def extract_page(raw: RawPage, params: SpotSigsParams) -> ExtractedPage:
    extracted, encoding = extract_text(raw, params.main_content)
    return _page(raw, extracted, encoding, block_signatures(extracted, params))


def extract_page_text(raw: RawPage, params: SpotSigsParams) -> tuple[PageInfo, PageText, SkipRecord | None]:
    """A page's record and the text every detector other than SpotSigs compares: its kept
    blocks (:func:`kept_blocks`), one a line; and the note of what was left unread."""
    extracted, encoding = extract_text(raw, params.main_content)
    blocks = kept_blocks(extracted, params)
    text = extracted.text
    kept = "\n".join(text[b.start : b.end] for b in blocks)
    language = page_scheme(text, blocks, params).language
    info = _info(raw, extracted, encoding)
    info.language = language
    note = None
    if extracted.unread:
        note = skipped(raw.source, extracted.unread, raw.offset, url=info.url, page_kept=True)
    return info, PageText(kept, extracted.title_tag, language), note


def _info(raw: RawPage, extracted: Extracted, encoding: str) -> PageInfo:
    """The page's record, without what detection adds (signature count, language, kind)."""
    checksum = hashlib.sha1(extracted.text.encode("utf-8", "surrogatepass")).hexdigest()
    origin = extracted.provenance
    return PageInfo(
        key=raw.key,
        source=raw.source,
        offset=raw.offset,
        url=origin.url if origin else raw.url,
        capture_date=origin.capture_date if origin else raw.capture_date,
        url_from=origin.url_from if origin else ("archive" if raw.url else None),
        captured_from=(origin.captured_from if origin else ("archive" if raw.capture_date else None)),
        published=extracted.published[0] if extracted.published else None,
        published_from=extracted.published[1] if extracted.published else None,
        http_status=raw.http_status,
        content_type=raw.content_type,
        encoding=encoding,
        title=extracted.title[:TITLE_MAX_CHARS],
        title_tag=extracted.title_tag[:TITLE_MAX_CHARS],
        other_titles=extracted.other_titles,
        opening=shown_opening(extracted.opening),
        checksum=checksum,
        link_host=extracted.link_host,
    )


def _page(raw: RawPage, extracted: Extracted, encoding: str, found: BlockSignatures) -> ExtractedPage:
    text = extracted.text
    blocks = found.blocks
    block_hashes = np.fromiter((block_id(text, b) for b in blocks), dtype=np.int64, count=len(blocks))
    info = _info(raw, extracted, encoding)
    info.signature_count = len(found.ids)
    info.language = found.language
    info.signature_kind = found.kind
    note = None
    if extracted.unread:
        note = skipped(raw.source, extracted.unread, raw.offset, url=info.url, page_kept=True)
    return ExtractedPage.of(info, np.asarray(found.ids, np.int64), np.asarray(found.where), block_hashes,
                            note)


def _failed(exc: Exception) -> str:
    return f"could not extract text: {type(exc).__name__}: {exc}"


def extract_batch(batch: list[RawPage], params: SpotSigsParams) -> list[ExtractedPage | str]:
    """Extract a batch; a page that fails yields its error text instead of stopping the run.

    The text of each page is extracted on its own; the spots of the whole batch are found
    together (:func:`batch_signatures`). Should that fail, each page is tried alone, so a
    bad page costs only itself.
    """
    out: list[ExtractedPage | str] = []
    texts: list[tuple[int, Extracted, str]] = []
    for raw in batch:
        try:
            extracted, encoding = extract_text(raw, params.main_content)
        except Exception as exc:  # noqa: BLE001 - one bad page must never end a run
            out.append(_failed(exc))
            continue
        texts.append((len(out), extracted, encoding))
        out.append("")  # filled in below
    try:
        found = batch_signatures([extracted for _, extracted, _ in texts], params)
    except Exception:  # noqa: BLE001 - find which page it was, one at a time
        found = None
    for k, (slot, extracted, encoding) in enumerate(texts):
        raw = batch[slot]
        try:
            sigs = found[k] if found is not None else block_signatures(extracted, params)
            out[slot] = _page(raw, extracted, encoding, sigs)
        except Exception as exc:  # noqa: BLE001 - one bad page must never end a run
            out[slot] = _failed(exc)
    share_buffer([page for page in out if isinstance(page, ExtractedPage)])
    return out
