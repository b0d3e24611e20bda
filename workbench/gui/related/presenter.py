"""The related pane's logic (no Qt): a cluster's related rewrites as rows, and what M and
D do to one.

The rows are the cluster's related clusters (workbench.core.related), best first: by the
similarity of their closest page to one of this cluster's pages, then by how many such
links they have. Each row names the closest page and says why it is offered; opening it
shows that page side by side against the cluster's reference.

Once a row is opened, the passages its page shares with the reference (as the side by
side aligned them, workbench.text.passages) go with it: its line then says how much of the
reference the page carries, so a coder going down the list sees which were copied from and
which only retold.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from workbench.core.related import Related
from workbench.gui.coding.feedback import key_message
from workbench.gui.sidebyside.passagemarks import percent, share_sentence
from workbench.store import Project
from workbench.text.passages import Alignment

# How many related clusters the pane lists (the best; the rest are weaker still). Scored on
# every labelled corpus by scripts/eval_related.py.
SHOWN = 10
# What the pane says while a run's related pairs are read (the first cluster of a run).
READING = "Reading related pairs…"


@dataclass(frozen=True, slots=True)
class RelatedRow:
    """One related cluster as the pane lists it."""

    item: Related
    size: int  # pages in the related cluster
    title: str  # of its closest page
    site: str
    # The passages its page shares with the reference, once opened (None: not yet).
    alignment: Alignment | None = field(default=None, compare=False)

    @property
    def cluster_id(self) -> int:
        return self.item.cluster

    @property
    def page_id(self) -> int:
        """The related cluster's page closest to this cluster: shown side by side."""
        return self.item.best.there

    def line(self) -> str:
        """The row on one line (its tooltip's first line)."""
        head, where = self.lines()
        return f"{head} · {where}"

    def lines(self) -> tuple[str, str]:
        """The row as the list shows it, on two lines: how close and how much of the
        reference it carries; then which page, where from and what it would merge. The
        list is narrow: on one line the headline was cut away after the share."""
        what = "page" if self.size == 1 else f"cluster {self.cluster_id} ({self.size} pages)"
        head = f"{self.item.similarity:.2f}"
        if self.alignment is not None and self.alignment.share_of_a is not None:
            head += f"  carries {percent(self.alignment.share_of_a)} of the reference"
        return head, f"{self.title or '(no title)'} · {self.site} · {what}"

    def why(self) -> str:
        """The tooltip: why it is offered and where it ranks from."""
        links = len(self.item.links)
        best = self.item.best
        more = f"; {links} pairs tie the two clusters" if links > 1 else ""
        shares = f" {share_sentence(self.alignment)}" if self.alignment is not None else ""
        return (f"Similarity {best.similarity:.2f} to page {best.here} of this cluster: below τ, "
                f"so not merged{more}.{shares} Ranked by the closest pair, then by the number "
                "of pairs. M merges it into this cluster, Shift+M this page alone, D dismisses it.")

    def tip(self) -> str:
        """The row's tooltip: its whole line first (the list elides its lines in the
        middle when the column is narrow), then why it is offered."""
        return f"{self.line()}\n\n{self.why()}"

    def passages(self) -> Alignment | None:
        """The passages its page shares with the cluster's reference (None: not opened yet)."""
        return self.alignment

    def with_passages(self, alignment: Alignment) -> RelatedRow:
        return replace(self, alignment=alignment)


def related_rows(project: Project, cluster_id: int, shown: int = SHOWN) -> list[RelatedRow]:
    """The pane's rows for a cluster: its ``shown`` best related clusters."""
    rows = []
    for item in project.related(cluster_id)[:shown]:
        page = project.page(item.best.there)
        cluster = project.cluster(item.cluster)
        rows.append(RelatedRow(item, cluster.size if cluster is not None else 1,
                               page.title if page is not None else "",
                               page.site if page is not None else ""))
    return rows


def related_pages(project: Project, cluster_id: int, shown: int = SHOWN) -> list[int]:
    """The pages outside the cluster that rewrite its story, for its timeline: every
    linked page of the related clusters the pane offers (dismissed links are left out,
    so a dismissed cluster is no rewrite on the timeline either)."""
    return sorted({link.there for item in project.related(cluster_id)[:shown]
                   for link in item.links})


def related_pages_read(project: Project, cluster_id: int) -> list[int]:
    """:func:`related_pages` once the run's related pairs are read, none before: the
    timeline follows the list on the GUI thread and must not read them there (the related
    list reads them on a worker, then has the timeline drawn again)."""
    return related_pages(project, cluster_id) if project.related_read(cluster_id) else []


def title_text(rows: list[RelatedRow]) -> str:
    return f"Related, not merged ({len(rows)})" if rows else "Related, not merged"


def merge_related(project: Project, cluster_id: int, row: RelatedRow, *,
                  page_only: bool = False) -> int | None:
    """M: the related cluster into this one (``page_only``, Shift+M: its closest page
    alone, as a member); the cluster that remains (None: nothing changed)."""
    if page_only or row.size == 1:
        return project.merge_page(cluster_id, row.page_id).id
    return project.merge([cluster_id, row.cluster_id], into=cluster_id).id


def dismiss_related(project: Project, cluster_id: int, row: RelatedRow) -> int | None:
    """D: not this cluster's story; kept in the project, never offered again."""
    return project.dismiss_related(cluster_id, row.item).action_id


def merged_message(cluster_id: int, row: RelatedRow, page_only: bool) -> str:
    what = (f"the page “{row.title or row.page_id}”" if page_only or row.size == 1
            else f"cluster {row.cluster_id} ({row.size} pages)")
    return key_message("Shift+M" if page_only else "M",
                       f"merged {what} into cluster {cluster_id} (Ctrl+Z undoes it).")


def dismissed_message(cluster_id: int, row: RelatedRow) -> str:
    return key_message("D", f"“{row.title or row.page_id}” is not cluster {cluster_id}'s story; "
                            "it is not offered again (Ctrl+Z undoes it).")


def nothing_message(key: str, cluster_id: int | None, row: RelatedRow | None,
                    in_list: bool) -> str | None:
    """Why a related key did nothing (None: it can act)."""
    if cluster_id is None:
        return key_message(key, "choose a cluster first.")
    if not in_list:
        return key_message(key, "put the keyboard in the related list first (Ctrl+R).")
    if row is None:
        return key_message(key, f"cluster {cluster_id} has no related pages below τ to act on.")
    return None
