"""Screenshots of the workbench window for the README, taken under Xvfb.

    python scripts/screenshots.py [--archive FOLDER] [--out docs/screenshots]

Starts a virtual X server (installs ``xvfb`` with apt-get when missing and run as
root), runs the real window in it with throw-away settings and project folder,
opens the dev Gold Set (``../shared/data/goldset-dev``; the demo archive when it is
absent) and saves:

* ``progress.png``: the status area while detection runs (stage, counts, bar, Cancel);
* ``side-by-side.png``: a Gold Set cluster with its reference and a member side by
  side, spot signatures highlighted and one shared signature chosen;
* ``coding.png``: the coding flow: a sub-tag in the codebook, a member marked "not this
  story" (struck through), the memo pane with a memo, the counts in the status bar;
* ``tag-dialog.png``: Codebook ▸ New Tag (Ctrl+T) with every field.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GOLD = REPO.parent / "shared" / "data" / "goldset-dev"
DEMO = REPO / "workbench" / "resources" / "demo-archive"
SIZE = (1600, 960)


# Libraries Qt's xcb platform plugin needs beyond a minimal Debian image.
XCB_DEBS = ["libxcb-icccm4", "libxcb-keysyms1", "libxcb-cursor0", "libxcb-image0", "libxcb-render-util0",
            "libxkbcommon-x11-0", "libxcb-xinerama0", "libxcb-shape0", "libxcb-randr0", "libxcb-xkb1"]


def _apt_install(debs: list[str]) -> None:
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print(f"installing {' '.join(debs)} with apt-get …", flush=True)
        subprocess.run(["apt-get", "install", "-y", "-q", *debs], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def ensure_xvfb() -> str:
    if not shutil.which("Xvfb"):
        _apt_install(["xvfb"])
    exe = shutil.which("Xvfb")
    if not exe:
        sys.exit("Xvfb is not installed (apt-get install xvfb) and cannot be installed from here.")
    missing = subprocess.run(["sh", "-c", "ldconfig -p | grep -c 'libxcb-icccm.so.4'"],
                             capture_output=True, text=True).stdout.strip()
    if missing == "0":
        _apt_install(XCB_DEBS)
    return exe


def outer(args: argparse.Namespace, script: str = __file__) -> int:
    """Run ``script --inner`` on a fresh virtual X display (Qt's offscreen platform if the
    xcb one fails)."""
    xvfb = ensure_xvfb()
    display = None
    for n in range(90, 170):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            display = f":{n}"
            break
    if display is None:
        sys.exit("no free X display number between :90 and :169")
    server = subprocess.Popen([xvfb, display, "-screen", "0", f"{SIZE[0] + 80}x{SIZE[1] + 80}x24",
                               "-nolisten", "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb")
        cmd = [sys.executable, script, "--inner", "--archive", str(args.archive), "--out", str(args.out)]
        result = subprocess.run(cmd, env=env)
        if result.returncode != 0:
            print("the xcb platform failed; trying Qt's offscreen platform instead", flush=True)
            env["QT_QPA_PLATFORM"] = "offscreen"
            result = subprocess.run(cmd, env=env)
        return result.returncode
    finally:
        server.terminate()
        server.wait(10)


def open_window(args: argparse.Namespace):
    """The app and a real window with throw-away settings and project folder, shown."""
    sys.path.insert(0, str(REPO))
    from PySide6.QtCore import QSettings

    from workbench.gui.app import make_app, make_window
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
    return app, window


def wait(ms: int) -> None:
    """Let the event loop run for ``ms`` milliseconds."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def open_and_detect(args: argparse.Namespace):
    """The window with ``args.archive`` opened and its detection run to the end:
    (app, window), or None (said on stderr) when the run did not finish in 5 minutes."""
    app, window = open_window(args)
    finished: list[object] = []
    window.run_finished.connect(finished.append)
    window.open_archive(args.archive)
    deadline = time.monotonic() + 300
    while not finished and time.monotonic() < deadline:
        wait(50)
    if not finished:
        print("the run did not finish", file=sys.stderr)
        return None
    return app, window


def save_small(grabbed, path: Path) -> None:
    """Save a grabbed widget (a QPixmap or QImage) with 256 colours: plenty for a window,
    and a small PNG for the repository."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage

    image = grabbed.toImage() if hasattr(grabbed, "toImage") else grabbed
    flags = Qt.ImageConversionFlag.ThresholdDither | Qt.ImageConversionFlag.AvoidDither
    image.convertToFormat(QImage.Format.Format_Indexed8, flags).save(str(path))


def run(doc: str, inner_fn, script: str) -> int:
    """A screenshot script's main: under Xvfb (``outer``), then ``inner_fn`` inside it."""
    args = parse_args(doc)
    return inner_fn(args) if args.inner else outer(args, script)


def parse_args(doc: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--archive", type=Path, default=GOLD if GOLD.exists() else DEMO)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


def inner(args: argparse.Namespace) -> int:
    from PySide6.QtWidgets import QApplication

    app, window = open_window(args)
    finished: list[object] = []
    window.run_finished.connect(finished.append)
    window.open_archive(args.archive)
    shot_taken = False
    deadline = time.monotonic() + 300
    while not finished and time.monotonic() < deadline:
        wait(50)
        if not shot_taken and window.run_panel.bar.value() >= 250:
            wait(300)
            window.grab().save(str(args.out / "progress.png"))
            shot_taken = True
            print("saved progress.png", flush=True)
    if not finished:
        print("the run did not finish", file=sys.stderr)
        return 1
    if not shot_taken:
        print("the run was too quick for a progress screenshot", file=sys.stderr)

    from workbench.gui.coding.tagform import free_keys

    project = window.project
    for name, colour in (("unions", "#e6194b"), ("local issue", "#3cb44b"), ("health", "#4363d8"),
                         ("economy", "#f58231")):
        project.add_tag(name, colour=colour, shortcut=free_keys(project.codebook())[0])
    rows = window.model.rows
    # Code a few clusters so the list and the status bar look like a working day.
    for i, tag in ((1, "health"), (2, "economy"), (3, "unions"), (5, "local issue")):
        if i < len(rows):
            project.tag_clusters([rows[i].id], [project.tag_by_name(tag).id])
    window.refresh(select_ids=[])
    # A cluster whose first member shares a good part, not all, of its signatures, and
    # (on the Gold Set, one folder per true cluster) is a true near duplicate.
    best, best_score = 0, -1.0
    for i, r in enumerate(window.model.rows[:25]):
        members = project.members(r.id)
        if len(members) < 3 or members[1].similarity is None:
            continue
        folders = {project.page(m.page_id).source.split("/")[0] for m in members[:2]}
        if len(folders) > 1:
            continue
        score = -abs(members[1].similarity - 0.55)
        if score > best_score:
            best, best_score = i, score
    window.select_row(best)
    app.processEvents()
    view = window.compare
    if view.why.count():
        view.why.setCurrentRow(0)
        view.choose_signature(view.why.item(0).data(view.why.item(0).type() + 0x102) or
                              next(iter(view.shared)))
    wait(400)
    window.grab().save(str(args.out / "side-by-side.png"))
    print("saved side-by-side.png", flush=True)
    coding_shots(window, project, args)
    window.close()
    QApplication.processEvents()
    return 0


def coding_shots(window, project, args: argparse.Namespace) -> None:
    """The coding flow: sub-tag, a member that is not the story, a memo; the tag dialog."""
    from workbench.gui.coding.tagdialog import TagDialog
    from workbench.gui.coding.tagform import new_tag_form

    economy = project.tag_by_name("economy")
    project.add_tag("strike", "Work stoppages and walk-outs", "#911eb4", None, economy.id)
    window.refresh()
    members = window.compare.members
    if members.count() > 2:
        members.setCurrentRow(members.count() - 1)  # the least similar member
        window.coding.toggle_not_this_story()
    window.memo_pane.cluster.setPlainText("Same wire story; the last copy is a different "
                                          "follow-up (marked not this story).")
    window.memo_pane.flush()
    window.refresh()
    wait(400)
    window.grab().save(str(args.out / "coding.png"))
    print("saved coding.png", flush=True)
    dialog = TagDialog("New Tag", new_tag_form(project.codebook()), project.codebook(), None, window)
    dialog.name.setText("labour dispute")
    dialog.parent_box.setCurrentIndex(max(0, dialog.parent_box.findData(economy.id)))
    dialog.description.setPlainText("Strikes, lockouts and pay talks")
    dialog.show()
    wait(300)
    dialog.grab().save(str(args.out / "tag-dialog.png"))
    print("saved tag-dialog.png", flush=True)
    dialog.close()


def main() -> int:
    args = parse_args(__doc__)
    return inner(args) if args.inner else outer(args)


if __name__ == "__main__":
    sys.exit(main())
