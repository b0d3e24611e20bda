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
# A key of MAC_ALTERNATIVES named in a text, as a whole ("Ctrl+M", not "Ctrl+Shift+M").
_ALTERNATIVES = [(re.compile(rf"(?<![\w+]){re.escape(key)}(?![\w+])"), mac)
                 for key, mac in MAC_ALTERNATIVES.items()]


def is_mac(platform: str) -> bool:
    return platform == "darwin"


def platform_keys(keys: str, platform: str | None = None) -> str:
    """The portable Qt key text to bind for ``keys`` on ``platform`` (default: this one)."""
    platform = PLATFORM if platform is None else platform
    return MAC_ALTERNATIVES.get(keys, keys) if is_mac(platform) else keys


def key_label(text: str, platform: str | None = None) -> str:
    """The keys named in ``text`` (the F1 table's "Ctrl+Z / Ctrl+Shift+Z", "Alt+1 – Alt+9",
    or a message's "Ctrl+Z takes it back", "Shift or Ctrl to select several") as a coder
    on ``platform`` reads them: unchanged on Linux and Windows; on macOS "⌘Z / ⇧⌘Z",
    "⌥1 – ⌥9", "⌘Z takes it back", "Shift or ⌘", and the keys of MAC_ALTERNATIVES as the
    ones bound there instead (⇧⌘M for Ctrl+M)."""
    platform = PLATFORM if platform is None else platform
    if not is_mac(platform):
        return text
    for key, mac_key in _ALTERNATIVES:
        text = key.sub(mac_key, text)

    def mac(match: re.Match[str]) -> str:
        held = set(_MODIFIER.findall(match.group(1)))
        return "".join(symbol for name, symbol in _MAC_MODIFIERS.items() if name in held) + match.group(2)

    return re.sub(r"\bCtrl\b", "⌘", _COMBINATION.sub(mac, text))


def shortcut_rows(rows: list[tuple[str, str]], platform: str | None = None) -> list[tuple[str, str]]:
    """The F1 table's rows for ``platform``: its keys, and the keys its texts name."""
    return [(key_label(keys, platform), key_label(action, platform)) for keys, action in rows]
