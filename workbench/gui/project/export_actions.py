"""File ▸ Export: the tagged pages as CSV, from the dialog's options (read-only projects too).

The menu's export runs in the background (workbench.gui.project.export_job); ``export_csv``
writes on the calling thread, for callers that need the file at once."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from workbench.export import damage_report, export_pages
from workbench.export.pages import ExportResult
from workbench.export.passage_columns import unread_report
from workbench.gui.dialogs import ExportOptions
from workbench.gui.host import ProjectWindow
from workbench.store import ProjectError
from workbench.store.safety.portable_names import portable_name

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings


@runtime_checkable
class ExportWindow(ProjectWindow, Protocol):
    """What export uses of the window: its settings (the folder exported to last) and its
    job (no export while a run rewrites the clusters)."""

    settings: QSettings
    job: object | None


def default_export_path(window: ExportWindow) -> Path:
    last = window.settings.value("lastExportFolder", "") or str(Path.home())
    stem = Path(window.project.archive_root).name if window.project else "export"
    # A folder name from another system may be long or hold what Windows refuses.
    return Path(last) / f"{portable_name(stem, fallback='export')}-tagged.csv"


def export_dialog(window: ExportWindow) -> None:
    if window.project is None or window.job is not None:
        return
    options = window.prompter.export_options(default_export_path(window))
    if options is not None:
        exporter = getattr(window, "exporter", None)
        if exporter is not None:
            exporter.start(options)  # on a worker: the window stays live, with Cancel
        else:
            export_csv(window, options)


def export_csv(window: ExportWindow, options: ExportOptions) -> int | None:
    """Write the export; the number of rows, or None when it failed (and was said)."""
    if window.project is None:
        return None
    try:
        result = export_pages(window.project, options.path, coded_only=options.coded_only,
                              wide=options.wide, excel=options.excel,
                              coders=options.coders)
    except (ProjectError, OSError) as exc:
        window.prompter.error("Export failed", str(exc))
        return None
    report_export(window, options, result)
    return result.rows


def report_export(window: ExportWindow, options: ExportOptions, result: ExportResult) -> None:
    """What the coder is told of an export written: rows, damaged text, shares not computed."""
    window.settings.setValue("lastExportFolder", str(Path(options.path).parent))
    window.statusBar().showMessage(f"Exported {result.rows:,} rows to {result.csv_path}", 10000)
    if result.damaged:
        window.prompter.error("Exported, with damaged text", damage_report(result.damaged),
                              "\n".join(str(d) for d in result.damaged))
    if result.passages_unread:
        window.prompter.error("Exported, without some passage shares",
                              unread_report(result.passages_unread,
                                          window.project.archive_root if window.project else ""))
