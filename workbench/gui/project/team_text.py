"""What the window says about handing out and bringing in coders' work (no Qt).

The hand-out dialog's coder names are read here, and each bring-in report is put in
words for the dialog shown afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.gui.coding.feedback import count_of
from workbench.store import Project, ProjectError
from workbench.store.team import BringInReport, CopyStamp, bring_in


def parse_coders(text: str) -> list[str]:
    """The coder names typed in the hand-out dialog: separated by commas, semicolons or
    new lines, blanks dropped (the store refuses a name given twice)."""
    return [name.strip() for name in re.split(r"[,;\n]", text) if name.strip()]


def report_text(report: BringInReport) -> str:
    """One coder's bring-in, in a few lines: what came in and what was set aside."""
    head = f"{report.coder} ({report.copy.name}): "
    if report.action_id is None:
        return head + (f"nothing new — all {count_of(report.copy_actions, 'action', 'actions')} "
                       "were brought in before.")
    parts = [count_of(report.new_actions, "new action", "new actions")]
    for number, one, many in ((report.codes_added, "code added", "codes added"),
                              (report.codes_removed, "code removed", "codes removed"),
                              (report.final_codes, "final code", "final codes"),
                              (report.exceptions, "“not this story” mark", "“not this story” marks"),
                              (report.memos, "memo", "memos"),
                              (report.dismissals, "related suggestion dismissed",
                               "related suggestions dismissed"),
                              (report.dismissals_undone, "dismissal taken back",
                               "dismissals taken back"),
                              (report.splits, "split", "splits"),
                              (report.splits_undone, "split undone", "splits undone"),
                              (report.merges, "merge", "merges"),
                              (report.tags_added, "new tag", "new tags")):
        if number:
            parts.append(count_of(number, one, many))
    lines = [head + ", ".join(parts) + "."]
    lines += [f"  Set aside for review: {note}" for note in report.kept_aside]
    return "\n".join(lines)


@dataclass
class BringInOutcome:
    """Every copy chosen: the reports of those brought in, the refusals of the others."""

    reports: list[BringInReport] = field(default_factory=list)
    refused: list[tuple[Path, str]] = field(default_factory=list)

    def reports_text(self) -> str:
        return "\n\n".join(report_text(r) for r in self.reports)

    def refusals_text(self) -> str:
        return "\n\n".join(f"{path.name}: {why}" for path, why in self.refused)


def bring_in_all(project: Project, copies: Sequence[Path]) -> BringInOutcome:
    """Bring in each copy in turn; a copy refused (another project or run, not a copy,
    unreadable) is said and skipped, the others still come in."""
    outcome = BringInOutcome()
    for path in copies:
        try:
            outcome.reports.append(bring_in(project, path))
        except ProjectError as exc:
            outcome.refused.append((Path(path), str(exc)))
    return outcome


def copy_banner(stamp: CopyStamp | None) -> str:
    """The status bar's word on a coder's copy ('' for any other project)."""
    if stamp is None:
        return ""
    assigned = "" if stamp.clusters is None else \
        f", {count_of(len(stamp.clusters), 'cluster', 'clusters')} assigned"
    return f"{stamp.coder}'s copy{assigned}"
