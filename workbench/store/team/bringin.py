"""Bring a coder's work in: their copy's decisions merged into the lead's project.

One undoable action. Every decision is attributed to the copy's coder and keyed by the
copy and its id there (``team_imports``) or by its content (a coder's code on a page is
one row), so bringing the same copy in twice changes nothing.

Where things go, never over another coder's decision:

* the coder's tags go into their own codes (``coder_codes``), one set per page, beside
  every other coder's; on a cluster outside every reliability sample they also become
  the final codes (``page_tags``) of pages that have none yet;
* "not this story" marks go into ``coder_exceptions``; outside reliability samples a
  mark is also made on the project (a mark already there stays, and is never taken off);
* memos are the coder's memos, as in the copy;
* a related suggestion the coder dismissed is dismissed here, by the two pages' keys
  (``related_dismissals``, the coder's name and time); a pair dismissed here before keeps
  its first coder and time;
* splits and merges are made when the pages are still together as the copy found them,
  else kept aside with a note (``BringInReport.kept_aside``); a split the coder undid
  after it was brought in is undone here when its pages are still as it left them (the
  two clusters merged again), else said in a note; a merge the coder undid is said in a
  note (which pages came from which cluster is not kept, so the lead splits them, or
  undoes the bring-in);
* a tag new in the copy is added to the codebook; tags are matched by GUID, so a tag
  renamed on either side is the same code.

A decision the coder took back in the copy after it was brought in (undo, or a memo
deleted) is taken back here too: the coder's own codes and "not this story" marks from
this copy on pages the coder's actions no longer touch, the memo, the dismissal (only
where this copy's dismissal is the one kept here). Final codes and marks made on the
project stay, as when the coder changes a code.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.store.clock import utc_now
from workbench.store.coding import codebook, tagging
from workbench.store.errors import ProjectError
from workbench.store.runs import summary
from workbench.store.team import samples
from workbench.store.team.codes import UNIT
from workbench.store.team.copy_work import CopyWork, read_copy
from workbench.store.team.identity import project_id

if TYPE_CHECKING:
    from workbench.store.project import Project


@dataclass(slots=True)
class BringInReport:
    """What bringing one copy in did."""

    coder: str
    copy: Path
    action_id: int | None = None  # None: nothing new (brought in before)
    copy_actions: int = 0  # the coder's actions in the copy
    new_actions: int = 0  # of them, not brought in before
    codes_added: int = 0
    codes_removed: int = 0
    final_codes: int = 0  # page tags that became final codes
    exceptions: int = 0
    memos: int = 0
    dismissals: int = 0  # related suggestions dismissed here
    dismissals_undone: int = 0  # dismissals taken back in the copy, taken back here
    splits: int = 0
    merges: int = 0
    splits_undone: int = 0  # splits the coder undid in the copy, undone here
    tags_added: int = 0
    kept_aside: list[str] = field(default_factory=list)


def bring_in(project: Project, copy_path: Path | str) -> BringInReport:
    """Merge the coder's work in the copy at ``copy_path`` into ``project``.

    ProjectError, changing nothing, for a file that is no coder's copy, a copy of
    another project or of another detection run, or the project itself.
    """
    path = Path(copy_path)
    if path.resolve() == project.path.resolve():
        raise ProjectError(f"{path} is the open project itself, not a coder's copy.")
    work = read_copy(path)
    lead = project.reader()
    here = project_id(lead)
    if here is None or work.stamp.project_id != here:
        raise ProjectError(f"{path} was handed out from another project, not from "
                           f"{project.path.name}. Bring it into the project it came from. "
                           "Nothing was brought in.")
    run = summary.current_run(lead)
    if run != work.stamp.run_id:
        raise ProjectError(f"{path} was handed out for detection run {work.stamp.run_id}, but "
                           f"the project's current run is {run} (detection was run again "
                           "since). Its clusters are not this run's, so nothing was brought "
                           "in; hand out new copies for this run.")
    with project.bookkeeping() as conn:
        conn.execute("INSERT OR IGNORE INTO coders (name, created_at) VALUES (?, ?)",
                     (work.stamp.coder, utc_now()))
        coder_id = int(conn.execute("SELECT id FROM coders WHERE name = ?",
                                    (work.stamp.coder,)).fetchone()[0])
    report = BringInReport(work.stamp.coder, path, copy_actions=len(work.actions))

    def body(conn: sqlite3.Connection, action_id: int) -> int:
        _Merge(conn, action_id, coder_id, work, report).run()
        return action_id

    result = project.perform(
        "bring_in", f"Bring in {work.stamp.coder}'s work ({len(work.actions)} actions) "
        f"from {path.name}", body)
    report.action_id = result.action_id
    return report


class _Merge:
    """One bring-in, inside its action's transaction."""

    def __init__(self, conn: sqlite3.Connection, action_id: int, coder_id: int,
                 work: CopyWork, report: BringInReport) -> None:
        self.conn = conn
        self.action_id = action_id
        self.coder = coder_id
        self.work = work
        self.copy_id = work.stamp.copy_id
        self.report = report
        self.run_id = summary.current_run(conn)
        self.blind = samples.reliability_clusters(conn)
        self.tag_ids: dict[int, int] = {}

    def run(self) -> None:
        self._actions()
        self._codebook()
        self._structure()
        self._exceptions()
        self._codes()
        self._memos()
        self._dismissals()
        self._units()

    # ------------------------------------------------------------ helpers
    def _imported(self, kind: str, source: int) -> tuple[int | None] | None:
        row = self.conn.execute("SELECT target_id FROM team_imports WHERE copy_id = ? AND "
                                "kind = ? AND source_id = ?",
                                (self.copy_id, kind, source)).fetchone()
        return (row[0],) if row else None

    def _record(self, kind: str, source: int, target: int | None, description: str,
                done_at: str, note: str = "") -> None:
        self.conn.execute(
            "INSERT INTO team_imports (copy_id, kind, source_id, coder_id, target_id, "
            "description, done_at, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (self.copy_id, kind, source, self.coder, target, description, done_at, note))
        if note:
            self.report.kept_aside.append(note)

    def cluster_of(self, page: int) -> int | None:
        """The page's cluster in the lead's current run, as it is inside this action."""
        row = self.conn.execute(
            "SELECT m.cluster_id FROM cluster_members m JOIN clusters c ON c.id = m.cluster_id "
            "WHERE m.page_id = ? AND c.run_id = ? AND c.merged_into IS NULL",
            (page, self.run_id)).fetchone()
        return int(row[0]) if row else None

    # ------------------------------------------------------------- steps
    def _actions(self) -> None:
        """Each of the coder's actions, as a line of the project's history of team work:
        what "nothing lost" counts."""
        for action in self.work.actions:
            if self._imported("action", action.id) is None:
                self._record("action", action.id, self.action_id, action.description,
                             action.created_at, "")
                self.report.new_actions += 1

    def _codebook(self) -> None:
        # Parents first, so a sub-tag new in the copy finds its parent here.
        for tag in sorted(self.work.tags.values(), key=lambda t: (t.parent_id is not None, t.id)):
            found = self.conn.execute("SELECT id FROM tags WHERE guid = ?", (tag.guid,)).fetchone()
            if found is not None:
                self.tag_ids[tag.id] = int(found[0])
                continue
            name = tag.name
            if self.conn.execute("SELECT 1 FROM tags WHERE name = ?", (name,)).fetchone():
                name = f"{tag.name} ({self.work.stamp.coder})"
            self.tag_ids[tag.id] = codebook.add_tag(
                self.conn, name, tag.description, tag.colour, self._free_key(tag.shortcut),
                self._top_level(self.tag_ids.get(tag.parent_id)) if tag.parent_id else None,
                guid=tag.guid)
            self.report.tags_added += 1

    def _free_key(self, shortcut: str | None) -> str | None:
        """The coder's key for a new tag, unless a tag here has it already."""
        if shortcut and self.conn.execute("SELECT 1 FROM tags WHERE shortcut = ?",
                                          (shortcut,)).fetchone() is None:
            return shortcut
        return None

    def _top_level(self, tag_id: int | None) -> int | None:
        """The parent for a new sub-tag: ``tag_id``, or its own parent where the lead made
        it a sub-tag (codebooks hold one level of sub-tags)."""
        if tag_id is None:
            return None
        row = self.conn.execute("SELECT parent_id FROM tags WHERE id = ?", (tag_id,)).fetchone()
        return tag_id if row is None or row[0] is None else int(row[0])

    def _structure(self) -> None:
        for source, (split_from, ref, pages) in self.work.splits.items():
            if self._imported("split", source) is not None:
                continue
            # The pages must still be in the story the coder split them from: that very
            # cluster, or for one the coder made, the one holding its reference page.
            story = split_from if split_from is not None else self.cluster_of(ref)
            cluster = self.cluster_of(pages[0])
            members = set() if cluster is None else {r[0] for r in self.conn.execute(
                "SELECT page_id FROM cluster_members WHERE cluster_id = ?", (cluster,))}
            if (cluster is not None and cluster == story and set(pages) <= members
                    and members - set(pages)):
                new = tagging.split(self.conn, self.action_id, cluster, pages)
                self._record("split", source, new, "split", self.work.stamp.handed_out_at)
                self.report.splits += 1
            else:
                self._record("split", source, None, "split", self.work.stamp.handed_out_at,
                             f"{self.work.stamp.coder} split pages {pages} out of a cluster; "
                             "they are no longer together as the copy found them, so the "
                             "split was not made here.")
        for source, refs in self.work.merges.items():
            if self._imported("merge", source) is not None:
                continue
            found = [self.cluster_of(p) for p in refs]
            clusters = list(dict.fromkeys(c for c in found if c is not None))
            if len(clusters) >= 2 and found[0] is not None:
                into = tagging.merge(self.conn, self.action_id, clusters, found[0])
                self._record("merge", source, into, "merge", self.work.stamp.handed_out_at)
                self.report.merges += 1
            else:
                self._record("merge", source, None, "merge", self.work.stamp.handed_out_at,
                             f"{self.work.stamp.coder} merged the clusters of pages {refs}; "
                             "they are one cluster here already (or gone), so nothing was "
                             "merged.")
        self._structure_undone()

    def _structure_undone(self) -> None:
        """Splits and merges brought in before that the coder has since undone in the copy."""
        done = self.conn.execute(
            "SELECT kind, source_id, target_id FROM team_imports WHERE copy_id = ? AND "
            "kind IN ('split', 'merge') AND target_id IS NOT NULL ORDER BY source_id DESC",
            (self.copy_id,)).fetchall()
        for kind, source, target in done:  # the latest first, as undo goes
            if kind == "split" and source not in self.work.splits:
                self._split_undone(source, int(target))
            elif kind == "merge" and source not in self.work.merges:
                self._forget(source, "merge", f"{self.work.stamp.coder} undid merging clusters into "
                             f"cluster {target} in the copy. The clusters stay merged here: split "
                             "them, or undo the bring-in that merged them.")

    def _split_undone(self, source: int, new: int) -> None:
        moved = self.conn.execute("SELECT from_cluster, page_id FROM splits WHERE to_cluster = ? "
                                  "ORDER BY id", (new,)).fetchall()
        pages = {int(p) for _, p in moved}
        alive = self.conn.execute("SELECT 1 FROM clusters WHERE id = ? AND merged_into IS NULL",
                                  (new,)).fetchone() is not None
        members = {r[0] for r in self.conn.execute(
            "SELECT page_id FROM cluster_members WHERE cluster_id = ?", (new,))}
        origin = self._alive(int(moved[0][0])) if moved else None
        if alive and pages and members == pages and origin is not None:
            tagging.merge(self.conn, self.action_id, [origin, new], origin)
            self.conn.execute("DELETE FROM team_imports WHERE copy_id = ? AND kind = 'split' AND "
                              "source_id = ?", (self.copy_id, source))  # a redo comes in again
            self.report.splits_undone += 1
            return
        self._forget(source, "split", f"{self.work.stamp.coder} undid splitting pages {sorted(pages)} "
                     "out of a cluster in the copy, but they have moved here since, so the split "
                     "stays.")

    def _alive(self, cluster: int) -> int | None:
        """The cluster, or the one it was merged into since."""
        for _ in range(1000):  # a chain of merges ends; the bound only guards a broken file
            row = self.conn.execute("SELECT merged_into FROM clusters WHERE id = ?", (cluster,)).fetchone()
            if row is None:
                return None
            if row[0] is None:
                return cluster
            cluster = int(row[0])
        return None

    def _forget(self, source: int, kind: str, note: str) -> None:
        """Said once: the decision stays recorded, with the note, as no longer the copy's."""
        self.conn.execute("UPDATE team_imports SET target_id = NULL, note = ? WHERE copy_id = ? AND "
                          "kind = ? AND source_id = ?", (note, self.copy_id, kind, source))
        self.report.kept_aside.append(note)

    def _exceptions(self) -> None:
        for page, (ref, excluded, when) in sorted(self.work.exceptions.items()):
            cluster = self.cluster_of(ref)
            if cluster is None or self.cluster_of(page) != cluster:
                continue
            old = self.conn.execute(
                "SELECT excluded FROM coder_exceptions WHERE coder_id = ? AND cluster_id = ? "
                "AND page_id = ?", (self.coder, cluster, page)).fetchone()
            if old is None or bool(old[0]) != excluded:
                self.conn.execute(
                    "INSERT INTO coder_exceptions (coder_id, cluster_id, page_id, excluded, "
                    "marked_at, copy_id) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET "
                    "excluded = excluded.excluded, marked_at = excluded.marked_at, "
                    "copy_id = excluded.copy_id",
                    (self.coder, cluster, page, int(excluded), when, self.copy_id))
                self.report.exceptions += 1
            if excluded and cluster not in self.blind and page != ref:
                marked = self.conn.execute(
                    "SELECT excluded FROM cluster_members WHERE cluster_id = ? AND page_id = ?",
                    (cluster, page)).fetchone()[0]
                if not marked:
                    tagging.set_excluded(self.conn, self.coder, cluster, [page], True)
        for (page,) in self.conn.execute(
                "SELECT DISTINCT page_id FROM coder_exceptions WHERE coder_id = ? AND "
                "copy_id = ?", (self.coder, self.copy_id)).fetchall():
            if page not in self.work.exceptions:  # undone in the copy
                self.report.exceptions += self.conn.execute(
                    "DELETE FROM coder_exceptions WHERE coder_id = ? AND page_id = ? AND "
                    "copy_id = ?", (self.coder, page, self.copy_id)).rowcount

    def _codes(self) -> None:
        for page, codes in sorted(self.work.page_codes.items()):
            wanted = {self.tag_ids[t]: when for t, when in codes.items() if t in self.tag_ids}
            have = {r[0] for r in self.conn.execute(
                "SELECT tag_id FROM coder_codes WHERE coder_id = ? AND page_id = ?",
                (self.coder, page))}
            cluster = self.cluster_of(page)
            for tag in sorted(have - set(wanted)):
                self.conn.execute("DELETE FROM coder_codes WHERE coder_id = ? AND page_id = ? "
                                  "AND tag_id = ?", (self.coder, page, tag))
                self.report.codes_removed += 1
            for tag in sorted(set(wanted) - have):
                self.conn.execute(
                    "INSERT INTO coder_codes (coder_id, page_id, tag_id, cluster_id, coded_at, "
                    "copy_id) VALUES (?, ?, ?, ?, ?, ?)",
                    (self.coder, page, tag, cluster, wanted[tag], self.copy_id))
                self.report.codes_added += 1
            if wanted and cluster not in self.blind and not self.conn.execute(
                    "SELECT 1 FROM page_tags WHERE page_id = ?", (page,)).fetchone():
                self.conn.executemany(
                    "INSERT INTO page_tags (page_id, tag_id, coder_id, tagged_at, "
                    "via_cluster_id) VALUES (?, ?, ?, ?, ?)",
                    [(page, tag, self.coder, when, cluster) for tag, when in wanted.items()])
                self.report.final_codes += len(wanted)
        # Pages this copy's codes were brought in for that no action of the coder touches
        # now: the coder undid them in the copy.
        for (page,) in self.conn.execute(
                "SELECT DISTINCT page_id FROM coder_codes WHERE coder_id = ? AND copy_id = ?",
                (self.coder, self.copy_id)).fetchall():
            if page not in self.work.page_codes:
                self.report.codes_removed += self.conn.execute(
                    "DELETE FROM coder_codes WHERE coder_id = ? AND page_id = ? AND copy_id = ?",
                    (self.coder, page, self.copy_id)).rowcount

    def _memos(self) -> None:
        for memo in self.work.memos:
            done = self._imported("memo", memo.id)
            if done is not None:
                target = done[0]
                if target is not None and self.conn.execute(
                        "UPDATE memos SET text = ?, updated_at = ? WHERE id = ? AND text != ?",
                        (memo.text, memo.updated_at, target, memo.text)).rowcount:
                    self.report.memos += 1
                continue
            cluster = self.cluster_of(memo.cluster_ref) if memo.cluster_ref is not None else None
            if memo.cluster_ref is not None and cluster is None:
                self._record("memo", memo.id, None, memo.text, memo.created_at,
                             f"{self.work.stamp.coder}'s memo \"{memo.text[:40]}\" is on a "
                             "cluster that is gone here; it was not brought in.")
                continue
            new = self.conn.execute(
                "INSERT INTO memos (cluster_id, page_id, coder_id, created_at, updated_at, text) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (cluster, memo.page_id, self.coder, memo.created_at, memo.updated_at,
                 memo.text)).lastrowid
            self._record("memo", memo.id, new, memo.text[:80], memo.created_at)
            self.report.memos += 1

        # A memo brought in before and gone from the coder's memos in the copy since
        # (deleted, or its writing undone): the coder's own choice.
        current = {memo.id for memo in self.work.memos}
        for source, target in self.conn.execute(
                "SELECT source_id, target_id FROM team_imports WHERE copy_id = ? AND "
                "kind = 'memo' AND target_id IS NOT NULL", (self.copy_id,)).fetchall():
            if source not in current and self.conn.execute(
                    "DELETE FROM memos WHERE id = ? AND coder_id = ?",
                    (target, self.coder)).rowcount:
                self.report.memos += 1

    def _dismissals(self) -> None:
        """The coder's dismissed related suggestions (by page keys, so they hold in every
        run); ``team_imports`` keeps each with its keys and whether it is this copy's
        dismissal that the project keeps (target 1) or one made here before (None)."""
        for (key_a, key_b), when in sorted(self.work.dismissals.items()):
            added = self.conn.execute(
                "INSERT OR IGNORE INTO related_dismissals (key_a, key_b, coder_id, "
                "dismissed_at) VALUES (?, ?, ?, ?)", (key_a, key_b, self.coder, when)).rowcount
            source = _pair_source(key_a, key_b)
            if self._imported("dismissal", source) is None:
                self._record("dismissal", source, 1 if added else None,
                             json.dumps([key_a, key_b]), when)
            elif added:
                self.conn.execute("UPDATE team_imports SET target_id = 1 WHERE copy_id = ? "
                                  "AND kind = 'dismissal' AND source_id = ?",
                                  (self.copy_id, source))
            self.report.dismissals += added
        for target, keys in self.conn.execute(
                "SELECT target_id, description FROM team_imports WHERE copy_id = ? AND "
                "kind = 'dismissal'", (self.copy_id,)).fetchall():
            key_a, key_b = json.loads(keys)
            if target is not None and (key_a, key_b) not in self.work.dismissals:
                self.report.dismissals_undone += self.conn.execute(
                    "DELETE FROM related_dismissals WHERE key_a = ? AND key_b = ? AND "
                    "coder_id = ?", (key_a, key_b, self.coder)).rowcount

    def _units(self) -> None:
        """Each cluster the coder touched is a unit they coded (:mod:`codes`); one whose
        every touch the coder undid in the copy is no longer one."""
        touched: set[int] = set()
        for page in sorted(self.work.unit_pages):
            cluster = self.cluster_of(page)
            if cluster is None:
                continue
            touched.add(cluster)
            if self._imported(UNIT, cluster) is None:
                self._record(UNIT, cluster, cluster, "coded", self.work.stamp.handed_out_at)
        for source, target in self.conn.execute(
                "SELECT source_id, target_id FROM team_imports WHERE copy_id = ? AND kind = ? "
                "AND target_id IS NOT NULL", (self.copy_id, UNIT)).fetchall():
            if tagging.surviving(self.conn, target) not in touched:
                self.conn.execute("DELETE FROM team_imports WHERE copy_id = ? AND kind = ? AND "
                                  "source_id = ?", (self.copy_id, UNIT, source))


def _pair_source(key_a: str, key_b: str) -> int:
    """A dismissal's number among a copy's imports (``team_imports.source_id`` is an
    integer; a dismissal is named by two page keys): 63 bits of their hash."""
    digest = hashlib.blake2b(f"{key_a}\n{key_b}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def brought_in_actions(conn: sqlite3.Connection, copy_id: str) -> int:
    """How many of a copy's actions the project holds (the "nothing lost" count)."""
    return int(conn.execute("SELECT count(*) FROM team_imports WHERE copy_id = ? AND "
                            "kind = 'action'", (copy_id,)).fetchone()[0])

