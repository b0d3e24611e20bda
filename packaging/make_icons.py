#!/usr/bin/env python3
"""Render the app icon (workbench/resources/icons/app.svg) as the PNG sizes Linux desktops
look for, into packaging/linux/icons/hicolor/SIZExSIZE/apps/APP_ID.png, plus the SVG itself
as the scalable one. Run by hand after changing the icon; the output is committed (small).

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/make_icons.py
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "workbench" / "resources" / "icons" / "app.svg"
APP_ID = "org.spotsigs.Workbench"
HICOLOR = HERE / "linux" / "icons" / "hicolor"
# The sizes of the freedesktop icon theme spec's hicolor that desktops ask for (menus,
# launchers, docks, software centres; 512 for high-density screens).
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def render(svg: Path, size: int) -> QImage:
    """The SVG drawn into a transparent size x size image."""
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not an SVG Qt can draw")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def main() -> int:
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    for size in SIZES:
        out = HICOLOR / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        if not render(SOURCE, size).save(str(out), "PNG"):
            raise SystemExit(f"could not write {out}")
        print(out.relative_to(HERE))
    scalable = HICOLOR / "scalable" / "apps" / f"{APP_ID}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SOURCE, scalable)
    print(scalable.relative_to(HERE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
