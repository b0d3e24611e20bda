"""What Codebook ▸ Agreement… shows and saves (no Qt): the agreement table of
:mod:`workbench.usecases.agreement` as rows of text, and the CSV/HTML report written
through :mod:`workbench.export.agreement_report` after the output guard."""

from __future__ import annotations

from pathlib import Path

from workbench.export.agreement_report import (
    entries,
    methods_sentence,
    row_note,
    write_agreement_csv,
    write_agreement_html,
)
from workbench.store import Project
from workbench.store.safety.outputs import check_project_output
from workbench.usecases.agreement import ProjectAgreement

HEADERS = ["Tag", "α", "95 % interval", "κ", "Agreement", "Units", "Note"]


def _figure(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def table_rows(found: ProjectAgreement) -> list[list[str]]:
    """One row per tag and one for the tag set, under :data:`HEADERS`."""
    rows = []
    for name, _guid, uses, r in entries(found.table, found.context):
        ci = r.interval
        rows.append([name, _figure(r.alpha),
                     f"{ci.low:.3f} to {ci.high:.3f}" if ci is not None else "",
                     _figure(r.kappa), f"{r.percent_agreement:.1%}", str(r.n_units),
                     row_note(found.table, uses, r)])
    return rows


def heading(found: ProjectAgreement) -> str:
    table = found.table
    return (f"{found.sample.name} (seed {found.sample.seed}): {table.n_units} clusters, coded "
            f"by {', '.join(table.coders)}.")


def methods_text(found: ProjectAgreement) -> str:
    return methods_sentence(found.table, found.context)


def save_report(project: Project, found: ProjectAgreement, target: Path, html: bool) -> Path:
    """Write the table as HTML (``html``) or CSV; OutputRefused/ProjectError say why not
    (the project's own files and the crawl are never written over)."""
    path = check_project_output(project, target, "the agreement report")
    write = write_agreement_html if html else write_agreement_csv
    return write(path, found.table, found.context)
