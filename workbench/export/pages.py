"""The tagged-pages CSV: one row per page, for R, Stata and Excel."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workbench.export.cells import csv_writer
from workbench.export.sidecar import sidecar_path, write_sidecar
from workbench.store import PageRecord, Project, ProjectError
from workbench.store.outputs import check_project_output
from workbench.store.whole_files import whole_file

COLUMNS = ["cluster", "cluster_size", "is_reference", "similarity", "tags", "coder",
           "tagged_at", "path", "warc_file", "warc_offset", "url", "capture_date", "title",
           "skip_reason", "excluded", "cluster_memo", "page_memo"]
TAG_SEPARATOR = ";"
WIDE_PREFIX = "tag_"


@dataclass(frozen=True, slots=True)
class ExportResult:
    csv_path: Path
    sidecar_path: Path
    rows: int


def _cell(value: object) -> str:
    """Text for a cell: empty for missing values (R and Stata read NA), 1/0 for bools."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(round(value, 6))
    return str(value)


def _row(rec: PageRecord, tag_names: list[str], wide: bool) -> list[str]:
    # A record from an archive file (offset known) names the WARC; a plain
    # saved page names its path. Never both, so a script can branch on it.
    is_record = rec.offset is not None
    values: list[object] = [
        rec.cluster_id, rec.cluster_size, rec.is_reference if rec.cluster_id else None,
        rec.similarity, TAG_SEPARATOR.join(rec.tags), TAG_SEPARATOR.join(rec.coders),
        rec.tagged_at, None if is_record else rec.source, rec.source if is_record else None,
        rec.offset, rec.url, rec.capture_date, rec.title, rec.skip_reason,
        rec.excluded if rec.cluster_id else None, rec.cluster_memo, rec.page_memo,
    ]
    # Text from a crawl or a coder (a title of "=HYPERLINK(...)") is made inert by the
    # writer, like every cell; the numbers we produce never look like formulas.
    cells = [_cell(v) for v in values]
    if wide:
        present = {n.casefold() for n in rec.tags}
        cells += ["1" if n.casefold() in present else "0" for n in tag_names]
    return cells


def export_pages(project: Project, out_path: Path | str, *, coded_only: bool = True,
                 wide: bool = False, excel: bool = False) -> ExportResult:
    """Write the current run's pages as CSV plus ``<out>.run.json``.

    ``coded_only``: only pages carrying at least one tag. ``wide``: one 0/1
    column per codebook tag after the others. ``excel``: UTF-8 with BOM so
    Excel detects the encoding. Quoting follows RFC 4180 (CRLF line ends).
    The file is written to a temporary name and renamed, so a failed export
    never leaves a half CSV that looks complete. An ``out_path`` that is the project,
    one of its files or a file of its crawl is refused (``outputs.OutputRefused``).
    """
    out_path = Path(out_path)
    if project.current_run() is None:
        raise ProjectError(f"{project.path} has no detection run to export yet.")
    tag_names = [t.name for t in project.codebook()]
    header = COLUMNS + ([WIDE_PREFIX + n for n in tag_names] if wide else [])
    side_path = check_project_output(project, sidecar_path(out_path))
    rows = 0
    with whole_file(check_project_output(project, out_path),
                    encoding="utf-8-sig" if excel else "utf-8") as f:
        writer = csv_writer(f, lineterminator="\r\n")
        writer.writerow(header)
        for rec in project.page_records(coded_only=coded_only):
            writer.writerow(_row(rec, tag_names, wide))
            rows += 1
    side = write_sidecar(project, side_path, {
        "csv": out_path.name, "rows": rows, "coded_only": coded_only, "wide": wide,
        "excel": excel, "columns": header,
    })
    return ExportResult(out_path, side, rows)

