"""The files the workbench ships beside its code: icons, the stylesheet, the demo archive.

Found through ``importlib.resources``, so they are wherever the package is installed (a
wheel's site-packages, a PyInstaller bundle), never relative to a source tree. The GUI and
the CLI need real paths (Qt opens icons by name, a run walks a folder), so a package
imported from a zip file, which has none, is refused with a clear message.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def resource_path(*parts: str) -> Path:
    """The path of a shipped file or folder, e.g. ``resource_path("icons", "app.svg")``."""
    root = files(__name__)
    if not isinstance(root, Path):
        raise RuntimeError(f"SpotSigs Workbench must be installed as files, not imported from "
                           f"{root}: reinstall it with pip (its resources need real paths)")
    return root.joinpath(*parts)


DEMO_ARCHIVE = resource_path("demo-archive")
ICONS = resource_path("icons")
STYLESHEET = resource_path("style", "workbench.qss")
APP_ICON = ICONS / "app.svg"

__all__ = ["APP_ICON", "DEMO_ARCHIVE", "ICONS", "STYLESHEET", "resource_path"]
