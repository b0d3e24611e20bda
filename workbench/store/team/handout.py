"""Hand out work: one project file per coder, made from the lead's project.

Each copy is the whole project (same run, pages, clusters and codebook with its tag
GUIDs), stamped with where it came from (:mod:`identity`) and opening with its coder.
The lead's file keeps its one writer; the coders write only their copies, and
:mod:`bringin` merges their work back.

A copy is prepared as a hidden temporary file in the output folder (made with SQLite's
backup API, :func:`save_as.save_copy`) and renamed to its name only when ready, so a
failure leaves no half-made copy, and an existing file (a coder's copy holding work not
brought in yet) is never replaced.

Blind coding: in a copy, the clusters of every reliability sample carry no codes, memos
or "not this story" marks of anyone (the lead's final codes, other coders' own codes),
and the copy's undo history starts empty (the lead's log holds others' codes too).
"""

from __future__ import annotations

import re
import secrets
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.store.clock import utc_now
from workbench.store.errors import ProjectError
from workbench.store.runs import summary
from workbench.store.safety import save_as
from workbench.store.safety.portable_names import collision_key, portable_name, unique_names
from workbench.store.safety.whole_files import put_in_place, remove_quietly
from workbench.store.team import blind_copy
from workbench.store.team.identity import (
    COPY_KEY,
    CopyStamp,
    codebook_fingerprint,
    ensure_project_id,
    set_meta,
)

if TYPE_CHECKING:
    from workbench.store.project import Project

COPY_SUFFIX = ".wbproj"


def copy_names(project_path: Path, coders: Sequence[str]) -> list[str]:
    """``<project>-<coder>.wbproj`` for each coder, the coder's name made safe for a file
    name: valid on Windows and macOS too, short, and unique however the disk compares
    names (``Anna B`` and ``Anna_B`` get ``-Anna_B`` and ``-Anna_B-2``)."""
    stems = []
    for coder in coders:
        safe = re.sub(r"[^\w.-]+", "_", coder.strip()).strip("._") or "coder"
        stems.append(portable_name(f"{project_path.stem}-{safe}", fallback="coder"))
    return [f"{stem}{COPY_SUFFIX}" for stem in unique_names(stems)]


def _check_coders(coders: Sequence[str]) -> list[str]:
    names = [c.strip() for c in coders]
    if not names or any(not n for n in names):
        raise ProjectError("Name every coder to hand work out to (no empty names).")
    seen: set[str] = set()
    for name in names:
        # Case and Unicode composition aside, it is one name (and one file on a Mac).
        if collision_key(name) in seen:
            raise ProjectError(f"The coder {name} is named twice; each coder gets one copy.")
        seen.add(collision_key(name))
    return names


def hand_out(project: Project, coders: Sequence[str], out_dir: Path | str,
             clusters: Sequence[int] | None = None) -> list[Path]:
    """Write one copy of ``project`` per coder into ``out_dir``; return their paths.

    ``clusters``: the clusters assigned to the coders (recorded in each copy's stamp;
    None: all). Refuses, before writing anything, a coder named twice, a folder that is
    missing, a copy that already exists there (it may hold work not brought in yet),
    clusters not in the current run, and a project without a detection run.
    """
    names = _check_coders(coders)
    folder = Path(out_dir)
    if not folder.is_dir():
        raise ProjectError(f"Cannot hand out copies into {folder}: there is no such folder.")
    run = project.current_run()
    if run is None:
        raise ProjectError("The project has no detection run yet: run detection before "
                           "handing out work.")
    assigned = None if clusters is None else tuple(dict.fromkeys(int(c) for c in clusters))
    if assigned is not None:
        known = {r[0] for r in project.reader().execute(
            "SELECT id FROM clusters WHERE run_id = ? AND merged_into IS NULL", (run.id,))}
        missing = [c for c in assigned if c not in known]
        if missing:
            raise ProjectError(f"Cluster {missing[0]} is not a cluster of the current run; "
                               "nothing was handed out.")
    targets = [folder / name for name in copy_names(project.path, names)]
    # As Windows and macOS see it: study-Ann.wbproj is there when study-ann.wbproj is.
    present = {collision_key(p.name): p for p in folder.iterdir()}
    for target in targets:
        there = present.get(collision_key(target.name))
        if there is not None or target.exists() or target.is_symlink():
            raise ProjectError(f"{there or target} already exists: it may hold a coder's "
                               "work not brought in yet. Bring it in and move it away, or "
                               "hand out into another folder. Nothing was handed out.")
    with project.bookkeeping() as conn:
        lead_id = ensure_project_id(conn)
        fingerprint = codebook_fingerprint(conn)
    made: list[Path] = []
    try:
        for name, target in zip(names, targets, strict=True):
            stamp = CopyStamp(copy_id=str(uuid.uuid4()), project_id=lead_id, run_id=run.id,
                              codebook=fingerprint, coder=name, handed_out_at=utc_now(),
                              clusters=assigned)
            made.append(_write_copy(project, stamp, target))
    except BaseException:
        remove_quietly(*made)
        raise
    return made


def _write_copy(project: Project, stamp: CopyStamp, target: Path) -> Path:
    from workbench.store.project import Project

    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.handout")
    try:
        save_as.save_copy(project.reader(), project.path, tmp)
        with Project.open(tmp, backups=0) as copy:
            with copy.bookkeeping() as conn:
                set_meta(conn, COPY_KEY, stamp.to_json())
                blind_copy.prepare(conn)
                summary.rebuild(conn)
            copy.use_coder(stamp.coder)
        if target.exists():
            raise ProjectError(f"{target} appeared while the copy was made; nothing was "
                               "replaced.")
        put_in_place(tmp, target)
    except OSError as exc:
        raise ProjectError(f"Cannot write the copy {target}: {exc}") from exc
    finally:
        remove_quietly(tmp, *save_as.side_files(tmp))
    return target
