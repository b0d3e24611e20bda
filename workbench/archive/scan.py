"""Walk an opened folder (or a single file) and yield its pages."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from workbench.core.progress import ProgressFn, no_progress
from workbench.core.records import RawPage, SkipRecord

PAGE_LIMIT_BYTES = 50 * 1024 * 1024


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name


def scan(root: Path | str, progress: ProgressFn = no_progress) -> Iterator[RawPage | SkipRecord]:
    """Yield every page below ``root`` in a stable (sorted) order.

    Unreadable files become :class:`SkipRecord`; no exception escapes for bad input.
    """
    root = Path(root)
    files = [root] if root.is_file() else sorted(
        (Path(d) / f for d, _, fs in os.walk(root) for f in fs), key=lambda p: p.as_posix()
    )
    base = root.parent if root.is_file() else root
    total = len(files)
    for i, path in enumerate(files):
        progress("read", i, total)
        rel = _relative(path, base)
        try:
            size = path.stat().st_size
            if size == 0:
                yield SkipRecord(rel, "empty file")
                continue
            if size > PAGE_LIMIT_BYTES:
                yield SkipRecord(rel, f"larger than the {PAGE_LIMIT_BYTES // 2**20} MB page limit")
                continue
            data = path.read_bytes()
        except OSError as exc:
            yield SkipRecord(rel, f"cannot read: {exc.strerror or exc}")
            continue
        yield RawPage(source=rel, data=data)
    progress("read", total, total)
