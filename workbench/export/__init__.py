"""CSV export of tagged pages and the codebook (headless)."""

from workbench.export.codebook_csv import read_codebook, write_codebook
from workbench.export.pages import COLUMNS, ExportResult, export_pages

__all__ = ["COLUMNS", "ExportResult", "export_pages", "read_codebook", "write_codebook"]
