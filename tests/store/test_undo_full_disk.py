"""Undo and redo on a full disk raise the project's own error with a message, never a raw
sqlite3 error, and change nothing. A real full disk: a tmpfs in a private mount
namespace (skipped, with the reason, where that cannot be mounted)."""

from __future__ import annotations

from pathlib import Path

from tests.store.faults import last_json, run_on_tmpfs

UNDO_ON_A_FULL_DISK = """
import contextlib
from pathlib import Path
from tests.store.builders import cluster_ids, new_project, tag_id

mount = Path(MOUNT)
project = new_project(mount, [3] * 300)
ids = cluster_ids(project)
project.tag_clusters(ids, [tag_id(project, "unions")])
project.tag_clusters(ids, [tag_id(project, "feminism")])
with open(mount / "filler", "wb", buffering=0) as fh:  # to the last byte
    with contextlib.suppress(OSError):
        while True:
            fh.write(b"x" * 4096)
said = {}
for name, step in (("undo", project.undo), ("redo", project.redo)):
    try:
        said[name] = ["done", step()]
    except Exception as exc:
        said[name] = [type(exc).__module__ + "." + type(exc).__name__,
                      getattr(exc, "kind", None), str(exc)]
    if name == "undo":  # make room, undo for real, fill again: then redo has work to do
        (mount / "filler").unlink()
        project.undo()
        with open(mount / "filler", "wb", buffering=0) as fh:
            with contextlib.suppress(OSError):
                while True:
                    fh.write(b"x" * 4096)
coded = project.counts().clusters_all_coded
(mount / "filler").unlink()
project.close()
print(json.dumps({"said": said, "coded": coded}))
"""


def test_undo_and_redo_on_a_full_disk_say_so(tmp_path: Path) -> None:
    result = last_json(run_on_tmpfs(UNDO_ON_A_FULL_DISK, tmp_path / "mnt", "4m"))
    for name in ("undo", "redo"):
        kind, *rest = result["said"][name]
        assert kind == "workbench.store.errors.StorageError", result["said"][name]
        assert rest[0] == "full" and "disk is full" in rest[1]
    assert result["coded"] == 300  # the first tagging stands; nothing half undone
