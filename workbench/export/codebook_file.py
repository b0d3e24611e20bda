"""Read a codebook file the coder chose: ``.qdc`` (REFI-QDA) or CSV, by its suffix.

Bounded (:data:`workbench.store.coding.codebook.MAX_CODEBOOK_BYTES`,
:data:`~workbench.store.coding.codebook.MAX_IMPORT_TAGS`) and free of Qt, so the window can run
it on a worker thread and the tests without a display.
"""

from __future__ import annotations

from pathlib import Path

from workbench.export.codebook_csv import read_codebook
from workbench.export.qdc import QdcImport, read_qdc


def read_codebook_file(path: Path | str) -> QdcImport:
    """The tags of a ``.qdc`` or CSV codebook and the notes for the coder (ProjectError or
    OSError, naming the file and the problem, when it cannot be imported)."""
    path = Path(path)
    if path.suffix.lower() == ".qdc":
        return read_qdc(path)
    return QdcImport(read_codebook(path))
