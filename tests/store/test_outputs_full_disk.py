"""Outputs on a full disk: the old file stays as it was and no half file is left.

The disk is a real one: a 1 MiB tmpfs in a private mount namespace (skipped, with the
reason, where that cannot be mounted), filled to the last byte before each output is
written. Every output is larger than a page, so a writer that truncated the old file
first (as ``--pairs``, ``--clusters``, ``--skipped`` and the codebook CSV did) would
leave a half file ending mid-row.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import DEMO_ARCHIVE
from tests.store.builders import new_project
from tests.store.faults import last_json, run_on_tmpfs

OLD = "the old file, still whole\n"

WRITE_ON_A_FULL_DISK = """
import contextlib, io, os
from pathlib import Path
from workbench.commands.cli import main
from workbench.export import export_pages, write_codebook, write_qdc
from workbench.store import Project, ProjectError

mount = Path(MOUNT)
outputs = ["pairs", "clusters", "skipped", "codebook.csv", "codebook.qdc", "export"]
for name in outputs:
    (mount / name).write_text(OLD)
with open(mount / "filler", "wb", buffering=0) as fh:  # to the last byte
    with contextlib.suppress(OSError):
        while True:
            fh.write(b"x" * 4096)
said = {}
for option in ("pairs", "clusters", "skipped"):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["dedup", CRAWL, f"--{option}", str(mount / option), "-q"])
    said[option] = [status, err.getvalue()]
with Project.open(PROJECT, backups=0, readonly=True) as project:
    for name, write in (("codebook.csv", lambda p: write_codebook(project.codebook(), p)),
                        ("codebook.qdc", lambda p: write_qdc(project.codebook(), p)),
                        ("export", lambda p: export_pages(project, p, coded_only=False))):
        try:
            write(mount / name)
            said[name] = [0, "written"]
        except ProjectError as exc:
            said[name] = [1, str(exc)]
files = {p.name: p.read_text() for p in mount.iterdir() if p.name != "filler"}
print(json.dumps({"said": said, "files": files}))
"""


def test_outputs_on_a_full_disk_leave_the_old_file_whole(tmp_path: Path) -> None:
    crawl = tmp_path / "crawl"
    for k in range(8):  # identical copies: many pairs and clusters rows
        shutil.copytree(DEMO_ARCHIVE, crawl / f"copy{k}")
    for n in range(200):  # and many skipped inputs
        (crawl / f"empty{n:03}.html").write_bytes(b"")
    (tmp_path / "p").mkdir()
    project = new_project(tmp_path / "p", [3] * 60, tags=())
    for n in range(150):
        project.add_tag(f"tag {n}", "a description long enough to fill pages " * 3)
    project.close()
    done = run_on_tmpfs(WRITE_ON_A_FULL_DISK, tmp_path / "mnt", "1m", timeout=300,
                        CRAWL=str(crawl), PROJECT=str(project.path), OLD=OLD)
    result = last_json(done)
    for name, (status, message) in result["said"].items():
        assert status != 0, (name, message)
        assert "disk is full" in message, (name, message)
    for option in ("pairs", "clusters", "skipped"):
        status, message = result["said"][option]
        assert status == 3 and f"cannot write --{option}" in message
    # Every old file as it was; nothing else beside them (no temporary file).
    assert result["files"] == dict.fromkeys(
        ["pairs", "clusters", "skipped", "codebook.csv", "codebook.qdc", "export"], OLD)
