"""Reading one page again for display, and which of its words to highlight.

No Qt here: the side-by-side view turns these spans into text formats. A page's
bytes are re-read from the archive by its source path (and record offset), its
visible text extracted exactly as detection did, and its spot signatures found
with the run's parameters, so every span indexes into the text the pane shows.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from workbench.archive.reread.page import read_raw
from workbench.core.records import RunFilters
from workbench.detect.spotsigs.extract import extract_text
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.detect.spotsigs.params import params_from_record as params_from_dict  # noqa: F401 - used by the window
from workbench.detect.spotsigs.signatures import Spot, page_spots, spot_id
from workbench.detect.spotsigs.spot import legacy_spot_id
from workbench.text.tokenize import Tokens

SHARED = "shared"
OWN = "own"
NOT_COUNTED = "not counted"  # left out by the run: too common, or the site's template


@dataclass(frozen=True, slots=True)
class Span:
    """Characters ``[start, end)`` of the extracted text: one token of a signature."""

    start: int
    end: int
    kind: str  # SHARED (the signature is on both pages) or OWN (only on this page)
    antecedent: bool


@dataclass(slots=True)
class PageText:
    """A page as the side-by-side view shows it."""

    text: str
    title: str
    tokens: Tokens
    spots: list[Spot]
    source_html: str = ""
    error: str | None = None
    spot_block: list[int] = field(default_factory=list)
    block_ids: list[int] = field(default_factory=list)
    # Per spot: did the run count it? None until filters are applied (then all count).
    counted: list[bool] | None = None
    # Ranges of ``text`` that were compared (the kept blocks: the article, when found).
    kept: list[tuple[int, int]] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)  # each spot's id (computed when empty)
    language: str | None = None  # the page's detected language, when told apart
    kind: str = "spots"  # "spots", or "punctuation" for a language without lists

    @property
    def signature_note(self) -> str:
        """What the coder should know of how the page was compared ('' when ordinary)."""
        if self.kind == "punctuation":
            where = f"language {self.language}" if self.language else "language not recognised"
            return f"{where}: punctuation signatures"
        return f"language {self.language}" if self.language and self.language != "en" else ""

    def apply_filters(self, filters: RunFilters, site: str | None) -> None:
        """Mark the spots the run left out (too common, or in a block the site repeats)."""
        ids = self.ids or [spot_id(sp) for sp in self.spots]
        self.counted = [
            filters.counted(ids[i], self.block_ids[self.spot_block[i]], site)
            # Runs saved before spot ids were built from word ids list the old ids.
            and (not filters.common or legacy_spot_id(sp) not in filters.common)
            for i, sp in enumerate(self.spots)
        ]

    def counted_spots(self) -> list[Spot]:
        if self.counted is None:
            return self.spots
        return [sp for sp, ok in zip(self.spots, self.counted, strict=True) if ok]

    @property
    def signature_counts(self) -> Counter[str]:
        """Counts of the signatures the run counted (all of them before filters are applied)."""
        return Counter(s.key for s in self.counted_spots())


def plain_tip(text: str) -> str:
    """Text from an archive as a tooltip: escaped inside <qt>, so markup in a page title
    shows as the characters it is instead of being interpreted as rich text."""
    import html

    return "<qt>" + html.escape(text).replace("\n", "<br>") + "</qt>"


def load_page(root: Path | str, source: str, offset: int | None, params: SpotSigsParams) -> PageText:
    """The page's extracted text and spots; an error text instead when it cannot be read."""
    try:
        raw = read_raw(root, source, offset)
    except Exception as exc:  # noqa: BLE001 - shown to the coder, never fatal
        return PageText("", "", Tokens([], [], []), [], error=f"Cannot read {source}: {exc}")
    if raw is None:
        return PageText("", "", Tokens([], [], []), [],
                        error=f"{source} is no longer in the archive folder {root}.")
    extracted, encoding = extract_text(raw, params.main_content)
    spots = page_spots(extracted, params)
    try:
        source_html = raw.data.decode(encoding or "utf-8", errors="replace")
    except LookupError:
        source_html = raw.data.decode("utf-8", errors="replace")
    return PageText(extracted.text, extracted.title, spots.tokens, spots.spots, source_html,
                    spot_block=spots.spot_block, block_ids=spots.block_ids, kept=spots.kept,
                    ids=spots.ids, language=spots.language, kind=spots.kind)


class PageCache:
    """The last few pages read, by (source, offset): stepping back and forth is instant."""

    def __init__(self, size: int = 48) -> None:
        self._size = size
        self._items: OrderedDict[tuple, PageText] = OrderedDict()

    def get(self, root: str, source: str, offset: int | None, params: SpotSigsParams) -> PageText:
        key = (root, source, offset, params)
        hit = self._items.get(key)
        if hit is not None:
            self._items.move_to_end(key)
            return hit
        page = load_page(root, source, offset, params)
        self._items[key] = page
        while len(self._items) > self._size:
            self._items.popitem(last=False)
        return page

    def clear(self) -> None:
        self._items.clear()


def readable(signature: str) -> str:
    """A signature key as the coder reads it: its words, without the language prefix."""
    return signature.rpartition("|")[2].replace(":", " ")


def shared_signatures(a: PageText, b: PageText) -> dict[str, tuple[int, int]]:
    """Signatures found on both pages (by key: the same words in two languages are two
    signatures), with their count on each, most frequent first."""
    ca, cb = a.signature_counts, b.signature_counts
    common = [(t, (ca[t], cb[t])) for t in ca if t in cb]
    common.sort(key=lambda item: (-min(item[1]), item[0]))
    return dict(common)


def highlight_spans(page: PageText, shared: set[str] | dict) -> list[Span]:
    """One span per token that belongs to a signature, in text order.

    A token in any shared signature is SHARED, else OWN, else (only in signatures the run
    left out) NOT_COUNTED; antecedent tokens are marked.
    """
    kind: dict[int, str] = {}
    antecedents: set[int] = set()
    rank = {NOT_COUNTED: 0, OWN: 1, SHARED: 2}  # a token shows its strongest role
    counted = page.counted or [True] * len(page.spots)
    for spot, ok in zip(page.spots, counted, strict=True):
        k = NOT_COUNTED if not ok else SHARED if spot.key in shared else OWN
        for t in (spot.antecedent, *spot.chain):
            if rank[k] > rank.get(kind.get(t, NOT_COUNTED), -1) or t not in kind:
                kind[t] = k
        antecedents.add(spot.antecedent)
    starts, ends = page.tokens.starts, page.tokens.ends
    return [Span(starts[t], ends[t], kind[t], t in antecedents) for t in sorted(kind)]


def spot_span(page: PageText, spot: Spot) -> tuple[int, int]:
    """Characters from the antecedent to the last chain word of one occurrence."""
    last = spot.chain[-1] if spot.chain else spot.antecedent
    return page.tokens.starts[spot.antecedent], page.tokens.ends[last]


def occurrences(page: PageText, signature: str) -> list[tuple[int, int]]:
    return [spot_span(page, s) for s in page.spots if s.key == signature]


def utf16_positions(text: str):
    """A function from Python string index to Qt (UTF-16) document position."""
    if text.isascii() or max(map(ord, text), default=0) <= 0xFFFF:
        return lambda i: i
    extra = [0] * (len(text) + 1)
    acc = 0
    for i, ch in enumerate(text):
        extra[i] = acc
        if ord(ch) > 0xFFFF:
            acc += 1
    extra[len(text)] = acc
    return lambda i: i + extra[i]


@dataclass(frozen=True, slots=True)
class ShownText:
    """What a pane shows of a page: its article (the compared blocks) or the whole text.

    ``segments`` are the ranges of the page's text shown, in order, each starting at
    ``starts[k]`` of ``text``; ``greyed`` are ranges of ``text`` that were not compared.
    """

    text: str
    segments: list[tuple[int, int]]
    starts: list[int]
    greyed: list[tuple[int, int]]

    def to_shown(self, i: int) -> int | None:
        """Where character ``i`` of the page's text is in ``text`` (None: not shown)."""
        for (lo, hi), at in zip(self.segments, self.starts, strict=True):
            if lo <= i <= hi:
                return at + i - lo
        return None

    def spans(self, spans: list[Span]) -> list[Span]:
        """The highlight spans that are shown, moved to ``text``'s offsets."""
        out = []
        for span in spans:
            start, end = self.to_shown(span.start), self.to_shown(span.end)
            if start is not None and end is not None:
                out.append(Span(start, end, span.kind, span.antecedent))
        return out


ARTICLE_GAP = "\n\n"


def article_view(page: PageText) -> ShownText:
    """Only the text that was compared, block after block (the page whole when nothing
    of it was kept)."""
    if not page.kept:
        return whole_view(page)
    parts, starts, at = [], [], 0
    for lo, hi in page.kept:
        starts.append(at)
        parts.append(page.text[lo:hi])
        at += hi - lo + len(ARTICLE_GAP)
    return ShownText(ARTICLE_GAP.join(parts), list(page.kept), starts, [])


def whole_view(page: PageText) -> ShownText:
    """The page's whole text, with what was not compared greyed."""
    greyed, at = [], 0
    for lo, hi in sorted(page.kept):
        if lo > at:
            greyed.append((at, lo))
        at = max(at, hi)
    if at < len(page.text):
        greyed.append((at, len(page.text)))
    visible = [g for g in greyed if page.text[g[0] : g[1]].strip()]
    return ShownText(page.text, [(0, len(page.text))], [0], visible)
