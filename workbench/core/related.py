"""Related rewrites: pages of other clusters a cluster's pages resemble, below τ.

A run keeps every pair down to its pair floor (``SpotSigsParams.pair_floor``); only the
pairs at or above τ make clusters. A pair between the floor and τ whose pages lie in two
clusters is a *link* between those clusters: often a rewrite of the same wire story
(true rewrites of one story scored 0.24-0.35 on real 2008 news pages), sometimes two
stories on one topic. The coder is shown them, ranked, and merges or dismisses each; none
is ever merged without the coder.

A link between two pages of one site is not offered: a rewrite is another outlet's
version of the story, while two pages of one site that meet below τ share its template or
a recurring section. On every labelled corpus such links were never true (0 of 304: dev
Gold Set 0/8, gensmall 0/118, gencorpus seeds 1 and 2 0/82 and 0/96, chaos-2017 none;
scripts/eval_related.py), while links across sites were true 108 times of 198.

This module only ranks: given the pairs, who is in which cluster, each page's site and
which links the coder dismissed, it lists a cluster's related clusters. Pages and clusters
are plain ints (page ids and cluster ids of a project, or page indexes and cluster numbers
of a pipeline run), so the project (workbench.store.runs.related) and the evaluation script
share it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

# A link the coder dismissed: both pages, smaller first.
PagePair = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Link:
    """A stored pair across two clusters: ``here`` in the cluster shown, ``there`` in the
    related one."""

    here: int
    there: int
    similarity: float


@dataclass(frozen=True, slots=True)
class Related:
    """Another cluster some page of the shown cluster resembles below τ.

    ``links``: the pairs that tie them, most similar first (dismissed links left out);
    ``best`` is the first, the one shown side by side against the cluster's reference.
    """

    cluster: int
    links: tuple[Link, ...]

    @property
    def best(self) -> Link:
        return self.links[0]

    @property
    def similarity(self) -> float:
        return self.best.similarity


def rank_key(item: Related) -> tuple[float, int, int]:
    """Most similar link first; at equal similarity the cluster with more links (more of
    its pages resemble this cluster), then the lower cluster id, so the order is stable."""
    return (-item.similarity, -len(item.links), item.cluster)


def pair_key(a: int, b: int) -> PagePair:
    return (a, b) if a < b else (b, a)


def related_clusters(members: Collection[int], pairs: Iterable[tuple[int, int, float]],
                     cluster_of: Callable[[int], int | None] | Mapping[int, int], *,
                     tau: float, floor: float,
                     dismissed: Collection[PagePair] = (),
                     site_of: Callable[[int], str] | None = None) -> list[Related]:
    """The clusters related to the cluster of ``members``, ranked (see :func:`rank_key`).

    ``pairs``: (a, b, similarity) pairs touching the members (others are passed by);
    ``cluster_of``: each page's cluster (None: in no cluster of the run, e.g. skipped);
    only pairs with ``floor <= similarity < tau`` count. ``dismissed``: page pairs the
    coder said are not the same story; a cluster all of whose links are dismissed is not
    offered again, while a new link (a page that joined it since) offers it anew.
    ``site_of``: each page's site ("" unknown); a link within one known site is left out.
    """
    find = cluster_of.get if isinstance(cluster_of, Mapping) else cluster_of
    inside = set(members)
    if not inside:
        return []
    home = {find(p) for p in inside}
    gone = set(dismissed)
    by_cluster: dict[int, list[Link]] = {}
    for a, b, sim in pairs:
        if not floor <= sim < tau:
            continue
        if a in inside and b not in inside:
            here, there = a, b
        elif b in inside and a not in inside:
            here, there = b, a
        else:
            continue
        other = find(there)
        if other is None or other in home or pair_key(here, there) in gone:
            continue
        if site_of is not None and (site := site_of(here)) and site == site_of(there):
            continue
        by_cluster.setdefault(other, []).append(Link(here, there, float(sim)))
    found = [Related(cid, tuple(sorted(links, key=lambda k: (-k.similarity, k.here, k.there))))
             for cid, links in by_cluster.items()]
    found.sort(key=rank_key)
    return found
