#!/usr/bin/env python3
"""Render the app icon (workbench/resources/icons/app.svg) as the PNG sizes Linux desktops
look for, into packaging/linux/icons/hicolor/SIZExSIZE/apps/APP_ID.png, plus the SVG itself
as the scalable one, and as the macOS app bundle's packaging/macos/workbench.icns. Run by
hand after changing the icon; the output is committed (small).

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/make_icons.py
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "workbench" / "resources" / "icons" / "app.svg"
APP_ID = "org.spotsigs.Workbench"
HICOLOR = HERE / "linux" / "icons" / "hicolor"
# The sizes of the freedesktop icon theme spec's hicolor that desktops ask for (menus,
# launchers, docks, software centres; 512 for high-density screens).
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICNS = HERE / "macos" / "workbench.icns"
# The .icns entry types that hold a PNG, and its size in pixels: each point size once
# and at twice the pixels for Retina screens (what `iconutil` makes from an .iconset).
ICNS_TYPES = {b"icp4": 16, b"ic11": 32, b"icp5": 32, b"ic12": 64, b"ic07": 128, b"ic13": 256,
              b"ic08": 256, b"ic14": 512, b"ic09": 512, b"ic10": 1024}


def icns_bytes(pngs: dict[bytes, bytes]) -> bytes:
    """An Apple icon file: "icns" and its length, then per entry its type, its length
    (with these 8 bytes) and the PNG (big-endian lengths)."""
    body = b"".join(kind + (8 + len(png)).to_bytes(4, "big") + png for kind, png in pngs.items())
    return b"icns" + (8 + len(body)).to_bytes(4, "big") + body


def png_bytes(image: QImage) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise SystemExit("could not encode a PNG")
    return bytes(data.data())


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
    ICNS.parent.mkdir(parents=True, exist_ok=True)
    ICNS.write_bytes(icns_bytes({kind: png_bytes(render(SOURCE, size))
                                 for kind, size in ICNS_TYPES.items()}))
    print(ICNS.relative_to(HERE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
