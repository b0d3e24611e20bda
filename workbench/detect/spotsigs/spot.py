"""One signature occurrence on a page, and its id."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.detect.spotsigs.hashing import chain_id, signature_id


@dataclass(frozen=True, slots=True)
class Spot:
    """One signature occurrence: token indexes of the antecedent and its chain.

    ``namespace`` keeps signatures of different languages (and of the punctuation
    fallback) apart: it is hashed with the text, so pages in different languages never
    share a signature. English spots have none, so their ids are those of every run made
    before languages were told apart.
    """

    text: str  # readable form, e.g. "the:south:carolina" or "der:hund:küche"
    antecedent: int
    chain: tuple[int, ...]
    namespace: str = ""  # "" (English), "de", "fr", ..., "punct:fi", "punct"

    @property
    def key(self) -> str:
        """What the signature's id is the hash of: ``de|der:hund:küche``; English: the text."""
        return f"{self.namespace}|{self.text}" if self.namespace else self.text


def spot_id(spot: Spot) -> int:
    """The signature's stable 64-bit id (language-aware: see :attr:`Spot.key`), built from
    the ids of its words (workbench.detect.spotsigs.hashing)."""
    return chain_id(spot.namespace, spot.text.split(":"))


def legacy_spot_id(spot: Spot) -> int:
    """The id runs saved before ids were built from word ids gave a spot (the hash of its
    key): their lists of too-common signatures hold these."""
    return signature_id(spot.key)
