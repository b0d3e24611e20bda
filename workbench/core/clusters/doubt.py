"""Which members of a cluster a coder should look at twice, and why.

A member is doubtful when its similarity to the reference is low (below a threshold
the coder sets, by default a little above the run's τ), unknown (below the floor of
stored pairs: star clustering admits a page through most of the members), or when most
of what it shares with the reference lies in blocks that other pages of the crawl carry
too (boilerplate that no filter removed). The reference itself is never doubtful.
"""

from __future__ import annotations

# Doubtful below τ + this much, unless the coder chose another margin.
DEFAULT_MARGIN = 0.10
# A member whose shared signatures lie mostly (more than this share) in repeated blocks.
BOILERPLATE_LIMIT = 0.5


def doubt_threshold(tau: float, margin: float = DEFAULT_MARGIN) -> float:
    """The similarity below which a member is doubtful (never above 1)."""
    return round(min(1.0, max(0.0, tau + margin)), 4)


def doubt_reasons(similarity: float | None, boilerplate_share: float | None, *, threshold: float,
                  floor: float, is_reference: bool = False) -> tuple[str, ...]:
    """Why a member is doubtful, one sentence per reason; empty when it is not."""
    if is_reference:
        return ()
    reasons = []
    if similarity is None:
        reasons.append(f"Its similarity to the reference is below {floor:.2f}, the lowest the "
                       "run stored: it joined through other members, not the reference.")
    elif round(similarity, 2) < round(threshold, 2):  # as the list shows them: two decimals
        reasons.append(f"Its similarity to the reference, {similarity:.2f}, is below {threshold:.2f}.")
    if boilerplate_share is not None and boilerplate_share > BOILERPLATE_LIMIT:
        reasons.append(f"{boilerplate_share:.0%} of the signatures it shares with the reference lie "
                       "in blocks other pages of the crawl also carry.")
    return tuple(reasons)


def similarity_label(similarity: float | None, is_reference: bool = False) -> str:
    """How the member list shows a similarity to the reference ("< floor": not stored)."""
    if is_reference:
        return "ref"
    return "< floor" if similarity is None else f"{similarity:.2f}"
