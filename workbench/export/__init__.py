"""CSV export of tagged pages and the codebook (headless)."""

from workbench.export.codebook_csv import read_codebook, write_codebook
from workbench.export.pages import COLUMNS, ExportResult, damage_report, export_pages
from workbench.export.qdc import QdcImport, read_qdc, write_qdc

__all__ = ["COLUMNS", "ExportResult", "QdcImport", "damage_report", "export_pages",
           "read_codebook", "read_qdc", "write_codebook", "write_qdc"]
