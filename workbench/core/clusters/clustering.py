"""From the near-duplicate graph (pairs >= tau) to the clusters coders review.

Connected components chain: one weak link joins two different stories. The default,
``star``, makes clusters around reference pages: a page joins a cluster only when it is
itself >= tau to that cluster's reference, or to more than half of its members.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from workbench.core.clusters.links import Links, PageColumn, Rows, SimilarityColumn
from workbench.core.clusters.unionfind import UnionFind
from workbench.core.records import Cluster

__all__ = ["METHODS", "PageColumn", "SimilarityColumn", "Vouch", "cluster_pairs"]


def _centre(group: list[int], adj: Rows) -> int:
    """The member most similar to the rest of its group (ties: lowest index)."""
    members = set(group)
    return max(sorted(group), key=lambda x: (sum(s for y, s in adj[x].items() if y in members), -x))


def _build(groups: list[list[int]], adj: Links, centres: list[int] | None = None) -> list[Cluster]:
    out = []
    for k, group in enumerate(groups):
        if len(group) < 2:
            continue
        ref = centres[k] if centres else _centre(group, adj.rows_of(group))
        ref_links = adj[ref]
        rest = sorted((x for x in group if x != ref), key=lambda x: (-ref_links.get(x, 0.0), x))
        members = [ref, *rest]
        # -1.0 marks "below tau, not computed here"; the pipeline fills in exact values.
        sims = [1.0] + [ref_links.get(x, -1.0) for x in rest]
        out.append(Cluster(ref, members, sims))
    out.sort(key=lambda c: (-len(c.members), c.reference))
    return out


def connected_components(n: int, a: PageColumn, b: PageColumn, sim: SimilarityColumn) -> list[Cluster]:
    adj = Links.of_pairs(n, a, b, sim)
    uf = UnionFind(n)
    for x, y in zip(a, b, strict=True):
        uf.union(int(x), int(y))
    return _build(uf.groups(), adj)


def best_guess(n: int, a: PageColumn, b: PageColumn, sim: SimilarityColumn) -> list[Cluster]:
    """Incremental Best Guess (tech report §3.3.1): taking pages in archive order, each
    joins the cluster of its most similar earlier page."""
    adj = Links.of_pairs(n, a, b, sim)
    uf = UnionFind(n)
    for x in range(n):
        earlier = [(s, -y) for y, s in adj[x].items() if y < x]
        if earlier:
            uf.union(x, -max(earlier)[1])
    return _build(uf.groups(), adj)


# Whether a weak join is vouched for: (the joining pages, the group they join) -> bool
# (workbench.core.clusters.own_text reads the signature matrix to answer it).
Vouch = Callable[[PageColumn, PageColumn], bool]


def star(n: int, a: PageColumn, b: PageColumn, sim: SimilarityColumn, corroborate_below: float = 0.0,
         tau: float | None = None, weak_join: float = 0.0, vouch: Vouch | None = None,
         hub_split: float = 0.0) -> list[Cluster]:
    """Greedy reference clusters; leftovers join where they match most members.

    A member less than ``corroborate_below`` similar to its reference stays only when
    another member besides the reference links to it too: one weak link alone (two
    rewrites of one event sharing a fifth of their signatures) is not a cluster, while
    a copy among many that all link to it is.

    With ``tau`` given, clusters are built from the pairs >= tau; a page left over then
    joins a cluster of three or more when it is >= ``weak_join`` similar to more than
    half of its members (a rewritten copy that the whole cluster vouches for). With
    ``vouch``, such a join (and a merge of two clusters) happens only when ``vouch``
    agrees: a page that shares one story with a cluster among others is as similar to
    it as a rewrite is.

    With ``hub_split``, a cluster of ``HUB_MIN_SIZE`` or more whose members (the
    reference left out) fall apart into groups not linked to each other, the largest
    holding less than ``hub_split`` of them, is split into those groups (:func:`_split_hubs`).
    """
    adj_all = Links.of_pairs(n, a, b, sim)
    adj = adj_all if tau is None else adj_all.at_least(tau)
    order = _greedy_order(adj, adj_all)
    has_links = (adj.degrees() > 0).tolist()
    cluster_of = [-1] * n
    groups: list[list[int]] = []
    centres: list[int] = []
    for x in order:
        if cluster_of[x] >= 0 or not has_links[x]:
            continue
        free = [y for y in adj.neighbours(x) if cluster_of[y] < 0]
        if not free:
            continue
        k = len(groups)
        groups.append([x, *free])
        centres.append(x)
        for y in (x, *free):
            cluster_of[y] = k
    # A page whose neighbours were all taken joins the cluster where it is >= tau to
    # more than half of the members (never by one weak link).
    _join_by_majority(order, adj, cluster_of, groups, min_size=1)
    if hub_split > 0:
        groups, centres = _split_hubs(groups, centres, adj, hub_split)
        cluster_of = _cluster_of(n, groups)
    if corroborate_below > 0:
        groups = [_corroborated(g, c, adj, corroborate_below) for g, c in zip(groups, centres, strict=True)]
        cluster_of = _cluster_of(n, groups)
    if tau is not None and weak_join > 0:
        weak = adj_all.at_least(weak_join)
        _join_by_majority(order, weak, cluster_of, groups, min_size=3, vouch=vouch)
        groups, centres = _merge_vouched(groups, centres, cluster_of, weak, vouch)
    return _build(groups, adj_all, centres)


def _greedy_order(adj: Links, adj_all: Links) -> list[int]:
    """The pages with any link, most links >= tau first, then the most similar in sum,
    then the lowest; pages without any link are never clustered, so are left out."""
    pages = np.arange(len(adj), dtype=np.int64)
    order = np.lexsort((pages, -adj.sums(), -adj.degrees()))
    return order[adj_all.degrees()[order] > 0].tolist()  # type: ignore[no-any-return]


def _cluster_of(n: int, groups: list[list[int]]) -> list[int]:
    """Each page's group (-1: none)."""
    cluster_of = [-1] * n
    for k, g in enumerate(groups):
        for y in g:
            cluster_of[y] = k
    return cluster_of


# Clusters smaller than this are never split as hubs: with the reference and two members
# that do not link to each other, nothing says which of them is the copy.
HUB_MIN_SIZE = 4

# Members at least this similar to a hub's reference are its near-exact copies (a
# re-crawl, a syndicated copy with a reworded headline), left out when the members are
# grouped again (:func:`_split_hubs`). 0.7 and 0.9 score as 0.8 on the Gold Set and
# gencorpus at tau 0.2 to 0.9; on gensmall 20,000 they lose a little recall at tau 0.25.
HUB_COPY = 0.8


def _split_hubs(groups: list[list[int]], centres: list[int], links: Links,
                share: float) -> tuple[list[list[int]], list[int]]:
    """Split star clusters that are hubs, not copies of one story.

    A page that holds a whole story is >= tau similar to every page that quotes enough of
    it, and the greedy pass makes it the reference of all of them (it has the most
    links), although they are not similar to each other: on 300,000 gensmall pages the
    worst such cluster held 43 pages of 26 true clusters, on 500,000 101 pages of 73.
    Copies of one story are similar to each other, so without the reference a cluster of
    copies stays mostly one linked group; a hub falls apart into the quoting pages'
    groups (a splice and its copies) and pages linked to the reference alone.

    So, in a cluster of ``HUB_MIN_SIZE`` or more, the members other than the reference
    are split into connected groups by their links >= tau among themselves. When the
    largest holds less than ``share`` of those members, the reference keeps the largest
    group (ties: the group most similar to it in sum, then the lowest page), every other
    group of two or more becomes a cluster of its own around its member most similar to
    the rest (with the members >= tau to that one or to more than half of the group), and
    a member linked to the reference alone leaves (later weak joins may still take it,
    when checked). Only the pairs are read, so the calibration view repeats it; each
    cluster's links are walked once.

    A hub whose story has copies (the 94-page cluster on 500,000 pages: the story and one
    copy, each linked to the quoting pages) stays one group that way: the copies link to
    the quoting pages too. So when the members hold together and some are ``HUB_COPY`` or
    more similar to the reference (its near-exact copies), those, and the members linked
    to more than half of the others (rewrites the whole cluster vouches for), are left out
    and the rest grouped again. When the rest are at least ``share`` of the members and
    at least ``HUB_MIN_SIZE - 1``, and fall apart, the cluster is split as above; the
    left-out members stay with the reference. A story's copies with a few rewrites that
    only copies bridge (the Gold Set) leave a small rest and stay whole; a hub's rest is
    its quoting pages, most of it. On a million gensmall pages at tau 0.4 this took
    cluster precision from .9765 to .9962 (largest cluster 220 -> 39 pages; the largest
    true one has 30), recall .9994 both ways. Taking out every member linked to most of the cluster
    without these conditions split clusters of copies that form families bridged by a
    few copies (gencorpus recall at tau 0.5, the Gold Set's at 0.4).
    """
    out_groups: list[list[int]] = []
    out_centres: list[int] = []
    for group, centre in zip(groups, centres, strict=True):
        if len(group) < HUB_MIN_SIZE:
            out_groups.append(group)
            out_centres.append(centre)
            continue
        adj = links.rows_of(group)
        copies: list[int] = []
        parts = _member_groups(group, centre, adj)
        if not _falls_apart(parts, share):
            # The story may have copies: each links to every quoting page, holding them
            # together. Without them (and the members most of the cluster links to), are
            # the others most of the cluster, and do they still hold together?
            copies = _hub_copies(group, centre, adj)
            if copies:
                parts = _member_groups(group, centre, adj, leave_out=set(copies))
            rest = len(group) - 1 - len(copies)
            if (not copies or rest < share * (len(group) - 1)
                    or not _falls_apart(parts, share, HUB_MIN_SIZE - 1)):
                out_groups.append(group)
                out_centres.append(centre)
                continue
        ref_links = adj[centre]
        parts.sort(key=lambda p: (-len(p), -sum(ref_links.get(y, 0.0) for y in p), min(p)))
        out_groups.append([centre, *copies, *parts[0]])
        out_centres.append(centre)
        for part in parts[1:]:
            if len(part) < 2:
                continue
            centre_of_part = _centre(part, adj)
            # As everywhere in star clusters: members >= tau to the reference, or to more
            # than half of the cluster (a part is connected, but may be a chain).
            kept = [y for y in part if y == centre_of_part or centre_of_part in adj[y]
                    or 2 * sum(1 for z in part if z in adj[y]) > len(part)]
            if len(kept) >= 2:
                out_groups.append(kept)
                out_centres.append(centre_of_part)
    return out_groups, out_centres


def _hub_copies(group: list[int], centre: int, adj: Rows) -> list[int]:
    """The members that hold a cluster together as copies of its story: those at least
    ``HUB_COPY`` similar to the reference, and those linked to more than half of the
    other members (a rewrite that every copy links to)."""
    ref_links = adj[centre]
    if not any(ref_links.get(y, 0.0) >= HUB_COPY for y in group):
        return []
    members = set(group)
    return [y for y in group if y != centre and (
        ref_links.get(y, 0.0) >= HUB_COPY
        or 2 * sum(1 for z in adj[y] if z in members) > len(group) - 1)]


def _falls_apart(parts: list[list[int]], share: float, min_members: int = 1) -> bool:
    """Whether members in ``parts`` (at least ``min_members``) fall apart: the largest
    group holds less than ``share`` of them."""
    total = sum(len(p) for p in parts)
    return total >= min_members and max(len(p) for p in parts) < share * total


def _member_groups(group: list[int], centre: int, adj: Rows,
                   leave_out: set[int] | None = None) -> list[list[int]]:
    """The members of a cluster but its reference (and ``leave_out``), as groups
    connected by their links among themselves."""
    members = set(group)
    members.discard(centre)
    members -= leave_out or set()
    seen: set[int] = set()
    parts = []
    for start in group:
        if start not in members or start in seen:
            continue
        seen.add(start)
        part, stack = [], [start]
        while stack:
            y = stack.pop()
            part.append(y)
            for z in adj[y]:
                if z in members and z not in seen:
                    seen.add(z)
                    stack.append(z)
        parts.append(part)
    return parts


def _join_by_majority(order: list[int], links: Links, cluster_of: list[int],
                      groups: list[list[int]], min_size: int, vouch: Vouch | None = None) -> None:
    """Every page still alone joins the cluster (of ``min_size`` or more) to whose members
    it is linked most, when that is more than half of them (and ``vouch`` agrees)."""
    for x in order:
        if cluster_of[x] >= 0:
            continue
        neighbours = links.neighbours(x)
        if not neighbours:
            continue
        votes: dict[int, int] = {}
        for y in neighbours:
            if cluster_of[y] >= 0:
                votes[cluster_of[y]] = votes.get(cluster_of[y], 0) + 1
        best = max(votes.items(), key=lambda kv: (kv[1] / len(groups[kv[0]]), -kv[0]), default=None)
        if best is not None and len(groups[best[0]]) >= min_size and best[1] * 2 > len(groups[best[0]]):
            if vouch is not None and not vouch([x], groups[best[0]]):
                continue
            groups[best[0]].append(x)
            cluster_of[x] = best[0]


def _merge_vouched(groups: list[list[int]], centres: list[int], cluster_of: list[int],
                   weak: Links,
                   vouch: Vouch | None = None) -> tuple[list[list[int]], list[int]]:
    """Join two clusters of 3 or more when more than half of the pairs across them are
    weakly linked: one story's copies that the greedy pass split around two references
    (rewrites share less with each other than with the wire original). With ``vouch``,
    only when it agrees both ways (each cluster's unshared text is its own)."""
    cross = _mostly_linked(groups, cluster_of, weak)
    parent = list(range(len(groups)))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for cx, cy in cross:
        if vouch is not None and not (vouch(groups[cx], groups[cy]) and vouch(groups[cy], groups[cx])):
            continue
        rx, ry = root(cx), root(cy)
        if rx != ry:
            parent[max(rx, ry)] = min(rx, ry)
    merged: dict[int, list[int]] = {}
    for k, g in enumerate(groups):
        merged.setdefault(root(k), []).extend(g)
    keys = sorted(merged)
    return [merged[k] for k in keys], [centres[k] for k in keys]


def _mostly_linked(groups: list[list[int]], cluster_of: list[int], weak: Links) -> list[tuple[int, int]]:
    """Pairs of clusters of 3 or more (lower first) between which more than half of the
    pairs across are linked, the most links first (ties: in the order a page-by-page walk
    meets them)."""
    sizes = np.array([len(g) for g in groups], dtype=np.int64)
    key = _cross_keys(weak.ptr, weak.to, np.array(cluster_of, dtype=np.int64), sizes)
    found, first, counts = np.unique(key, return_index=True, return_counts=True)
    g = len(groups)
    lower, higher = found // g, found % g
    # Only these can merge: the rest are most of a random crawl's cross links.
    most = 2 * counts > sizes[lower] * sizes[higher]
    order = np.lexsort((first[most], -counts[most]))
    return list(zip(lower[most][order].tolist(), higher[most][order].tolist(), strict=True))


@njit(cache=True)
def _cross_keys(ptr: np.ndarray, to: np.ndarray, cluster_of: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """For each link from a page of a cluster of 3 or more to a page of a later such
    cluster, page by page: the two clusters as one number (lower * clusters + higher)."""
    g = len(sizes)
    found = 0
    for step in range(2):  # count, then fill
        keys = np.empty(found, np.int64)
        found = 0
        for x in range(len(ptr) - 1):
            cx = cluster_of[x]
            if cx < 0 or sizes[cx] < 3:
                continue
            for j in range(ptr[x], ptr[x + 1]):
                cy = cluster_of[to[j]]
                if cy > cx and sizes[cy] >= 3:
                    if step == 1:
                        keys[found] = cx * g + cy
                    found += 1
    return keys


def _corroborated(group: list[int], centre: int, links: Links, below: float) -> list[int]:
    """The group without weak members that no other member links to (until none is left)."""
    adj = links.rows_of(group)
    members = list(group)
    while True:
        keep = [centre]
        for y in members:
            if y == centre:
                continue
            strong = adj[centre].get(y, 0.0) >= below
            if strong or any(z in adj[y] for z in members if z not in (y, centre)):
                keep.append(y)
        if len(keep) == len(members):
            return members
        members = keep


METHODS = {"star": star, "components": connected_components, "best-guess": best_guess}


def cluster_pairs(method: str, n: int, a: PageColumn, b: PageColumn, sim: SimilarityColumn,
                  corroborate_below: float = 0.0,
                  tau: float | None = None, weak_join: float = 0.0,
                  vouch: Vouch | None = None, hub_split: float = 0.0) -> list[Cluster]:
    """Clusters from pairs. With ``tau``, the pairs may reach below it (down to the run's
    pair floor): only star clustering uses those (``weak_join``, checked by ``vouch``);
    the others see >= tau."""
    try:
        fn = METHODS[method]
    except KeyError:
        raise ValueError(f"unknown cluster method {method!r}; choose one of {', '.join(METHODS)}") from None
    if method == "star":
        return star(n, a, b, sim, corroborate_below, tau, weak_join, vouch, hub_split)
    if tau is not None:
        keep = [i for i, s in enumerate(sim) if s >= tau]
        a, b, sim = [a[i] for i in keep], [b[i] for i in keep], [sim[i] for i in keep]
    return fn(n, a, b, sim)
