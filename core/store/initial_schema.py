"""The store's first schema: the statements of migration 1 (core.store.migrations).

It shipped; never edit it (not even its whitespace: SQLite keeps each CREATE statement's text).
Later changes are the numbered migrations after it.
"""

from __future__ import annotations

TYPES = "'semantic', 'episodic', 'procedural'"
SOURCES = "'user_statement', 'system', 'tool_result', 'session_summary', 'agent_inference'"
STATUSES = "'provisional', 'confirmed', 'superseded', 'expired', 'deleted'"
SCOPE_KINDS = "'agent', 'user', 'project', 'org'"

STATEMENTS: tuple[str, ...] = (
    """
        CREATE TABLE meta (
            key   TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) STRICT
        """,
    # records_version: bumped in the same transaction as any record change; the vector index
    # of every process compares it before each search. store_epoch: replaced when the whole
    # store changes under the processes (restore, reembed), which forces a full rebuild.
    "INSERT INTO meta (key, value) VALUES ('records_version', '0')",
    "INSERT INTO meta (key, value) VALUES ('store_epoch', lower(hex(randomblob(8))))",
    f"""
        CREATE TABLE entities (
            rowid          INTEGER PRIMARY KEY,
            id             TEXT NOT NULL UNIQUE,
            kind           TEXT NOT NULL
                CHECK (kind IN ('person', 'project', 'org', 'repo', 'product', 'other')),
            canonical_name TEXT NOT NULL,
            scope_kind     TEXT NOT NULL CHECK (scope_kind IN ({SCOPE_KINDS})),
            scope          TEXT NOT NULL,
            status         TEXT NOT NULL DEFAULT 'provisional'
                CHECK (status IN ('provisional', 'confirmed', 'merged')),
            merged_into    TEXT REFERENCES entities (id),
            created_at     TEXT NOT NULL
        ) STRICT
        """,
    "CREATE INDEX entities_scope ON entities (scope)",
    """
        CREATE TABLE entity_aliases (
            entity_id  TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
            alias      TEXT NOT NULL,
            alias_norm TEXT NOT NULL,
            PRIMARY KEY (entity_id, alias_norm)
        ) STRICT
        """,
    "CREATE INDEX entity_aliases_norm ON entity_aliases (alias_norm)",
    f"""
        CREATE TABLE records (
            rowid             INTEGER PRIMARY KEY,
            id                TEXT NOT NULL UNIQUE,
            type              TEXT NOT NULL CHECK (type IN ({TYPES})),
            version           INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
            lineage_id        TEXT NOT NULL,
            content           TEXT NOT NULL,
            subject_entity_id TEXT REFERENCES entities (id),
            attribute         TEXT,
            subject           TEXT,
            procedure         TEXT CHECK (procedure IS NULL OR json_type(procedure) = 'object'),
            scope_kind        TEXT NOT NULL CHECK (scope_kind IN ({SCOPE_KINDS})),
            scope             TEXT NOT NULL,
            source_kind       TEXT NOT NULL CHECK (source_kind IN ({SOURCES})),
            source_ref        TEXT,
            creator_agent_id  TEXT,
            session_id        TEXT,
            evidence          TEXT,
            created_at        TEXT NOT NULL,
            updated_at        TEXT NOT NULL,
            event_at          TEXT,
            expires_at        TEXT,
            valid_from        TEXT,
            valid_until       TEXT,
            review_at         TEXT,
            review_flagged_at TEXT,
            confidence        REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
            observations      INTEGER NOT NULL DEFAULT 1,
            status            TEXT NOT NULL CHECK (status IN ({STATUSES})),
            supersedes_id     TEXT,
            conflicts_with    TEXT NOT NULL DEFAULT '[]'
                CHECK (json_type(conflicts_with) = 'array'),
            tags              TEXT NOT NULL DEFAULT '[]' CHECK (json_type(tags) = 'array')
        ) STRICT
        """,
    # The hard filter of every generator starts from scope and status.
    "CREATE INDEX records_scope_status ON records (scope, status, type)",
    "CREATE INDEX records_subject ON records (scope, subject) WHERE subject IS NOT NULL",
    "CREATE INDEX records_lineage ON records (lineage_id, version)",
    "CREATE INDEX records_expiry ON records (expires_at) WHERE status = 'provisional'",
    "CREATE INDEX records_review ON records (review_at) WHERE review_at IS NOT NULL",
    """
        CREATE TABLE record_entities (
            record_rowid INTEGER NOT NULL REFERENCES records (rowid) ON DELETE CASCADE,
            entity_id    TEXT NOT NULL REFERENCES entities (id),
            role         TEXT NOT NULL CHECK (role IN ('subject', 'mention')),
            PRIMARY KEY (record_rowid, entity_id)
        ) STRICT
        """,
    "CREATE INDEX record_entities_entity ON record_entities (entity_id)",
    """
        CREATE TABLE record_tags (
            record_rowid INTEGER NOT NULL REFERENCES records (rowid) ON DELETE CASCADE,
            tag          TEXT NOT NULL,
            PRIMARY KEY (record_rowid, tag)
        ) STRICT
        """,
    "CREATE INDEX record_tags_tag ON record_tags (tag)",
    """
        CREATE TABLE embeddings (
            record_rowid  INTEGER PRIMARY KEY REFERENCES records (rowid) ON DELETE CASCADE,
            model_name    TEXT NOT NULL,
            model_version TEXT NOT NULL,
            dims          INTEGER NOT NULL CHECK (dims > 0),
            vector        BLOB NOT NULL CHECK (length(vector) = 4 * dims)
        ) STRICT
        """,
    # `agent-memory reembed` writes new vectors here, then swaps them in in one transaction,
    # so no search ever compares vectors from two models.
    """
        CREATE TABLE embeddings_staging (
            record_rowid INTEGER PRIMARY KEY REFERENCES records (rowid) ON DELETE CASCADE,
            vector       BLOB NOT NULL
        ) STRICT
        """,
    # The durable delta the vector index of every process replays before a search.
    """
        CREATE TABLE record_changes (
            version      INTEGER PRIMARY KEY,
            record_rowid INTEGER NOT NULL
        ) STRICT
        """,
    # FTS5 over content, subject and the aliases of linked entities; rowid = records.rowid.
    """
        CREATE VIRTUAL TABLE records_fts USING fts5 (
            content, subject, aliases, tokenize = 'porter unicode61'
        )
        """,
    f"""
        CREATE TABLE grants (
            agent_id   TEXT NOT NULL,
            scope      TEXT NOT NULL,
            scope_kind TEXT NOT NULL CHECK (scope_kind IN ({SCOPE_KINDS})),
            access     TEXT NOT NULL CHECK (access IN ('read', 'write', 'readwrite')),
            created_at TEXT NOT NULL,
            PRIMARY KEY (agent_id, scope)
        ) STRICT
        """,
    """
        CREATE TABLE events (
            seq       INTEGER PRIMARY KEY AUTOINCREMENT,
            at        TEXT NOT NULL,
            kind      TEXT NOT NULL,
            record_id TEXT,
            agent_id  TEXT,
            payload   TEXT NOT NULL DEFAULT '{}' CHECK (json_type(payload) = 'object')
        ) STRICT
        """,
    "CREATE INDEX events_record ON events (record_id) WHERE record_id IS NOT NULL",
    "CREATE INDEX events_kind ON events (kind, at)",
    """
        CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'events is append-only'); END
        """,
    """
        CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events is append-only'); END
        """,
    """
        CREATE TABLE search_log (
            id         TEXT PRIMARY KEY,
            at         TEXT NOT NULL,
            agent_id   TEXT NOT NULL,
            user_id    TEXT NOT NULL,
            session_id TEXT,
            query      TEXT NOT NULL,
            result_ids TEXT NOT NULL DEFAULT '[]' CHECK (json_type(result_ids) = 'array'),
            total_ms   REAL NOT NULL,
            payload    TEXT NOT NULL CHECK (json_type(payload) = 'object')
        ) STRICT
        """,
    "CREATE INDEX search_log_at ON search_log (at)",
    """
        CREATE TABLE write_log (
            id         TEXT PRIMARY KEY,
            at         TEXT NOT NULL,
            tool       TEXT NOT NULL,
            agent_id   TEXT,
            user_id    TEXT,
            session_id TEXT,
            record_id  TEXT,
            outcome    TEXT NOT NULL,
            total_ms   REAL NOT NULL,
            payload    TEXT NOT NULL CHECK (json_type(payload) = 'object')
        ) STRICT
        """,
    "CREATE INDEX write_log_at ON write_log (at)",
)
