"""What a coder may see of a cluster: blind on reliability samples.

On a cluster of a reliability sample each coder codes on their own: a coder sees their
own codes and memos only, never another coder's, nor the final codes (which the lead
settles from the coders' codes afterwards). Outside reliability samples there is
nothing to keep apart: every coder's codes, the final codes and all memos are shown.
The coding view asks :func:`visible_codes` for what to draw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.store.coding.memos import Memo
from workbench.store.team import samples
from workbench.store.team.codes import coder_names, codes_by_coder_id

if TYPE_CHECKING:
    from workbench.store.project import Project


@dataclass(frozen=True, slots=True)
class VisibleCodes:
    blind: bool  # the cluster is in a reliability sample
    coders: dict[str, frozenset[str]]  # coder name -> their tag GUIDs on the cluster
    final: frozenset[str] | None  # the final codes' GUIDs (None: hidden, blind)
    memos: tuple[Memo, ...]  # cluster memos and memos on its pages, oldest first


def is_blind(project: Project, cluster_id: int) -> bool:
    """Whether the cluster is coded blind (it is in a reliability sample)."""
    return cluster_id in samples.reliability_clusters(project.reader())


def visible_codes(project: Project, coder: str, cluster_id: int) -> VisibleCodes:
    """The codes and memos on ``cluster_id`` that ``coder`` may see."""
    conn = project.reader()
    blind = cluster_id in samples.reliability_clusters(conn)
    names = coder_names(conn)
    coders = {names[c]: units[cluster_id]
              for c, units in codes_by_coder_id(conn, [cluster_id]).items()
              if cluster_id in units and (not blind or names[c] == coder)}
    final = frozenset(r[0] for r in conn.execute(
        "SELECT DISTINCT t.guid FROM cluster_members m JOIN page_tags pt ON pt.page_id = m.page_id "
        "JOIN tags t ON t.id = pt.tag_id WHERE m.cluster_id = ?", (cluster_id,)))
    pages = [r[0] for r in conn.execute(
        "SELECT page_id FROM cluster_members WHERE cluster_id = ?", (cluster_id,))]
    memos = project.memos(cluster_id) + [m for p in pages for m in project.page_memos(p)]
    memos.sort(key=lambda m: m.id)
    return VisibleCodes(blind=blind, coders=coders, final=None if blind else final,
                        memos=tuple(m for m in memos if not blind or m.coder == coder))
