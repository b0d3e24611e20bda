"""File names that are valid, and stay distinct, on Windows, macOS and Linux (no Qt, no I/O).

Linux takes any name without ``/`` and NUL. Windows also refuses ``<>:"\\|?*`` and
control characters, reserves device names (``CON``, ``aux.html``, ``COM1.txt``: the
part before the first dot decides), and silently drops a trailing dot or space, so
``notes.`` and ``notes`` are one file there. Windows and macOS compare names without
case, and macOS without regard to Unicode normalisation (``é`` typed as one character
or as ``e`` plus an accent), so two names Linux keeps apart can be one file there.

A name the workbench makes from data (a coder's name, an archive folder's name) goes
through :func:`portable_name`, and a set of such names through :func:`unique_names`, so
what it writes is valid everywhere and no two names collide on any of the three
systems. A name a person chose (an export's ``--out``) is only checked, by the rules
of the system the workbench runs on (:func:`name_problem`).

The rules take the platform as a parameter (``sys.platform``'s values), so the
Windows rules are tested on Linux.
"""

from __future__ import annotations

import ntpath
import os
import sys
import unicodedata
from collections.abc import Iterable

WINDOWS_FORBIDDEN = frozenset('<>:"/\\|?*')
# The part of a name before its first dot, upper-cased, that Windows takes for a device.
# (The superscript digits are devices too: Windows reads them as 1, 2 and 3.)
RESERVED_DEVICES = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
    | {f"{port}{n}" for port in ("COM", "LPT") for n in "0123456789\u00b9\u00b2\u00b3"})
# Longest name: ext4 and APFS count 255 bytes of UTF-8, NTFS 255 UTF-16 units, which
# are never more than the UTF-8 bytes.
MAX_NAME_BYTES = 255
# Names the workbench makes stay far shorter, so the whole path fits Windows' 260
# characters in all but deep folders (and a suffix such as "-2.wbproj" still fits).
MADE_NAME_BYTES = 120
# Windows' MAX_PATH less the terminating NUL: longer paths need the \\?\ form there.
WINDOWS_MAX_PATH = 259


def _is_control(ch: str) -> bool:
    return ord(ch) < 32 or ord(ch) == 127


def reserved_device(name: str) -> bool:
    """Does Windows take ``name`` for a device (``CON``, ``aux.html``, ``Com1 .txt``)?"""
    return name.split(".", 1)[0].rstrip(" ").upper() in RESERVED_DEVICES


def windows_problem(name: str) -> str | None:
    """Why Windows cannot store a file under ``name`` (one path component); None: it can."""
    if name in ("", ".", ".."):
        return f"{name!r} is not a file name"
    bad = sorted({ch for ch in name if ch in WINDOWS_FORBIDDEN or _is_control(ch)})
    if bad:
        shown = " ".join(repr(ch) for ch in bad)
        return f"Windows does not allow the character{'s' if len(bad) > 1 else ''} {shown} in a file name"
    if name[-1] in ". ":
        return "Windows drops a dot or space at the end of a file name"
    if reserved_device(name):
        return f"Windows reserves the name {name.split('.', 1)[0].rstrip(' ')} for a device"
    if len(name.encode("utf-16-le")) // 2 > MAX_NAME_BYTES:
        return f"the name is longer than Windows allows ({MAX_NAME_BYTES} characters)"
    return None


def name_problem(name: str, platform: str = sys.platform) -> str | None:
    """Why a file cannot be written under ``name`` on ``platform``; None: it can."""
    if platform == "win32":
        return windows_problem(name)
    if name in ("", ".", ".."):
        return f"{name!r} is not a file name"
    if "/" in name or "\x00" in name:
        return "a file name cannot hold '/' or a NUL character"
    if len(os.fsencode(name)) > MAX_NAME_BYTES:
        return f"the name is longer than the disk allows ({MAX_NAME_BYTES} bytes)"
    return None


def collision_key(name: str) -> str:
    """Two names with one key may be one file on Windows or macOS (case and Unicode
    normalisation do not tell them apart there)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def _clip(text: str, max_bytes: int) -> str:
    """``text`` cut to at most ``max_bytes`` of UTF-8, never inside a character."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", "ignore")


def portable_name(text: str, fallback: str = "file", max_bytes: int = MADE_NAME_BYTES) -> str:
    """``text`` made into a name every system stores as it is: characters Windows refuses
    (and undecodable bytes) become ``_``, dots and spaces at either end go (a leading
    dot hides a file on Linux and macOS), a device name gets a ``_`` in front, and the
    name is cut to ``max_bytes`` of UTF-8. Composed Unicode (NFC), as macOS and
    Windows users type it. ``fallback`` when nothing is left."""
    text = unicodedata.normalize("NFC", text)
    safe = "".join("_" if ch in WINDOWS_FORBIDDEN or _is_control(ch)
                   or 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)
    safe = _clip(safe.strip(". "), max_bytes - 1).strip(". ") or fallback
    return f"_{safe}" if reserved_device(safe) else safe


def unique_names(names: Iterable[str], taken: Iterable[str] = ()) -> list[str]:
    """``names`` in order, each one that collides (:func:`collision_key`) with one before
    it or with ``taken`` given ``-2``, ``-3``... at its end, so all differ everywhere."""
    seen = {collision_key(n) for n in taken}
    out: list[str] = []
    for name in names:
        candidate, n = name, 1
        while collision_key(candidate) in seen:
            n += 1
            candidate = f"{name}-{n}"
        seen.add(collision_key(candidate))
        out.append(candidate)
    return out


def long_path(path: str | os.PathLike[str], platform: str = sys.platform) -> str:
    """``path`` as the operating system can open it however long it is.

    On Windows an absolute path longer than ``MAX_PATH`` gets the ``\\\\?\\`` form
    (``\\\\?\\UNC\\server\\share\\...`` for a network path), which the file functions
    take at any length (Python 3.11 only does without it where long paths are switched
    on in the registry). Anything else, and every path elsewhere, is returned as it is.
    """
    text = os.fspath(path)
    if platform != "win32" or len(text) <= WINDOWS_MAX_PATH or text.startswith("\\\\?\\"):
        return text
    if not ntpath.isabs(text):
        return text  # the \\?\ form takes only absolute paths; the caller gives those
    text = ntpath.normpath(text)  # the \\?\ form skips this, so "a/../b" must not reach it
    if text.startswith("\\\\"):
        return "\\\\?\\UNC\\" + text[2:]
    return "\\\\?\\" + text
