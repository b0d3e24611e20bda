"""``Project``: the one object the GUI, pipeline and CLI use to reach a project file.

It owns the write lane, the per-thread readers and the current coder, and
turns each user action into one logged, undoable transaction. The SQL lives in
the small modules it delegates to.
"""

from __future__ import annotations

import getpass
import sqlite3
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import numpy as np

from workbench.core.clusters.calibration import PairGraph, cluster_at, clustering_options, run_vouch
from workbench.core.progress import ProgressFn, no_progress
from workbench.core.records import Cluster, PageInfo, RunFilters, SkipRecord
from workbench.core.related import Related
from workbench.store import access, schema
from workbench.store.clock import utc_now
from workbench.store.coding import carry, codebook, dismissals, memos, recorder, tagging
from workbench.store.coding.actions import (
    ActionInfo,
    ActionLog,
    clusters_of_action,
    history,
    next_redo,
    next_undo,
)
from workbench.store.coding.codebook import Tag, TagSpec
from workbench.store.coding.memos import Memo
from workbench.store.connection import Readers, ReadOnlyLane, WriteLane, connect, connect_uri
from workbench.store.errors import (
    ProjectDamaged,
    ProjectError,
    ProjectReadOnly,
    StorageError,
    storage_error,
)
from workbench.store.runs import pairs, queries, related, runs, summary
from workbench.store.runs.page_table import PageRecord, page_records
from workbench.store.runs.signatures import RunSignatures, run_signatures, save_signatures
from workbench.store.safety import backup, damaged_text, integrity, portable_names, save_as
from workbench.store.safety.lock import HardLinked, LockFolderReadOnly, ProjectLock
from workbench.store.safety.session_changes import SessionChanges
from workbench.store.team.identity import copy_stamp

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ActionResult:
    """What a user action did: its log id (None: nothing changed) and the id of
    the object it created or kept (new tag, memo, split-off or merged cluster)."""

    action_id: int | None
    id: int | None = None


class Project:
    """An open project file. Use ``Project.create`` or ``Project.open``.

    One writer per project: a project open for writing holds its lock file
    (:mod:`workbench.store.safety.lock`) until closed, and any number of sessions may read
    it alongside, opened with ``readonly=True``.
    """

    def __init__(self, path: Path, lane: WriteLane, *, readers: Readers | None = None,
                 lock: ProjectLock | None = None, readonly_reason: str | None = None) -> None:
        self.path = path
        self._lane = lane
        self._readers = readers or Readers(path)
        self._log = ActionLog(lane)
        self._coder_id: int | None = None
        self._closed = False
        self._backup: backup.BackgroundBackup | None = None
        self._backup_dir: Path | None = None
        self._backup_failure: ProjectError | None = None
        # Whether this session changed the data (None: not watched, e.g. read-only).
        self._changes: SessionChanges | None = None
        self._lock = lock
        self._held_file: str | None = None  # see _hold_file
        # What the last re-clustering carried over (None: none yet in this session).
        self.last_carry: carry.CarryReport | None = None
        # Why the project is open read-only (None: open for writing).
        self.readonly_reason = readonly_reason
        # Each run's pairs below τ, from either end, once read (see ``related``).
        self._run_links: dict[int, related.RunLinks] = {}

    @property
    def readonly(self) -> bool:
        """True when nothing can be changed (see ``readonly_reason``)."""
        return self.readonly_reason is not None

    # ----------------------------------------------------------- lifecycle
    @classmethod
    def create(cls, path: Path | str, archive_root: str, *, coder: str | None = None) -> Project:
        """Make a new project file (open for writing); refuses to overwrite a file."""
        path = Path(path)
        problem = portable_names.name_problem(path.name, sys.platform)
        if problem is not None:  # on Windows, "aux.wbproj" would be a device, not a file
            raise ProjectError(f"Cannot create {path}: {problem}. Choose another name.")
        if path.exists():
            raise ProjectError(f"{path} already exists; open it or choose another name.")
        if not path.parent.is_dir():
            raise ProjectError(f"Cannot create {path}: the folder {path.parent} does not exist.")
        try:
            lock = ProjectLock.acquire(path)
        except LockFolderReadOnly as exc:
            raise ProjectError(f"Cannot create {path}: {exc}.") from exc
        except OSError as exc:
            raise _project_error(exc, path, "Cannot create") from exc
        if path.exists():  # made by another session between the check and the lock
            lock.release()
            raise ProjectError(f"{path} already exists; open it or choose another name.")
        project: Project | None = None
        try:
            project = cls._setup(path, connect(path), lock)
            with project._lane.transaction() as c:
                for key, value in (("archive_root", str(archive_root)), ("created_at", utc_now())):
                    c.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))
            if coder:
                project.use_coder(coder)
        except BaseException as exc:
            if project is not None:
                with suppress(Exception):
                    project._readers.close()
                    project._lane.close()
            lock.release()
            _remove_database(path)  # ours, half made: it would block a second try
            if isinstance(exc, sqlite3.Error | OSError):
                raise _project_error(exc, path, "Cannot create") from exc
            raise
        project._held_file = _hold_file(path)[0]
        return project

    @classmethod
    def open(cls, path: Path | str, *, backups: int = backup.DEFAULT_KEEP,
             backup_dir: Path | None = None, coder: str | None = None,
             readonly: bool = False, why: str | None = None) -> Project:
        """Open an existing project: check it, back it up, migrate it.

        ``why``: with ``readonly``, the reason ``readonly_reason`` gives (default: asked).

        For writing (the default) the project's lock is taken: ProjectInUse (with who
        holds it) when another session has it open for writing. When the file, its
        folder or its disk cannot be written, it opens read-only instead and says why
        in ``readonly_reason``; so does a file with more than one name (hard links,
        see :mod:`store.safety.lock`). ``readonly=True`` opens it read-only, which writes
        nothing and always works next to a writer; ``coder`` is then ignored.

        The file is checked first (``integrity``): ProjectDamaged, naming the good
        backups, when it is damaged. A file bigger than ``integrity.SYNC_CHECK_MAX_BYTES``
        is checked on a thread instead (``wait_for_backup`` raises ProjectDamaged).

        ``backups`` copies of the file as it was when opened are kept (0: none); never
        of a damaged file, never when read-only. When the file needs no migration the
        copy is written on a thread after this returns (see ``wait_for_backup`` and
        ``backup_problem``: a copy that fails, e.g. on a full disk, does not stop the
        project from opening); ``close`` waits for it.
        """
        path = Path(path)
        if not path.is_file():
            raise ProjectError(f"{path} does not exist or is not a file.")
        key, first_here = _hold_file(path)
        try:
            if first_here:
                integrity.prefetch(path)  # the check reads it all: in order, ahead
            project = cls._open(path, backups, backup_dir, coder,
                                (why or "opened read-only as asked") if readonly else None)
        except BaseException:
            _let_go_file(key)
            raise
        project._held_file = key
        return project

    @classmethod
    def _open(cls, path: Path, backups: int, backup_dir: Path | None, coder: str | None,
              readonly_why: str | None) -> Project:
        if readonly_why is not None:
            return cls._open_readonly(path, readonly_why, backup_dir)
        reason = access.write_problem(path)
        if reason is not None:
            return cls._open_readonly(path, reason, backup_dir)
        try:
            lock = ProjectLock.acquire(path)
        except LockFolderReadOnly as exc:
            return cls._open_readonly(path, str(exc), backup_dir)
        except HardLinked as exc:  # one lock and one -wal per name: never two writers
            return cls._open_readonly(path, exc.reason, backup_dir)
        except OSError as exc:
            raise _project_error(exc, path, "Cannot lock") from exc
        try:
            project = cls._open_for_writing(path, lock, backups, backup_dir)
        except StorageError as exc:
            lock.release()
            if exc.kind != "readonly":
                raise
            # Permissions os.access could not see (a network share's): read instead.
            return cls._open_readonly(path, str(exc), backup_dir)
        except BaseException:
            lock.release()
            raise
        if coder:
            try:
                project.use_coder(coder)
            except BaseException:
                project.close()
                raise
        return project

    @classmethod
    def _open_for_writing(cls, path: Path, lock: ProjectLock, backups: int,
                          backup_dir: Path | None) -> Project:
        try:
            conn = connect(path)
        except sqlite3.Error as exc:
            raise _opening_error(exc, path, backup_dir) from exc
        pending = None
        try:
            checked = _check_now(path)
            if checked:
                _check(conn, path, backup_dir)
            version = _openable_version(conn, path, backup_dir)
            wal = conn.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
            if version < schema.CURRENT_VERSION or not wal:
                # Back up before migrating, so the copy is what an older workbench can
                # still open. (Without WAL, a reader held for the copy would block writes.)
                if not checked:
                    _check(conn, path, backup_dir)  # copies are only made of whole files
                _backup_before_upgrade(conn, path, backups, backup_dir)
            else:
                # Nothing to migrate: check (if big) and copy on a thread, so a big
                # project opens at once.
                pending = backup.start_backup(path, backups, backup_dir, check=not checked)
        except BaseException as exc:
            conn.close()
            if isinstance(exc, sqlite3.Error):
                raise _project_error(exc, path, "Cannot open") from exc
            raise
        try:
            project = cls._setup(path, conn, lock)
        except BaseException:
            if pending is not None:
                with suppress(Exception):
                    pending.wait()
            raise
        project._backup = pending
        project._backup_dir = backup_dir
        if pending is not None:
            project._changes = SessionChanges(project._lane.connection)
        return project

    @classmethod
    def _open_readonly(cls, path: Path, reason: str, backup_dir: Path | None) -> Project:
        """Open without writing anything: no lock, backup, migration, -wal or -shm where
        they cannot be written (see ``access.readonly_uri``)."""
        uri = access.readonly_uri(path)
        try:
            conn = connect_uri(uri)
        except sqlite3.Error as exc:
            raise _opening_error(exc, path, backup_dir) from exc
        pending = None
        try:
            checked = _check_now(path)
            if checked:
                _check(conn, path, backup_dir)
            if _openable_version(conn, path, backup_dir) < schema.CURRENT_VERSION:
                raise ProjectError(
                    f"{path} was saved by an older SpotSigs Workbench and must be upgraded "
                    f"before it can be used, which cannot be done read-only ({reason}). "
                    "Open it for writing once, or copy it to a folder you can write to.")
            if not checked:
                pending = backup.start_backup(path, 0, check=True, uri=uri)
        except sqlite3.Error as exc:
            raise _project_error(exc, path, "Cannot open") from exc
        finally:
            conn.close()
        message = (f"{path} is open read-only ({reason}), so changes cannot be saved. To "
                   "work on it, close it where it is open for writing and open it again, "
                   "or copy it to a folder you can write to.")
        project = cls(path, ReadOnlyLane(message), readers=Readers(path, uri),
                      readonly_reason=reason)
        project._backup = pending
        project._backup_dir = backup_dir
        return project

    @classmethod
    def _setup(cls, path: Path, conn: sqlite3.Connection,
               lock: ProjectLock | None = None) -> Project:
        try:
            schema.check_openable(conn, str(path))
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise ProjectError(f"{path}: cannot switch to WAL journal mode (got {mode}).")
            schema.migrate(conn)
            recorder.install(conn)
        except sqlite3.Error as exc:
            conn.close()
            raise _project_error(exc, path, "Cannot open") from exc
        except BaseException:
            conn.close()
            raise
        return cls(path, WriteLane(conn), lock=lock)

    def close(self) -> None:
        """Wait for the opening backup, fold the WAL into the file, release the lock.

        Raises StorageError when the WAL could not be folded in (a full disk): the last
        changes are then safe in ``<name>-wal``, which must stay beside the project file
        until it is opened again with room on the disk. The project is closed anyway.
        """
        if self._closed:
            return
        self._closed = True
        try:
            if self._backup is not None:
                # The copy's read snapshot would keep the checkpoint from finishing.
                with suppress(Exception):
                    self._backup.wait()
            self._readers.close()
            unchanged = False
            if self._changes is not None:
                with self._lane.idle():
                    unchanged = not self._changes.changed()
            try:
                self._lane.close()
            except sqlite3.Error as exc:
                raise self._unfolded_wal(exc) from exc
            if unchanged:
                self._keep_newest_copy()
        finally:
            if self._lock is not None:
                self._lock.release()
            if self._held_file is not None:
                _let_go_file(self._held_file)

    def _keep_newest_copy(self) -> None:
        """Nothing of the data changed in this session: the copy made (or kept) when it
        opened still holds the project, so the next opening need not copy it again."""
        job = self._backup
        if job is None or not job.done or job.error is not None or job.path is None:
            return
        with suppress(OSError, ProjectError):
            backup.carry_note(self.path, self._backup_dir, job.path, job.state)

    def _unfolded_wal(self, exc: sqlite3.Error) -> StorageError:
        wal = access.wal_path(self.path)
        problem = storage_error(exc, self.path)
        said = str(problem) if problem is not None else f"SQLite said: {exc}."
        return StorageError(
            f"{said} The last changes are safe in {wal.name} beside the project: keep that "
            f"file with {self.path.name} (do not copy the project file alone) and open the "
            "project again once the problem is solved; they are then folded in.",
            problem.kind if problem is not None else "io")

    def wait_for_backup(self) -> Path | None:
        """Wait for the copy made when the project was opened (and, for a big file,
        the integrity check before it); return the copy (None: made before opening
        returned, or none asked for).

        Raises ProjectDamaged when the check found damage (then no copy was made),
        StorageError or ProjectError when the copy could not be written; the project
        stays open and usable either way.
        """
        if self._backup is None:
            return None
        with suppress(Exception):
            self._backup.wait()
        failure = self._failed_backup()
        if failure is not None:
            raise failure
        return self._backup.path

    @property
    def backup_pending(self) -> bool:
        """True while the opening copy (or integrity check) is still running."""
        return self._backup is not None and not self._backup.done

    @property
    def backup_problem(self) -> str | None:
        """What went wrong with the opening copy or the integrity check on its thread,
        for the window to show; None while it runs, when it succeeded or when there was
        none. Never blocks."""
        if self._backup is None or not self._backup.done:
            return None
        failure = self._failed_backup()
        return str(failure) if failure is not None else None

    def _failed_backup(self) -> ProjectError | None:
        job = self._backup
        if job is None or not job.done:
            return None
        if self._backup_failure is None:
            if job.problems:
                self._backup_failure = ProjectDamaged(
                    self.path, job.problems, backup.good_backups(self.path, self._backup_dir))
            elif job.error is not None:
                self._backup_failure = _backup_error(job.error, self.path, self._backup_dir)
        return self._backup_failure

    def __enter__(self) -> Project:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc is None:
            self.close()
            return
        with suppress(ProjectError):  # the error already on its way says more
            self.close()

    # ------------------------------------------------------------- helpers
    def _read(self) -> sqlite3.Connection:
        if self._closed:
            raise ProjectError(f"{self.path} is closed.")
        return self._readers.get()

    def _check_writable(self) -> None:
        if self._closed:
            raise ProjectError(f"{self.path} is closed.")
        if isinstance(self._lane, ReadOnlyLane):
            raise ProjectReadOnly(self._lane.message)

    def _as_bookkeeping(self) -> AbstractContextManager[None]:
        return self._changes.bookkeeping() if self._changes is not None else nullcontext()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        self._check_writable()
        try:
            with self._lane.transaction() as conn:
                yield conn
        except sqlite3.Error as exc:
            problem = storage_error(exc, self.path)
            if problem is None:
                raise
            raise problem from exc

    def _act(self, kind: str, description: str,
             body: Callable[[sqlite3.Connection, int], T],
             fold_into: Callable[[sqlite3.Connection], int | None] | None = None) -> ActionResult:
        self._check_writable()
        try:
            action_id, result = self._log.perform(kind, description, self.coder_id, body,
                                                  fold_into)
        except sqlite3.Error as exc:
            problem = storage_error(exc, self.path)
            if problem is None:
                raise
            raise problem from exc
        return ActionResult(action_id, result if isinstance(result, int) else None)

    def perform(self, kind: str, description: str,
                body: Callable[[sqlite3.Connection, int], T]) -> ActionResult:
        """Run ``body(conn, action_id)`` as one logged, undoable user action credited to the
        current coder: for the modules that build actions on a project from outside this
        class (workbench.store.team). ``id``: the body's result when it is an int."""
        return self._act(kind, description, body)

    @contextmanager
    def bookkeeping(self) -> Iterator[sqlite3.Connection]:
        """A write transaction outside the action log, for what is no coding act (a
        project's identity, a copy's preparation); nothing in it can be undone."""
        with self._write() as conn:
            yield conn

    def reader(self) -> sqlite3.Connection:
        """This thread's read connection, for read queries kept outside this class."""
        return self._read()

    def _tag_names(self, tag_ids: Sequence[int]) -> str:
        names = {t.id: t.name for t in self.codebook()}
        return ", ".join(names.get(t, f"#{t}") for t in tag_ids)

    # -------------------------------------------------------------- meta
    @property
    def archive_root(self) -> str:
        row = self._read().execute("SELECT value FROM meta WHERE key = 'archive_root'").fetchone()
        return row[0] if row else ""

    def set_archive_root(self, root: str) -> None:
        """Point the project at a moved archive (not undoable: not a coding act)."""
        with self._write() as conn:
            conn.execute("INSERT INTO meta (key, value) VALUES ('archive_root', ?) "
                         "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (str(root),))

    @property
    def schema_version(self) -> int:
        return schema.file_version(self._read())

    def integrity_problems(self) -> list[str]:
        """Empty when ``PRAGMA integrity_check`` and ``foreign_key_check`` pass."""
        conn = self._read()
        problems = [r[0] for r in conn.execute("PRAGMA integrity_check") if r[0] != "ok"]
        problems += [f"foreign key: {r}" for r in conn.execute("PRAGMA foreign_key_check")]
        return problems

    # ------------------------------------------------------------ coders
    def use_coder(self, name: str) -> int:
        """Make ``name`` the coder credited with later actions (created if new)."""
        name = name.strip()
        if not name:
            raise ProjectError("A coder needs a name.")
        # Registering the coder is the window's bookkeeping, not a change of the data
        # worth a new backup copy (see store.safety.session_changes).
        with self._write() as conn, self._as_bookkeeping():
            conn.execute("INSERT OR IGNORE INTO coders (name, created_at) VALUES (?, ?)",
                         (name, utc_now()))
            self._coder_id = conn.execute("SELECT id FROM coders WHERE name = ?",
                                          (name,)).fetchone()[0]
        return self._coder_id

    @property
    def coder_id(self) -> int:
        # Without an explicit choice, actions are credited to the login name so
        # a CLI session is never anonymous.
        if self._coder_id is None and (stamp := copy_stamp(self._read())) is not None:
            self.use_coder(stamp.coder)  # a coder's copy opens with its coder
        if self._coder_id is None:
            try:
                login = getpass.getuser()
            except Exception:  # no login name in some containers and services
                login = "coder"
            self.use_coder(login or "coder")
        assert self._coder_id is not None
        return self._coder_id

    def coders(self) -> list[tuple[int, str, str]]:
        """(id, name, created_at) of everyone who has coded in this project."""
        return self._read().execute("SELECT id, name, created_at FROM coders ORDER BY id"
                                    ).fetchall()

    # ------------------------------------------------------ pipeline input
    def record_files(self, files: Iterable[tuple[str, int, float]]) -> int:
        with self._write() as conn:
            return runs.record_files(conn, files)

    def known_files(self) -> dict[str, tuple[int, float]]:
        """path -> (size, mtime) of files recorded by earlier scans."""
        return {p: (s, m) for p, s, m in
                self._read().execute("SELECT path, size, mtime FROM files")}

    def save_run(self, params: dict[str, Any], method: str, timings: dict[str, float],
                 pages: Sequence[PageInfo], pairs: runs.Pairs, clusters: Sequence[Cluster],
                 *, singletons: bool = True, progress: ProgressFn = no_progress,
                 filters: RunFilters | None = None, skipped: Sequence[SkipRecord] = (),
                 signatures: RunSignatures | None = None) -> int:
        """Store a detection run in one transaction and make it the current run. When it
        replaces a run, that is one undoable action carrying the coder's decisions over
        (see ``recluster``).

        ``pairs``: Pair objects, or the matcher's arrays as they are (``runs.PairArrays``),
        which saves a Python object per pair. ``skipped``: inputs that gave no page (kept
        so the list survives reopening). ``signatures``: the run's signature matrix, for a
        run whose clusters need more than its pairs to repeat (workbench.store.runs.signatures).
        """
        def save(conn: sqlite3.Connection) -> int:
            run_id = runs.save_run(conn, params, method, timings, pages, pairs, clusters,
                                   singletons=singletons, progress=progress, filters=filters,
                                   skipped=skipped, current=False)
            if signatures is not None:
                save_signatures(conn, run_id, signatures)
            return run_id

        return self._replace_run(f"Run detection ({method})", save)

    def _replace_run(self, description: str, save: Callable[[sqlite3.Connection], int]) -> int:
        """Save a new run (``save`` writes it without making it current) and make it the
        current one. When it replaces a run, that is one undoable action that carries
        every decision of the coder over to it by page (:mod:`workbench.store.coding.carry`);
        the project's first run is no action (there is nothing before it to go back to)."""
        self.last_carry = None
        if self.current_run() is None:
            with self._write() as conn:
                run_id = save(conn)
                runs.make_current(conn, run_id)
                return run_id

        def body(conn: sqlite3.Connection, action_id: int) -> int:
            old_run = summary.current_run(conn)
            run_id = save(conn)
            self.last_carry = carry.replace_run(conn, action_id, old_run, run_id)
            return run_id

        result = self._act("rerun", description, body)
        assert result.id is not None  # the current run changed: never an empty action
        return result.id

    def run_signatures(self, run_id: int | None = None) -> RunSignatures | None:
        """The signature matrix a run (default: the current one) kept, or None."""
        return run_signatures(self._read(), self._run_id(run_id))

    def begin_run(self, params: dict[str, Any]) -> None:
        """Keep ``params`` in the project as the settings of a run about to start, so a
        run that never finishes (killed, crashed) does not lose them. ``save_run`` clears
        them in the transaction that saves the run; so does ``forget_pending_run``."""
        with self._write() as conn:
            runs.begin_run(conn, params)

    def pending_run(self) -> dict[str, Any] | None:
        """The params given to ``begin_run`` for a run that was never saved, or None."""
        return runs.pending_run(self._read())

    def forget_pending_run(self) -> None:
        """Drop the pending run's settings (the coder declined to run it again)."""
        with self._write() as conn:
            runs.forget_pending_run(conn)

    def run_filters(self, run_id: int | None = None) -> RunFilters:
        """What a run (default: the current one) left out before matching."""
        if run_id is None:
            run = self.current_run()
            if run is None:
                return RunFilters()
            run_id = run.id
        return runs.run_filters(self._read(), run_id)

    def _run_id(self, run_id: int | None) -> int:
        if run_id is not None:
            return run_id
        run = self.current_run()
        if run is None:
            raise ProjectError("The project has no detection run yet.")
        return run.id

    def run_graph(self, run_id: int | None = None) -> PairGraph:
        """A run's (default: the current one's) stored pairs as page indexes."""
        return pairs.run_graph(self._read(), self._run_id(run_id))

    def run_page_ids(self, run_id: int | None = None) -> list[int]:
        """Page ids of a run by page index (the numbering of ``run_graph`` and ``run_groups``)."""
        return pairs.run_page_ids(self._read(), self._run_id(run_id))

    def run_pair_arrays(self, run_id: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A run's (default: the current one's) stored pairs as arrays of page indexes and
        similarities (``pairs.run_pair_arrays``)."""
        return pairs.run_pair_arrays(self._read(), self._run_id(run_id))

    def run_page_facts(self, run_id: int | None = None) -> list[tuple[str, str | None, str | None]]:
        """(key, checksum, url) of a run's pages by page index."""
        return pairs.run_page_facts(self._read(), self._run_id(run_id))

    def run_groups(self, run_id: int | None = None) -> list[list[int]]:
        """A run's clusters of two or more pages as they are now, as page indexes."""
        return pairs.run_groups(self._read(), self._run_id(run_id))

    def hand_edits(self, run_id: int | None = None) -> int:
        """How many splits and merges the coder made in a run."""
        return pairs.hand_edits(self._read(), self._run_id(run_id))

    def recluster(self, tau: float) -> int:
        """Cluster the current run's stored pairs again at ``tau`` as a new current run.

        Nothing is read or extracted again; the pages, pairs and filters are the
        current run's. Every decision of the coder is carried over by page
        (:mod:`workbench.store.coding.carry`): tags stay on their pages (new clusters whose
        pages carry differing tags are flagged for review), hand splits and merges are
        kept, "not this story" marks and memos follow their pages; what cannot map one
        to one is listed by ``carried_to_review``. One undoable action: undo makes the
        earlier run, which stays in the file unchanged, current again.
        """
        run = self.current_run()
        if run is None:
            raise ProjectError("The project has no detection run to cluster again.")
        method = str(run.params.get("cluster_method", "star"))
        started = time.perf_counter()
        try:
            vouch = run_vouch(run.params, self.run_signatures(run.id))
            clusters = cluster_at(self.run_graph(run.id), method, tau,
                                  clustering_options(run.params, vouch is not None), vouch)
        except ValueError as exc:
            raise ProjectError(f"Cannot cluster the run again: {exc}") from exc
        timings = {"cluster": time.perf_counter() - started}
        try:
            return self._replace_run(
                f"Cluster again at τ {tau:.2f}",
                lambda conn: runs.save_recluster(conn, run.id, tau, clusters, timings,
                                                 current=False))
        except ValueError as exc:
            raise ProjectError(str(exc)) from exc

    def hand_clusters(self, run_id: int | None = None) -> int:
        """How many clusters of a run (default: the current one) the coder split or
        merged by hand; a re-clustering keeps them as they are."""
        return len(carry.hand_clusters(self._read(), self._run_id(run_id)))

    def carried_to_review(self) -> list[carry.CarriedItem]:
        """What the re-clusterings that made the current run carried over and the coder
        has not reviewed yet (memos on clusters that split or changed, marks that could
        not be carried), oldest first."""
        return carry.review_list(self._read())

    def mark_carried_reviewed(self, item_ids: Sequence[int]) -> ActionResult:
        """Take carried items off the review list (one undoable action)."""
        ids = list(item_ids)
        return self._act("carried_reviewed", f"Mark {_n(ids, 'carried item')} as reviewed",
                         lambda c, _a: carry.mark_reviewed(c, ids))

    # ------------------------------------------------------- tag actions
    def tag_clusters(self, cluster_ids: Sequence[int], tag_ids: Sequence[int]) -> ActionResult:
        cids, tids = list(cluster_ids), list(tag_ids)
        return self._act("tag", f"Tag {_n(cids, 'cluster')} with {self._tag_names(tids)}",
                         lambda c, _a: tagging.tag_clusters(c, self.coder_id, cids, tids))

    def untag_clusters(self, cluster_ids: Sequence[int], tag_ids: Sequence[int]) -> ActionResult:
        cids, tids = list(cluster_ids), list(tag_ids)
        return self._act("untag", f"Remove {self._tag_names(tids)} from {_n(cids, 'cluster')}",
                         lambda c, _a: tagging.untag_clusters(c, cids, tids))

    def toggle_tag(self, cluster_ids: Sequence[int], tag_id: int) -> ActionResult:
        """The one-keystroke action: untag if every page has the tag, else tag."""
        if tagging.all_tagged(self._read(), list(cluster_ids), tag_id):
            return self.untag_clusters(cluster_ids, [tag_id])
        return self.tag_clusters(cluster_ids, [tag_id])

    def tag_pages(self, page_ids: Sequence[int], tag_ids: Sequence[int]) -> ActionResult:
        pids, tids = list(page_ids), list(tag_ids)
        return self._act("tag_pages", f"Tag {_n(pids, 'page')} with {self._tag_names(tids)}",
                         lambda c, _a: tagging.tag_pages(c, self.coder_id, pids, tids))

    def untag_pages(self, page_ids: Sequence[int], tag_ids: Sequence[int]) -> ActionResult:
        pids, tids = list(page_ids), list(tag_ids)
        return self._act("untag_pages", f"Remove {self._tag_names(tids)} from {_n(pids, 'page')}",
                         lambda c, _a: tagging.untag_pages(c, pids, tids))

    def split(self, cluster_id: int, page_ids: Sequence[int]) -> ActionResult:
        """Move pages out of a cluster into a new one (``id``: the new cluster)."""
        pids = list(page_ids)
        return self._act("split", f"Split {_n(pids, 'page')} out of cluster {cluster_id}",
                         lambda c, a: tagging.split(c, a, cluster_id, pids))

    def merge(self, cluster_ids: Sequence[int], into: int | None = None) -> ActionResult:
        """Merge clusters (``id``: the one that remains; by default the largest)."""
        cids = list(cluster_ids)
        return self._act("merge", f"Merge clusters {', '.join(map(str, cids))}",
                         lambda c, a: tagging.merge(c, a, cids, into))

    def set_excluded(self, cluster_id: int, page_ids: Sequence[int],
                     excluded: bool) -> ActionResult:
        """Mark members of a cluster as not its story (``excluded``) or as its story
        again, without changing the clustering; see :func:`tagging.set_excluded`."""
        pids = list(dict.fromkeys(page_ids))
        what = "as not this story" if excluded else "as this story again"
        return self._act("exclude",
                         f"Mark {_n(pids, 'page')} of cluster {cluster_id} {what}",
                         lambda c, _a: tagging.set_excluded(c, self.coder_id, cluster_id,
                                                            pids, excluded))

    def set_review(self, cluster_ids: Sequence[int], needs_review: bool) -> ActionResult:
        cids = list(cluster_ids)
        verb = "Flag" if needs_review else "Clear review flag of"
        return self._act("review", f"{verb} {_n(cids, 'cluster')}",
                         lambda c, _a: tagging.set_review(c, cids, needs_review))

    # -------------------------------------------------- related rewrites
    def related(self, cluster_id: int) -> list[Related]:
        """Clusters some page of this one resembles below τ (the run's stored pairs
        between its floor and τ), ranked, less what the coder dismissed; see
        :mod:`workbench.core.related`."""
        conn = self._read()
        run_id = related.cluster_run(conn, cluster_id)
        if run_id is None:
            return []
        links = self._run_links.get(run_id)
        if links is None:  # a run's pairs never change: read once per run
            links = self._run_links[run_id] = related.run_links(conn, run_id)
        return related.related_of(conn, cluster_id, links)

    def related_read(self, cluster_id: int) -> bool:
        """Whether :meth:`related` is quick for this cluster: its run's pairs below τ were
        read already (a million pairs take seconds: the window reads them off its GUI
        thread first), or it is in no run."""
        run_id = related.cluster_run(self._read(), cluster_id)
        return run_id is None or run_id in self._run_links

    def dismiss_related(self, cluster_id: int, item: Related) -> ActionResult:
        """The coder's judgement that ``item`` is not this cluster's story: its links are
        kept by page key (:mod:`workbench.store.coding.dismissals`), so they are not offered
        again after re-runs, re-clusterings and merges. One undoable action."""
        links = [(link.here, link.there) for link in item.links]

        def body(conn: sqlite3.Connection, _action_id: int) -> None:
            dismissals.dismiss(conn, self.coder_id, links)

        return self._act("dismiss_related",
                         f"Dismiss cluster {item.cluster} as not related to cluster {cluster_id}",
                         body)

    def dismissed_related(self) -> list[tuple[str, str, str, str]]:
        """Every dismissed link: (page key, page key, coder, when)."""
        return dismissals.all_dismissed(self._read())

    def merge_page(self, cluster_id: int, page_id: int) -> ActionResult:
        """Take one page into the cluster as a member (``id``: the cluster): a page alone
        in its cluster is merged; a page of a larger cluster is split out of it and merged,
        in one undoable action (its old cluster keeps its other pages)."""
        def body(conn: sqlite3.Connection, action_id: int) -> int:
            source = queries.cluster_of_page(conn, page_id)
            if source is None:
                raise ProjectError(f"Page {page_id} is in no cluster of the current run.")
            if source == cluster_id:
                raise ProjectError(f"Page {page_id} is in cluster {cluster_id} already.")
            size = conn.execute("SELECT count(*) FROM cluster_members WHERE cluster_id = ?",
                                (source,)).fetchone()[0]
            if size > 1:
                source = tagging.split(conn, action_id, source, [page_id])
            return tagging.merge(conn, action_id, [cluster_id, source], into=cluster_id)

        return self._act("merge", f"Merge page {page_id} into cluster {cluster_id}", body)

    # --------------------------------------------------------- codebook
    def codebook(self) -> list[Tag]:
        return codebook.all_tags(self._read())

    def tag_by_name(self, name: str) -> Tag | None:
        key = name.strip().casefold()
        return next((t for t in self.codebook() if t.name.casefold() == key), None)

    def add_tag(self, name: str, description: str = "", colour: str = "",
                shortcut: str | None = None, parent_id: int | None = None) -> ActionResult:
        return self._act("add_tag", f"Add tag {name.strip()}",
                         lambda c, _a: codebook.add_tag(c, name, description, colour,
                                                        shortcut, parent_id))

    def edit_tag(self, tag_id: int, **fields: Any) -> ActionResult:
        """Change name, description, colour, shortcut and/or parent_id."""
        return self._act("edit_tag", f"Edit tag {self._tag_names([tag_id])}",
                         lambda c, _a: codebook.edit_tag(c, tag_id, **fields))

    def delete_tag(self, tag_id: int) -> ActionResult:
        return self._act("delete_tag", f"Delete tag {self._tag_names([tag_id])}",
                         lambda c, _a: codebook.delete_tag(c, tag_id))

    def import_codebook(self, specs: Sequence[TagSpec]) -> ActionResult:
        items = list(specs)
        return self._act("import_codebook", f"Import {_n(items, 'tag')} into the codebook",
                         lambda c, _a: codebook.import_specs(c, items))

    # ------------------------------------------------------------- memos
    def add_memo(self, cluster_id: int, text: str) -> ActionResult:
        return self._act("memo", f"Add memo to cluster {cluster_id}",
                         lambda c, _a: memos.add_memo(c, self.coder_id, cluster_id, text))

    def edit_memo(self, memo_id: int, text: str) -> ActionResult:
        return self._act("memo", f"Edit memo {memo_id}",
                         lambda c, _a: memos.edit_memo(c, memo_id, text))

    def delete_memo(self, memo_id: int) -> ActionResult:
        return self._act("memo", f"Delete memo {memo_id}",
                         lambda c, _a: memos.delete_memo(c, memo_id))

    def memos(self, cluster_id: int) -> list[Memo]:
        """The cluster's memos, oldest first (page memos: ``page_memos``)."""
        return memos.memos_of(self._read(), cluster_id)

    def add_page_memo(self, page_id: int, text: str) -> ActionResult:
        """A memo on a page (it stays with the page, like its tags); ``id``: the memo."""
        return self._act("memo", f"Add memo to page {page_id}",
                         lambda c, _a: memos.add_page_memo(c, self.coder_id, page_id, text))

    def page_memos(self, page_id: int) -> list[Memo]:
        """The page's memos, oldest first."""
        return memos.page_memos_of(self._read(), page_id)

    def set_memo(self, cluster_id: int | None = None, page_id: int | None = None, *,
                 text: str, continued: bool = False) -> ActionResult:
        """Save the current coder's one memo on a cluster or (``page_id``) a page:
        created if there is none, edited, or deleted when ``text`` is blank. One undoable
        action per call that changes something (``id``: the memo; None once deleted);
        a call with unchanged text logs nothing. Meant for a memo pane that saves on
        every pause in typing: each save logs only the changed text, deflated against
        the text before.

        ``continued``: the save goes on typing saved before; when the newest action is
        this coder's save of this memo, the change joins it (one undo step for one
        memo's typing, however often the coder paused).
        """
        target = f"cluster {cluster_id}" if cluster_id is not None else f"page {page_id}"
        own = None
        if (cluster_id is None) != (page_id is None):
            own = memos.own_memo(self._read(), self.coder_id, cluster_id, page_id)
        if not text.strip():
            description = f"Delete memo on {target}"
        else:
            description = f"{'Edit' if own else 'Add'} memo on {target}"
        fold = (lambda c: memos.last_edit_of(c, self.coder_id, cluster_id, page_id)) \
            if continued and (cluster_id is None) != (page_id is None) else None
        return self._act("memo", description,
                         lambda c, _a: memos.set_memo(c, self.coder_id, cluster_id, page_id,
                                                      text), fold_into=fold)

    def save_copy(self, target: Path | str) -> Path:
        """Write the project as it is now (its ``-wal`` included) to ``target``, which
        may be a project nobody has open for writing (see :mod:`store.safety.save_as`)."""
        return save_as.save_copy(self._read(), self.path, Path(target))

    # --------------------------------------------------------- undo/redo
    def undo(self) -> int | None:
        """Undo the newest action (id returned; None: nothing to undo)."""
        return self._replay(self._log.undo, "undo")

    def redo(self) -> int | None:
        return self._replay(self._log.redo, "redo")

    def _replay(self, step: Callable[[], int | None], doing: str) -> int | None:
        """Undo or redo; a failure is a ProjectError (StorageError: full disk...) that
        says so, like every other change, never a raw sqlite3 error."""
        if self._closed:
            raise ProjectError(f"{self.path} is closed.")
        try:
            return step()
        except sqlite3.Error as exc:
            raise _project_error(exc, self.path, f"Could not {doing} the last action in") from exc

    def clusters_of_action(self, action_id: int) -> list[int]:
        """Clusters of the current run that an action changed (after undo/redo: as they
        are now), so the window can select what an undo or redo changed. (On the write
        connection: finding a tagged page's cluster uses a temporary table.)"""
        with self._write() as conn:
            return clusters_of_action(conn, action_id)

    def next_undo(self) -> ActionInfo | None:
        """The action ``undo()`` would revert, for an "Undo <description>" menu item."""
        return next_undo(self._read())

    def next_redo(self) -> ActionInfo | None:
        return next_redo(self._read())

    def history(self, limit: int = 100) -> list[ActionInfo]:
        return history(self._read(), limit)

    # ------------------------------------------------------------- reads
    def list_clusters(self, offset: int = 0, limit: int = 200, *, order: str = "size",
                      coded: str | None = None,
                      review_only: bool = False) -> list[queries.ClusterRow]:
        return queries.list_clusters(self._read(), offset, limit, order=order, coded=coded,
                                     review_only=review_only)

    def count_clusters(self, *, coded: str | None = None, review_only: bool = False) -> int:
        return queries.count_clusters(self._read(), coded=coded, review_only=review_only)

    def cluster(self, cluster_id: int) -> queries.ClusterRow | None:
        return queries.cluster(self._read(), cluster_id)

    def members(self, cluster_id: int) -> list[queries.MemberRow]:
        return queries.members(self._read(), cluster_id)

    def page(self, page_id: int) -> queries.PageDetail | None:
        return queries.page(self._read(), page_id)

    def page_id(self, key: str) -> int | None:
        return queries.page_id_by_key(self._read(), key)

    def cluster_of_page(self, page_id: int) -> int | None:
        return queries.cluster_of_page(self._read(), page_id)

    def pair_similarity(self, a: int, b: int) -> float | None:
        return queries.pair_similarity(self._read(), a, b)

    def count_single_pages(self) -> int:
        """Pages of the current run with no near duplicate (clusters of one page)."""
        return queries.count_single_pages(self._read())

    def counts(self) -> queries.Counts:
        return queries.counts(self._read())

    def runs(self) -> list[queries.RunInfo]:
        return queries.runs(self._read())

    def current_run(self) -> queries.RunInfo | None:
        return queries.current_run(self._read())

    def skipped_pages(self) -> list[tuple[str, str]]:
        return queries.skipped_pages(self._read())

    def page_records(self, *, coded_only: bool = False) -> Iterator[PageRecord]:
        """Rows for the export; see :mod:`workbench.store.runs.page_table`."""
        return page_records(self._read(), coded_only=coded_only)

    @contextmanager
    def tolerating_damaged_text(self) -> Iterator[None]:
        """Reads on this thread give text that is not UTF-8 with U+FFFD in place of the bad
        bytes instead of failing (see :mod:`workbench.store.safety.damaged_text`)."""
        with damaged_text.tolerating(self._read()):
            yield

    def damaged_text_cells(self) -> list[damaged_text.DamagedCell]:
        """Every text cell that is not valid UTF-8 (a full read: only once damage was met)."""
        return damaged_text.damaged_cells(self._read())


def _n(items: Sequence[Any], noun: str) -> str:
    return f"1 {noun}" if len(items) == 1 else f"{len(items)} {noun}s"


# ------------------------------------------------- opening, checking, failing
# Project files this process has open (resolved path -> how many Projects). While one
# is open, nothing here may open and close a descriptor of its own on that file: that
# would drop the POSIX locks its SQLite connections hold (integrity.prefetch).
_files_open_here: Counter[str] = Counter()
_files_open_here_lock = threading.Lock()


def _hold_file(path: Path) -> tuple[str, bool]:
    """Count one more Project on ``path``; (its key, whether it is the only one)."""
    key = str(path.resolve())
    with _files_open_here_lock:
        _files_open_here[key] += 1
        return key, _files_open_here[key] == 1


def _let_go_file(key: str) -> None:
    with _files_open_here_lock:
        _files_open_here[key] -= 1
        if _files_open_here[key] <= 0:
            del _files_open_here[key]


def _project_error(exc: BaseException, path: Path, doing: str) -> ProjectError:
    """A sqlite3 or OS error met while ``doing`` something to ``path``, for the user."""
    return storage_error(exc, path) or ProjectError(f"{doing} {path}: {exc}")


def _check_now(path: Path) -> bool:
    """Whether the file is small enough to check before opening returns."""
    size = path.stat().st_size
    with suppress(OSError):
        size += access.wal_path(path).stat().st_size
    return size <= integrity.SYNC_CHECK_MAX_BYTES


def _check(conn: sqlite3.Connection, path: Path, backup_dir: Path | None) -> None:
    """Raise ProjectDamaged (or 'not a project') unless the file passes quick_check."""
    try:
        found = integrity.problems(conn)
    except integrity.NotADatabase as exc:
        raise _not_a_database(exc, path, backup_dir) from exc
    if found:
        raise ProjectDamaged(path, found, backup.good_backups(path, backup_dir))


def _not_a_database(exc: BaseException, path: Path, backup_dir: Path | None) -> ProjectError:
    good = backup.good_backups(path, backup_dir)
    if good:  # it had backups, so it was a project: its first page is gone
        return ProjectDamaged(path, [f"not an SQLite database any more ({exc})"], good)
    return ProjectError(f"{path} is not a SpotSigs Workbench project "
                        f"(not an SQLite database: {exc}).")


def _opening_error(exc: sqlite3.Error, path: Path, backup_dir: Path | None) -> ProjectError:
    """What to say when SQLite cannot even connect (it reads the header at once)."""
    code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
    if code == sqlite3.SQLITE_NOTADB:
        return _not_a_database(exc, path, backup_dir)
    if code == sqlite3.SQLITE_CORRUPT:  # a damaged schema page: read as the file opens
        return ProjectDamaged(path, [str(exc)], backup.good_backups(path, backup_dir))
    return _project_error(exc, path, "Cannot open")


def _openable_version(conn: sqlite3.Connection, path: Path, backup_dir: Path | None) -> int:
    """schema.check_openable, except that a damaged schema page (met here when a big file
    is checked later, on a thread) is reported as damage, not as a foreign file."""
    try:
        return schema.check_openable(conn, str(path))
    except ProjectError as exc:
        cause = exc.__cause__
        if (isinstance(cause, sqlite3.DatabaseError)
                and (getattr(cause, "sqlite_errorcode", 0) or 0) & 0xFF == sqlite3.SQLITE_CORRUPT):
            raise ProjectDamaged(path, [str(cause)],
                                 backup.good_backups(path, backup_dir)) from cause
        raise


def _backup_before_upgrade(conn: sqlite3.Connection, path: Path, keep: int,
                           backup_dir: Path | None) -> None:
    """The copy an older workbench can still open; without it, no upgrade."""
    try:
        backup.make_backup(conn, path, keep, backup_dir)
    except (OSError, sqlite3.Error) as exc:
        folder = backup_dir or backup.backup_dir_for(path)
        problem = storage_error(exc, folder)
        why = str(problem) if problem is not None else str(exc)
        raise ProjectError(
            f"{path} needs upgrading to this version of the workbench, and the copy kept "
            f"before upgrading could not be written ({why}) The file has not been "
            "changed.") from exc


def _backup_error(exc: BaseException, path: Path, backup_dir: Path | None) -> ProjectError:
    folder = backup_dir or backup.backup_dir_for(path)
    problem = storage_error(exc, folder)
    said = str(problem) if problem is not None else f"Could not write it: {exc}."
    message = (f"No backup copy of {path.name} was made when it was opened. {said} "
               "The project itself is open and safe to use.")
    return StorageError(message, problem.kind) if problem is not None else ProjectError(message)


def _remove_database(path: Path) -> None:
    for name in (path.name, *(path.name + side for side in ("-wal", "-shm", "-journal"))):
        with suppress(OSError):
            (path.parent / name).unlink(missing_ok=True)
