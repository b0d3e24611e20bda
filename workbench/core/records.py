"""The records that flow between the archive, detection, store and GUI layers."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class RawPage:
    """One page as read from an archive: bytes plus where they came from.

    ``source`` is the file path relative to the opened root (POSIX separators);
    for WARC/ARC/WACZ input ``offset`` is the record's byte offset in that file.
    """

    source: str
    data: bytes
    offset: int | None = None
    url: str | None = None
    capture_date: str | None = None
    http_status: int | None = None
    content_type: str | None = None
    charset_hint: str | None = None  # charset named by the HTTP Content-Type header
    # For a WARC revisit record: the key of the capture whose payload it repeats.
    revisit_of: str | None = None

    @property
    def key(self) -> str:
        """A name unique within one archive: the path, plus ``#offset`` for records."""
        return self.source if self.offset is None else f"{self.source}#{self.offset}"


@dataclass(frozen=True, slots=True)
class SkipRecord:
    """An input that yielded no page, with a reason a coder can act on."""

    source: str
    reason: str
    offset: int | None = None


@dataclass(slots=True)
class PageInfo:
    """What the workbench keeps about a page after extraction (no signatures)."""

    key: str
    source: str
    offset: int | None = None
    url: str | None = None
    capture_date: str | None = None
    http_status: int | None = None
    content_type: str | None = None
    encoding: str | None = None
    title: str = ""  # the headline (workbench.text.headline), else the <title>
    checksum: str = ""
    signature_count: int = 0
    skip_reason: str | None = None  # e.g. "too little text: 2 signatures (minimum 5)"
    link_host: str | None = None  # host most of the page's links point to (site guess)
    language: str | None = None  # detected language of the kept text (ISO 639-1), if told
    signature_kind: str = "spots"  # "spots", or "punctuation" for a language without lists
    title_tag: str = ""  # the page's <title> as written (often the site's name), for tooltips
    # What could stand in for ``title`` when many pages of its site share it (a site's
    # label, not a headline: workbench.text.site_titles), and the article's first words.
    # Display only: detection never reads them, and they are not saved.
    other_titles: tuple[str, ...] = ()
    opening: str = ""  # the article's first words, when an article was found
    # Where ``url`` and ``capture_date`` came from (workbench.text.provenance.captures: UrlFrom,
    # CapturedFrom), and the publication date the page states (YYYY-MM-DD) with where
    # it was read (workbench.text.provenance.published.PublishedFrom). None: not known.
    url_from: str | None = None
    captured_from: str | None = None
    published: str | None = None
    published_from: str | None = None


@dataclass(frozen=True, slots=True)
class Pair:
    """Two pages (indexes into the run's page list) with multiset Jaccard >= tau."""

    a: int
    b: int
    similarity: float


@dataclass(slots=True)
class Cluster:
    """A group of near duplicates as a coder sees it.

    ``members`` are page indexes, reference first; ``similarities[i]`` is the
    similarity of ``members[i]`` to the reference (1.0 for the reference itself).
    ``boilerplate_share[i]``, when measured, is the share of the signatures
    ``members[i]`` shares with the reference that lie in blocks other pages of the
    crawl also carry (None or NaN: not measured).
    """

    reference: int
    members: list[int]
    similarities: list[float] = field(default_factory=list)
    boilerplate_share: list[float | None] | None = None

    def __len__(self) -> int:
        return len(self.members)


@dataclass(frozen=True, slots=True)
class RunFilters:
    """Signatures and blocks a run did not count.

    ``common``: signature ids dropped because too many pages have them (IDF below the
    range). ``boilerplate``: per site, ids of blocks the site repeats on many pages; under
    the key ``"*"``, blocks repeated on many pages of any site that are not a story.
    Signatures found on one page only are dropped too, but they can never be shared,
    so a pair view needs no list of them.
    """

    common: frozenset[int] = frozenset()
    boilerplate: dict[str, frozenset[int]] = field(default_factory=dict)

    def counted(self, signature: int, block: int, site: str | None) -> bool:
        if signature in self.common:
            return False
        if block in self.boilerplate.get("*", ()):  # boilerplate whatever the site
            return False
        return not (site is not None and block in self.boilerplate.get(site, ()))
