"""A codebook taken from another project file, for a new project to start from."""

from __future__ import annotations

from pathlib import Path

from workbench.store.coding.codebook import TagSpec, specs_of
from workbench.store.project import Project


def codebook_of(path: Path | str) -> list[TagSpec]:
    """The codebook of the project file at ``path`` as specs for
    :meth:`Project.import_codebook` (parents by name, guids kept, parents first).

    The file is opened read-only with no backup, so this works beside a window that
    has it open and on a read-only disk; ProjectError (naming the file) when it is not
    a project, is damaged or needs upgrading.
    """
    with Project.open(path, backups=0, readonly=True) as other:
        return specs_of(other.codebook())
