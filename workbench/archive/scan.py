"""Walk an opened folder (or a single file) and yield its pages.

``scan(root, progress)`` is the one entry point: a lazy generator of
:class:`RawPage` and :class:`SkipRecord` in a stable order (folder entries sorted
by name, records in file order, revisits whose original came later at the end).
Progress is reported in bytes of input. Only ``Cancelled`` ever escapes.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from workbench.archive.common import Opener, Positions, Tracker
from workbench.archive.names import name_text, within
from workbench.archive.pages import read_gzip_page, read_page
from workbench.archive.sniff import SNIFF_BYTES, gunzip_head, sniff
from workbench.archive.wacz import read_wacz
from workbench.archive.warc import RevisitIndex, read_archive
from workbench.core.progress import Cancelled, ProgressFn, no_progress
from workbench.core.records import RawPage, SkipRecord


@dataclass(frozen=True, slots=True)
class FileEntry:
    """A file to read. ``location`` is its path as the system gave it: a plan holds one
    entry per file for the whole run, and a str costs a fifth of a ``Path`` (which keeps
    a list of its parts), about 350 bytes a file, 350 MB on a million pages."""

    location: str
    rel: str
    size: int

    @property
    def path(self) -> Path:
        return Path(self.location)


def _join(rel: str, name: str) -> str:
    return f"{rel}/{name_text(name)}" if rel else name_text(name)


def _os_reason(exc: OSError, *, folder: bool = False) -> str:
    what = " (folder)" if folder else ""
    if isinstance(exc, PermissionError):
        return f"permission denied{what}"
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    if exc.errno == errno.ENAMETOOLONG:
        return "path too long"
    if isinstance(exc, FileNotFoundError):
        return "vanished while reading" if not folder else "folder vanished while reading"
    return f"cannot read{what}: {exc.strerror or exc}"


def _kind_of(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


def _link_reason(entry: os.DirEntry[str], est: os.stat_result, real_root: str) -> str | None:
    """Why a symbolic link is not followed (None: it is, being a folder in the opened one).

    A link that leads out of the opened folder is never read: a crawl is not a way to
    put /etc/passwd into a project. A link to a file inside is not read either: the file
    is read in its own place, so the page is not read twice.
    """
    real = os.path.realpath(entry.path)
    if not within(real_root, real):
        return f"symbolic link leading outside the opened folder (to {name_text(real)}): not read"
    if stat.S_ISDIR(est.st_mode):
        return None
    inside = "/".join(name_text(part) for part in Path(os.path.relpath(real, real_root)).parts)
    return f"symbolic link to {inside!r} in the opened folder, which is read in its own place"


def walk(root: Path, mtimes: dict[str, int] | None = None) -> Iterator[FileEntry | SkipRecord]:
    """Files below ``root`` in sorted order, following symbolic links to folders inside it.

    Folders are sorted by the bytes of their names, so the order does not depend
    on the locale. Unreadable folders, loops, links that lead out of ``root`` or to a
    file in it, a file's second hard link and special files become skip records.

    ``mtimes``: filled with each file's modification time (ns) by its ``rel``, from the
    walk's own look at the file: a crawl that grew tells changed files by it
    (workbench.usecases.grow), and a second ``stat`` of every file cost an addition of
    10 % to 100,000 files 0.6 s of CPU (half a walk) for what the walk had already seen.
    The time stays out of :class:`FileEntry`, which a plan holds for every file.
    """
    try:
        st = root.stat()
    except OSError as exc:
        yield SkipRecord(name_text(str(root)), _os_reason(exc) if not isinstance(
            exc, FileNotFoundError) else "no such file or folder")
        return
    if not stat.S_ISDIR(st.st_mode):
        if stat.S_ISREG(st.st_mode):
            rel = name_text(root.name)
            if mtimes is not None:
                mtimes[rel] = st.st_mtime_ns
            yield FileEntry(str(root), rel, st.st_size)
        else:
            kind = _kind_of(st.st_mode)
            yield SkipRecord(name_text(root.name), f"not a regular file ({kind})")
        return
    real_root = os.path.realpath(root)
    seen: dict[tuple[int, int], str] = {(st.st_dev, st.st_ino): ""}
    # Files with more than one hard link, by identity: only the first name is read.
    linked: dict[tuple[int, int], str] = {}
    # Stack of (folder path, its relative name, identities of its ancestors).
    stack: list[tuple[Path, str, frozenset[tuple[int, int]]]] = [
        (root, "", frozenset({(st.st_dev, st.st_ino)}))
    ]
    while stack:
        folder, rel, ancestors = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: os.fsencode(e.name))
        except OSError as exc:
            yield SkipRecord(rel or ".", _os_reason(exc, folder=True))
            continue
        subfolders: list[tuple[Path, str, frozenset[tuple[int, int]]]] = []
        for entry in entries:
            erel = _join(rel, entry.name)
            try:
                est = entry.stat(follow_symlinks=True)
            except OSError as exc:
                if entry.is_symlink() and isinstance(exc, FileNotFoundError):
                    yield SkipRecord(erel, "broken symbolic link")
                else:
                    yield SkipRecord(erel, _os_reason(exc))
                continue
            if _is_link(entry) and (why := _link_reason(entry, est, real_root)):
                yield SkipRecord(erel, why)
                continue
            if stat.S_ISDIR(est.st_mode):
                ident = (est.st_dev, est.st_ino)
                if ident in ancestors:
                    yield SkipRecord(erel, "symbolic link loop: it leads back to "
                                     f"{seen.get(ident) or 'the opened folder'!r}")
                    continue
                if ident in seen:
                    yield SkipRecord(erel, f"same folder as {seen[ident]!r} (reached again "
                                     "through a symbolic link)")
                    continue
                seen[ident] = erel
                subfolders.append((Path(entry.path), erel, ancestors | {ident}))
            elif stat.S_ISREG(est.st_mode):
                ident = (est.st_dev, est.st_ino)
                if est.st_nlink > 1 and ident in linked:
                    yield SkipRecord(erel, f"same file as {linked[ident]!r} (a hard link to it)")
                    continue
                if est.st_nlink > 1:
                    linked[ident] = erel
                if mtimes is not None:
                    mtimes[erel] = est.st_mtime_ns
                yield FileEntry(entry.path, erel, est.st_size)
            else:
                yield SkipRecord(erel, f"not a regular file ({_kind_of(est.st_mode)})")
        # Folders are walked after the files beside them, in name order.
        stack.extend(reversed(subfolders))


def scan(root: Path | str, progress: ProgressFn = no_progress) -> Iterator[RawPage | SkipRecord]:
    """Yield every page below ``root`` (a folder, or one file) in a stable order.

    Pages come from HTML/text files (plain or gzip), WARC/ARC files (plain,
    gzipped per record or whole) and WACZ packages, all recognised by their
    bytes. Anything unreadable yields a :class:`SkipRecord` with a specific
    reason. ``progress("read", done, total)`` counts bytes of input; only
    :class:`Cancelled`, raised by it, escapes.
    """
    return scan_items(list(walk(Path(root))), progress)


def scan_items(items: list[FileEntry | SkipRecord], progress: ProgressFn = no_progress
               ) -> Iterator[RawPage | SkipRecord]:
    """:func:`scan` of the files (and walk skip records) given, in their order: a crawl
    that grew reads only its new files (workbench.usecases.grow)."""
    total = sum(item.size for item in items if isinstance(item, FileEntry))
    tracker = Tracker(progress, total)
    index = RevisitIndex()
    tracker.at(0, force=True)
    for item in items:
        if isinstance(item, SkipRecord):
            yield item
            continue
        tracker.start(item.size)
        try:
            yield from read_file(item, tracker, index)
        except Cancelled:
            raise
        except Exception as exc:  # noqa: BLE001 - the reader's promise: nothing escapes
            yield SkipRecord(item.rel, f"unexpected error while reading: "
                             f"{type(exc).__name__}: {exc}")
        tracker.finish()
    try:
        yield from index.leftovers()
    except Cancelled:
        raise
    except Exception as exc:  # noqa: BLE001
        yield SkipRecord(".", f"unexpected error while resolving revisits: {exc}")
    tracker.end()


def read_file(item: FileEntry, tracker: Positions, index: RevisitIndex
               ) -> Iterator[RawPage | SkipRecord]:
    rel, path = item.rel, item.path
    if item.size == 0:
        yield SkipRecord(rel, "empty file")
        return
    try:
        with open(path, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError as exc:
        yield SkipRecord(rel, _os_reason(exc))
        return
    if not head:
        yield SkipRecord(rel, "empty file")
        return
    found = sniff(head, path.suffix.lower())
    gzipped = False
    if found.kind == "gzip":
        inner_head = gunzip_head(head)
        if inner_head is None:
            yield SkipRecord(rel, "damaged gzip file: its first bytes cannot be decompressed")
            return
        gzipped = True
        inner_suffix = Path(path.stem).suffix.lower()
        found = sniff(inner_head, inner_suffix)
        if found.kind in ("html", "text", "empty"):  # empty: or cut before any text
            yield from read_gzip_page(path, rel, found)
            return
        if found.kind not in ("warc", "arc"):
            mime = found.mime or found.kind
            yield SkipRecord(rel, f"not a web page: {mime} (gzip-compressed)")
            return
    if found.kind in ("warc", "arc"):
        yield from read_archive(Opener(path), rel, found.kind, gzipped, tracker.at, index)
    elif found.kind == "zip":
        yield from read_wacz(path, rel, tracker.at, index)
    elif found.kind in ("html", "text"):
        yield read_page(path, rel, item.size, found)
    elif found.kind == "unsupported":
        what = "WARC" if b"WARC/" in head[:64] else "file"
        yield SkipRecord(rel, f"{found.detail}-compressed {what} is not supported")
    else:
        yield SkipRecord(rel, f"not a web page: {found.mime}")
