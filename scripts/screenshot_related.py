"""Screenshot of a cluster's related rewrites, for the README, taken under Xvfb.

    python scripts/screenshot_related.py [--archive FOLDER] [--out docs/screenshots]

Like ``scripts/screenshot_passages.py`` (whose Xvfb set-up and window it reuses): opens
the dev Gold Set (``../shared/data/goldset-dev``; the demo archive when it is absent),
picks a cluster with related pages below τ whose closest related page shares passages
with the cluster's reference, puts the keyboard in the related list (Ctrl+R) on that
row, so the page shows side by side with its passage bands and share sentence, and
saves ``related.png``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from screenshots import open_and_detect, run, save_small, wait  # noqa: E402


def _rows_listed(app, window, deadline: float) -> None:
    """Wait for the related list (the run's pairs are read on a worker the first time)."""
    while window.related.reader.busy and time.monotonic() < deadline:
        wait(50)
    app.processEvents()


def inner(args: argparse.Namespace) -> int:

    opened = open_and_detect(args)
    if opened is None:
        return 1
    app, window = opened
    view, pane = window.compare, window.related_pane
    best: tuple[float, int, int] | None = None
    for row in range(min(window.model.rowCount(), 60)):
        window.select_row(row)
        _rows_listed(app, window, time.monotonic() + 120)
        for k in range(min(len(pane.rows), 3)):
            pane.list.setCurrentRow(k)
            app.processEvents()
            marks = view.shown_marks
            if marks is None or not marks.alignment.passages:
                continue
            share = marks.alignment.share_of_b or 0.0
            # A rewrite: part of the page is the reference's text, in a few passages, and
            # the cluster has more than one related row to show.
            score = (-abs(share - 0.5) + 0.03 * min(len(marks.alignment.passages), 4)
                     + 0.05 * min(len(pane.rows), 3) + 0.02 * min(view.members.count(), 4))
            if best is None or score > best[0]:
                best = (score, row, k)
    if best is None:
        print("no cluster with a related page sharing passages", file=sys.stderr)
        return 1
    window.select_row(best[1])
    _rows_listed(app, window, time.monotonic() + 60)
    window.table.setFocus()
    pane.take_keyboard()  # what Ctrl+R does
    pane.list.setCurrentRow(best[2])
    app.processEvents()
    wait(400)
    print(pane.title.text(), "|", pane.list.currentItem().text(), "|",
          view.right.passage_note.text(), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    save_small(window.grab(), args.out / "related.png")
    print("saved related.png", flush=True)
    window.close()
    app.processEvents()
    return 0


def main() -> int:
    return run(__doc__, inner, __file__)


if __name__ == "__main__":
    sys.exit(main())
