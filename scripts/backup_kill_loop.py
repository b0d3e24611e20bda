"""Kill sessions while they write the backup made on open; count what they leave.

Each trial starts a process that opens the project (which starts the backup copy on
a thread) and SIGKILLs it after a random delay within the copy's usual duration. The
copies left half written (``*.partial``, ``*.partial-journal``...) are counted after
every kill; a clean open at the end must leave none and only whole, checked copies.

    python scripts/backup_kill_loop.py --trials 400 [--pages 30000]
"""

from __future__ import annotations

import argparse
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run as a plain script from a checkout
    sys.path.insert(0, str(REPO))

from workbench.core.records import Cluster, PageInfo, Pair  # noqa: E402
from workbench.store import Project  # noqa: E402
from workbench.store.safety.backup import backup_dir_for, list_backups  # noqa: E402

OPENER = """
import sys
sys.path.insert(0, {repo!r})
from workbench.store import Project
project = Project.open({path!r}, backups=3)
print("opened", flush=True)
project.wait_for_backup()
project.close()
"""


def build(path: Path, n_pages: int) -> None:
    pages = [PageInfo(key=f"p{i}.html", source=f"p{i}.html", title=f"Story {i} " * 5)
             for i in range(n_pages)]
    clusters = [Cluster(i, [i, i + 1], [1.0, 0.9]) for i in range(0, n_pages - 1, 2)]
    pairs = [Pair(c.reference, c.members[1], 0.9) for c in clusters]
    with Project.create(path, "/crawl", coder="loop") as project:
        project.save_run({"tau": 0.4}, "spotsigs", {}, pages, pairs, clusters)


def partials(folder: Path) -> list[str]:
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if ".partial" in p.name)


def copy_seconds(path: Path) -> float:
    started = time.perf_counter()
    with Project.open(path, backups=3) as project:
        project.wait_for_backup()
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=400)
    parser.add_argument("--pages", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kill.wbproj"
        build(path, args.pages)
        span = copy_seconds(path)
        folder = backup_dir_for(path)
        most = 0
        for n in range(args.trials):
            child = subprocess.Popen([sys.executable, "-c", OPENER.format(repo=str(REPO),
                                                                           path=str(path))],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            assert child.stdout is not None
            child.stdout.readline()  # "opened": the copy is under way
            time.sleep(rng.uniform(0, span))
            child.send_signal(signal.SIGKILL)
            child.wait()
            most = max(most, len(partials(folder)))
            if (n + 1) % 100 == 0:
                print(f"{n + 1} kills: {len(partials(folder))} partial files now, "
                      f"at most {most} at once", flush=True)
        left_by_kills = partials(folder)
        with Project.open(path, backups=3) as project:
            project.wait_for_backup()
        print(f"open and copy took {span * 1000:.0f} ms; after {args.trials} kills "
              f"{len(left_by_kills)} partial files were left ({most} at most at once); "
              f"after one clean open: {len(partials(folder))} partial files, "
              f"{len(list_backups(path))} whole copies")
    return 0


if __name__ == "__main__":
    sys.exit(main())
