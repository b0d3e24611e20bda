-- Schema version 1 of the SpotSigs Workbench project file, frozen as released.
-- tests/store/test_migration.py builds an old project from it; never edit it.
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

PRAGMA application_id = 1397970754;
PRAGMA user_version = 1;
