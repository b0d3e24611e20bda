"""Screenshots of the Story Timeline and the Corpus Dashboard for the README, under Xvfb.

    python scripts/figure_screenshots.py [--archive FOLDER] [--out docs/screenshots]

Runs the real window as scripts/screenshots.py does (a virtual X server, throw-away
settings and project folder), opens the dev Gold Set (the demo archive when it is
absent), and saves ``timeline.png`` (the cluster spread over most sites, one member
marked "not this story") and ``dashboard.png``.

The Gold Set's saved pages carry neither a URL nor a capture date; the dates the figures
show are the publication dates the run itself stores (those a page states for machines,
and the ones htmldate finds in the clustered pages: workbench.usecases.published_dates).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import screenshots  # noqa: E402  (the X server, the window, waiting)

REPO = screenshots.REPO


def spread_cluster(window, project) -> int:
    """The row of a cluster among the 30 largest with a first publisher and about ten
    sites with dated pages (a spread a reader can follow), the most dated pages on a tie."""
    from workbench.figures.spread import cluster_spread

    best, best_score = 0, (-1, -1)
    for i, row in enumerate(window.model.rows[:30]):
        spread = cluster_spread(project.reader(), row.id)
        if spread is None or spread.first is None:
            continue
        score = (-abs(len(spread.sites) - 10), len(spread.dated))
        if score > best_score:
            best, best_score = i, score
    return best


def inner(args) -> int:
    from PySide6.QtWidgets import QApplication

    opened = screenshots.open_and_detect(args)
    if opened is None:
        return 1
    app, window = opened
    project = window.project
    dated = project.reader().execute("SELECT count(*) FROM pages WHERE published IS NOT NULL").fetchone()[0]
    print(f"publication dates stored by the run: {dated:,} pages", flush=True)
    window.select_row(spread_cluster(window, project))
    members = window.compare.members
    if members.count() > 3:
        members.setCurrentRow(members.count() - 1)  # the least similar member
        window.coding.toggle_not_this_story()
    window.actions_by_name["timeline"].trigger()
    timeline = window.figures.timeline
    timeline.resize(1150, 640)
    window.figures.follow()
    screenshots.wait(600)
    timeline.grab().save(str(args.out / "timeline.png"))
    print("saved timeline.png", flush=True)
    timeline.close()
    window.actions_by_name["dashboard"].trigger()
    dashboard = window.figures.dashboard
    dashboard.resize(1500, 980)
    screenshots.wait(800)
    dashboard.grab().save(str(args.out / "dashboard.png"))
    print("saved dashboard.png", flush=True)
    dashboard.close()
    window.close()
    QApplication.processEvents()
    return 0


def main() -> int:
    args = screenshots.parse_args(__doc__)
    return inner(args) if args.inner else screenshots.outer(args, __file__)


if __name__ == "__main__":
    sys.exit(main())
