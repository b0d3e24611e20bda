"""Detection parameters: everything a run depends on, recorded with its results."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from workbench.text.stopwords import DEFAULT_ANTECEDENTS

CLUSTER_METHODS = ("star", "components", "best-guess")


@dataclass(frozen=True, slots=True)
class AntecedentSpec:
    """Where a spot's words are taken after each occurrence of ``word``.

    ``word(distance, chain)``: a chain of ``chain`` words, each ``distance`` words after
    the previous one. ``word[m, n, ...]`` (``multi``): the Multi-Chain variant of the
    SpotSigs tech report (§3.1, its ``a(m,n)``): the word ``m`` words after the antecedent,
    then the word ``n`` words after that one, and so on, one step per number. Every step
    that lands on a stopword moves on to the next non-stopword, as in a plain chain; so
    ``the(2,3)`` takes the same words as ``the[2,2,2]``.

    The brackets keep Multi-Chain apart from our ``the(2,3)``, which means distance 2,
    chain 3 (the paper writes ``is(3,4)`` for steps 3 then 4). For a Multi-Chain spec
    ``distance`` and ``chain`` are derived: its first step and its number of steps.
    """

    word: str
    distance: int = 1
    chain: int = 2
    multi: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not self.word or not re.fullmatch(r"\w+", self.word):
            raise ValueError(f"antecedent must be one word, not {self.word!r}")
        if self.multi:
            # A recorded spec read back from JSON has a list here; frozen, so set directly.
            multi = tuple(int(s) for s in self.multi)
            if min(multi) < 1:
                raise ValueError(f"{self.word}{list(multi)}: every step must be at least 1")
            object.__setattr__(self, "multi", multi)
            object.__setattr__(self, "distance", multi[0])
            object.__setattr__(self, "chain", len(multi))
        if self.distance < 1 or self.chain < 1:
            raise ValueError(f"{self}: distance and chain length must be at least 1")

    @property
    def steps(self) -> tuple[int, ...]:
        """How far each word of the chain is from the one before (the antecedent first)."""
        return self.multi or (self.distance,) * self.chain

    def __str__(self) -> str:
        if self.multi:
            return f"{self.word}[{','.join(map(str, self.multi))}]"
        return f"{self.word}({self.distance},{self.chain})"

    @classmethod
    def parse(cls, text: str) -> AntecedentSpec:
        """Parse ``the(2,3)`` (or ``the:2:3``), or the Multi-Chain ``is[3,4]``."""
        multi = re.fullmatch(r"\s*(\w+)\s*\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]\s*", text)
        if multi:
            steps = tuple(int(s) for s in multi.group(2).split(","))
            return cls(multi.group(1).lower(), multi=steps)
        m = re.fullmatch(r"\s*(\w+)\s*(?:\(\s*(\d+)\s*,\s*(\d+)\s*\)|:(\d+):(\d+))\s*", text)
        if not m:
            raise ValueError(f"cannot read antecedent spec {text!r}; write it like the(2,3) (3 words, "
                             f"each 2 after the one before) or is[3,4] (the 3rd word after 'is', "
                             f"then the 4th after that)")
        d, c = (m.group(2), m.group(3)) if m.group(2) else (m.group(4), m.group(5))
        return cls(m.group(1).lower(), int(d), int(c))


def default_specs(distance: int = 1, chain: int = 2) -> tuple[AntecedentSpec, ...]:
    return tuple(AntecedentSpec(w, distance, chain) for w in DEFAULT_ANTECEDENTS)


@dataclass(frozen=True, slots=True)
class SpotSigsParams:
    # Chosen on the dev Gold Set, three gencorpus seeds, gensmall crawls of 20,000 (two
    # seeds), 100,000 and 1,000,000 pages and chaos-2017 together, precision first
    # (README, "Quality"): cluster precision >= .977 on all of them (.99 and more but on
    # the million pages). At 0.35 the million small pages had .77: pages holding a whole
    # story gathered hundreds of pages that quote part of it (each >= 0.35 to it, not to
    # each other), a hub that grows with the crawl.
    tau: float = 0.4
    # Pairs down to this similarity are found and saved with the run (clusters are built
    # from those >= tau; weak_join, when on, uses the rest), so the calibration view can
    # show what a lower tau would merge.
    pair_floor: float = 0.15
    # Above this many pages no pairs below tau are looked for (0: no limit). How many
    # pairs the floor finds grows with the square of the crawl (pages of one story in
    # different clusters meet at 0.15): 1 million at 100,000 small pages, 6 million at
    # 300,000, and at a million pages matching to the floor took 21 minutes and star
    # clustering its pairs over 16 GB. Above the limit the calibration view can only raise
    # tau, and there are no weak joins (weak_join_for: without pairs below tau they could
    # only merge clusters whose cross pairs are >= tau, which nothing could check again).
    pair_floor_max_pages: int = 250_000
    specs: tuple[AntecedentSpec, ...] = field(default_factory=default_specs)
    idf_low: float = 0.2
    # Has no effect (see workbench.usecases.pipeline.idf_keep): a signature on one page is never
    # indexed and stays in its page's length, every other one counts. Kept so recorded
    # runs and --idf LOW,HIGH stay valid.
    idf_high: float = 0.85
    # Below this many pages document frequencies say nothing, so the IDF filter is off.
    idf_min_pages: int = 50
    min_sigs: int = 5
    # Signatures come from the page's main content (the article) when it can be found.
    main_content: bool = True
    # Layout blocks that look like navigation are left out before extraction.
    block_filter: bool = True
    min_block_words: int = 12
    max_link_ratio: float = 0.35
    # Chains stop at the end of their layout block instead of spilling into the next.
    chains_within_blocks: bool = True
    # Each page gets the antecedents and stopwords of its language (detected on the kept
    # text), and pages in different languages never share a signature; a page in a
    # language without lists gets punctuation signatures (workbench/detect/spotsigs/punctuation.py).
    # English always uses ``specs``; the other languages use their own antecedents with the
    # steps most of ``specs`` have (d = 1, c = 2 by default: the setting the
    # English Gold Set measured best, with no non-English benchmark to tune on). Off: every
    # page gets ``specs`` with English stopwords, as before languages were told apart.
    languages: bool = True
    # Blocks one site repeats on >= this share of its pages (sites of >= min pages) are
    # left out; the site comes from the URL, a host-named top folder or the links' host.
    site_boilerplate: bool = True
    site_min_pages: int = 8
    site_block_share: float = 0.5
    # Blocks on >= this many pages of any site whose pages share little else (at most
    # corpus_core_share of the typical page) and are mostly their own text (at least
    # corpus_own_share in blocks no other page has) are boilerplate too: banners, forms,
    # teasers (workbench/detect/spotsigs/boilerplate.py; chosen on all labelled corpora, README).
    corpus_boilerplate: bool = True
    corpus_min_pages: int = 5
    corpus_core_share: float = 0.35
    corpus_own_share: float = 0.25
    cluster_method: str = "star"
    # Star clusters: a member less similar than this to its reference needs a link from
    # another member too (0: off); two rewrites of one event are no cluster on their own,
    # nor are pages that each quote part of one story. 0.4 rather than 0.3 changed no score
    # at tau 0.4 and raised gensmall's precision at 0.35 (.970 -> .983, .955 -> .971 at
    # 20,000 pages; .977 -> .986 at 100,000) without a cost elsewhere; 0.45 lost a true
    # chaos-2017 pair.
    corroborate_below: float = 0.4
    # Star clusters of 3 or more take a leftover page that is at least this similar to
    # more than half of their members, even below tau, and two such clusters merge when
    # most pairs across them are (0: off; needs pair_floor <= it): rewritten copies of a
    # wire story that the whole cluster vouches for (dev Gold Set recall .811 without).
    weak_join: float = 0.15
    # ...but only when at least this share of what the joining side does not share with
    # the cluster is its own text, on no other page of the crawl (0: no check;
    # workbench.core.clusters.own_text). A page that shares one story with a cluster among
    # others is as similar to it as a rewrite is; unchecked, weak joins merged such
    # clusters wholesale on gensmall (cluster precision .55 at 20,000 pages, .45 at
    # 100,000). The check needs the signature matrix, so a saved run keeps it for the
    # calibration view and Apply (workbench.store.runs.signatures).
    weak_join_own_text: float = 0.4
    # Star clusters of 4 or more whose members, the reference left out, fall apart into
    # groups not linked to each other, the largest holding less than this share of them,
    # are split into those groups; members linked to the reference alone leave (0: off;
    # workbench.core.clusters.clustering._split_hubs). A page holding a whole story is the
    # reference of every page that quotes enough of it, and these are not similar to each
    # other: at tau 0.4 gensmall cluster precision .990 -> .996 on 300,000 pages (largest
    # cluster 43 -> 30 pages) and .978 -> .991 on 500,000 (101 -> 94), recall unchanged;
    # no score changed on the Gold Set, gencorpus or chaos-2017 at tau 0.3 to 0.5.
    # 0.67 gained a little more on gensmall but cost gencorpus seed 1 recall at 0.5.
    hub_split: float = 0.5

    def __post_init__(self) -> None:
        if not 0.0 < self.tau <= 1.0:
            raise ValueError(f"tau must be in (0, 1], not {self.tau}")
        if not 0.0 < self.pair_floor <= 1.0:
            raise ValueError(f"pair floor must be in (0, 1], not {self.pair_floor}")
        if self.pair_floor_max_pages < 0:
            raise ValueError(f"pair floor page limit must not be negative, not {self.pair_floor_max_pages}")
        if not 0.0 <= self.weak_join <= 1.0:
            raise ValueError(f"weak join must be in [0, 1] (0: off), not {self.weak_join}")
        if not 0.0 <= self.weak_join_own_text <= 1.0:
            raise ValueError("weak join's own text must be in [0, 1] (0: no check), "
                             f"not {self.weak_join_own_text}")
        if not 0.0 <= self.hub_split <= 1.0:
            raise ValueError(f"hub split must be in [0, 1] (0: off), not {self.hub_split}")
        if not 0.0 <= self.idf_low <= self.idf_high <= 1.0:
            raise ValueError(
                f"IDF range must satisfy 0 <= low <= high <= 1, not [{self.idf_low}, {self.idf_high}]"
            )
        if self.min_sigs < 0:
            raise ValueError("min_sigs must not be negative")
        if not self.specs:
            raise ValueError("at least one antecedent spec is needed")
        if self.cluster_method not in CLUSTER_METHODS:
            raise ValueError(f"cluster method must be one of {', '.join(CLUSTER_METHODS)}")

    def language_template(self) -> AntecedentSpec:
        """The spec whose steps the antecedents of languages other than English take: the
        steps most of ``specs`` have (the first spec's on a tie)."""
        shapes = [s.steps for s in self.specs]
        return self.specs[shapes.index(max(shapes, key=shapes.count))]

    def language_shape(self) -> tuple[int, int]:
        """(distance, chain) of :meth:`language_template`."""
        template = self.language_template()
        return template.distance, template.chain

    def floor_for(self, pages: int) -> float:
        """The lowest similarity a run over ``pages`` pages looks for pairs down to:
        ``min(tau, pair_floor)``, or tau above ``pair_floor_max_pages``."""
        if self.pair_floor_max_pages and pages > self.pair_floor_max_pages:
            return self.tau
        return min(self.tau, self.pair_floor)

    def weak_join_for(self, floor: float) -> float:
        """``weak_join`` for a run whose pairs start at ``floor`` (:meth:`floor_for`): off
        without pairs below tau. Such a run keeps no signature matrix (it would be the
        largest thing in the project: 370 MB at a million small pages), so the calibration
        view could not repeat a checked join, and the joins below tau are what weak joins
        are for."""
        return self.weak_join if floor < self.tau else 0.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["specs"] = [str(s) for s in self.specs]
        return d


def params_from_record(values: dict[str, Any] | None) -> SpotSigsParams:
    """The parameters a run recorded (``SpotSigsParams.to_dict``) as an object again."""
    if not values:
        return SpotSigsParams()
    names = {f.name for f in dataclasses.fields(SpotSigsParams)}
    kw = {k: v for k, v in values.items() if k in names}
    # Runs recorded before languages were told apart gave every page English antecedents.
    kw.setdefault("languages", False)
    # ...and were clustered without weak joins, or with weak joins that nothing checked.
    kw.setdefault("weak_join", 0.0)
    kw.setdefault("weak_join_own_text", 0.0)
    # ...and without splitting hubs.
    kw.setdefault("hub_split", 0.0)
    if "specs" in kw:
        kw["specs"] = tuple(
            AntecedentSpec.parse(s) if isinstance(s, str) else AntecedentSpec(**s) for s in kw["specs"]
        )
    try:
        return SpotSigsParams(**kw)
    except (TypeError, ValueError):
        return SpotSigsParams()
