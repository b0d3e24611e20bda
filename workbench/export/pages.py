"""The tagged-pages CSV: one row per page, for R, Stata and Excel."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.core.progress import ProgressFn, no_progress
from workbench.export.cells import csv_writer
from workbench.export.passage_columns import PASSAGE_COLUMNS, PassageColumns
from workbench.export.sidecar import sidecar_path, write_sidecar
from workbench.export.team_columns import TeamColumns
from workbench.store import PageRecord, Project, ProjectError
from workbench.store.safety.damaged_text import DamagedCell, is_decode_error
from workbench.store.safety.outputs import check_project_output
from workbench.store.safety.whole_files import whole_file

COLUMNS = ["cluster", "cluster_size", "is_reference", "similarity", "tags", "coder",
           "tagged_at", "path", "warc_file", "warc_offset", "url", "captured", "title",
           "skip_reason", "excluded", "cluster_memo", "page_memo", "url_from", "captured_from",
           "published", "published_from", *PASSAGE_COLUMNS]
TAG_SEPARATOR = ";"
WIDE_PREFIX = "tag_"


@dataclass(frozen=True, slots=True)
class ExportResult:
    csv_path: Path
    sidecar_path: Path
    rows: int
    # Text cells that are not valid UTF-8: exported with U+FFFD in place of the bad bytes.
    damaged: tuple[DamagedCell, ...] = ()
    passages_unread: int = 0  # pages not read again for the share columns (left empty)


def _cell(value: object) -> str:
    """Text for a cell: empty for missing values (R and Stata read NA), 1/0 for bools."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(round(value, 6))
    return str(value)


def _row(rec: PageRecord, tag_names: list[str], wide: bool, passages: PassageColumns) -> list[str]:
    # A record from an archive file (offset known) names the WARC; a plain
    # saved page names its path. Never both, so a script can branch on it.
    is_record = rec.offset is not None
    values: list[object] = [
        rec.cluster_id, rec.cluster_size, rec.is_reference if rec.cluster_id else None,
        rec.similarity, TAG_SEPARATOR.join(rec.tags), TAG_SEPARATOR.join(rec.coders),
        rec.tagged_at, None if is_record else rec.source, rec.source if is_record else None,
        rec.offset, rec.url, rec.capture_date, rec.title, rec.skip_reason,
        rec.excluded if rec.cluster_id else None, rec.cluster_memo, rec.page_memo,
        rec.url_from, rec.captured_from, rec.published, rec.published_from,
    ]
    # Text from a crawl or a coder (a title of "=HYPERLINK(...)") is made inert by the
    # writer, like every cell; the numbers we produce never look like formulas.
    cells = [_cell(v) for v in values] + passages.cells(rec)
    if wide:
        present = {n.casefold() for n in rec.tags}
        cells += ["1" if n.casefold() in present else "0" for n in tag_names]
    return cells


def damage_report(damaged: tuple[DamagedCell, ...], shown: int = 20) -> str:
    """What the coder is told when an export met text that is not UTF-8 ('' for none)."""
    if not damaged:
        return ""
    cells = "; ".join(str(d) for d in damaged[:shown])
    more = f"; and {len(damaged) - shown:,} more" if len(damaged) > shown else ""
    noun, verb = ("cell", "is") if len(damaged) == 1 else ("cells", "are")
    return (f"{len(damaged):,} text {noun} of the project {verb} damaged (not valid UTF-8), "
            f"exported with \ufffd in place of the unreadable bytes: {cells}{more}. "
            f"Every row was exported; check these against the archive or a backup.")


def export_pages(project: Project, out_path: Path | str, *, coded_only: bool = True,
                 wide: bool = False, excel: bool = False, coders: bool = False,
                 passages: bool = True, progress: ProgressFn = no_progress,
                 workers: int = 1) -> ExportResult:
    """Write the current run's pages as CSV plus ``<out>.run.json``.

    ``coded_only``: only the pages a coder has judged (a tag, "not this story", a
    memo; see :func:`workbench.store.runs.page_table.page_records`). ``wide``: one 0/1
    column per codebook tag after the others. ``coders``: one ``tags_<coder>`` column per
    coder who brought tags in from their copy, then ``samples`` (see
    :mod:`workbench.export.team_columns`); ``tags`` stays the final (settled) codes.
    ``passages``: False leaves the share columns empty (no page is read again; see
    :mod:`workbench.export.passage_columns`). ``excel``: UTF-8 with BOM so
    Excel detects the encoding. Quoting follows RFC 4180 (CRLF line ends).
    The file is written to a temporary name and renamed, so a failed export
    never leaves a half CSV that looks complete. An ``out_path`` that is the project,
    one of its files or a file of its crawl is refused (``outputs.OutputRefused``).

    A text cell whose bytes are not UTF-8 (damage SQLite's own check does not see) does
    not stop the export: every row is written, the bad bytes as U+FFFD, and the damaged
    cells are named in the result and the sidecar (``damaged_text``).

    ``progress("export", rows written, rows in all)`` after every row; it stops the export
    by raising :class:`workbench.core.progress.Cancelled`, which leaves whatever was at
    ``out_path`` (and its sidecar) as it was. ``workers``: processes computing the share
    columns of a large export ahead (:meth:`PassageColumns.compute_ahead`; progress
    ``"shares"``), 1: each row's as it is written.
    """
    out_path = Path(out_path)
    options = {"coded_only": coded_only, "wide": wide, "excel": excel, "coders": coders,
               "passages": passages}
    try:
        return _export(project, out_path, options, (), progress, workers)
    except Exception as exc:
        if not is_decode_error(exc):
            raise
    # Met damage: read it all again, tolerantly (slower, so not the first time), and say
    # where it is.
    damaged = tuple(project.damaged_text_cells())
    with project.tolerating_damaged_text():
        return _export(project, out_path, options, damaged, progress, workers)


def _export(project: Project, out_path: Path, options: dict[str, Any],
            damaged: tuple[DamagedCell, ...], progress: ProgressFn = no_progress,
            workers: int = 1) -> ExportResult:
    if project.current_run() is None:
        raise ProjectError(f"{project.path} has no detection run to export yet.")
    coded_only, wide, excel = options["coded_only"], options["wide"], options["excel"]
    tag_names = [t.name for t in project.codebook()]
    team = TeamColumns.read(project.reader()) if options["coders"] else None
    passages = PassageColumns(project, computed=options["passages"])
    header = COLUMNS + ([WIDE_PREFIX + n for n in tag_names] if wide else [])
    header += team.header() if team else []
    side_path = check_project_output(project, sidecar_path(out_path))
    rows = 0
    # Listed first (a few hundred bytes a page) so the progress has a total.
    records = list(project.page_records(coded_only=coded_only))
    passages.compute_ahead(records, workers, progress)
    with whole_file(check_project_output(project, out_path),
                    encoding="utf-8-sig" if excel else "utf-8") as f:
        writer = csv_writer(f, lineterminator="\r\n")
        writer.writerow(header)
        progress("export", 0, len(records))
        for rec in records:
            row = _row(rec, tag_names, wide, passages)
            writer.writerow(row + team.cells(rec, TAG_SEPARATOR) if team else row)
            rows += 1
            progress("export", rows, len(records))
    side = write_sidecar(project, side_path, {
        "csv": out_path.name, "rows": rows, **options, "columns": header,
        "damaged_text": [{"table": d.table, "row": d.row, "column": d.column} for d in damaged],
        "passages_unread": passages.unread,
    })
    return ExportResult(out_path, side, rows, damaged, passages.unread)

