"""Wall time, CPU time and peak memory of a command and of every process it starts.

The workbench starts its extraction workers through a multiprocessing *forkserver*: they are
children of the fork server, not of the command, so ``/usr/bin/time`` and
``getrusage(RUSAGE_CHILDREN)`` never count them. What they do share is the session: the command
is started with ``start_new_session=True`` (its session id is then its own pid), the fork server
and the workers inherit that session, and nothing else on the machine can join it. So every
~50 ms this module reads ``/proc/<pid>/stat`` of every process and keeps those whose session id
is the command's pid:

* peak memory is the largest *sum* of their resident set sizes seen in one sample. A page that
  forked processes still share copy-on-write is counted once per process, so this overstates
  the physical memory a little (as ``top`` would);
* CPU time is, for each process, the last utime + stime seen (clock ticks -> seconds), summed.
  A process that ends between two samples loses its last <= 50 ms of CPU (one interval); the
  command itself loses none, because its figures are read once more after it has exited and
  before it is reaped (it is still a zombie in /proc then);
* wall time is from just before the start to the command's exit.

A process is keyed by (pid, start time) so that a reused pid is not taken for the same process.
Linux only. Used by benchmarks/bench_versus.py; usable by any benchmark::

    usage = run_measured(["workbench", "dedup", "/tmp/corpus", "-q"])
    print(usage.wall_s, usage.cpu_s, usage.peak_rss_bytes / 2**20)
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
DEFAULT_INTERVAL = 0.05

# Field positions in /proc/<pid>/stat counted after the ')' that closes the command name
# (the name itself may hold spaces and parentheses): field 3 (state) is index 0.
_SESSION, _UTIME, _STIME, _STARTTIME, _RSS = 3, 11, 12, 19, 21


@dataclass(frozen=True)
class ProcStat:
    """The few /proc/<pid>/stat figures the sampler needs, for one process at one moment."""

    session: int
    cpu_ticks: int  # utime + stime
    start_ticks: int  # start time after boot: tells a reused pid from the process it replaced
    rss_pages: int


@dataclass(frozen=True)
class TreeUsage:
    """What one measured command used, summed over its whole session."""

    returncode: int
    wall_s: float
    cpu_s: float
    peak_rss_bytes: int
    processes: int  # distinct processes seen in the session, the command included
    samples: int

    @property
    def peak_rss_mb(self) -> float:
        """Peak memory in MiB, the unit the benchmark tables use."""
        return self.peak_rss_bytes / 2**20


def read_stat(pid: int) -> ProcStat | None:
    """Parse /proc/<pid>/stat; None when the process is gone or unreadable (it may end any time)."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return None
    try:
        raw = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    fields = raw.rpartition(b")")[2].split()
    try:
        return ProcStat(session=int(fields[_SESSION]),
                        cpu_ticks=int(fields[_UTIME]) + int(fields[_STIME]),
                        start_ticks=int(fields[_STARTTIME]),
                        rss_pages=int(fields[_RSS]))
    except (IndexError, ValueError):
        return None


def _all_pids() -> list[int]:
    """Every pid now in /proc; reading the list is cheaper than keeping it up to date."""
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


class SessionSampler:
    """Samples, in a background thread, the processes of one session (see the module docstring).

    The sweep reads every /proc/<pid>/stat because a new worker can appear at any time and
    only its stat file says which session it belongs to; with a hundred processes on the
    machine a sweep costs a few milliseconds, a few per cent of one core at 50 ms.
    """

    def __init__(self, session: int, interval: float = DEFAULT_INTERVAL) -> None:
        self.session = session
        self.interval = interval
        self.peak_rss_pages = 0
        self.samples = 0
        self._cpu_ticks: dict[tuple[int, int], int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="session-sampler", daemon=True)

    def start(self) -> None:
        """Start sampling; call right after the command was started."""
        self._thread.start()

    def sample(self) -> None:
        """One sweep: record each session member's CPU and the summed resident memory."""
        rss = 0
        seen: list[tuple[tuple[int, int], int]] = []
        for pid in _all_pids():
            st = read_stat(pid)
            if st is None or st.session != self.session:
                continue
            rss += st.rss_pages
            seen.append(((pid, st.start_ticks), st.cpu_ticks))
        with self._lock:
            for key, ticks in seen:
                # CPU time never decreases; max() guards against a torn read.
                self._cpu_ticks[key] = max(ticks, self._cpu_ticks.get(key, 0))
            self.peak_rss_pages = max(self.peak_rss_pages, rss)
            self.samples += 1

    def stop(self) -> None:
        """Stop the thread and take one last sample (the exited command is still a zombie)."""
        self._stop.set()
        self._thread.join()
        self.sample()

    @property
    def cpu_seconds(self) -> float:
        """Summed last-seen CPU time of every process of the session."""
        with self._lock:
            return sum(self._cpu_ticks.values()) / CLOCK_TICKS

    @property
    def processes(self) -> int:
        """How many distinct processes were seen in the session."""
        with self._lock:
            return len(self._cpu_ticks)

    def _loop(self) -> None:
        """Sample until stopped, keeping to the interval whatever a sweep costs."""
        while not self._stop.is_set():
            started = time.monotonic()
            self.sample()
            self._stop.wait(max(0.0, self.interval - (time.monotonic() - started)))


def run_measured(cmd: Sequence[str | os.PathLike[str]], *, interval: float = DEFAULT_INTERVAL,
                 stdout: IO[bytes] | int | None = subprocess.DEVNULL,
                 stderr: IO[bytes] | int | None = None, cwd: Path | None = None,
                 env: dict[str, str] | None = None) -> TreeUsage:
    """Run ``cmd`` in a new session and return its wall time, CPU time and peak memory.

    Waits for the command with ``waitid(WNOWAIT)`` so that it stays a zombie, and its final
    CPU figures stay readable, until the last sample has been taken.
    """
    started = time.perf_counter()
    proc = subprocess.Popen(list(cmd), start_new_session=True, stdout=stdout, stderr=stderr,
                            cwd=cwd, env=env)
    sampler = SessionSampler(proc.pid, interval)
    sampler.start()
    try:
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    except BaseException:
        # The new session is also a new process group: this ends the workers too.
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    finally:
        wall = time.perf_counter() - started
        sampler.stop()
        returncode = proc.wait()
    return TreeUsage(returncode=returncode, wall_s=wall, cpu_s=sampler.cpu_seconds,
                     peak_rss_bytes=sampler.peak_rss_pages * PAGE_SIZE,
                     processes=sampler.processes, samples=sampler.samples)
