"""Readers that turn an opened folder or file into pages and skip records.

``scan(root)`` is the one entry point the pipeline uses.
"""

from workbench.archive.common import PAGE_LIMIT_BYTES
from workbench.archive.scan import scan

__all__ = ["PAGE_LIMIT_BYTES", "scan"]
