"""The project file: an SQLite store for pages, runs, clusters, codebook and tags.

``Project`` is the entry point; every user action on it is one committed,
logged and undoable transaction. Nothing here imports Qt.
"""

from workbench.store.coding.actions import ActionInfo
from workbench.store.coding.codebook import Tag, TagSpec
from workbench.store.coding.memos import Memo
from workbench.store.errors import ProjectError
from workbench.store.project import ActionResult, Project
from workbench.store.runs.page_table import PageRecord
from workbench.store.runs.queries import (
    ClusterRow,
    Counts,
    MemberRow,
    PageDetail,
    PageTag,
    RunInfo,
    TagState,
)
from workbench.store.schema import CURRENT_VERSION
from workbench.store.transfer import codebook_of

__all__ = [
    "CURRENT_VERSION",
    "ActionInfo",
    "ActionResult",
    "ClusterRow",
    "Counts",
    "Memo",
    "MemberRow",
    "PageDetail",
    "PageRecord",
    "PageTag",
    "Project",
    "ProjectError",
    "RunInfo",
    "Tag",
    "TagSpec",
    "TagState",
    "codebook_of",
]
