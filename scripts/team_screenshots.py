"""Screenshots of team coding for the README, taken under Xvfb like scripts/screenshots.py.

    python scripts/team_screenshots.py [--archive FOLDER] [--out docs/screenshots]

Opens the archive (the dev Gold Set, else the demo archive, as scripts/screenshots.py does),
draws a reliability sample, hands it out to two coders, codes
their copies (they disagree on some clusters, with memos), brings both back and saves
``review-queue.png`` (Codebook ▸ Review Disagreements…) and ``agreement.png``
(Codebook ▸ Agreement…).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import screenshots  # noqa: E402 - the sibling script: Xvfb, the window, waiting

CODES = {  # coder -> tag per cluster (in sample order) and a memo on the second cluster
    "Ana Ruiz": (["labour", "health", "local government", "weather"],
                 "Library hours and older readers' wellbeing: I read it as health."),
    "Ben Okafor": (["labour", "local government", "local government", "labour"],
                   "A council budget vote: local government. The Metro Herald copy is an opinion piece."),
}


def inner(args) -> int:
    from PySide6.QtWidgets import QApplication

    from workbench.gui.coding.agreement_dialog import show_agreement
    from workbench.gui.coding.review_dialog import review_disagreements
    from workbench.store import Project
    from workbench.store.team import bring_in, draw_sample, hand_out

    app, window = screenshots.open_window(args)
    finished: list[object] = []
    window.run_finished.connect(finished.append)
    window.open_archive(args.archive)
    while not finished:
        screenshots.wait(100)
    project = window.project
    for key, name in enumerate(("labour", "health", "local government", "weather"), 1):
        project.add_tag(name, shortcut=str(key))
    sample = draw_sample(project, n=4, seed=2026, reliability=True)
    # The copies are work files, not screenshots: beside the throw-away project.
    out = Path(tempfile.mkdtemp(prefix="team-copies-"))
    copies = hand_out(project, list(CODES), out)
    for path, (tags, memo) in zip(copies, CODES.values(), strict=True):
        with Project.open(path, backups=0) as copy:
            for cluster, tag in zip(sample.clusters, tags, strict=True):
                found = copy.tag_by_name(tag)
                assert found is not None
                copy.tag_clusters([cluster], [found.id])
            copy.add_memo(sample.clusters[1], memo)
            if path == copies[1]:  # Ben: the last copy is another story
                last = copy.members(sample.clusters[1])[-1].page_id
                copy.set_excluded(sample.clusters[1], [last], True)
    for path in copies:
        bring_in(project, path)
    window.refresh()
    dialog = review_disagreements(window)
    assert dialog is not None
    dialog.move(window.x() + 380, window.y() + 160)
    screenshots.wait(600)
    dialog.grab().save(str(Path(args.out) / "review-queue.png"))
    window.grab().save(str(Path(args.out) / "review-window.png"))
    print("saved review-queue.png and review-window.png", flush=True)
    dialog.close()
    table = show_agreement(window)
    assert table is not None
    screenshots.wait(600)
    table.grab().save(str(Path(args.out) / "agreement.png"))
    print("saved agreement.png", flush=True)
    table.close()
    window.close()
    QApplication.processEvents()
    del app
    return 0


def main() -> int:
    args = screenshots.parse_args(__doc__)
    return inner(args) if args.inner else screenshots.outer(args, script=__file__)


if __name__ == "__main__":
    sys.exit(main())
