"""File names as page keys, and page keys back to files.

A page's key is its path below the opened folder, names joined by ``/``, plus
``#offset`` for a record inside an archive file. A file name is any string of bytes,
so each name is written as text by one reversible rule (:func:`name_text`):

* its UTF-8 text, as it is: ordinary names are their own key, so keys stored by
  earlier versions still match;
* a byte that is not UTF-8 becomes ``\\xNN`` (as before);
* a backslash that would otherwise read as the start of an escape (it comes before
  ``x`` or before another backslash or escape) is doubled, so a name that really
  contains ``\\xff`` is not the name with the byte 0xFF;
* a name ending in ``#`` and digits has that ``#`` written ``\\x23``, so the key of a
  page file never looks like an archive file's key plus a record offset.

Different names therefore give different keys, and :func:`os_name` turns the text
back into the name on disk (:func:`archive_file` finds the file a key came from).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_UNDECODABLE = range(0xDC80, 0xDD00)  # bytes that are not UTF-8, as surrogateescape decodes them
_TRAILING_NUMBER = re.compile(r"#\d+\Z")
_RECORD_KEY = re.compile(r"(.*)#(\d+)", re.S)
_BYTE_ESCAPE = re.compile(r"\\x([0-9a-f]{2})")


def name_text(name: str) -> str:
    """One file or folder name (as ``os`` gives it) as text for a page key."""
    text = os.fsencode(name).decode("utf-8", "surrogateescape")
    escaped = [ord(ch) in _UNDECODABLE for ch in text]
    if match := _TRAILING_NUMBER.search(text):
        escaped[match.start()] = True
    out: list[str] = []
    for i, ch in enumerate(text):
        if escaped[i]:
            code = ord(ch) - 0xDC00 if ord(ch) in _UNDECODABLE else ord(ch)
            out.append(f"\\x{code:02x}")
        elif ch == "\\":
            # Doubled only where a reader could take it for the start of an escape.
            ahead = i + 1 < len(text) and (text[i + 1] in "x\\" or escaped[i + 1])
            out.append("\\\\" if ahead else "\\")
        else:
            out.append(ch)
    return "".join(out)


def os_name(text: str) -> str | None:
    """The name on disk that :func:`name_text` wrote as ``text`` (None: no name gives it)."""
    raw = bytearray()
    i = 0
    while i < len(text):
        if text.startswith("\\\\", i):
            raw += b"\\"
            i += 2
        elif match := _BYTE_ESCAPE.match(text, i):
            raw.append(int(match.group(1), 16))
            i += 4
        else:
            try:
                raw += text[i].encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate: not text this module wrote
                return None
            i += 1
    return os.fsdecode(bytes(raw))


def split_key(key: str) -> tuple[str, int | None]:
    """A page key as (source, record offset); the offset is None for a page file."""
    match = _RECORD_KEY.fullmatch(key)
    if match is None:
        return key, None
    return match.group(1), int(match.group(2))


def archive_file(root: Path | str, source: str) -> Path | None:
    """The file below ``root`` that holds the page with this ``source``, or None.

    That is the page's own file, or the WARC/ARC/WACZ file it is a record of (a WACZ
    member's source goes on past the package's name). When ``root`` is one opened
    file, it is that file. A source that climbs out of ``root``, or a symbolic link
    that leads out of it, gives None: nothing outside the opened folder is read.
    """
    root = Path(root)
    if root.is_file():
        return root
    path = root
    for part in source.split("/"):
        name = os_name(part)
        if name is None or name in ("", ".", "..") or os.sep in name or (
                os.altsep and os.altsep in name):
            return None
        path = path / name
        if path.is_file():
            return path if within(os.path.realpath(root), os.path.realpath(path)) else None
        if not path.is_dir():
            return None
    return None


def source_in_file(root: Path | str, path: Path, source: str) -> str:
    """The source that reading ``path`` alone (``scan(path)``) gives the page whose source
    below ``root`` is ``source``; ``path`` is :func:`archive_file`'s answer for it.

    Reading one file names its pages after the file, not the folders above it: the page
    ``sub/p.wacz/archive/a.warc`` is ``p.wacz/archive/a.warc`` there. A WACZ package's
    members can each have a record at the same offset, so the member part is what tells
    them apart.
    """
    root = Path(root)
    parts = [path.name] if root.is_file() else path.relative_to(root).parts
    prefix = "/".join(name_text(part) for part in parts)
    return name_text(path.name) + source[len(prefix):]


def within(real_root: str, real: str) -> bool:
    """Is the resolved path ``real`` the folder ``real_root`` or below it?"""
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)
