"""Screenshots of Detection ▸ Calibrate and of doubtful members, taken under Xvfb.

    python scripts/screenshot_calibration.py [--archive FOLDER] [--out docs/screenshots]

Like ``scripts/screenshots.py`` (whose Xvfb set-up it reuses): runs the real window on
the dev Gold Set (the demo archive when it is absent), opens the calibration view with
τ moved a little below the run's, and saves ``calibrate.png`` (the dialog) and
``doubtful.png`` (the member list of a cluster with doubtful members, and the headers).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from screenshots import DEMO, GOLD, SIZE, ensure_xvfb  # noqa: E402


def outer(args: argparse.Namespace) -> int:
    xvfb = ensure_xvfb()
    display = next((f":{n}" for n in range(130, 170) if not Path(f"/tmp/.X{n}-lock").exists()), None)
    if display is None:
        sys.exit("no free X display number between :130 and :169")
    server = subprocess.Popen([xvfb, display, "-screen", "0", f"{SIZE[0] + 80}x{SIZE[1] + 80}x24",
                               "-nolisten", "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb")
        cmd = [sys.executable, __file__, "--inner", "--archive", str(args.archive), "--out", str(args.out)]
        return subprocess.run(cmd, env=env).returncode
    finally:
        server.terminate()
        server.wait(10)


def inner(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(REPO))
    from PySide6.QtCore import QEventLoop, QSettings, Qt, QTimer
    from PySide6.QtGui import QImage

    from workbench.gui.app import make_app, make_window
    from workbench.gui.calibration import open_calibration
    from workbench.gui.compare import DoubtRole
    from workbench.gui.prompter import Prompter

    class Quiet(Prompter):
        def error(self, title, text, details=""):
            print(f"error: {title}: {text}", file=sys.stderr)

    app = make_app()
    tmp = Path(tempfile.mkdtemp(prefix="workbench-shots-"))
    os.environ["WORKBENCH_DATA_DIR"] = str(tmp)
    settings = QSettings(str(tmp / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("coder", "Maria Lopez")
    window = make_window(settings, Quiet(), projects_folder=tmp / "projects")
    window.resize(*SIZE)
    window.show()
    args.out.mkdir(parents=True, exist_ok=True)

    def small(pixmap):
        # 256 colours are plenty for a window and keep the PNG small for the repository.
        flags = Qt.ImageConversionFlag.ThresholdDither | Qt.ImageConversionFlag.AvoidDither
        return pixmap.toImage().convertToFormat(QImage.Format.Format_Indexed8, flags)

    def wait(ms: int) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    finished: list[object] = []
    window.run_finished.connect(finished.append)
    window.open_archive(args.archive)
    deadline = time.monotonic() + 300
    while not finished and time.monotonic() < deadline:
        wait(50)
    if not finished:
        print("the run did not finish", file=sys.stderr)
        return 1

    dialog = open_calibration(window)
    if dialog is None:
        return 1
    dialog.resize(820, 560)
    run_tau = dialog.presenter.run_tau
    # A little below the run's τ, where the trade-off shows: a few clusters would merge.
    target = next((t for t in sorted(dialog.presenter.grid(), reverse=True)
                   if t < run_tau and dialog.presenter.counts(t).change.merges), run_tau)
    dialog.set_tau(target)
    dialog.view.setFocus()
    wait(400)
    small(dialog.grab()).save(str(args.out / "calibrate.png"))
    print(f"saved calibrate.png (τ {target:.2f}: {dialog.text.text()})", flush=True)
    dialog.reject()

    # The cluster with the most doubtful members, its first doubtful member shown.
    view = window.compare
    best, most = 0, 0
    for i in range(min(60, window.model.rowCount())):
        window.select_row(i)
        app.processEvents()
        n = sum(bool(view.members.item(k).data(DoubtRole)) for k in range(view.members.count()))
        if n > most:
            best, most = i, n
    window.select_row(best)
    app.processEvents()
    for k in range(view.members.count()):
        if view.members.item(k).data(DoubtRole):
            view.members.setCurrentRow(k)
            view.members.scrollToItem(view.members.item(k), view.members.ScrollHint.PositionAtCenter)
            break
    wait(400)
    # Only the member list and the headers: enough to show the marks, and a small file.
    shot = view.grab()
    crop = shot.copy(0, 0, min(shot.width(), 980), min(shot.height(), 460))
    small(crop).save(str(args.out / "doubtful.png"))
    print(f"saved doubtful.png ({most} doubtful members)", flush=True)
    window.close()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archive", type=Path, default=GOLD if GOLD.exists() else DEMO)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    return inner(args) if args.inner else outer(args)


if __name__ == "__main__":
    sys.exit(main())
