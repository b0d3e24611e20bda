"""What the memo pane shows for a cluster and the member beside it (no Qt).

Each coder edits their own memo on the cluster and on the page shown on the right
(``Project.set_memo`` keeps one per coder and place); other coders' memos are shown
above, read-only, so a team sees each other's notes without overwriting them — except
on a reliability sample's clusters, which every coder codes blind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from workbench.store import Project
from workbench.store.coding.memos import Memo
from workbench.store.team import is_blind

BLIND_NOTE = ("Reliability sample, coded blind: other coders' codes and memos are not shown "
              "here.")


@dataclass(frozen=True, slots=True)
class MemoView:
    cluster_id: int | None
    page_id: int | None
    cluster_text: str  # this coder's memo on the cluster ('' when none)
    page_text: str  # this coder's memo on the page
    others: str  # the other coders' memos, one per line ('' when none)


def _split(memos: Sequence[Memo], coder: str, place: str) -> tuple[str, list[str]]:
    mine = next((m.text for m in reversed(memos) if m.coder == coder), "")
    others = [f"{m.coder} on the {place}: {m.text}" for m in memos if m.coder != coder]
    return mine, others


def memo_view(project: Project | None, coder: str, cluster_id: int | None,
              page_id: int | None) -> MemoView:
    if project is None or cluster_id is None:
        return MemoView(None, None, "", "", "")
    cluster_text, others = _split(project.memos(cluster_id), coder, "cluster")
    page_text = ""
    if page_id is not None:
        page_text, page_others = _split(project.page_memos(page_id), coder, "page")
        others += page_others
    if is_blind(project, cluster_id):
        # Blind (store.team.blind): this coder sees only their own memos on the cluster.
        others = [BLIND_NOTE]
    return MemoView(cluster_id, page_id, cluster_text, page_text, "\n".join(others))
