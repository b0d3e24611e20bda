"""Screenshot of the reused passages side by side, for the README, taken under Xvfb.

    python scripts/screenshot_passages.py [--archive FOLDER] [--out docs/screenshots]

Like ``scripts/screenshots.py`` (whose Xvfb set-up and window it reuses): opens the dev
Gold Set (``../shared/data/goldset-dev``; the demo archive when it is absent), picks a
cluster whose member carries only part of its reference in a few passages (so bands,
gaps and the share sentence all show), and saves ``passages.png``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from screenshots import open_and_detect, run, save_small, wait  # noqa: E402


def inner(args: argparse.Namespace) -> int:

    opened = open_and_detect(args)
    if opened is None:
        return 1
    app, window = opened
    view = window.compare
    best: tuple[float, int, int] | None = None
    for row in range(min(window.model.rowCount(), 40)):
        window.select_row(row)
        app.processEvents()
        for k in range(1, view.members.count()):
            view.members.setCurrentRow(k)
            app.processEvents()
            marks = view.marks.get(view.left.page, view.right.page)
            share = marks.alignment.share_of_b or 0.0
            # Part of the page reused, in several passages: what a coder looks at twice.
            score = -abs(share - 0.7) + 0.02 * min(len(marks.alignment.passages), 5)
            if best is None or score > best[0]:
                best = (score, row, k)
    if best is None:
        print("no cluster with a member to show", file=sys.stderr)
        return 1
    window.select_row(best[1])
    view.members.setCurrentRow(best[2])
    app.processEvents()
    wait(400)
    print(view.right.passage_note.text(), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    save_small(window.grab(), args.out / "passages.png")
    print("saved passages.png", flush=True)
    window.close()
    app.processEvents()
    return 0


def main() -> int:
    return run(__doc__, inner, __file__)


if __name__ == "__main__":
    sys.exit(main())
