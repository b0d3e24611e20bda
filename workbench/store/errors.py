"""The one exception the store raises for problems a user can act on."""

from __future__ import annotations


class ProjectError(Exception):
    """A project file cannot be opened, migrated or changed as asked.

    The message is written for the person at the keyboard (it names the file
    and says what to do), so the GUI and CLI can show it as it is.
    """
