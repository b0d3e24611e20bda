"""How responsive the workbench window stays while detection runs, and how fast it reacts.

    python benchmarks/bench_gui.py [FOLDER] [--workers N] [--warc] [--downs N]

Opens FOLDER (default: ../shared/data/goldset-dev, else the demo archive) in the real
main window under QT_QPA_PLATFORM=offscreen with throw-away settings and project
folder. A 10 ms timer on the GUI thread records the gaps between its ticks during
the whole run; afterwards it times selecting clusters (side by side with highlights),
toggling a tag and undoing it.

Then the keys: Down pressed in the cluster list (by key, each press until the window
has drawn what it selected) right after the run, and right after the project is
opened again with no page read yet (as after starting the workbench). ``--warc`` first
packs FOLDER's pages into one WARC gzipped record by record (as crawlers write them),
where a page shown is read again from its record.
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
    parser.add_argument("--warc", action="store_true", help="pack FOLDER's pages into a WARC first")
    parser.add_argument("--downs", type=int, default=20, help="Down presses to time")
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
    if args.warc:
        args.folder = pack_warc(args.folder, tmp / "crawl")
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

    from PySide6.QtTest import QTest

    def downs(when: str) -> None:
        window.activateWindow()
        window.focus_list()
        times = []
        for _ in range(args.downs):
            t = time.perf_counter()
            QTest.keyClick(window.table, Qt.Key.Key_Down)
            app.processEvents()
            times.append((time.perf_counter() - t) * 1000)
        print(f"Down in the cluster list {when} ({len(times)} presses): total {sum(times):,.0f} ms, "
              f"median {statistics.median(times):.0f} ms, longest {max(times):.0f} ms")

    window.select_row(n)  # clusters not shown yet
    downs("after the run")
    path = window.project.path
    window.close_project()
    window.compare.cache.clear()  # as after starting the workbench: no page read yet
    window.open_project(path)
    downs("right after opening the project")
    window.close()
    return 0


def pack_warc(folder: Path, into: Path) -> Path:
    """FOLDER's saved pages as one WARC gzipped record by record, in ``into``."""
    import io

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    into.mkdir(parents=True)
    files = sorted(p for p in folder.rglob("*") if p.is_file()
                   and p.suffix.lower() in (".html", ".htm"))
    with open(into / "crawl.warc.gz", "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for i, path in enumerate(files):
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(
                f"http://example.org/{i}/{path.name}", "response",
                payload=io.BytesIO(path.read_bytes()), http_headers=http))
    size = (into / "crawl.warc.gz").stat().st_size
    print(f"packed {len(files):,} pages of {folder} into one WARC of {size / 2**20:.1f} MB")
    return into


if __name__ == "__main__":
    sys.exit(main())
