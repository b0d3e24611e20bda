"""``<out>.run.json``: what a methods section needs to cite an export exactly."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from workbench import __version__
from workbench.export.team_sidecar import team_record
from workbench.store import Project
from workbench.store.clock import utc_now
from workbench.store.safety.whole_files import whole_file


def sidecar_path(csv_path: Path) -> Path:
    """``tagged.csv`` -> ``tagged.run.json`` (``tagged`` -> ``tagged.run.json``)."""
    return csv_path.with_name(csv_path.stem + ".run.json")


def write_sidecar(project: Project, path: Path, export: dict[str, Any]) -> Path:
    run = project.current_run()
    tags = project.codebook()
    names = {t.id: t.name for t in tags}
    counts = project.counts()
    data = {
        "software": {"name": "SpotSigs Workbench", "version": __version__},
        "exported_at": utc_now(),
        "project": str(project.path),
        "archive_root": project.archive_root,
        "export": export,
        "run": asdict(run) if run else None,
        "counts": asdict(counts),
        "codebook": [
            {"name": t.name, "description": t.description, "colour": t.colour,
             "shortcut": t.shortcut, "parent": names.get(t.parent_id) if t.parent_id else None,
             "guid": t.guid}
            for t in tags
        ],
        "coders": [name for _, name, _ in project.coders()],
        # Who coded their own copy, the samples and their rules, agreement at export time.
        "team": team_record(project),
        # Related suggestions the coders dismissed: page pairs judged not one story
        # (workbench.store.coding.dismissals), by page key: a file's path (the CSV's ``path``),
        # an archive record's file#offset.
        "related_dismissed": [
            {"page_a": a, "page_b": b, "coder": coder, "dismissed_at": when}
            for a, b, coder, when in project.dismissed_related()
        ],
    }
    with whole_file(path) as fh:
        fh.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return path
