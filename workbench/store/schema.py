"""The project file's schema as a list of forward migrations.

``PRAGMA user_version`` holds the number of migrations applied. A file is
brought up to date by running the missing steps in order inside one
transaction, so a crash mid-migration leaves the old version intact. Never
edit a released step: add a new one (old files on coders' disks depend on it).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import suppress
from itertools import groupby

from workbench.store.errors import ProjectError

# Written into the SQLite header so a project is recognisable as ours ("SSWB").
APPLICATION_ID = 0x53535742

_V1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE files (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime REAL NOT NULL,
    recorded_at TEXT NOT NULL
);

CREATE TABLE pages (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL,
    "offset" INTEGER,
    url TEXT,
    capture_date TEXT,
    http_status INTEGER,
    content_type TEXT,
    encoding TEXT,
    title TEXT NOT NULL DEFAULT '',
    checksum TEXT NOT NULL DEFAULT '',
    signature_count INTEGER NOT NULL DEFAULT 0,
    skip_reason TEXT,
    site TEXT NOT NULL DEFAULT ''
);

CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    method TEXT NOT NULL,
    params TEXT NOT NULL,
    timings TEXT NOT NULL,
    software_version TEXT NOT NULL
);

CREATE TABLE run_pages (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    page_id INTEGER NOT NULL REFERENCES pages(id),
    idx INTEGER NOT NULL,
    PRIMARY KEY (run_id, page_id)
) WITHOUT ROWID;

CREATE TABLE pairs (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    a INTEGER NOT NULL REFERENCES pages(id),
    b INTEGER NOT NULL REFERENCES pages(id),
    similarity REAL NOT NULL,
    PRIMARY KEY (run_id, a, b),
    CHECK (a < b)
) WITHOUT ROWID;

CREATE TABLE clusters (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    reference_page_id INTEGER NOT NULL REFERENCES pages(id),
    origin TEXT NOT NULL DEFAULT 'detected',
    merged_into INTEGER REFERENCES clusters(id),
    needs_review INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX clusters_run ON clusters(run_id);

CREATE TABLE cluster_members (
    cluster_id INTEGER NOT NULL REFERENCES clusters(id),
    page_id INTEGER NOT NULL REFERENCES pages(id),
    similarity REAL,
    PRIMARY KEY (cluster_id, page_id)
) WITHOUT ROWID;
CREATE INDEX cluster_members_page ON cluster_members(page_id);

CREATE TABLE coders (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
);

CREATE TABLE tags (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    description TEXT NOT NULL DEFAULT '',
    colour TEXT NOT NULL DEFAULT '',
    shortcut TEXT UNIQUE,
    parent_id INTEGER REFERENCES tags(id)
);

CREATE TABLE page_tags (
    page_id INTEGER NOT NULL REFERENCES pages(id),
    tag_id INTEGER NOT NULL REFERENCES tags(id),
    coder_id INTEGER NOT NULL REFERENCES coders(id),
    tagged_at TEXT NOT NULL,
    via_cluster_id INTEGER REFERENCES clusters(id),
    PRIMARY KEY (page_id, tag_id)
) WITHOUT ROWID;
CREATE INDEX page_tags_tag ON page_tags(tag_id);

CREATE TABLE memos (
    id INTEGER PRIMARY KEY,
    cluster_id INTEGER NOT NULL REFERENCES clusters(id),
    coder_id INTEGER NOT NULL REFERENCES coders(id),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX memos_cluster ON memos(cluster_id);

CREATE TABLE actions (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    description TEXT NOT NULL,
    coder_id INTEGER REFERENCES coders(id),
    created_at TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'done' CHECK (state IN ('done', 'undone', 'discarded')),
    state_changed_at TEXT
);
CREATE INDEX actions_state ON actions(state, id);

CREATE TABLE splits (
    id INTEGER PRIMARY KEY,
    action_id INTEGER NOT NULL REFERENCES actions(id),
    from_cluster INTEGER NOT NULL REFERENCES clusters(id),
    to_cluster INTEGER NOT NULL REFERENCES clusters(id),
    page_id INTEGER NOT NULL REFERENCES pages(id)
);

CREATE TABLE merges (
    id INTEGER PRIMARY KEY,
    action_id INTEGER NOT NULL REFERENCES actions(id),
    into_cluster INTEGER NOT NULL REFERENCES clusters(id),
    from_cluster INTEGER NOT NULL REFERENCES clusters(id)
);
CREATE INDEX merges_into ON merges(into_cluster);

-- Row-level before/after images of every change a user action made; undo
-- replays them backwards, redo forwards (see recorder.py and undo.py).
CREATE TABLE changes (
    id INTEGER PRIMARY KEY,
    action_id INTEGER NOT NULL REFERENCES actions(id),
    tbl TEXT NOT NULL,
    op TEXT NOT NULL CHECK (op IN ('I', 'U', 'D')),
    before TEXT,
    after TEXT
);
CREATE INDEX changes_action ON changes(action_id, id);
"""

# Version 2: a per-cluster summary maintained on every write, so one page of
# the cluster list is an index range scan instead of aggregating members and
# tags of 100,000 clusters. It holds only the current run's clusters.
_V2 = """
CREATE TABLE cluster_summary (
    cluster_id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL,
    active INTEGER NOT NULL,
    size INTEGER NOT NULL,
    min_similarity REAL,
    mean_similarity REAL,
    reference_page_id INTEGER NOT NULL,
    reference_title TEXT NOT NULL,
    sites TEXT NOT NULL,
    site_count INTEGER NOT NULL,
    coded_pages INTEGER NOT NULL,
    coded_state INTEGER NOT NULL,
    tag_counts TEXT NOT NULL,
    memo_count INTEGER NOT NULL,
    needs_review INTEGER NOT NULL
);
CREATE INDEX cluster_summary_by_size ON cluster_summary(active, size DESC, cluster_id);
CREATE INDEX cluster_summary_by_state
    ON cluster_summary(active, coded_state, size DESC, cluster_id);
"""


# What a run left out before matching (workbench.detect.filters.RunFilters), so the
# side-by-side view can mark exactly the signatures that counted. kind 'common': a
# signature id too many pages share (site NULL); kind 'boilerplate': a block id the
# site repeats. Runs from before this step simply have no rows.
_V3 = """
CREATE TABLE run_filters (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('common', 'boilerplate')),
    site TEXT,
    value INTEGER NOT NULL
);
CREATE INDEX run_filters_by_run ON run_filters(run_id, kind, site);
"""


# Inputs a run could not use (unreadable files, damaged or non-page WARC records), with
# the reason, so the Skipped Files list survives closing the project.
_V4 = """
CREATE TABLE run_skips (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    offset INTEGER,
    reason TEXT NOT NULL
);
CREATE INDEX run_skips_by_run ON run_skips(run_id);
"""


# Per member, the share of the signatures it shares with its reference that lie in blocks
# other pages of the crawl also carry (NULL: not measured). Above one half the member is
# flagged as doubtful in the side-by-side view.
_V5 = """
ALTER TABLE cluster_members ADD COLUMN boilerplate_share REAL;
"""


# Version 6: what a project of a million pages (some 660,000 clusters) needs so that the
# list opens in well under a second and no coding action scans a whole table.
# * cluster_totals: the figures of the status bar and the list's row count, kept up to
#   date with every summary change (counting 660,000 summary rows took 0.5 s).
# * runs.page_count: counting a run's pages took 60 ms, and the window asks often.
# * pages_skipped: the Skipped Files list without reading every page of the run.
# * the id and similarity orders, with and without the coded filter, served by an index
#   instead of sorting every cluster (0.4 s).
# * an index on each column that refers to a cluster: deleting or renumbering a
#   cluster row (undoing a split, replaying a merge) made SQLite's foreign key check
#   scan every cluster and every tag for references to it.
_V6 = """
CREATE TABLE cluster_totals (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    clusters INTEGER NOT NULL,
    all_coded INTEGER NOT NULL,
    some_coded INTEGER NOT NULL,
    need_review INTEGER NOT NULL,
    pages INTEGER NOT NULL,
    pages_coded INTEGER NOT NULL
);
ALTER TABLE runs ADD COLUMN page_count INTEGER;
CREATE INDEX pages_skipped ON pages(key) WHERE skip_reason IS NOT NULL;
CREATE INDEX cluster_summary_by_similarity ON cluster_summary(
    active, (min_similarity IS NULL AND size = 1), coalesce(min_similarity, -1.0), cluster_id);
CREATE INDEX cluster_summary_by_state_similarity ON cluster_summary(
    active, coded_state, (min_similarity IS NULL AND size = 1), coalesce(min_similarity, -1.0),
    cluster_id);
CREATE INDEX cluster_summary_by_id ON cluster_summary(active, cluster_id);
CREATE INDEX cluster_summary_by_state_id ON cluster_summary(active, coded_state, cluster_id);
CREATE INDEX clusters_merged_into ON clusters(merged_into) WHERE merged_into IS NOT NULL;
CREATE INDEX page_tags_via ON page_tags(via_cluster_id) WHERE via_cluster_id IS NOT NULL;
CREATE INDEX splits_from ON splits(from_cluster);
CREATE INDEX splits_to ON splits(to_cluster);
CREATE INDEX merges_from ON merges(from_cluster);
"""


# Version 7: the undo log kept compact and exact. Versions 1-6 logged every changed row
# twice over as JSON (before and after, every column, REALs cut to 15 digits by SQLite's
# JSON): a split that takes a 200-page cluster's reference out logged 30-35 KB, and undo
# changed similarities in their last bits. Now one row per action holds its changes as
# changelog.py describes (only the changed columns of an updated row, exact doubles,
# deflated). The old log is converted (what it lost to 15 digits stays lost) and
# dropped; the changes of discarded actions, which nothing can redo, are not kept.
# (The settings of a run started and not yet saved need no table: runs.begin_run keeps
# them under the ``meta`` key ``pending_run``.)
_V7 = """
CREATE TABLE action_changes (
    action_id INTEGER PRIMARY KEY REFERENCES actions(id),
    data BLOB NOT NULL
);
"""


# Version 8: the coding flow's exceptions, page memos and codebooks that travel.
# * cluster_members.excluded: the coder marked this member "not this story" without
#   changing the clustering; cluster-level tagging skips it and the cluster's coded
#   state ignores it (the summary keeps how many there are).
# * memos belong to a cluster or to a page (page memos follow the page across runs, as
#   its tags do). The table is rebuilt because cluster_id was NOT NULL.
# * tags.guid: a stable identity for REFI-QDA codebook exchange (.qdc), so a code that
#   goes out and comes back is the same code; filled in for existing tags.
_V8 = """
ALTER TABLE cluster_members ADD COLUMN excluded INTEGER NOT NULL DEFAULT 0;
ALTER TABLE cluster_summary ADD COLUMN excluded_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tags ADD COLUMN guid TEXT;
CREATE TABLE memos_v8 (
    id INTEGER PRIMARY KEY,
    cluster_id INTEGER REFERENCES clusters(id),
    page_id INTEGER REFERENCES pages(id),
    coder_id INTEGER NOT NULL REFERENCES coders(id),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    text TEXT NOT NULL,
    CHECK ((cluster_id IS NULL) != (page_id IS NULL))
);
INSERT INTO memos_v8 (id, cluster_id, page_id, coder_id, created_at, updated_at, text)
    SELECT id, cluster_id, NULL, coder_id, created_at, updated_at, text FROM memos;
DROP TABLE memos;
ALTER TABLE memos_v8 RENAME TO memos;
CREATE INDEX memos_cluster ON memos(cluster_id) WHERE cluster_id IS NOT NULL;
CREATE INDEX memos_page ON memos(page_id) WHERE page_id IS NOT NULL
"""


def _v8_backfill(conn: sqlite3.Connection) -> None:
    import uuid

    from workbench.store.runs import summary

    ids = [r[0] for r in conn.execute("SELECT id FROM tags WHERE guid IS NULL")]
    conn.executemany("UPDATE tags SET guid = ? WHERE id = ?",
                     [(str(uuid.uuid4()), i) for i in ids])
    conn.execute("CREATE UNIQUE INDEX tags_guid ON tags(guid)")
    summary.rebuild(conn)  # sites now leave out pages without one


def _v2_backfill(conn: sqlite3.Connection) -> None:
    # Imported here: summary.py needs the v2 table, and the migration must
    # fill it for files that already hold a run.
    from workbench.store.runs import summary

    summary.rebuild(conn)


def _v5_rebuild(conn: sqlite3.Connection) -> None:
    # The summary's minimum similarity now says "unknown" (NULL) when a member's
    # similarity to the reference is below the run's pair floor; recompute it.
    from workbench.store.runs import summary

    summary.rebuild(conn)


def _v6_backfill(conn: sqlite3.Connection) -> None:
    from workbench.store.runs import summary

    conn.execute("UPDATE runs SET page_count = "
                 "(SELECT count(*) FROM run_pages WHERE run_id = runs.id)")
    summary.rebuild_totals(conn)


def _v7_compact_log(conn: sqlite3.Connection) -> None:
    from workbench.store.coding import changelog

    rows = conn.execute(
        "SELECT c.action_id, c.tbl, c.op, c.before, c.after FROM changes c "
        "JOIN actions a ON a.id = c.action_id WHERE a.state != 'discarded' "
        "ORDER BY c.action_id, c.id")
    for action_id, changes in groupby(rows, key=lambda r: r[0]):
        groups = changelog.from_json_images(r[1:] for r in changes)
        if groups:
            changelog.store(conn, action_id, groups)
    conn.execute("DROP TABLE changes")


# Version 9: pages.title_tag keeps the page's <title> (the list shows its headline as
# ``title``; the <title>, often the site's name, goes in the tooltip).
_V9 = """
ALTER TABLE pages ADD COLUMN title_tag TEXT NOT NULL DEFAULT '';
"""


# Version 10: run_signatures keeps a run's signature matrix (workbench.store.runs.signatures)
# when its clusters depend on more than its pairs: weak joins checked against the pages'
# text (workbench.core.clusters.own_text), which the calibration view and Apply must repeat.
_V10 = """
CREATE TABLE run_signatures (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    part TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (run_id, part, seq)
);
"""


# Version 11: what a re-clustering carried over and the coder should look at again
# (workbench.store.coding.carry). Every re-clustering (Apply, Run Again, another method, learned
# weights) carries the coder's decisions to the new clusters by page; what could not map
# one to one (a memo on a cluster whose pages now lie in several clusters, a "not this
# story" mark on a page that became a reference) gets a row here until the coder marks it
# reviewed; a cluster kept as the coder split or merged it gets a reviewed row, so the next
# re-clustering keeps it again. No foreign keys besides the run: a memo deleted later simply
# drops off the list. The partial index finds the "not this story" marks to carry without
# reading every member of a run.
_V11 = """
CREATE TABLE carried (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    kind TEXT NOT NULL CHECK (kind IN ('memo', 'exception', 'hand')),
    cluster_id INTEGER,
    from_cluster INTEGER,
    memo_id INTEGER,
    page_id INTEGER,
    note TEXT NOT NULL,
    reviewed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX carried_by_run ON carried(run_id, reviewed);
CREATE INDEX cluster_members_excluded ON cluster_members(cluster_id) WHERE excluded;
"""


def _v11_settle_undo(conn: sqlite3.Connection) -> None:
    # Runs were saved outside the action log until now: coding done on the run a re-run
    # replaced stayed on the undo stack, and Ctrl+Z changed clusters no longer shown.
    from workbench.store.coding import actions

    actions.settle_unreachable(conn)


# Version 12: team coding (workbench.store.team). The lead's project keeps one writer; coders
# work in copies handed out to them and their work is brought back in. Each coder's own codes
# live beside the project's final codes (``page_tags``, which the window and the export
# show), so two coders can hold different codes for the same page and nothing a coder
# decided is ever overwritten:
# * coder_codes: a coder's tags on pages (like page_tags: they follow the page across
#   re-runs), brought in from the coder's copy; cluster_id: the lead's cluster the page was
#   in then.
# * coder_exceptions: a coder's "not this story" marks (excluded 0: the coder took a mark
#   back).
# * team_imports: every decision brought in, keyed by the copy and its row or action id
#   there, so bringing the same copy in twice changes nothing; target_id: what it became
#   here (NULL and a note: kept aside, not applied).
# * samples / sample_members: drawn samples of clusters with their seed and rule; a
#   reliability sample is coded by every coder, blind. page_id: the cluster's reference
#   page, so membership can be found again after a re-clustering.
# * settlements: a disputed cluster's codes as the lead settled them (the codes themselves
#   go into page_tags).
_V12 = """
CREATE TABLE coder_codes (
    coder_id INTEGER NOT NULL REFERENCES coders(id),
    page_id INTEGER NOT NULL REFERENCES pages(id),
    tag_id INTEGER NOT NULL REFERENCES tags(id),
    cluster_id INTEGER,
    coded_at TEXT NOT NULL,
    copy_id TEXT NOT NULL,
    PRIMARY KEY (coder_id, page_id, tag_id)
) WITHOUT ROWID;
CREATE INDEX coder_codes_page ON coder_codes(page_id);
CREATE INDEX coder_codes_tag ON coder_codes(tag_id);
CREATE TABLE coder_exceptions (
    coder_id INTEGER NOT NULL REFERENCES coders(id),
    cluster_id INTEGER NOT NULL,
    page_id INTEGER NOT NULL REFERENCES pages(id),
    excluded INTEGER NOT NULL,
    marked_at TEXT NOT NULL,
    copy_id TEXT NOT NULL,
    PRIMARY KEY (coder_id, cluster_id, page_id)
) WITHOUT ROWID;
CREATE INDEX coder_exceptions_cluster ON coder_exceptions(cluster_id);
CREATE TABLE team_imports (
    copy_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    source_id INTEGER NOT NULL,
    coder_id INTEGER NOT NULL REFERENCES coders(id),
    target_id INTEGER,
    description TEXT NOT NULL,
    done_at TEXT NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (copy_id, kind, source_id)
) WITHOUT ROWID;
CREATE TABLE samples (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    seed INTEGER NOT NULL,
    rule TEXT NOT NULL,
    reliability INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE TABLE sample_members (
    sample_id INTEGER NOT NULL REFERENCES samples(id),
    cluster_id INTEGER NOT NULL REFERENCES clusters(id),
    page_id INTEGER NOT NULL REFERENCES pages(id),
    PRIMARY KEY (sample_id, cluster_id)
) WITHOUT ROWID;
CREATE INDEX sample_members_cluster ON sample_members(cluster_id);
CREATE TABLE settlements (
    cluster_id INTEGER PRIMARY KEY REFERENCES clusters(id),
    tags TEXT NOT NULL,
    taken_from INTEGER REFERENCES coders(id),
    settled_by INTEGER REFERENCES coders(id),
    settled_at TEXT NOT NULL
);
"""


# Version 13: the coder's dismissals of related suggestions (workbench.store.coding.dismissals):
# a pair of pages below τ, in two clusters, that the coder judged not the same story. Keyed
# by the pages' stable keys (``pages.key``), not by ids of a run, so a dismissal holds across
# re-runs, re-clusterings and merges; a user action like any other (undoable).
_V13 = """
CREATE TABLE related_dismissals (
    key_a TEXT NOT NULL,
    key_b TEXT NOT NULL,
    coder_id INTEGER NOT NULL REFERENCES coders(id),
    dismissed_at TEXT NOT NULL,
    PRIMARY KEY (key_a, key_b),
    CHECK (key_a < key_b)
) WITHOUT ROWID;
CREATE INDEX related_dismissals_b ON related_dismissals(key_b);
"""

# Version 14: where a page's URL and
# capture date came from (a replay's rewritten links, its notes, the record ...), the
# publication date the page states and where it was read
# (workbench.text.provenance.published), and per cluster the first and last date its pages were seen
# (published, else captured), so the cluster list sorts by them without reading members.
# Pages of older projects have these empty until a run reads them again.
_V14 = """
ALTER TABLE pages ADD COLUMN url_from TEXT;
ALTER TABLE pages ADD COLUMN captured_from TEXT;
ALTER TABLE pages ADD COLUMN published TEXT;
ALTER TABLE pages ADD COLUMN published_from TEXT;
ALTER TABLE cluster_summary ADD COLUMN first_seen TEXT;
ALTER TABLE cluster_summary ADD COLUMN last_seen TEXT
"""


# Each step: (DDL script, optional data step run after it in the same transaction).
MIGRATIONS: list[tuple[str, Callable[[sqlite3.Connection], None] | None]] = [
    (_V1, None),
    (_V2, _v2_backfill),
    (_V3, None),
    (_V4, None),
    (_V5, _v5_rebuild),
    (_V6, _v6_backfill),
    (_V7, _v7_compact_log),
    (_V8, _v8_backfill),
    (_V9, None),
    (_V10, None),
    (_V11, _v11_settle_undo),
    (_V12, None),
    (_V13, None),
    (_V14, None),
]
CURRENT_VERSION = len(MIGRATIONS)


def file_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def check_openable(conn: sqlite3.Connection, path: str) -> int:
    """Return the file's schema version or raise ProjectError if we must not open it."""
    try:
        app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
        version = file_version(conn)
        tables = conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise ProjectError(
            f"{path} is not a SpotSigs Workbench project (not an SQLite database: {exc})."
        ) from exc
    if app_id != APPLICATION_ID and (app_id != 0 or tables):
        raise ProjectError(
            f"{path} is an SQLite database but not a SpotSigs Workbench project."
        )
    if version > CURRENT_VERSION:
        raise ProjectError(
            f"{path} was saved by a newer SpotSigs Workbench (project schema {version}; "
            f"this version understands up to {CURRENT_VERSION}). Update the workbench "
            "to open it; the file has not been changed."
        )
    return version


def migrate(conn: sqlite3.Connection) -> int:
    """Apply missing migrations atomically; return the version now in the file.

    ``conn`` must be in autocommit mode (isolation_level=None) so the explicit
    BEGIN below owns the transaction, DDL included.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = file_version(conn)
        for step in range(version, CURRENT_VERSION):
            script, data_step = MIGRATIONS[step]
            for statement in _statements(script):
                conn.execute(statement)
            if data_step is not None:
                data_step(conn)
        if version < CURRENT_VERSION:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {CURRENT_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    if version < CURRENT_VERSION:
        _give_back_free_pages(conn)
    return CURRENT_VERSION


def _give_back_free_pages(conn: sqlite3.Connection) -> None:
    """Shrink the file when a migration left much of it free (step 7 drops a log that
    was most of a much-coded project): every open copies the whole file to a backup.

    VACUUM cannot run inside the migration's transaction. If it fails (another process
    is reading) the file stays as large as it was, and as correct.
    """
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    if pages and free > pages // 4:
        with suppress(sqlite3.Error):
            conn.execute("VACUUM")


def _statements(script: str) -> list[str]:
    # executescript() would COMMIT our transaction first, so split by hand.
    # The scripts above contain no semicolons inside literals or triggers.
    lines = [ln for ln in script.splitlines() if not ln.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
