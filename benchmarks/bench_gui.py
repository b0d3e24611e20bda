"""How responsive the workbench window stays while detection runs, and how fast it reacts.

    python benchmarks/bench_gui.py [FOLDER] [--workers N]

Opens FOLDER (default: ../shared/data/goldset-dev, else the demo archive) in the real
main window under QT_QPA_PLATFORM=offscreen with throw-away settings and project
folder. A 10 ms timer on the GUI thread records the gaps between its ticks during
the whole run; afterwards it times selecting clusters (side by side with highlights),
toggling a tag and undoing it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    gold = REPO.parent / "shared" / "data" / "goldset-dev"
    parser.add_argument("folder", nargs="?", type=Path,
                        default=gold if gold.exists() else REPO / "workbench" / "resources" / "demo-archive")
    parser.add_argument("--workers", type=int, default=None, help="parsing processes (default: CPUs)")
    parser.add_argument("--clusters", type=int, default=30, help="clusters to open side by side")
    args = parser.parse_args()

    from PySide6.QtCore import QElapsedTimer, QEventLoop, QSettings, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from workbench.gui.app import make_window
    from workbench.gui.prompter import Prompter

    class Silent(Prompter):
        def error(self, title, text, details=""):
            print(f"error: {title}: {text}", file=sys.stderr)

        def text(self, title, label, default=""):
            return "bench"

    app = QApplication([])
    tmp = Path(tempfile.mkdtemp(prefix="bench_gui_"))
    os.environ["WORKBENCH_DATA_DIR"] = str(tmp)
    settings = QSettings(str(tmp / "settings.ini"), QSettings.Format.IniFormat)
    window = make_window(settings, Silent(), projects_folder=tmp / "projects", workers=args.workers)
    window.resize(1400, 900)
    window.show()

    gaps: list[int] = []
    clock = QElapsedTimer()
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(10)
    timer.timeout.connect(lambda: gaps.append(clock.restart()))
    loop = QEventLoop()
    outcome: list[str] = []
    window.run_finished.connect(lambda _s: (outcome.append("finished"), loop.quit()))
    window.run_failed.connect(lambda m: (outcome.append(m), loop.quit()))
    clock.start()
    timer.start()
    t0 = time.perf_counter()
    window.open_archive(args.folder)
    loop.exec()
    wall = time.perf_counter() - t0
    timer.stop()
    if outcome != ["finished"]:
        print(f"run did not finish: {outcome}")
        return 1
    gaps.sort()
    p = lambda q: gaps[min(len(gaps) - 1, int(q * len(gaps)))]  # noqa: E731
    counts = window.project.counts()
    print(f"folder: {args.folder}")
    print(f"run: {wall:.1f} s wall, {counts.pages:,} pages in {counts.clusters:,} clusters")
    print(f"GUI-thread timer gaps during the run (10 ms timer, {len(gaps):,} ticks): "
          f"median {p(0.5)} ms, p99 {p(0.99)} ms, longest {gaps[-1]} ms")

    n = min(args.clusters, window.model.rowCount())
    times = []
    for row in range(n):
        t = time.perf_counter()
        window.select_row(row)
        app.processEvents()
        times.append((time.perf_counter() - t) * 1000)
    print(f"open a cluster side by side ({n} clusters, cold page cache): "
          f"median {statistics.median(times):.0f} ms, longest {max(times):.0f} ms")
    window.project.add_tag("bench", shortcut="1")
    window.refresh()
    window.select_row(0)
    t = time.perf_counter()
    window.coding.toggle_tag_key("1")
    tag_ms = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    window.coding.undo()
    undo_ms = (time.perf_counter() - t) * 1000
    print(f"tag the selected cluster: {tag_ms:.0f} ms; undo (full refresh): {undo_ms:.0f} ms")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
