"""Kill a coding session with SIGKILL at random moments and check nothing is lost.

Each trial starts a worker process that opens the project and applies random
tag/untag/split/merge/memo actions as fast as it can, printing ``A <id>`` after
each call returns (that is when the GUI would report the action as done). The
driver kills it at a random moment, then checks that the file passes
``PRAGMA integrity_check`` and ``foreign_key_check``, that every printed
action is in the log as done, and that undoing back to the start undoes every
printed action and restores the starting state exactly.

    python scripts/crash_loop.py --trials 1000             # the by-hand run
    python scripts/crash_loop.py --trials 1000 --contend   # ... with a second process
    python scripts/crash_loop.py worker PROJECT SEED       # one worker (used by the driver)
    python scripts/crash_loop.py contender PROJECT         # the second process (driver's)

Every line the worker printed before the kill is counted: its output is read through
the pipe's descriptor alone (see ``_Streams``). With ``--contend`` a second process
reads the project read-only throughout (each read must see totals that agree with
the summary: one committed state) and, while each worker runs, tries to open it for
writing; it reports how often that was refused (one writer per project) or allowed.

tests/store/test_crash.py runs 200 short trials of the same code in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import select
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
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


@dataclass
class Killed:
    """What a child printed before it was killed, every line of it."""

    lines: list[str]
    returncode: int
    stderr: str


class _Streams:
    """A child's stdout and stderr, read only through their descriptors.

    One reader for the whole of each stream: ``readline`` on a pipe's file object
    reads ahead into its buffer, and ``communicate`` then reads the descriptor, so
    whatever the buffer held (acknowledgements printed right after "ready") was lost.
    Both streams are drained together so a child that writes much to stderr never
    blocks while we wait on stdout.
    """

    def __init__(self, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None and proc.stderr is not None
        self._out, self._err = proc.stdout.fileno(), proc.stderr.fileno()
        self._data: dict[int, bytearray] = {self._out: bytearray(), self._err: bytearray()}
        self._open = {self._out, self._err}

    def _pump(self, timeout: float | None) -> bool:
        """Read what is there (waiting up to ``timeout``); False when nothing came."""
        if not self._open:
            return False
        ready, _, _ = select.select(list(self._open), [], [], timeout)
        for fd in ready:
            chunk = os.read(fd, 65536)
            if chunk:
                self._data[fd] += chunk
            else:
                self._open.discard(fd)
        return bool(ready)

    def wait_for_line(self, line: str, timeout: float) -> bool:
        """Wait until stdout holds ``line`` as a whole line; False on EOF or timeout."""
        wanted = line.encode() + b"\n"
        deadline = time.monotonic() + timeout
        while True:
            out = self._data[self._out]
            if out.startswith(wanted) or b"\n" + wanted in out:
                return True
            left = deadline - time.monotonic()
            if left <= 0 or self._out not in self._open:
                return False
            self._pump(left)

    def wait_for_lines(self, count: int, timeout: float) -> bool:
        """Wait until stdout holds ``count`` whole lines; False on EOF or timeout."""
        deadline = time.monotonic() + timeout
        while self._data[self._out].count(b"\n") < count:
            left = deadline - time.monotonic()
            if left <= 0 or self._out not in self._open:
                return False
            self._pump(left)
        return True

    def drain(self) -> tuple[str, str]:
        """Everything the child wrote, once both streams are closed (it has exited)."""
        while self._open:
            self._pump(None)
        return (self._data[self._out].decode(errors="replace"),
                self._data[self._err].decode(errors="replace"))


def run_and_kill(argv: list[str], *, wait_for: str | None, delay: float,
                 while_running: Callable[[], None] | None = None) -> Killed:
    """Start ``argv``, wait for its ``wait_for`` line (None: don't), call
    ``while_running``, sleep ``delay`` seconds, SIGKILL it; return all it printed."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, bufsize=0)
    streams = _Streams(proc)
    try:
        if wait_for is not None and streams.wait_for_line(wait_for, timeout=120) \
                and while_running is not None:
            while_running()
        time.sleep(delay)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        out, err = streams.drain()
        proc.wait()
    return Killed(out.splitlines(), proc.returncode, err)


def trial(path: Path, seed: int, setup_action: int, baseline: dict[str, list[tuple]],
          max_delay: float, contender: Contender | None = None) -> TrialResult:
    rng = random.Random(seed)
    argv = [sys.executable, str(Path(__file__).resolve()), "worker", str(path), str(seed)]
    if rng.random() < 0.1:
        # Kill while opening: backup, migration, WAL.
        killed = run_and_kill(argv, wait_for=None, delay=rng.uniform(0, 0.15))
    else:
        killed = run_and_kill(argv, wait_for="ready", delay=rng.uniform(0, max_delay),
                              while_running=contender.probe if contender else None)
    printed = [int(line.split()[1]) for line in killed.lines if line.startswith("A ")]
    problems = []
    if killed.returncode != -signal.SIGKILL:
        problems.append(f"worker exited with {killed.returncode}: {killed.stderr[-2000:]}")
    return TrialResult(len(printed), problems + verify(path, printed, setup_action, baseline))


# ----------------------------------------------------------------- contention
# A second process that wants the project while a worker codes in it: it reads the
# project read-only in a loop (checking that every read sees one consistent state),
# and, when the driver asks while a worker is running, tries to open it for writing.
# With one writer per project that open is refused at once (ProjectInUse); without,
# it succeeds. Either way it is counted and reported, and nothing is written.

def _open_readonly(path: Path) -> tuple[Callable[[], sqlite3.Connection], Callable[[], None]]:
    """A read-only way into the project: Project.open(readonly=True) where the store
    has it, else a query-only SQLite connection."""
    try:
        project = Project.open(path, backups=0, readonly=True)  # type: ignore[call-arg]
    except TypeError:
        from workbench.store.connection import connect

        conn = connect(path, readonly=True)
        return (lambda: conn), conn.close
    return project._read, project.close


def _consistent_read(conn: sqlite3.Connection) -> bool:
    """One read transaction: do the totals agree with the summary they sum up?"""
    conn.execute("BEGIN")
    try:
        totals = conn.execute("SELECT clusters, pages FROM cluster_totals").fetchone()
        summed = conn.execute("SELECT count(*), coalesce(sum(size), 0) FROM cluster_summary "
                              "WHERE active = 1").fetchone()
        conn.execute("SELECT count(*) FROM page_tags").fetchone()
    finally:
        conn.execute("COMMIT")
    return tuple(totals) == tuple(summed)


def contender(path: Path) -> None:
    """The contending process: reads in a thread, answers "probe" and "quit" on stdin."""
    stats: Counter[str] = Counter()
    stop = threading.Event()

    def read_loop() -> None:
        while not stop.is_set():
            try:
                get, close = _open_readonly(path)
                try:
                    for _ in range(50):
                        if stop.is_set():
                            break
                        stats["reads consistent" if _consistent_read(get())
                              else "reads INCONSISTENT"] += 1
                        time.sleep(0.005)
                finally:
                    close()
                stats["read-only opens"] += 1
            except Exception as exc:  # noqa: BLE001 - every kind is counted and reported
                stats[f"read error {type(exc).__name__}: {exc}"[:160]] += 1
                time.sleep(0.05)

    reader = threading.Thread(target=read_loop, daemon=True)
    reader.start()
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "probe":
            outcome = _probe_write(path)
            stats[outcome] += 1
            print(outcome, flush=True)
        elif line.strip() == "quit":
            break
    stop.set()
    reader.join()
    print(json.dumps(stats), flush=True)


def _probe_write(path: Path) -> str:
    try:
        project = Project.open(path, backups=0)
    except ProjectError as exc:
        return f"write open refused ({type(exc).__name__})"
    except Exception as exc:  # noqa: BLE001
        return f"write open failed ({type(exc).__name__}: {exc})"[:160]
    project.close()
    return "write open allowed (no one-writer lock)"


class Contender:
    """The driver's handle on the contending process."""

    def __init__(self, path: Path) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "contender", str(path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        self._streams = _Streams(self._proc)
        if not self._streams.wait_for_line("ready", timeout=120):
            raise RuntimeError(f"the contender did not start: {self._streams.drain()[1][-2000:]}")
        self._probes = 0

    def probe(self) -> None:
        """Ask for one write open now and wait for its outcome (so it never overlaps the
        driver's own opening after the kill)."""
        assert self._proc.stdin is not None
        self._probes += 1
        self._proc.stdin.write(b"probe\n")
        self._streams.wait_for_lines(1 + self._probes, timeout=60)  # "ready", one a probe

    def finish(self) -> dict[str, int]:
        assert self._proc.stdin is not None
        self._proc.stdin.write(b"quit\n")
        self._proc.stdin.close()
        out, err = self._streams.drain()
        self._proc.wait()
        if self._proc.returncode != 0:
            return {f"contender exited with {self._proc.returncode}: {err[-500:]}": 1}
        return json.loads(out.splitlines()[-1])


def run_trials(directory: Path, trials: int, max_delay: float, seed: int = 0,
               report: bool = False, contend: bool = False
               ) -> tuple[int, int, list[str], dict[str, int]]:
    """Run ``trials`` kills on one project; return (trials, actions seen, problems, what
    the contender saw: empty without ``contend``)."""
    path = directory / "crash.wbproj"
    setup_action = prepare(path)
    baseline = state(path)
    problems: list[str] = []
    actions = 0
    rival = Contender(path) if contend else None
    contention: dict[str, int] = {}
    try:
        for n in range(trials):
            result = trial(path, seed * 1_000_003 + n, setup_action, baseline, max_delay, rival)
            actions += result.printed
            problems += [f"trial {n}: {p}" for p in result.problems]
            if report:
                for p in result.problems:  # as it happens: a long run may be stopped
                    print(f"trial {n}: {p}", flush=True)
            if report and (n + 1) % 50 == 0:
                print(f"{n + 1} trials, {actions} printed actions checked, "
                      f"{len(problems)} problems", flush=True)
    finally:
        if rival is not None:
            contention = rival.finish()
    problems += [f"contender: {what} ({n} times)" for what, n in contention.items()
                 if "INCONSISTENT" in what or "error" in what or "failed" in what
                 or "exited" in what]
    return trials, actions, problems, contention


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["worker"]:
        worker(Path(argv[1]), int(argv[2]))
        return 0
    if argv[:1] == ["contender"]:
        contender(Path(argv[1]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--max-delay", type=float, default=0.3,
                        help="longest wait (s) between the worker being ready and the kill")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dir", type=Path, help="where to keep the project (default: temp)")
    parser.add_argument("--contend", action="store_true",
                        help="a second process reads the project throughout and tries to open "
                             "it for writing while each worker runs")
    args = parser.parse_args(argv)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        directory = args.dir or Path(tmp)
        directory.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        trials, actions, problems, contention = run_trials(
            directory, args.trials, args.max_delay, args.seed, report=True,
            contend=args.contend)
    for what, n in sorted(contention.items()):
        print(f"contender: {n:>7,} x {what}")
    print(f"{trials} SIGKILL trials, {actions} committed actions checked, "
          f"{len(problems)} problems, {time.perf_counter() - started:.0f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
