"""The rule that marks a member as doubtful."""

from __future__ import annotations

from workbench.core.clusters.doubt import BOILERPLATE_LIMIT, DEFAULT_MARGIN, doubt_reasons, doubt_threshold


def test_threshold_is_tau_plus_margin_capped_at_one():
    assert doubt_threshold(0.2) == 0.3 == round(0.2 + DEFAULT_MARGIN, 2)
    assert doubt_threshold(0.45, 0.15) == 0.6
    assert doubt_threshold(0.95, 0.1) == 1.0
    assert doubt_threshold(0.3, 0.0) == 0.3


def test_low_similarity_is_doubtful_with_the_numbers():
    (reason,) = doubt_reasons(0.25, None, threshold=0.3, floor=0.2)
    assert "0.25" in reason and "0.30" in reason
    assert doubt_reasons(0.3, None, threshold=0.3, floor=0.2) == ()  # at the threshold: fine
    assert doubt_reasons(0.9, None, threshold=0.3, floor=0.2) == ()
    # Compared as shown: 0.3987 reads "0.40", which is not below 0.40.
    assert doubt_reasons(0.3987, None, threshold=0.4, floor=0.2) == ()
    assert doubt_reasons(0.3949, None, threshold=0.4, floor=0.2) != ()


def test_unknown_similarity_is_below_the_floor():
    (reason,) = doubt_reasons(None, None, threshold=0.3, floor=0.2)
    assert "below 0.20" in reason


def test_boilerplate_share_over_one_half_is_doubtful():
    assert doubt_reasons(0.9, BOILERPLATE_LIMIT, threshold=0.3, floor=0.2) == ()
    (reason,) = doubt_reasons(0.9, 0.62, threshold=0.3, floor=0.2)
    assert "62%" in reason and "blocks" in reason
    assert len(doubt_reasons(0.1, 0.8, threshold=0.3, floor=0.1)) == 2


def test_the_reference_is_never_doubtful():
    assert doubt_reasons(None, 0.9, threshold=0.3, floor=0.2, is_reference=True) == ()


def test_similarity_label():
    from workbench.core.clusters.doubt import similarity_label

    assert similarity_label(None, True) == "ref"
    assert similarity_label(None) == "< floor"
    assert similarity_label(0.456) == "0.46"
