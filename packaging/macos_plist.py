"""The macOS app bundle's Info.plist entries (workbench.spec's BUNDLE step reads them).

A plain module, so the tests can check it without macOS or PyInstaller. The app is
``SpotSigs Workbench.app``; it opens ``.wbproj`` projects (its own document type, with an
exported UTI so Finder knows the extension) and crawl folders dropped on its Dock icon.
Finder hands both over as Apple events, which Qt turns into ``QFileOpenEvent``
(workbench/gui/fileopen.py), so PyInstaller's argv emulation stays off.
"""

from __future__ import annotations

from typing import Any

from workbench import LICENCE

APP_NAME = "SpotSigs Workbench"
BUNDLE_NAME = f"{APP_NAME}.app"
# The same reverse-DNS id as the Linux desktop files and QApplication.desktopFileName.
BUNDLE_ID = "org.spotsigs.Workbench"
PROJECT_UTI = "org.spotsigs.workbench.project"
PROJECT_EXTENSION = "wbproj"
PROJECT_MIME = "application/x-spotsigs-workbench-project"
# The locked PySide6 wheel is macosx_13_0 (scripts/check_wheels.py checks for the same).
MIN_MACOS = "13.0"
ICON_FILE = "workbench.icns"  # packaging/macos/, made by packaging/make_icons.py


def info_plist(version: str) -> dict[str, Any]:
    """The keys PyInstaller adds to its own (name, identifier, executable, icon)."""
    return {
        "CFBundleName": APP_NAME,
        "CFBundleDisplayName": APP_NAME,
        "CFBundleShortVersionString": version,
        "CFBundleVersion": version,
        "NSHumanReadableCopyright": f"Free software under the {LICENCE} licence.",
        "LSMinimumSystemVersion": MIN_MACOS,
        "LSApplicationCategoryType": "public.app-category.productivity",
        "NSHighResolutionCapable": True,
        # PyInstaller sets it for a console executable: a background app has no Dock icon
        # and no menu bar. The window is the app.
        "LSBackgroundOnly": False,
        "CFBundleDocumentTypes": [
            {
                "CFBundleTypeName": "SpotSigs Workbench Project",
                "CFBundleTypeRole": "Editor",
                "LSHandlerRank": "Owner",
                "LSItemContentTypes": [PROJECT_UTI],
                "CFBundleTypeIconFile": ICON_FILE,
            },
            {
                # A crawl folder dropped on the Dock icon opens like File ▸ Open Archive
                # Folder; never the default app for folders (Finder stays that).
                "CFBundleTypeName": "Crawl Folder",
                "CFBundleTypeRole": "Viewer",
                "LSHandlerRank": "Alternate",
                "LSItemContentTypes": ["public.folder"],
            },
        ],
        "UTExportedTypeDeclarations": [
            {
                "UTTypeIdentifier": PROJECT_UTI,
                "UTTypeDescription": "SpotSigs Workbench Project",
                # An SQLite database: without the workbench it is still one.
                "UTTypeConformsTo": ["public.data", "public.database"],
                "UTTypeIconFile": ICON_FILE,
                "UTTypeTagSpecification": {
                    "public.filename-extension": [PROJECT_EXTENSION],
                    "public.mime-type": [PROJECT_MIME],
                },
            },
        ],
    }
