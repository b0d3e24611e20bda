"""WACZ packages: a ZIP file whose ``archive/`` folder holds WARC files, read in place.

Nothing is extracted: each WARC member is streamed straight out of the ZIP, so a
member name (``../../etc/passwd``, ``/abs``) can never make us write anywhere.
Names that would escape a folder are still reported, because such a package is
not what it claims to be.
"""

from __future__ import annotations

import posixpath
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from workbench.archive.bounds import CompressionBomb, is_bomb
from workbench.archive.common import Opener
from workbench.archive.sniff import SNIFF_BYTES, gunzip_head, sniff
from workbench.archive.warc import RevisitIndex, read_archive
from workbench.core.records import RawPage, SkipRecord

_WARC_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz")


def is_unsafe_member(name: str) -> bool:
    """True for names that are absolute or climb out of the package's folder."""
    if not name or "\x00" in name:
        return True
    norm = name.replace("\\", "/")
    if norm.startswith("/") or (len(norm) > 1 and norm[1] == ":"):
        return True
    parts = [p for p in norm.split("/") if p not in ("", ".")]
    return ".." in parts or posixpath.isabs(norm)


def read_wacz(
    path: Path,
    rel: str,
    report: Callable[[int], None],
    index: RevisitIndex,
) -> Iterator[RawPage | SkipRecord]:
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
        yield SkipRecord(rel, f"damaged ZIP file ({exc})")
        return
    except OSError as exc:
        yield SkipRecord(rel, f"cannot read: {exc.strerror or exc}")
        return
    with zf:
        members = [i for i in zf.infolist() if not i.is_dir()]
        warcs = sorted(
            (i for i in members
             if i.filename.replace("\\", "/").lstrip("./").startswith("archive/")
             and i.filename.lower().endswith(_WARC_SUFFIXES)),
            key=lambda i: i.filename,
        )
        if not warcs:
            yield SkipRecord(rel, "not a web page: ZIP file that is not a WACZ package "
                             "(no archive/*.warc.gz inside)")
            return
        # Two members with one path (a name given twice, or once with "\\") would give
        # their records one key each: only the first is read.
        read: dict[str, str] = {}
        for info in warcs:
            name = info.filename
            source = f"{rel}/{name.replace(chr(92), '/')}"
            if is_unsafe_member(name):
                yield SkipRecord(rel, f"unsafe member path in WACZ: {name!r}")
                continue
            if source in read:
                first = read[source]
                yield SkipRecord(source, f"WACZ member {name!r} occurs twice in the package: "
                                 "only one is read" if first == name else
                                 f"WACZ member {name!r} has the same path as {first!r}: only "
                                 "that one is read")
                continue
            read[source] = name
            if info.flag_bits & 0x1:
                yield SkipRecord(source, "encrypted ZIP member")
                continue
            if info.file_size == 0:
                yield SkipRecord(source, "empty file")
                continue
            if is_bomb(info.file_size, info.compress_size):
                # zipfile never gives more than the size the package declares, so the
                # declared sizes are what reading would cost.
                bomb = CompressionBomb(info.file_size, info.compress_size)
                yield SkipRecord(source, f"compression bomb: this ZIP member would give "
                                 f"{bomb.what()}; not read")
                continue
            try:
                with zf.open(info) as fh:
                    head = fh.read(SNIFF_BYTES)
            except (zipfile.BadZipFile, NotImplementedError, ValueError, OSError, EOFError) as exc:
                yield SkipRecord(source, f"damaged ZIP member ({exc})")
                continue
            found = sniff(head)
            gzipped = found.kind == "gzip"
            if gzipped:
                found = sniff(gunzip_head(head) or b"")
            if found.kind not in ("warc", "arc"):
                yield SkipRecord(source, "WACZ member is not a WARC file")
                continue
            ratio = info.compress_size / max(info.file_size, 1)
            start = info.header_offset

            def member_report(pos: int, start: int = start, ratio: float = ratio) -> None:
                report(start + int(pos * ratio))

            yield from read_archive(Opener(path, name), source, found.kind, gzipped,
                                    member_report, index)
