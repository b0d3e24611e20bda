"""Text from a crawl, made harmless to print on a terminal.

A file name, a link target, a URL or a skip reason that quotes them comes from whoever
made the archive. Printed as it is, ``ESC ] 0 ; ... BEL`` sets the terminal's title,
``ESC [ 2 J`` clears the screen, and other sequences move the cursor to overwrite lines
of the summary or, on some terminals, answer back as if typed. :func:`terminal_safe`
shows every control character as an escape (``\\x1b``, ``\\n``), so a sequence is seen,
never run; everything else, accents and scripts included, prints as it is.
"""

from __future__ import annotations

import re

# C0 controls (ESC, BEL, CR, LF, TAB, ...), DEL, the C1 controls (U+0080-U+009F: CSI and
# OSC have one-character forms there), and the lone surrogates Python uses for bytes of
# a file name that are not UTF-8 (printing one fails with UnicodeEncodeError).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the file name's byte as it was
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def terminal_safe(text: object) -> str:
    """``str(text)`` with every control character (C0, DEL, C1) shown as an escape."""
    return _UNSAFE.sub(_escape, str(text))
