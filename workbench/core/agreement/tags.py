"""Agreement per tag over a sample of units, from plain data (no I/O, no Qt).

The data is what the store's ``coder_codes`` gives: ``{coder: {unit: frozenset of tags}}``.
A unit in a coder's mapping was coded by that coder (an empty set: coded, and no tag
applies); a unit missing from it was not, and is missing data for that coder. Units
outside the given unit list (the reliability sample) are ignored.

Each tag becomes one binary nominal variable: 1 where the coder gave the unit the tag, 0
where the coder coded the unit without it, missing where the coder did not code it.
For a codebook whose tags are mutually exclusive, the tag set is also taken as one
nominal variable: each distinct set a coder gave a unit (the empty set included) is one
category.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from workbench.core.agreement.matrix import Matrix
from workbench.core.agreement.reliability import AgreementError, Reliability, reliability

Unit = TypeVar("Unit", bound=Hashable)
Codes = Mapping[str, Mapping[Unit, frozenset[str]]]


@dataclass(frozen=True)
class TagAgreement:
    """Agreement on one tag (presence or absence per unit); ``uses``: how many coder-unit
    codes in the sample carry the tag."""

    tag: str
    uses: int
    reliability: Reliability


@dataclass(frozen=True)
class AgreementTable:
    """Agreement per tag, and on the tag set as one nominal variable, over ``n_units``
    units coded by ``coders``; ``draws`` and ``seed``: the bootstrap of every interval."""

    coders: tuple[str, ...]
    n_units: int
    tags: tuple[TagAgreement, ...]
    tag_set: Reliability
    draws: int
    seed: int
    # No coder gave any unit of the sample two tags or more: only then is the tag set
    # one nominal variable in the codebook's sense (its row is worth reporting).
    mutually_exclusive: bool = True


def presence_matrix(codes: Codes[Unit], coders: Sequence[str], units: Sequence[Unit], tag: str) -> Matrix:
    """coders x units: 1.0 the coder gave the unit ``tag``, 0.0 coded without it, NaN not coded."""
    matrix = np.full((len(coders), len(units)), np.nan)
    for row, coder in enumerate(coders):
        coded = codes.get(coder, {})
        for column, unit in enumerate(units):
            tags = coded.get(unit)
            if tags is not None:
                matrix[row, column] = 1.0 if tag in tags else 0.0
    return matrix


def tag_set_matrix(codes: Codes[Unit], coders: Sequence[str], units: Sequence[Unit]) -> Matrix:
    """coders x units: each distinct tag set a number (sorted, so the same data gives the
    same numbers), NaN where the coder did not code the unit."""
    in_sample = set(units)
    given = {tags for coder in coders for unit, tags in codes.get(coder, {}).items() if unit in in_sample}
    category = {tags: float(k) for k, tags in enumerate(sorted(given, key=lambda s: sorted(s)))}
    matrix = np.full((len(coders), len(units)), np.nan)
    for row, coder in enumerate(coders):
        coded = codes.get(coder, {})
        for column, unit in enumerate(units):
            tags = coded.get(unit)
            if tags is not None:
                matrix[row, column] = category[tags]
    return matrix


def tag_agreement(codes: Codes[Unit], units: Sequence[Unit], tags: Sequence[str] | None = None, *,
                  coders: Sequence[str] | None = None, draws: int = 1000, seed: int = 1) -> AgreementTable:
    """Alpha (nominal, with a bootstrap 95 % interval), Cohen's kappa (two coders) and
    percent agreement for every tag in ``tags`` (default: every tag any coder used in the
    sample, sorted) and for the tag set, over ``units``.

    ``coders`` fixes which coders count and their order (default: every coder in
    ``codes``, sorted). AgreementError when fewer than two coders, no unit, or no unit
    of the sample was coded by two of them."""
    chosen = tuple(sorted(codes) if coders is None else coders)
    unit_list = list(dict.fromkeys(units))  # a unit listed twice is still one unit
    if len(chosen) < 2:
        raise AgreementError(f"{'only one coder' if chosen else 'no coder'} has codes for the sample: "
                             "agreement needs at least two coders")
    if not unit_list:
        raise AgreementError("the sample has no units")
    in_sample = set(unit_list)
    used: dict[str, int] = {}
    for coder in chosen:
        for unit, given in codes.get(coder, {}).items():
            if unit in in_sample:
                for tag in given:
                    used[tag] = used.get(tag, 0) + 1
    tag_list = sorted(used) if tags is None else list(dict.fromkeys(tags))
    rows = tuple(
        TagAgreement(tag=tag, uses=used.get(tag, 0),
                     reliability=reliability(presence_matrix(codes, chosen, unit_list, tag), "nominal",
                                             draws=draws, seed=seed))
        for tag in tag_list)
    tag_set = reliability(tag_set_matrix(codes, chosen, unit_list), "nominal", draws=draws, seed=seed)
    exclusive = all(len(given) <= 1 for coder in chosen for unit, given in codes.get(coder, {}).items()
                    if unit in in_sample)
    return AgreementTable(coders=chosen, n_units=len(unit_list), tags=rows, tag_set=tag_set,
                          draws=draws, seed=seed, mutually_exclusive=exclusive)
