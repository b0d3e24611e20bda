"""Screenshots of Detection ▸ Calibrate and of doubtful members, taken under Xvfb.

    python scripts/screenshot_calibration.py [--archive FOLDER] [--out docs/screenshots]

Like ``scripts/screenshots.py`` (whose Xvfb set-up it reuses): runs the real window on
the dev Gold Set (the demo archive when it is absent), opens the calibration view with
τ moved a little below the run's, and saves ``calibrate.png`` (the dialog) and
``doubtful.png`` (the member list of a cluster with doubtful members, and the headers).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from screenshots import open_and_detect, run, save_small, wait  # noqa: E402


def inner(args: argparse.Namespace) -> int:

    from workbench.gui.detection.calibration import open_calibration
    from workbench.gui.sidebyside.view import DoubtRole

    opened = open_and_detect(args)
    if opened is None:
        return 1
    app, window = opened

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
    save_small(dialog.grab(), args.out / "calibrate.png")
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
    save_small(crop, args.out / "doubtful.png")
    print(f"saved doubtful.png ({most} doubtful members)", flush=True)
    window.close()
    return 0


def main() -> int:
    return run(__doc__, inner, __file__)


if __name__ == "__main__":
    sys.exit(main())
