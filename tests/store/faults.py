"""Real storage faults for the store's tests: read-only files and folders, a full
disk, a damaged file, a second process.

Running as root makes ``chmod`` toothless, so read-only files and folders are made
with the immutable attribute there (``chattr +i``: even root gets EPERM, and
``os.access`` says so); full and read-only disks are small tmpfs mounts in a private
mount namespace (``unshare --mount``), so nothing is mounted for anyone else. Each
helper skips the test with the reason when the machine cannot do it.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


# ------------------------------------------------------------ read-only
def _chattr(flag: str, path: Path) -> bool:
    if shutil.which("chattr") is None:
        return False
    done = subprocess.run(["chattr", flag, str(path)], capture_output=True)
    return done.returncode == 0


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` (a file or a folder) cannot be written by this process inside the block."""
    if os.geteuid() == 0:
        if not _chattr("+i", path):
            pytest.skip(f"running as root and cannot set the immutable attribute on {path} "
                        "(chattr missing or the file system has no such attribute)")
        try:
            yield
        finally:
            _chattr("-i", path)
        return
    mode = path.stat().st_mode
    path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        yield
    finally:
        path.chmod(mode)


def listing(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes, to show nothing was written."""
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


# ------------------------------------------------------- subprocesses
def script(body: str, **values: object) -> str:
    """A Python program that imports the workbench from this checkout; ``values`` are
    available in it as constants (JSON-safe values)."""
    header = f"import json, sys\nsys.path.insert(0, {str(REPO)!r})\n"
    for name, value in values.items():
        header += f"{name} = json.loads({json.dumps(json.dumps(value))})\n"
    return header + textwrap.dedent(body)


def run_python(body: str, timeout: float = 120, **values: object
               ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PYTHON, "-c", script(body, **values)], capture_output=True,
                          text=True, timeout=timeout, cwd=REPO)


def can_mount_privately() -> str | None:
    """None when ``unshare --mount`` and a tmpfs mount work here; else why not."""
    if sys.platform != "linux" or shutil.which("unshare") is None:
        return "needs Linux with unshare(1)"
    probe = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c",
         "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d && umount $d && rmdir $d"],
        capture_output=True, text=True)
    if probe.returncode != 0:
        return f"cannot mount a private tmpfs here ({probe.stderr.strip() or 'not permitted'})"
    return None


def run_on_tmpfs(body: str, mount_point: Path, size: str, *, timeout: float = 120,
                 **values: object) -> subprocess.CompletedProcess[str]:
    """Run ``body`` in a private mount namespace with a ``size`` tmpfs at
    ``mount_point`` (only that process and its children see it). The program can
    remount it read-only with ``remount_ro()``."""
    reason = can_mount_privately()
    if reason:
        pytest.skip(reason)
    mount_point.mkdir(parents=True, exist_ok=True)
    program = script("""
        import subprocess
        def remount_ro():
            subprocess.run(["mount", "-o", "remount,ro", MOUNT], check=True)
        def remount_rw():
            subprocess.run(["mount", "-o", "remount,rw", MOUNT], check=True)
    """, MOUNT=str(mount_point)) + "\n" + script(body, **values)
    shell = f'mount -t tmpfs -o size={size} tmpfs "$1" && exec "$2" -c "$3"'
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                           shell, "sh", str(mount_point), PYTHON, program],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO)


def last_json(done: subprocess.CompletedProcess[str]) -> dict:
    """The last line a helper program printed, as JSON (fails with its stderr)."""
    lines = [ln for ln in done.stdout.splitlines() if ln.strip()]
    assert done.returncode == 0 and lines, f"helper failed ({done.returncode}):\n{done.stderr}"
    return json.loads(lines[-1])


# ---------------------------------------------------------------- damage
def btree_page_near(path: Path, fraction: float) -> tuple[int, int]:
    """(page number, page size) of the b-tree page (table or index, interior or leaf)
    nearest ``fraction`` of the file: damage there is structural, so SQLite's check
    can see it (a flip inside a row's text could go unnoticed by any check)."""
    conn = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
    try:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [r[0] for r in conn.execute(
            "SELECT pageno FROM dbstat WHERE pagetype IN ('internal', 'leaf') AND pageno > 1")]
    finally:
        conn.close()
    target = fraction * path.stat().st_size / page_size
    return min(pages, key=lambda p: abs(p - target)), page_size


def flip_bytes(path: Path, offset: int, count: int = 256) -> None:
    with path.open("r+b") as fh:
        fh.seek(offset)
        data = fh.read(count)
        fh.seek(offset)
        fh.write(bytes(b ^ 0xFF for b in data))
