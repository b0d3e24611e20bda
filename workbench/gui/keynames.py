"""Shortcut keys as each system names and binds them (no Qt).

The window's shortcuts are written the portable Qt way ("Ctrl+Z"). Qt binds Ctrl to the
Command key on macOS (and Meta to Control), and its menus there show the keys as symbols
(⇧⌘Z). The F1 table is text, so it renders its keys through :func:`key_label` for the
system it runs on, in the menus' own symbols and order, instead of saying "Ctrl" to a Mac
user.

A few Ctrl keys become system shortcuts on macOS once Qt turns them into Command keys:
:data:`MAC_ALTERNATIVES` gives those another key there (:func:`platform_keys`).
"""

from __future__ import annotations

import re
import sys

# The system the window runs on; tests set it to "darwin" to see what a Mac user gets.
PLATFORM = sys.platform

# Ctrl keys that are system shortcuts on macOS as Command keys, and the key used there
# instead. ⌘M minimises the window (a Mac user presses it by habit, and loses the window
# into the Dock instead of reaching the memo), so the memo is ⇧⌘M there. The others in
# use (⌘O, ⇧⌘O, ⌘E, ⌘Z, ⇧⌘Z, ⌘T, ⇧⌘T, ⌘B, ⌘F, ⌘K, ⌘Q, ⌘Home, ⌘End) are what Mac
# applications use them for, or free; ⌘H (hide), ⌘Tab, ⌘Space and ⌘` are not used.
MAC_ALTERNATIVES: dict[str, str] = {"Ctrl+M": "Ctrl+Shift+M"}

# Qt's names on macOS: Ctrl is Command, Alt is Option, Meta is Control. Apple writes the
# symbols in the order Control, Option, Shift, Command, with no "+" (⌃⌥⇧⌘).
_MAC_MODIFIERS = {"Meta": "⌃", "Alt": "⌥", "Shift": "⇧", "Ctrl": "⌘"}
_MODIFIER = re.compile(r"\b(Ctrl|Shift|Alt|Meta)\+")
# One key with its modifiers ("Ctrl+Shift+Z", "Alt+1"): a run of "Modifier+" then the key.
_COMBINATION = re.compile(r"\b((?:(?:Ctrl|Shift|Alt|Meta)\+)+)(\S+)")


def is_mac(platform: str) -> bool:
    return platform == "darwin"


def platform_keys(keys: str, platform: str | None = None) -> str:
    """The portable Qt key text to bind for ``keys`` on ``platform`` (default: this one)."""
    platform = PLATFORM if platform is None else platform
    return MAC_ALTERNATIVES.get(keys, keys) if is_mac(platform) else keys


def key_label(keys: str, platform: str | None = None) -> str:
    """``keys`` (one or more keys as the F1 table writes them: "Ctrl+Z / Ctrl+Shift+Z",
    "Alt+1 – Alt+9") as a coder on ``platform`` reads them: unchanged on Linux and
    Windows, "⌘Z / ⇧⌘Z" and "⌥1 – ⌥9" on macOS."""
    platform = PLATFORM if platform is None else platform
    if not is_mac(platform):
        return keys
    keys = " / ".join(platform_keys(part, platform) for part in keys.split(" / "))

    def mac(match: re.Match[str]) -> str:
        held = set(_MODIFIER.findall(match.group(1)))
        return "".join(symbol for name, symbol in _MAC_MODIFIERS.items() if name in held) + match.group(2)

    return _COMBINATION.sub(mac, keys)


def prose_keys(text: str, platform: str | None = None) -> str:
    """A sentence that names a modifier on its own ("Shift or Ctrl to select several"),
    in the words of ``platform``'s keyboard: Ctrl is ⌘ on macOS."""
    platform = PLATFORM if platform is None else platform
    if not is_mac(platform):
        return text
    return re.sub(r"\bCtrl\b(?!\+)", "⌘", text)


def shortcut_rows(rows: list[tuple[str, str]], platform: str | None = None) -> list[tuple[str, str]]:
    """The F1 table's rows for ``platform``: keys and the modifiers named in the text."""
    return [(key_label(keys, platform), prose_keys(action, platform)) for keys, action in rows]
