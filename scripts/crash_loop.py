"""Kill a coding session with SIGKILL at random moments and check nothing is lost.

Each trial starts a worker process that opens the project and applies random
tag/untag/split/merge/memo actions as fast as it can, printing ``A <id>`` after
each call returns (that is when the GUI would report the action as done). The
driver kills it at a random moment, then checks that the file passes
``PRAGMA integrity_check`` and ``foreign_key_check``, that every printed
action is in the log as done, and that undoing back to the start undoes every
printed action and restores the starting state exactly.

    python scripts/crash_loop.py --trials 1000          # the by-hand run
    python scripts/crash_loop.py worker PROJECT SEED    # one worker (used by the driver)

tests/store/test_crash.py runs 200 short trials of the same code in CI.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run as a plain script from a checkout
    sys.path.insert(0, str(REPO))

from workbench.core.records import Cluster, PageInfo, Pair  # noqa: E402
from workbench.store import Project, ProjectError, TagSpec  # noqa: E402

SIZES = [6, 5, 4, 4, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1]
TAGS = ["unions", "feminism", "local issue", "health"]
_STATE_TABLES = ("tags", "page_tags", "clusters", "cluster_members", "memos", "splits",
                 "merges", "cluster_summary")


def prepare(path: Path) -> int:
    """Create the trial project; return the id of its last setup action."""
    pages, pairs, clusters = [], [], []
    i = 0
    for size in SIZES:
        members = list(range(i, i + size))
        for j in members:
            key = f"s{j % 4}/p{j}.html"
            pages.append(PageInfo(key=key, source=key, title=f"Story {j}",
                                  url=f"http://s{j % 4}.example/{j}"))
        pairs += [Pair(members[0], m, 0.8) for m in members[1:]]
        clusters.append(Cluster(members[0], members, [1.0] + [0.8] * (size - 1)))
        i += size
    with Project.create(path, "/crawl", coder="crash") as project:
        project.save_run({"tau": 0.4}, "spotsigs", {}, pages, pairs, clusters)
        setup = project.import_codebook([TagSpec(name) for name in TAGS]).action_id
    assert setup is not None
    return setup


def state(path: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(str(path))
    try:
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr)
                for t in _STATE_TABLES}
    finally:
        conn.close()


def worker(path: Path, seed: int) -> None:
    """Apply random actions forever, printing each action id once committed."""
    rng = random.Random(seed)
    project = Project.open(path, backups=2, coder="crash")
    tags = [t.id for t in project.codebook()]
    print("ready", flush=True)
    while True:
        ids = [r.id for r in project.list_clusters(limit=1000)]
        kind = rng.choice(["tag", "tag", "untag", "split", "merge", "memo", "tag_pages"])
        try:
            if kind == "tag":
                result = project.tag_clusters(rng.sample(ids, min(len(ids), rng.randint(1, 3))),
                                              [rng.choice(tags)])
            elif kind == "untag":
                result = project.untag_clusters([rng.choice(ids)], [rng.choice(tags)])
            elif kind == "split":
                cid = rng.choice(ids)
                pages = [m.page_id for m in project.members(cid)]
                result = project.split(cid, rng.sample(pages, rng.randint(1, len(pages))))
            elif kind == "merge":
                if len(ids) < 2:  # a long trial can merge everything into one
                    continue
                result = project.merge(rng.sample(ids, 2))
            elif kind == "memo":
                result = project.add_memo(rng.choice(ids), "memo " * rng.randint(1, 50))
            else:
                cid = rng.choice(ids)
                result = project.tag_pages([rng.choice(project.members(cid)).page_id],
                                           [rng.choice(tags)])
        except ProjectError:
            continue  # e.g. splitting every page out of a cluster
        if result.action_id is not None:
            print(f"A {result.action_id}", flush=True)


@dataclass
class TrialResult:
    printed: int  # actions the worker reported done before it was killed
    problems: list[str]


def verify(path: Path, printed: list[int], setup_action: int,
           baseline: dict[str, list[tuple]]) -> list[str]:
    """Check the file after a kill and undo everything back to the baseline."""
    problems: list[str] = []
    project = Project.open(path, backups=0)
    try:
        problems += project.integrity_problems()
        done = {h.id for h in project.history(100_000) if h.state == "done"}
        problems += [f"printed action {a} is not in the log as done"
                     for a in printed if a not in done]
        undone = []
        while (nxt := project.next_undo()) is not None and nxt.id > setup_action:
            undone.append(project.undo())
        problems += [f"printed action {a} was not undone" for a in printed if a not in undone]
        if undone != sorted(undone, reverse=True):
            problems.append(f"undo order is wrong: {undone}")
        problems += project.integrity_problems()
    finally:
        project.close()
    after = state(path)
    problems += [f"table {t} differs from the starting state after undoing everything"
                 for t in baseline if baseline[t] != after[t]]
    return problems


def trial(path: Path, seed: int, setup_action: int, baseline: dict[str, list[tuple]],
          max_delay: float) -> TrialResult:
    rng = random.Random(seed)
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "worker", str(path), str(seed)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    if rng.random() < 0.1:
        time.sleep(rng.uniform(0, 0.15))  # kill while opening: backup, migration, WAL
    else:
        proc.stdout.readline()  # "ready" (or EOF if the worker failed)
        time.sleep(rng.uniform(0, max_delay))
    os.kill(proc.pid, signal.SIGKILL)
    out, err = proc.communicate()
    printed = [int(line.split()[1]) for line in out.splitlines() if line.startswith("A ")]
    problems = []
    if proc.returncode != -signal.SIGKILL:
        problems.append(f"worker exited with {proc.returncode}: {err[-2000:]}")
    return TrialResult(len(printed), problems + verify(path, printed, setup_action, baseline))


def run_trials(directory: Path, trials: int, max_delay: float, seed: int = 0,
               report: bool = False) -> tuple[int, int, list[str]]:
    """Run ``trials`` kills on one project; return (trials, actions seen, problems)."""
    path = directory / "crash.wbproj"
    setup_action = prepare(path)
    baseline = state(path)
    problems: list[str] = []
    actions = 0
    for n in range(trials):
        result = trial(path, seed * 1_000_003 + n, setup_action, baseline, max_delay)
        actions += result.printed
        problems += [f"trial {n}: {p}" for p in result.problems]
        if report and (n + 1) % 50 == 0:
            print(f"{n + 1} trials, {actions} printed actions checked, "
                  f"{len(problems)} problems", flush=True)
    return trials, actions, problems


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["worker"]:
        worker(Path(argv[1]), int(argv[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--max-delay", type=float, default=0.3,
                        help="longest wait (s) between the worker being ready and the kill")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dir", type=Path, help="where to keep the project (default: temp)")
    args = parser.parse_args(argv)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        directory = args.dir or Path(tmp)
        directory.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        trials, actions, problems = run_trials(directory, args.trials, args.max_delay,
                                               args.seed, report=True)
    for p in problems[:50]:
        print(p)
    print(f"{trials} SIGKILL trials, {actions} committed actions checked, "
          f"{len(problems)} problems, {time.perf_counter() - started:.0f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
