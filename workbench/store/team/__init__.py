"""Team coding: coders' copies handed out and brought back, samples, blind coding,
each coder's own codes and the disagreements the lead settles (schema 12).

The lead's project keeps its one writer. Each coder codes a copy (:mod:`handout`);
:mod:`bringin` merges their work back into their own codes (``coder_codes``) beside
the project's final codes (``page_tags``, which the window and the export show).
"""

from workbench.store.team.blind import VisibleCodes, is_blind, visible_codes
from workbench.store.team.bringin import BringInReport, bring_in, brought_in_actions
from workbench.store.team.codes import CoderCluster, coder_codes, page_codes_by_coder
from workbench.store.team.handout import hand_out
from workbench.store.team.identity import CopyStamp, copy_of
from workbench.store.team.review import Disagreement, disagreements, settle
from workbench.store.team.samples import (
    Sample,
    draw_sample,
    get_sample,
    list_samples,
    reliability_clusters,
    sample_clusters,
    sample_membership,
)

__all__ = [
    "BringInReport",
    "CoderCluster",
    "CopyStamp",
    "Disagreement",
    "Sample",
    "VisibleCodes",
    "bring_in",
    "brought_in_actions",
    "coder_codes",
    "copy_of",
    "disagreements",
    "draw_sample",
    "get_sample",
    "hand_out",
    "is_blind",
    "list_samples",
    "page_codes_by_coder",
    "reliability_clusters",
    "sample_clusters",
    "sample_membership",
    "settle",
    "visible_codes",
]
