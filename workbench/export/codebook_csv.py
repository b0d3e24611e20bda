"""Codebook as CSV (``name,description,colour,shortcut,parent``), both ways."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from workbench.export.cells import csv_writer, unescape
from workbench.store import ProjectError, Tag, TagSpec
from workbench.store.coding.codebook import (
    MAX_CODEBOOK_BYTES,
    MAX_IMPORT_TAGS,
    check_file_size,
    check_import_size,
    clean_colour,
    clean_name,
)
from workbench.store.safety.whole_files import whole_file

COLUMNS = ["name", "description", "colour", "shortcut", "parent"]


def write_codebook(tags: Sequence[Tag], out_path: Path | str) -> int:
    """Write the codebook (parents before children); return the number of tags."""
    by_id = {t.id: t for t in tags}
    with whole_file(out_path) as f:  # whole or not at all: never a half codebook
        writer = csv_writer(f, reversible=True, lineterminator="\r\n")
        writer.writerow(COLUMNS)
        for tag in tags:
            parent = by_id[tag.parent_id].name if tag.parent_id in by_id else ""
            writer.writerow([tag.name, tag.description, tag.colour, tag.shortcut or "", parent])
    return len(tags)


def read_codebook(path: Path | str) -> list[TagSpec]:
    """Parse a codebook CSV; a BOM (Excel) and missing optional columns are fine.

    Every entry is checked here (name, colour), so a bad file is refused with the line
    to fix before anything is imported. A file over MAX_CODEBOOK_BYTES, or of more than
    MAX_IMPORT_TAGS tags, is refused before it is read through.
    """
    try:
        check_file_size(path, MAX_CODEBOOK_BYTES)
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            header = [h.strip().lower() for h in reader.fieldnames or []]
            if "name" not in header:
                raise ProjectError(f"{path}: a codebook CSV needs a 'name' column "
                                   f"(columns: {', '.join(COLUMNS)}).")
            specs = []
            for line, row in enumerate(reader, start=2):
                if len(specs) == MAX_IMPORT_TAGS:  # stop reading: the file is refused
                    check_import_size(MAX_IMPORT_TAGS + 1, path)
                if row.get(None):  # type: ignore[call-overload]
                    raise ProjectError(f"{path}, line {line}: more cells than columns.")
                row = {k.strip().lower(): unescape(v or "") for k, v in row.items()
                       if k is not None}
                if not row.get("name", "").strip():
                    raise ProjectError(f"{path}, line {line}: the tag has no name.")
                colour = row.get("colour", row.get("color", ""))
                try:
                    clean_name(row["name"])
                    clean_colour(colour)
                except ProjectError as exc:
                    raise ProjectError(f"{path}, line {line}: {exc}") from exc
                specs.append(TagSpec(
                    name=row["name"], description=row.get("description", ""),
                    colour=colour,
                    shortcut=row.get("shortcut") or None, parent=row.get("parent") or None,
                ))
    except UnicodeDecodeError as exc:
        raise ProjectError(f"Cannot read codebook {path}: it is not UTF-8 text (byte "
                           f"{exc.start}). Save it as \"CSV UTF-8\" and import it again.") from exc
    except (OSError, csv.Error) as exc:
        raise ProjectError(f"Cannot read codebook {path}: {exc}") from exc
    return specs
