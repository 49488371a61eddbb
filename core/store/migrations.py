"""The store's schema, as numbered migrations.

Each migration is a tuple of SQL statements applied in one ``BEGIN IMMEDIATE`` transaction and
recorded in ``schema_migrations`` (the runner is core.store.connection.migrate). Never edit a
migration that has shipped: add the next one. A store whose recorded version is higher than the
last migration here was written by a newer agent-memory and refuses to open
(core.errors.SchemaVersionError).

Conventions: timestamps are fixed-width UTC ISO 8601 text (core.models.format_time), so text
comparison is time comparison; JSON columns hold lists or objects, never scalars.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_memory.core.store import initial_schema


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    statements: tuple[str, ...]
    # Logged as a warning when the migration is applied to a store that already holds
    # vectors: what the owner of an existing store must do about it.
    notice: str | None = None


INITIAL_SCHEMA = Migration(1, "initial schema", initial_schema.STATEMENTS)

SESSIONS = Migration(
    2,
    "sessions, turns and observations",
    (
        # A session's identity is always host-supplied. The transcript lives in the store so
        # evidence can be checked against it and so it survives a crash of the host.
        """
        CREATE TABLE sessions (
            session_id    TEXT PRIMARY KEY,
            agent_id      TEXT NOT NULL,
            user_id       TEXT NOT NULL,
            write_targets TEXT NOT NULL CHECK (json_type(write_targets) = 'object'),
            started_at    TEXT NOT NULL,
            ended_at      TEXT
        ) STRICT
        """,
        """
        CREATE TABLE turns (
            session_id TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
            seq        INTEGER NOT NULL,
            role       TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system')),
            content    TEXT NOT NULL,
            at         TEXT NOT NULL,
            PRIMARY KEY (session_id, seq)
        ) STRICT
        """,
        # Each independent observation of a record (its creation, a duplicate that reinforced
        # it, a confirmation). Two from different sessions promote a provisional record.
        """
        CREATE TABLE observations (
            record_rowid INTEGER NOT NULL REFERENCES records (rowid) ON DELETE CASCADE,
            session_id   TEXT,
            agent_id     TEXT,
            source_kind  TEXT NOT NULL,
            kind         TEXT NOT NULL CHECK (kind IN ('created', 'reinforced', 'confirmed')),
            at           TEXT NOT NULL
        ) STRICT
        """,
        "CREATE INDEX observations_record ON observations (record_rowid)",
    ),
)

RETRIEVAL_CONTEXT = Migration(
    3,
    "retrieval context",
    (
        # Text that helps find a record without being part of what it says: for a
        # conversation turn, the turns before it and the session's date. Searched (lexical and
        # dense), never returned as content.
        "ALTER TABLE records ADD COLUMN context TEXT",
        """
        CREATE VIRTUAL TABLE records_fts_v3 USING fts5 (
            content, subject, aliases, context, tokenize = 'porter unicode61'
        )
        """,
        "INSERT INTO records_fts_v3 (rowid, content, subject, aliases, context) "
        "SELECT rowid, content, subject, aliases, '' FROM records_fts",
        "DROP TABLE records_fts",
        "ALTER TABLE records_fts_v3 RENAME TO records_fts",
    ),
)

JOBS = Migration(
    4,
    "extraction jobs, stage leases and write idempotency keys",
    (
        # The source of truth for session extraction (Huey's queue is only a nudge: a message
        # lost to a crash is re-sent by the sweep). One job per session; ``stage`` is the stage
        # that runs next (or ran last, once done/failed).
        """
        CREATE TABLE jobs (
            job_id      TEXT PRIMARY KEY,
            kind        TEXT NOT NULL CHECK (kind IN ('session_extraction')),
            session_id  TEXT NOT NULL REFERENCES sessions (session_id),
            status      TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
            stage       TEXT NOT NULL,
            created_at  TEXT NOT NULL,
            updated_at  TEXT NOT NULL,
            finished_at TEXT,
            last_error  TEXT,
            UNIQUE (kind, session_id)
        ) STRICT
        """,
        "CREATE INDEX jobs_status ON jobs (status, updated_at)",
        # One row per stage of a job. A stage is claimed with a fresh claim_token until
        # claimed_until (the lease); it advances only while the token still matches.
        """
        CREATE TABLE job_stages (
            job_id        TEXT NOT NULL REFERENCES jobs (job_id) ON DELETE CASCADE,
            stage         TEXT NOT NULL,
            position      INTEGER NOT NULL,
            status        TEXT NOT NULL
                CHECK (status IN ('pending', 'queued', 'running', 'done', 'failed')),
            attempts      INTEGER NOT NULL DEFAULT 0,
            claim_token   TEXT,
            claimed_by    TEXT,
            claimed_until TEXT,
            queued_at     TEXT,
            started_at    TEXT,
            finished_at   TEXT,
            duration_ms   REAL,
            last_error    TEXT,
            output        TEXT CHECK (output IS NULL OR json_type(output) = 'object'),
            PRIMARY KEY (job_id, stage)
        ) STRICT
        """,
        "CREATE INDEX job_stages_status ON job_stages (status, claimed_until)",
        # A write that must happen at most once (one extracted candidate, one session
        # summary): the key is committed in the same transaction as the record it produced,
        # so rerunning a stage after a crash replays the outcome instead of writing again.
        """
        CREATE TABLE ingest_keys (
            key       TEXT PRIMARY KEY,
            record_id TEXT NOT NULL,
            action    TEXT NOT NULL,
            at        TEXT NOT NULL
        ) STRICT
        """,
    ),
)

SCOPED_ALIAS_TEXT = Migration(
    5,
    "index only same-scope entity aliases beside a record",
    (
        # A record's FTS alias text had every alias of every linked entity, including entities
        # in other scopes its writer could read; readers of the record's scope alone could
        # then find it by names from a scope they cannot read (core.records.record_alias_text).
        """
        UPDATE records_fts SET aliases = coalesce((
            SELECT group_concat(alias, ' ') FROM (
                SELECT a.alias AS alias
                  FROM record_entities AS l
                  JOIN records AS r ON r.rowid = l.record_rowid
                  JOIN entities AS e ON e.id = l.entity_id AND e.scope = r.scope
                  JOIN entity_aliases AS a ON a.entity_id = e.id
                 WHERE l.record_rowid = records_fts.rowid
                 ORDER BY a.alias
            )
        ), '')
        """,
    ),
)

ENTITY_RECORDS_INDEX = Migration(
    6,
    "records linked to an entity, read from the index alone",
    (
        # The entity generator reads every record linked to the matched entities; with the
        # record rowid in the index that is an index-only scan, not a read of every linked
        # record's row.
        "CREATE INDEX record_entities_by_entity ON record_entities (entity_id, record_rowid)",
        "DROP INDEX record_entities_entity",
    ),
)

TOOL_TURNS = Migration(
    7,
    "which tool produced a turn, and which tools a session trusts",
    (
        # A tool turn vouches for a tool_result only when the host names its tool
        # authoritative (core.evidence); turns stored before this have no tool name, so they
        # vouch for nothing more than an inference.
        "ALTER TABLE turns ADD COLUMN tool TEXT",
        # The tools the host named authoritative when the session started (its config and
        # adapter), kept with the session so a worker in another process judges alike.
        "ALTER TABLE sessions ADD COLUMN authoritative_tools TEXT NOT NULL DEFAULT '[]' "
        "CHECK (json_type(authoritative_tools) = 'array')",
    ),
)

STATED_AT = Migration(
    8,
    "when each record was stated, and the evidence of each observation",
    (
        # Supersession follows when a statement was made (its evidence turn's time, or the
        # write's for an unevidenced record), not when it was written: an extraction that runs
        # late must not let Monday's words replace Tuesday's. Existing rows were stated when
        # they were written, as far as the store knows.
        "ALTER TABLE records ADD COLUMN stated_at TEXT",
        "UPDATE records SET stated_at = created_at",
        # What an observation rests on, so that "two independent observations promote a
        # provisional record" can be checked: the turn its quote was found in (session_id
        # above, turn_seq, turn_role) and a digest of the normalised quote (never the quote:
        # personal text stays in records and turns, which forget erases).
        "ALTER TABLE observations ADD COLUMN turn_seq INTEGER",
        "ALTER TABLE observations ADD COLUMN turn_role TEXT",
        "ALTER TABLE observations ADD COLUMN evidence_digest TEXT",
    ),
)

JOB_HISTORY = Migration(
    9,
    "what happened to each job, in order",
    (
        # Every attempt that failed (and when it is retried), every lease that ran out, the
        # job failing and being retried by an operator, its end: so `agent-memory jobs JOB`
        # shows why a job took an hour, and that a failed job was started again. Details are
        # error texts and counts, never transcript text.
        """
        CREATE TABLE job_history (
            seq     INTEGER PRIMARY KEY AUTOINCREMENT,
            job_id  TEXT NOT NULL REFERENCES jobs (job_id) ON DELETE CASCADE,
            at      TEXT NOT NULL,
            event   TEXT NOT NULL,
            stage   TEXT,
            attempt INTEGER,
            detail  TEXT NOT NULL DEFAULT '{}' CHECK (json_type(detail) = 'object')
        ) STRICT
        """,
        "CREATE INDEX job_history_job ON job_history (job_id, seq)",
        # Jobs that failed before this migration get their failure into the history, so a
        # retry after an upgrade still reads as "failed, then retried".
        """
        INSERT INTO job_history (job_id, at, event, stage, attempt, detail)
        SELECT j.job_id, coalesce(j.finished_at, j.updated_at), 'failed', j.stage, s.attempts,
               json_object('error', coalesce(j.last_error, ''))
          FROM jobs AS j JOIN job_stages AS s ON s.job_id = j.job_id AND s.stage = j.stage
         WHERE j.status = 'failed'
        """,
    ),
)

SESSION_ACTIVITY = Migration(
    10,
    "when each session was last active, and why it ended",
    (
        # The sweep ends a session idle longer than worker.session_idle_seconds (a host that
        # never calls end() still gets its sessions extracted); activity is when the host last
        # stored something for it, by the store's clock, not the turns' own times.
        "ALTER TABLE sessions ADD COLUMN last_active_at TEXT",
        """
        UPDATE sessions SET last_active_at = max(
            started_at,
            coalesce((SELECT max(t.at) FROM turns AS t WHERE t.session_id = sessions.session_id),
                     started_at))
        """,
        # 'ended' (Session.end), 'idle' (the sweep), 'cli' (a one-off command's session).
        "ALTER TABLE sessions ADD COLUMN end_reason TEXT",
        "UPDATE sessions SET end_reason = 'ended' WHERE ended_at IS NOT NULL",
        "CREATE INDEX sessions_open ON sessions (last_active_at) WHERE ended_at IS NULL",
    ),
)

FORGET_SUPPRESSIONS = Migration(
    11,
    "forget leaves a suppression that extraction honours (issue 16)",
    (
        # What a forgotten record stood for, so that a session's extraction, its reviewer, its
        # validator and its summary do not write it again (core.erasure). Never the text: a
        # digest of the normalised content and the record's own embedding (with its model, so
        # a vector from another model is not compared).
        """
        CREATE TABLE suppressions (
            id             INTEGER PRIMARY KEY,
            record_id      TEXT NOT NULL,
            scope          TEXT NOT NULL,
            content_digest TEXT NOT NULL,
            model_name     TEXT,
            vector         BLOB,
            created_at     TEXT NOT NULL
        ) STRICT
        """,
        "CREATE INDEX suppressions_by_scope ON suppressions (scope)",
        # The erasure ledger: what was erased (a record, or all of a user), by id and content
        # digest, never content; restore re-applies it (core.ledger).
        """
        CREATE TABLE erasures (
            id             INTEGER PRIMARY KEY,
            at             TEXT NOT NULL,
            record_id      TEXT,
            user_id        TEXT,
            content_digest TEXT,
            CHECK ((record_id IS NULL) != (user_id IS NULL))
        ) STRICT
        """,
        # Forget erases an entity only its record used; asking whether any other record has
        # it as subject was a scan of every record.
        "CREATE INDEX records_subject_entity ON records (subject_entity_id) "
        "WHERE subject_entity_id IS NOT NULL",
    ),
)

KEYED_ITEMS = Migration(
    12,
    "keyed items: host-provisioned records addressed by a namespace and a key (issue 19)",
    (
        # One row per live item (core.items): its namespace (a JSON array of labels, so that
        # a prefix of the text is a prefix of the path), its key, the value as given (a JSON
        # object) and the record that holds its searchable text. A put that replaces a value
        # points the row at the new record; erasing the record deletes the row (the value is
        # personal data like the record's content).
        """
        CREATE TABLE items (
            namespace    TEXT NOT NULL,
            key          TEXT NOT NULL,
            scope        TEXT NOT NULL,
            record_rowid INTEGER NOT NULL UNIQUE REFERENCES records (rowid) ON DELETE CASCADE,
            value        TEXT NOT NULL,
            indexed      INTEGER NOT NULL CHECK (indexed IN (0, 1)),
            created_at   TEXT NOT NULL,
            updated_at   TEXT NOT NULL,
            PRIMARY KEY (namespace, key)
        ) STRICT
        """,
        "CREATE INDEX items_by_scope ON items (scope, namespace)",
    ),
)


API_KEYS = Migration(
    13,
    "API keys of the HTTP server and its idempotent replies (issue 19)",
    (
        # A key is shown once; only its SHA-256 is kept (the token is 256 random bits, so a
        # plain digest is enough: nothing to brute-force). key_id is the token's public part,
        # for listing and revoking without the secret.
        """
        CREATE TABLE api_keys (
            key_id     TEXT PRIMARY KEY,
            agent_id   TEXT NOT NULL,
            admin      INTEGER NOT NULL CHECK (admin IN (0, 1)),
            digest     TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            revoked_at TEXT
        ) STRICT
        """,
        # The first answer to a write-like request sent with an Idempotency-Key, per agent:
        # a retry gets it back instead of writing again. request_digest tells a retry from a
        # different request reusing the key; status 0 marks one still being answered. user_id
        # lets forget-user erase the replies of that user's sessions.
        """
        CREATE TABLE idempotency (
            agent_id       TEXT NOT NULL,
            key            TEXT NOT NULL,
            user_id        TEXT,
            request_digest TEXT NOT NULL,
            status         INTEGER NOT NULL,
            body           TEXT,
            created_at     TEXT NOT NULL,
            PRIMARY KEY (agent_id, key)
        ) STRICT
        """,
        "CREATE INDEX idempotency_created ON idempotency (created_at)",
        "CREATE INDEX idempotency_user ON idempotency (user_id) WHERE user_id IS NOT NULL",
    ),
)

SESSION_RECORDS = Migration(
    14,
    "records by session",
    (
        # What one session wrote into a scope: a search reads it to tell whether the session's
        # summary says anything its records do not (core.store.search_reads), and erasure
        # finds a forgotten record's turn-mates by it. Without it both scanned every live
        # record of the scope (about 45 ms a read at 100,000 records).
        "CREATE INDEX records_session ON records (scope, session_id) WHERE session_id IS NOT NULL",
    ),
)

PASSAGE_VECTORS = Migration(
    15,
    "passage vectors",
    (
        # One vector per passage of a record that says several things (core.passages), beside
        # the vector of its whole text: rows of ``dims`` float32, NULL for a record of one
        # passage. In the same row as the record's vector, so both go together when a record
        # is forgotten, rewritten or re-embedded. Records written before this migration have
        # none until ``agent-memory reembed``.
        "ALTER TABLE embeddings ADD COLUMN passages BLOB "
        "CHECK (passages IS NULL OR (length(passages) > 0 AND length(passages) % (4 * dims) = 0))",
        "ALTER TABLE embeddings_staging ADD COLUMN passages BLOB",
    ),
    notice="records written before have no passage vectors: run `agent-memory reembed`",
)

PROFILE_ORDER = Migration(
    16,
    "the user's statements in the order they were made",
    (
        # A question about the user as a whole reads the user's newest statements
        # (core.store.search_reads.profile_ids): with this index it walks them newest first and
        # stops at its window, where it sorted every record of the user's (about 45 ms at
        # 50,000). Session summaries and imported conversation turns are never read by it, so
        # they are left out of the index, and a user's 50,000 imported turns are not walked.
        # The WHERE clause is ``search_reads.PROFILE_RECORDS``, word for word: SQLite uses a
        # partial index only for a query that states its condition.
        "CREATE INDEX records_said ON records (scope, coalesce(stated_at, created_at)) "
        "WHERE source_kind != 'session_summary' "
        "AND NOT (type = 'episodic' AND source_kind = 'system' AND context IS NOT NULL)",
    ),
)

TURNS_IN_ORDER = Migration(
    17,
    "imported turns in the order they were said",
    (
        # A question about the user as a whole, asked of a user whose store holds nothing but
        # imported conversation turns, is answered with the turns the user said
        # (core.store.search_reads.profile_turn_ids): this index walks them newest first and
        # stops at the profile's window, where a read would sort every turn of the scope. The
        # WHERE clause is ``search_reads.IMPORTED_TURNS``, word for word.
        "CREATE INDEX records_turn_said ON records (scope, coalesce(stated_at, created_at)) "
        "WHERE type = 'episodic' AND source_kind = 'system' AND context IS NOT NULL",
    ),
)

ASSISTANT_WORDS = Migration(
    18,
    "the assistant's own words, read only when asked",
    (
        # What the assistant told the user in a session, kept by session extraction
        # (core.extraction.replies): 'assistant' here, NULL for every other record. The hard
        # filter (core.filters.RecordFilter.assistant_words) leaves such records out of every
        # read unless a search asks what the assistant said.
        "ALTER TABLE records ADD COLUMN said_by TEXT CHECK (said_by IN ('assistant'))",
    ),
)

MIGRATIONS: tuple[Migration, ...] = (
    INITIAL_SCHEMA,
    SESSIONS,
    RETRIEVAL_CONTEXT,
    JOBS,
    SCOPED_ALIAS_TEXT,
    ENTITY_RECORDS_INDEX,
    TOOL_TURNS,
    STATED_AT,
    JOB_HISTORY,
    SESSION_ACTIVITY,
    FORGET_SUPPRESSIONS,
    KEYED_ITEMS,
    API_KEYS,
    SESSION_RECORDS,
    PASSAGE_VECTORS,
    PROFILE_ORDER,
    TURNS_IN_ORDER,
    ASSISTANT_WORDS,
)

LATEST_VERSION = MIGRATIONS[-1].version

assert [m.version for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1)), "gapless"
