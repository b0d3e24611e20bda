"""Readers that turn an opened folder or file into pages and skip records.

``scan(root)`` is the one entry point the pipeline uses.
"""

from workbench.archive.scan import scan

__all__ = ["scan"]
