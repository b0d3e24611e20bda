"""Stable 64-bit ids for signatures (Python's ``hash`` is salted per process)."""

from __future__ import annotations

from hashlib import blake2b


def signature_id(text: str) -> int:
    """A signed 64-bit id that is the same in every process and on every machine."""
    return int.from_bytes(blake2b(text.encode("utf-8"), digest_size=8).digest(), "little", signed=True)
