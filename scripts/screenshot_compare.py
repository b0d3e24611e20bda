"""Screenshot of Detection ▸ Compare Methods for the README, taken under Xvfb.

    python scripts/screenshot_compare.py [--archive GOLD_FOLDER] [--out docs/screenshots]

Like ``scripts/screenshots.py`` (whose Xvfb set-up it reuses): compares every method
that can be loaded on the dev Gold Set (``../shared/data/goldset-dev``; the demo archive
made into a gold folder when it is absent), with a project open on it so "Use This
Method" is live, and saves ``compare-methods.png``. The comparison runs every method
over the whole set: a few minutes on two cores.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from screenshots import DEMO, run, save_small, wait  # noqa: E402

DIALOG_SIZE = (1240, 900)


def gold_of(archive: Path) -> Path:
    """``archive`` if it is a gold folder; the demo archive as one (a story per folder) if not."""
    if archive.resolve() != DEMO.resolve():
        return archive
    root = Path(tempfile.mkdtemp(prefix="workbench-gold-")) / "demo-gold"
    for page in DEMO.rglob("*.html"):
        (root / page.stem).mkdir(parents=True, exist_ok=True)
        shutil.copy(page, root / page.stem / f"{page.parent.name}.html")
    return root


def loadable_methods() -> list[str]:
    from workbench.detect.registry import METHODS, SPOTSIGS, make_detector

    methods = []
    for name in METHODS:
        try:
            if name != SPOTSIGS:
                make_detector(name)
        except Exception as exc:  # noqa: BLE001 - a method not yet in this copy is left out
            print(f"leaving out {name}: {type(exc).__name__}: {exc}", flush=True)
            continue
        methods.append(name)
    return methods


def inner(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(REPO))

    from workbench.gui.app import make_app
    from workbench.gui.detection.compare_dialog import CompareDialog
    from workbench.store import Project

    app = make_app()
    args.out.mkdir(parents=True, exist_ok=True)
    gold = gold_of(args.archive)
    methods = loadable_methods()
    tmp = Path(tempfile.mkdtemp(prefix="workbench-shots-"))
    project = Project.create(tmp / f"{gold.name}.wbproj", str(gold))
    dialog = CompareDialog(None, project)
    dialog.set_gold_folder(gold)
    dialog.set_methods(methods)
    dialog.resize(*DIALOG_SIZE)
    dialog.show()
    done: list[object] = []
    dialog.compared.connect(done.append)
    dialog.failed.connect(done.append)
    dialog.progress_shown.connect(lambda text: print(f"  {text}", flush=True) if "starting" in text else None)
    started = time.monotonic()
    if not dialog.run():
        print(f"cannot run: {dialog.problem_label.text()}", file=sys.stderr)
        return 1
    while not done and time.monotonic() - started < 1800:
        wait(100)
    if not done or isinstance(done[0], str):
        print(f"the comparison did not finish: {done}", file=sys.stderr)
        return 1
    print(f"compared {', '.join(methods)} in {time.monotonic() - started:.0f} s", flush=True)
    wait(400)
    save_small(dialog.grab(), args.out / "compare-methods.png")
    print("saved compare-methods.png", flush=True)
    print(dialog.summary.text(), flush=True)
    for row in dialog.presenter.rows:
        print("  " + " | ".join(row.cells), flush=True)
    dialog.close()
    project.close()
    app.processEvents()
    return 0


def main() -> int:
    return run(__doc__, inner, __file__)


if __name__ == "__main__":
    sys.exit(main())
