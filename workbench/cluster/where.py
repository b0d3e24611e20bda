"""Where a detection runs: this machine's worker processes (the default), a Dask cluster
started on this machine, or the Dask scheduler at an address. The window's Detection ▸
Settings chooses it and the project's pending settings keep it (key :data:`SETTING`, with
the value ``dedup --dask`` takes: absent for this machine, "" for a local cluster, the
scheduler's address)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE, LOCAL, SCHEDULER = "here", "local", "scheduler"
SETTING = "dask"  # the key in a run's pending settings


class ClusterError(Exception):
    """The cluster could not be reached or started (said to the user as it is). Here, not
    beside the cluster's code, so the window knows it without importing Dask and pyarrow."""


@dataclass(frozen=True, slots=True)
class RunWhere:
    mode: str = HERE
    address: str = ""  # the scheduler's, for SCHEDULER

    @property
    def on_dask(self) -> bool:
        return self.mode != HERE

    def check(self) -> None:
        """ValueError (said in the settings dialog) for a scheduler without an address."""
        if self.mode == SCHEDULER and not self.address.strip():
            raise ValueError("Give the Dask scheduler's address, such as tcp://10.1.2.3:8786")

    def setting(self) -> dict[str, str]:
        """What the pending settings keep of it (nothing for this machine)."""
        if self.mode == HERE:
            return {}
        return {SETTING: self.address.strip() if self.mode == SCHEDULER else ""}

    @classmethod
    def of_setting(cls, settings: dict[str, Any] | None) -> RunWhere:
        """The choice a run's pending settings recorded (this machine when they say none)."""
        value = (settings or {}).get(SETTING)
        if value is None:
            return cls()
        return cls(SCHEDULER, str(value)) if str(value).strip() else cls(LOCAL)

    def describe(self) -> str:
        return {HERE: "this machine", LOCAL: "a Dask cluster on this machine"}.get(
            self.mode, f"the Dask scheduler at {self.address.strip()}")


@contextmanager
def running(where: RunWhere, work_dir: Path | None, workers: int | None = None) -> Iterator[Any]:
    """A Dask run (workbench.cluster.run.DaskRun) for ``where``, or None for this machine;
    ``ClusterError`` when the scheduler cannot be reached."""
    if not where.on_dask:
        yield None
        return
    try:
        from workbench.cluster.run import dask_run
    except ImportError as exc:  # pragma: no cover - runtime dependencies; said plainly if missing
        raise ClusterError(f"a run on Dask needs Dask distributed and pyarrow ({exc})") from None
    with dask_run(where.address.strip() if where.mode == SCHEDULER else None, work_dir, workers) as run:
        yield run
