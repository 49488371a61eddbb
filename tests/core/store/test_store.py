"""The SQLite store: connection settings, migrations, transactions, audit, snapshots."""

from __future__ import annotations

import hashlib
import multiprocessing
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.embedder import FlagEmbedder
from agent_memory.core.errors import (
    EmbedderMismatchError,
    InvalidArgument,
    SchemaVersionError,
    StoreClosedError,
    StoreError,
)
from agent_memory.core.filters import RecordFilter
from agent_memory.core.jobs import ClaimRefused
from agent_memory.core.models import format_time
from agent_memory.core.store import Store, connect, search_reads
from agent_memory.core.store.migrations import LATEST_VERSION
from agent_memory.core.store.sessions import session_settings
from tests.support.clock import NOW
from tests.support.stores import granted_memory


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_connections_use_wal_normal_sync_foreign_keys_and_secure_delete(store_path: Path) -> None:
    """connect() is the one place connection settings live, and it sets all of them."""
    Store.open(store_path).close()
    conn = connect(store_path, busy_timeout_ms=1234)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA secure_delete").fetchone()[0] == 1
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 1234
        assert conn.isolation_level is None
    finally:
        conn.close()


def _hold_a_write_lock_on_a_new_file(path: Path) -> sqlite3.Connection:
    """What a second process creating the same store looks like at its first open: a
    rollback-journal file with a connection inside BEGIN IMMEDIATE. (Its table is the
    store's own first one: a file with only another application's tables is refused.)"""
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "applied_at TEXT NOT NULL) STRICT"
    )
    other.execute("BEGIN IMMEDIATE")
    return other


def test_opening_waits_out_another_connection_creating_the_file(store_path: Path) -> None:
    """Switching a new file to WAL while another connection holds its write lock fails at once
    inside SQLite (the busy handler is skipped as a possible deadlock); the open retries until
    that connection commits instead of failing with "database is locked"."""
    other = _hold_a_write_lock_on_a_new_file(store_path)
    release = threading.Timer(0.3, other.execute, args=("COMMIT",))
    release.start()
    try:
        store = Store.open(store_path)
    finally:
        release.join()
        other.close()
    assert store.query("PRAGMA journal_mode")[0][0] == "wal"
    assert store.schema_version == LATEST_VERSION
    store.close()


def test_opening_gives_up_at_the_busy_timeout(store_path: Path) -> None:
    """A lock held past the busy timeout is reported, not waited on forever."""
    other = _hold_a_write_lock_on_a_new_file(store_path)
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            connect(store_path, busy_timeout_ms=100)
    finally:
        other.execute("COMMIT")
        other.close()


def test_migrations_are_recorded_one_row_each(store_path: Path) -> None:
    """A new store has every migration applied and recorded with its name."""
    store = Store.open(store_path)
    rows = store.query("SELECT version, name FROM schema_migrations ORDER BY version")
    assert [r["version"] for r in rows] == list(range(1, LATEST_VERSION + 1))
    assert all(r["name"] for r in rows)
    assert store.schema_version == LATEST_VERSION
    store.close()
    # Reopening applies nothing twice.
    store = Store.open(store_path)
    assert len(store.query("SELECT * FROM schema_migrations")) == LATEST_VERSION
    store.close()


def test_a_store_from_a_newer_schema_refuses_to_open_and_is_not_modified(store_path: Path) -> None:
    """Schema version N+1 raises SchemaVersionError and leaves the file byte for byte as it was."""
    Store.open(store_path).close()
    conn = sqlite3.connect(store_path)
    conn.execute(
        "INSERT INTO schema_migrations VALUES (?, 'from the future', 'x')", (LATEST_VERSION + 1,)
    )
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    before = digest(store_path)
    with pytest.raises(SchemaVersionError, match=f"schema version {LATEST_VERSION + 1}"):
        Store.open(store_path)
    with pytest.raises(SchemaVersionError, match="upgrade agent-memory"):
        Memory.open(store_path, embedder=HashingEmbedder())
    assert digest(store_path) == before


def _open_and_close(path: str) -> int:
    store = Store.open(path)
    version = store.schema_version
    store.close()
    return version


def test_several_processes_creating_one_store_at_once_all_succeed(store_path: Path) -> None:
    """Concurrent first opens migrate once; nobody sees 'table already exists'."""
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        versions = pool.map(_open_and_close, [str(store_path)] * 8)
    assert versions == [LATEST_VERSION] * 8
    store = Store.open(store_path)
    assert len(store.query("SELECT * FROM schema_migrations")) == LATEST_VERSION
    store.close()


def test_a_failed_transaction_writes_nothing(fast_memory: Memory) -> None:
    """An exception inside transaction() rolls everything back."""
    store = fast_memory.store
    with pytest.raises(RuntimeError), store.transaction() as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'records_version'")
        raise RuntimeError("boom")
    assert store.records_version == 0


def test_transactions_do_not_nest(fast_memory: Memory) -> None:
    """Opening a transaction inside another is a programming error, not a silent join."""
    with (
        pytest.raises(StoreError, match="do not nest"),
        fast_memory.store.transaction(),
        fast_memory.store.transaction(),
    ):
        pass


def test_the_events_table_is_append_only(fast_memory: Memory) -> None:
    """Audit events cannot be updated or deleted, even with raw SQL."""
    fast_memory.grant("planner", "user:u1", now=NOW)
    with (
        pytest.raises(sqlite3.IntegrityError, match="append-only"),
        fast_memory.store.transaction() as conn,
    ):
        conn.execute("UPDATE events SET kind = 'nothing'")
    with (
        pytest.raises(sqlite3.IntegrityError, match="append-only"),
        fast_memory.store.transaction() as conn,
    ):
        conn.execute("DELETE FROM events")
    kinds = [r["kind"] for r in fast_memory.store.query("SELECT kind FROM events")]
    assert "grant.put" in kinds


def test_a_write_updates_record_fts_embedding_event_and_version_together(
    memory: Memory,
) -> None:
    """One import is one transaction: record, FTS, embedding (with model), event, version."""
    [record_id] = memory.import_records(
        [{"content": "Deploys happen on Tuesdays.", "source_ref": "cal:1", "tags": ["ops"]}],
        scope="user:u1",
        now=NOW,
    )
    store = memory.store
    assert store.records_version == 1
    row = store.query(
        "SELECT r.rowid, e.model_name, e.model_version, e.dims, length(e.vector) AS bytes "
        "FROM records r JOIN embeddings e ON e.record_rowid = r.rowid WHERE r.id = ?",
        (record_id,),
    )[0]
    identity = memory.embedder.identity
    assert (row["model_name"], row["model_version"], row["dims"]) == (
        identity.name,
        identity.version,
        384,
    )
    assert row["bytes"] == 4 * 384
    fts = store.query("SELECT rowid FROM records_fts WHERE records_fts MATCH 'tuesday'")
    assert [r["rowid"] for r in fts] == [row["rowid"]]  # porter stemming: Tuesdays -> tuesday
    changes = store.query("SELECT version, record_rowid FROM record_changes")
    assert [(r["version"], r["record_rowid"]) for r in changes] == [(1, row["rowid"])]
    events = store.query("SELECT kind, record_id FROM events WHERE record_id = ?", (record_id,))
    assert [e["kind"] for e in events] == ["record.imported"]
    tags = store.query("SELECT tag FROM record_tags WHERE record_rowid = ?", (row["rowid"],))
    assert [t["tag"] for t in tags] == ["ops"]


def test_opening_with_another_embedder_names_reembed(
    tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """A store embedded by one model refuses another, with `agent-memory reembed` in the error."""
    path = tmp_path / "m.db"
    with Memory.open(path, embedder=HashingEmbedder(64), now=NOW) as mem:
        mem.import_records([{"content": "hello"}], scope="user:u1", now=NOW)
    with pytest.raises(EmbedderMismatchError, match="agent-memory reembed") as info:
        Memory.open(path, embedder=real_embedder, now=NOW)
    assert "hashing" in str(info.value)
    assert "all-MiniLM-L6-v2" in str(info.value)


def test_a_store_without_vectors_adopts_the_configured_embedder(tmp_path: Path) -> None:
    """Switching models on a store with no vectors yet needs no re-embedding, only a record."""
    path = tmp_path / "m.db"
    Memory.open(path, embedder=HashingEmbedder(64), now=NOW).close()
    with Memory.open(path, embedder=HashingEmbedder(32), now=NOW) as mem:
        assert mem.store.stored_embedder().dims == 32
        kinds = [r["kind"] for r in mem.store.query("SELECT kind FROM events")]
        assert kinds.count("store.embedder_bound") == 2


def test_snapshot_and_restore_round_trip_the_whole_store(
    fast_memory: Memory, tmp_path: Path
) -> None:
    """Restore brings back exactly the snapshot's records and grants, and a new index epoch."""
    fast_memory.grant("planner", "user:u1", now=NOW)
    first = fast_memory.import_records([{"content": "first"}], scope="user:u1", now=NOW)
    snapshot = fast_memory.snapshot(tmp_path / "snap.db")
    fast_memory.import_records([{"content": "second"}], scope="user:u1", now=NOW)
    fast_memory.revoke("planner", "user:u1", now=NOW)
    epoch_before, _ = fast_memory.store.index_version()
    assert len(fast_memory.index()) == 2

    fast_memory.restore(snapshot, now=NOW)

    contents = [r["content"] for r in fast_memory.store.query("SELECT content FROM records")]
    assert contents == ["first"]
    assert [g.scope for g in fast_memory.grants()] == ["user:u1"]
    assert fast_memory.store.index_version()[0] != epoch_before
    index = fast_memory.index()
    assert len(index) == 1
    assert list(fast_memory.store.get_records(first)) == first


def test_snapshot_refuses_to_overwrite_and_restore_refuses_non_snapshots(
    fast_memory: Memory,
    tmp_path: Path,
) -> None:
    """Snapshots never overwrite a file; restoring garbage is a clear error."""
    existing = tmp_path / "exists.db"
    existing.write_bytes(b"precious")
    with pytest.raises(InvalidArgument, match="already exists"):
        fast_memory.snapshot(existing)
    assert existing.read_bytes() == b"precious"
    with pytest.raises(InvalidArgument, match="not an agent-memory snapshot"):
        fast_memory.restore(existing, now=NOW)
    with pytest.raises(InvalidArgument, match="does not exist"):
        fast_memory.restore(tmp_path / "nope.db", now=NOW)


def test_forgetting_erases_the_content_from_every_file(tmp_path: Path) -> None:
    """A forgotten sentence occurs nowhere in the bytes of the database or its WAL."""
    path = tmp_path / "m.db"
    secret = "Zanzibar-quokka-7719 is the vault passphrase"
    with Memory.open(path, embedder=HashingEmbedder(), now=NOW) as mem:
        keep = mem.import_records([{"content": "an unrelated note"}] * 50, scope="user:u1", now=NOW)
        [forget] = mem.import_records(
            [{"content": secret, "evidence": secret}], scope="user:u1", now=NOW
        )
        assert mem.forget(forget, reason="user asked", now=NOW)
        assert not mem.forget(forget, reason="again", now=NOW)
        files = [p for p in tmp_path.iterdir() if p.name.startswith("m.db")]
        for file in files:
            assert secret.encode() not in file.read_bytes(), file.name
            assert b"Zanzibar" not in file.read_bytes(), file.name
        record = mem.store.get_records([forget])[forget]
        assert record.status.value == "deleted" and record.content == ""
        event = mem.store.query("SELECT payload FROM events WHERE kind = 'record.forgotten'")
        assert "user asked" in event[0]["payload"] and "Zanzibar" not in event[0]["payload"]
        assert len(mem.store.get_records(keep)) == 50


def test_grants_are_audited_and_widen(fast_memory: Memory) -> None:
    """grant read then write yields readwrite; every grant and revoke appends an event."""
    fast_memory.grant("planner", "project:apollo", access="read", now=NOW)
    fast_memory.grant("planner", "project:apollo", access="write", now=NOW)
    [grant] = fast_memory.grants("planner")
    assert grant.access.value == "readwrite"
    assert fast_memory.revoke("planner", "project:apollo", now=NOW)
    assert not fast_memory.revoke("planner", "project:apollo", now=NOW)
    kinds = [
        r["kind"]
        for r in fast_memory.store.query(
            "SELECT kind FROM events WHERE kind LIKE 'grant.%' ORDER BY seq"
        )
    ]
    assert kinds == ["grant.put", "grant.put", "grant.revoked", "grant.revoked"]


def test_using_a_closed_memory_raises(fast_memory: Memory) -> None:
    """After close(), calls raise StoreClosedError instead of touching a dead connection."""
    fast_memory.close()
    with pytest.raises(StoreClosedError):
        fast_memory.grants()
    with pytest.raises(StoreClosedError):
        fast_memory.index()


def test_stats_count_what_is_there(fast_memory: Memory) -> None:
    """stats() reports records by status and type, grants, events and the embedder."""
    fast_memory.grant("planner", "user:u1", now=NOW)
    ids = fast_memory.import_records(
        [
            {"content": "a"},
            {"content": "b", "type": "episodic"},
            {"content": "c", "source_kind": "agent_inference"},
        ],
        scope="user:u1",
        now=NOW,
    )
    fast_memory.forget(ids[0], now=NOW)
    stats = fast_memory.stats()
    assert stats["records"] == 3
    assert stats["records_by_status"]["deleted"] == 1
    assert stats["records_by_status"]["provisional"] == 1
    assert stats["records_by_type"] == {"semantic": 1, "episodic": 1, "procedural": 0}
    assert stats["grants"] == 1
    assert stats["embedder"]["name"] == "hashing"
    assert stats["embeddings"] == 2
    (events,) = fast_memory.store.query("SELECT count(*) AS n FROM events")
    assert stats["events"] == events["n"] > 0
    assert stats["file_bytes"] == fast_memory.store.path.stat().st_size > 0


def test_migration_5_drops_aliases_of_other_scopes_from_search_text(store_path: Path) -> None:
    """A store written before migration 5 indexed a project note beside every alias of a
    person in the user's scope; migrating keeps only same-scope aliases."""
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    mem.grant("a", "user:u1", now=NOW)
    mem.grant("a", "project:p", now=NOW)
    session = mem.session(
        agent_id="a",
        user_id="u1",
        session_id="s",
        now=NOW,
        write_targets={"personal": "user:u1", "p": "project:p"},
    )
    args = {"type": "semantic", "source_kind": "agent_inference"}
    about = {"about": [{"kind": "person", "name": "Aditya"}]}
    tea = {**args, "content": "Aditya likes tea.", **about}
    assert "id" in session.call("memory_write", tea, now=NOW)
    note = {**args, "content": "The budget was approved.", "target": "p", **about}
    assert "id" in session.call("memory_write", note, now=NOW)
    hub = {**args, "content": "Hub ships today.", "target": "p"}
    hub["about"] = [{"kind": "project", "name": "Hub"}]
    assert "id" in session.call("memory_write", hub, now=NOW)
    mem.close()
    # What version 4 wrote: the linked entity's aliases whatever its scope.
    with sqlite3.connect(store_path) as conn:
        conn.execute("UPDATE records_fts SET aliases = 'Aditya' WHERE content LIKE '%budget%'")
        _roll_back_to_version_4(conn)
    conn.close()
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    aliases = {
        r["content"]: r["aliases"]
        for r in mem.store.query("SELECT content, aliases FROM records_fts")
    }
    mem.close()
    assert aliases == {
        "Aditya likes tea.": "Aditya",
        "The budget was approved.": "",
        "Hub ships today.": "Hub",
    }


def _roll_back_to_version_6(conn: sqlite3.Connection) -> None:
    """Make a current store file look as version 6 left it (migrations 7 and 8 undone)."""
    _roll_back_to_version_7(conn)
    conn.execute("ALTER TABLE turns DROP COLUMN tool")
    conn.execute("ALTER TABLE sessions DROP COLUMN authoritative_tools")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 7")


def test_migration_7_keeps_old_tool_turns_without_authority(store_path: Path) -> None:
    """A version-6 store's tool turns have no tool name after migration 7, so they back an
    inference at most, whatever tools are authoritative now."""
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    session = mem.session(agent_id="a", user_id="u1", session_id="s", now=NOW)
    session.add_turn("tool", "Deploy of billing failed with exit code 2.", at=NOW)
    mem.close()
    with sqlite3.connect(store_path) as conn:
        _roll_back_to_version_6(conn)
    conn.close()
    config = Config(evidence={"authoritative_tools": ["deploy"]})
    mem = Memory.open(store_path, config, embedder=HashingEmbedder(), now=NOW)
    [turn] = mem.session(agent_id="a", user_id="u1", session_id="s").transcript()
    version = mem.store.schema_version
    mem.close()
    assert (turn.tool, turn.authoritative, version) == (None, False, LATEST_VERSION)


def _roll_back_to_version_4(conn: sqlite3.Connection) -> None:
    """Make a current store file look as version 4 left it (migrations 5 to 8 undone: 5
    changed only data, which each test sets up as it needs)."""
    _roll_back_to_version_6(conn)
    conn.execute("DROP INDEX record_entities_by_entity")
    conn.execute("CREATE INDEX record_entities_entity ON record_entities (entity_id)")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 5")


def _roll_back_to_version_11(conn: sqlite3.Connection) -> None:
    """Make a current store file look as version 11 left it (migrations 12 and 13 undone)."""
    _roll_back_to_version_12(conn)
    conn.execute("DROP TABLE items")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 12")


def _roll_back_to_version_17(conn: sqlite3.Connection) -> None:
    """Make a current store file look as version 17 left it (migration 18 undone)."""
    conn.execute("ALTER TABLE records DROP COLUMN said_by")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 18")


def test_migration_18_leaves_a_version_17_stores_records_found_as_before(
    store_path: Path,
) -> None:
    """A version-17 file gains the column that marks the assistant's own words; none of its
    records is such, so every search reads them as before."""
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    [kept] = mem.import_records([{"content": "The user likes tea."}], scope="user:u1", now=NOW)
    mem.close()
    with sqlite3.connect(store_path) as conn:
        _roll_back_to_version_17(conn)
    conn.close()
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    record = mem.store.get_records([kept])[kept]
    where = RecordFilter(scopes=("user:u1",))
    condition, params = where.sql("r")
    found = mem.store.query(f"SELECT r.id FROM records AS r WHERE {condition}", params)
    version = mem.store.schema_version
    mem.close()
    assert record.said_by is None and [row["id"] for row in found] == [kept]
    assert version == LATEST_VERSION


def _roll_back_to_version_16(conn: sqlite3.Connection) -> None:
    """Make a current store file look as version 16 left it (migrations 17 and 18 undone)."""
    _roll_back_to_version_17(conn)
    conn.execute("DROP INDEX records_turn_said")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 17")


def _roll_back_to_version_15(conn: sqlite3.Connection) -> None:
    """Make a current store file look as version 15 left it (migrations 16 to 18 undone)."""
    _roll_back_to_version_16(conn)
    conn.execute("DROP INDEX records_said")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 16")


@pytest.mark.parametrize(
    ("roll_back", "index", "condition"),
    [
        # 16: the user's statements (core.store.search_reads.profile_ids)
        (_roll_back_to_version_15, "records_said", "PROFILE_RECORDS"),
        # 17: the user's imported turns (core.store.search_reads.profile_turn_ids)
        (_roll_back_to_version_16, "records_turn_said", "IMPORTED_TURNS"),
    ],
    ids=["16-statements", "17-turns"],
)
def test_migrations_16_and_17_index_what_a_profile_question_reads_in_the_order_it_reads_it(
    store_path: Path, roll_back: Any, index: str, condition: str
) -> None:
    """A file from before either migration gains the partial index a profile question reads
    the user's newest statements (or turns) by, and SQLite walks it in order, no sort."""
    Memory.open(store_path, embedder=HashingEmbedder(), now=NOW).close()
    with sqlite3.connect(store_path) as conn:
        roll_back(conn)
    conn.close()
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    where, params = RecordFilter(scopes=("user:u1",), now=format_time(NOW)).sql("r")
    plan = mem.store.query(
        f"EXPLAIN QUERY PLAN SELECT r.id FROM records r WHERE {where} AND "
        f"{getattr(search_reads, condition).format(r='r')} "
        "ORDER BY coalesce(r.stated_at, r.created_at) DESC, r.rowid DESC LIMIT 200",
        params,
    )
    version = mem.store.schema_version
    mem.close()
    detail = " ".join(str(row["detail"]) for row in plan)
    assert f"USING INDEX {index} " in detail and "TEMP B-TREE" not in detail
    assert version == LATEST_VERSION


def _roll_back_to_version_14(conn: sqlite3.Connection) -> None:
    """Make a current store file look as version 14 left it (migrations 15 to 18 undone)."""
    _roll_back_to_version_15(conn)
    conn.execute("ALTER TABLE embeddings DROP COLUMN passages")
    conn.execute("ALTER TABLE embeddings_staging DROP COLUMN passages")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 15")


def _roll_back_to_version_13(conn: sqlite3.Connection) -> None:
    """Make a current store file look as version 13 left it (migrations 14 to 18 undone)."""
    _roll_back_to_version_14(conn)
    conn.execute("DROP INDEX records_session")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 14")


def test_migration_14_indexes_a_version_13_stores_records_by_session(store_path: Path) -> None:
    """A version-13 file gains the index a search reads a session's records by (what its
    summary may restate: core.store.search_reads), and SQLite uses it for that read."""
    Memory.open(store_path, embedder=HashingEmbedder(), now=NOW).close()
    with sqlite3.connect(store_path) as conn:
        _roll_back_to_version_13(conn)
    conn.close()
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    plan = mem.store.query(
        "EXPLAIN QUERY PLAN SELECT content FROM records WHERE scope = ? AND session_id = ? "
        "AND status IN ('provisional', 'confirmed')",
        ("user:u1", "s1"),
    )
    version = mem.store.schema_version
    mem.close()
    assert "records_session" in " ".join(str(row["detail"]) for row in plan)
    assert version == LATEST_VERSION


def _roll_back_to_version_12(conn: sqlite3.Connection) -> None:
    """Make a current store file look as version 12 left it (migrations 13 to 18 undone)."""
    _roll_back_to_version_13(conn)
    conn.execute("DROP TABLE api_keys")
    conn.execute("DROP TABLE idempotency")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 13")


def test_migration_12_gives_a_version_11_store_its_keyed_items(store_path: Path) -> None:
    """A version-11 file gains the items table; its records stay as they were."""
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    [kept] = mem.import_records(
        [{"type": "episodic", "content": "A note."}], scope="project:p", now=NOW
    )
    mem.close()
    with sqlite3.connect(store_path) as conn:
        _roll_back_to_version_11(conn)
    conn.close()
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    made = mem.items.put("project:p", ("notes",), "k", {"a": 1}, text="A second note.", now=NOW)
    item = mem.items.get(("notes",), "k")
    version = mem.store.schema_version
    records = mem.store.get_records([kept, made])
    mem.close()
    assert item is not None and (item.value, item.record_id) == ({"a": 1}, made)
    assert set(records) == {kept, made} and version == LATEST_VERSION


def _roll_back_to_version_10(conn: sqlite3.Connection) -> None:
    """Make a current store file look as version 10 left it (migrations 11 to 13 undone)."""
    _roll_back_to_version_11(conn)
    conn.execute("DROP TABLE suppressions")
    conn.execute("DROP TABLE erasures")
    conn.execute("DROP INDEX records_subject_entity")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 11")


def _roll_back_to_version_9(conn: sqlite3.Connection) -> None:
    """Make a current store file look as version 9 left it (migrations 10 and 11 undone)."""
    _roll_back_to_version_10(conn)
    conn.execute("DROP INDEX sessions_open")
    for column in ("last_active_at", "end_reason"):
        conn.execute(f"ALTER TABLE sessions DROP COLUMN {column}")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 10")


def _roll_back_to_version_8(conn: sqlite3.Connection) -> None:
    """Make a current store file look as version 8 left it (migrations 9 to 11 undone)."""
    _roll_back_to_version_9(conn)
    conn.execute("DROP TABLE job_history")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 9")


def _roll_back_to_version_7(conn: sqlite3.Connection) -> None:
    """Make a current store file look as version 7 left it (migrations 8 and 9 undone)."""
    _roll_back_to_version_8(conn)
    conn.execute("ALTER TABLE records DROP COLUMN stated_at")
    for column in ("turn_seq", "turn_role", "evidence_digest"):
        conn.execute(f"ALTER TABLE observations DROP COLUMN {column}")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 8")


def test_migration_8_dates_every_record_by_when_it_was_written(store_path: Path) -> None:
    """A version-7 store has no stated_at; migrating fills it with created_at, and the
    Record shape returns it."""
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    mem.grant("a", "user:u1", now=NOW)
    session = mem.session(agent_id="a", user_id="u1", session_id="s", now=NOW)
    args = {"type": "semantic", "source_kind": "agent_inference", "content": "Likes tea."}
    made = session.call("memory_write", args, now=NOW)
    mem.close()
    with sqlite3.connect(store_path) as conn:
        _roll_back_to_version_7(conn)
    conn.close()
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    session = mem.session(agent_id="a", user_id="u1", session_id="s", now=NOW)
    [record] = session.call("memory_get", {"ids": [made["id"]]}, now=NOW)["records"]
    assert record["stated_at"] == record["created_at"]
    assert mem.store.query("SELECT stated_at FROM records")[0][0] == record["created_at"]
    mem.close()


def test_migration_9_gives_a_job_that_failed_before_it_its_failure_in_the_history(
    store_path: Path,
) -> None:
    """A version-8 store has no job history; migrating writes the failure of each failed job
    into it, so that a retry after the upgrade reads as failed, then retried."""
    config = Config(worker={"max_attempts": 1})
    mem = Memory.open(store_path, config, embedder=HashingEmbedder(), now=NOW)
    mem.grant("a", "user:u1", now=NOW)
    session = mem.session(agent_id="a", user_id="u1", session_id="s", now=NOW)
    session.add_turn("user", "I'm vegetarian.", at=NOW)
    job_id = session.end(now=NOW)
    claim = mem.jobs.claim(job_id, "extract", worker="w", now=NOW)
    assert not isinstance(claim, ClaimRefused)
    assert mem.jobs.release(claim, error="OverloadedError: 529", now=NOW) is False
    mem.close()
    with sqlite3.connect(store_path) as conn:
        _roll_back_to_version_8(conn)
    conn.close()
    mem = Memory.open(store_path, config, embedder=HashingEmbedder(), now=NOW)
    history = mem.jobs.status(job_id)["history"]
    assert mem.jobs.retry(job_id, now=NOW) == [job_id]
    after = [step["event"] for step in mem.jobs.status(job_id)["history"]]
    version = mem.store.schema_version
    mem.close()
    assert [(h["event"], h["stage"], h["error"]) for h in history] == [
        ("failed", "extract", "OverloadedError: 529")
    ]
    assert after == ["failed", "retried"] and version == LATEST_VERSION


def test_migration_10_dates_each_sessions_last_activity_and_its_end(store_path: Path) -> None:
    """A version-9 store has no session activity; migrating takes the last turn's time (or
    the start) as the last activity and 'ended' as the reason of every ended session, and
    the open one is listed as open."""
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    mem.grant("a", "user:u1", now=NOW)
    for session_id in ("open", "done"):
        session = mem.session(agent_id="a", user_id="u1", session_id=session_id, now=NOW)
        session.add_turn("user", "I'm vegetarian.", at=NOW)
    session.end(now=NOW)
    mem.close()
    with sqlite3.connect(store_path) as conn:
        _roll_back_to_version_9(conn)
    conn.close()
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    listed = {s["session_id"]: s for s in mem.sessions()}
    still_open = [s["session_id"] for s in mem.sessions(open=True)]
    version = mem.store.schema_version
    mem.close()
    assert still_open == ["open"] and version == LATEST_VERSION
    assert listed["open"]["last_active_at"] == listed["open"]["started_at"]
    assert (listed["done"]["end_reason"], listed["open"]["end_reason"]) == ("ended", None)


def test_migration_6_reads_entity_links_from_the_index_alone(store_path: Path) -> None:
    """After migration 6 the records linked to an entity come from an index-only scan, and a
    version-4 file migrates to it with its links intact."""
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    mem.grant("a", "user:u1", now=NOW)
    session = mem.session(agent_id="a", user_id="u1", session_id="s", now=NOW)
    about = {"about": [{"kind": "person", "name": "Aditya"}]}
    for content in ("Aditya likes tea.", "Aditya moved to Pune."):
        args = {"type": "semantic", "source_kind": "agent_inference", "content": content}
        assert "id" in session.call("memory_write", {**args, **about}, now=NOW)
    mem.close()
    with sqlite3.connect(store_path) as conn:
        _roll_back_to_version_4(conn)
    conn.close()
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    (entity,) = mem.store.query("SELECT id FROM entities WHERE canonical_name = 'Aditya'")
    sql = "SELECT record_rowid FROM record_entities WHERE entity_id = ?"
    plan = " ".join(r["detail"] for r in mem.store.query(f"EXPLAIN QUERY PLAN {sql}", [entity[0]]))
    linked = mem.store.query(sql, [entity[0]])
    version = mem.store.schema_version
    mem.close()
    assert "COVERING INDEX record_entities_by_entity" in plan
    assert len(linked) == 2
    assert version == LATEST_VERSION


def test_a_commit_that_fails_leaves_no_transaction_open(fast_memory: Memory) -> None:
    """A COMMIT refused by SQLite (here a deferred foreign key) keeps the transaction open on
    its own; the store rolls it back, so the shared connection takes the next write."""
    store = fast_memory.store
    with pytest.raises(sqlite3.IntegrityError), store.transaction() as conn:
        conn.execute("PRAGMA defer_foreign_keys = ON")
        conn.execute(
            "INSERT INTO observations (record_rowid, source_kind, kind, at) "
            "VALUES (424242, 'system', 'created', '2026-11-29T12:00:00.000000Z')"
        )
    assert store.query("SELECT count(*) AS n FROM observations")[0]["n"] == 0
    fast_memory.grant("planner", "user:u1", now=NOW)  # a write transaction again
    assert [g.scope for g in fast_memory.grants()] == ["user:u1"]


def test_migration_11_lets_a_version_10_store_forget_with_a_suppression(
    store_path: Path,
) -> None:
    """A version-10 file gains the suppressions table; a record written before the migration
    is forgotten with its suppression and its evidence turn redacted."""
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    mem.grant("a", "user:u1", now=NOW)
    session = mem.session(agent_id="a", user_id="u1", session_id="s", now=NOW)
    session.add_turn("user", "I keep bees on the roof of my flat.", at=NOW)
    args = {
        "type": "semantic",
        "source_kind": "user_statement",
        "content": "The user keeps bees.",
        "evidence": "I keep bees on the roof",
    }
    made = session.call("memory_write", args, now=NOW)
    mem.close()
    with sqlite3.connect(store_path) as conn:
        _roll_back_to_version_10(conn)
    conn.close()
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    assert mem.forget(made["id"], reason="asked", now=NOW)
    [suppression] = mem.store.query("SELECT record_id FROM suppressions")
    [turn] = mem.store.query("SELECT content FROM turns")
    version = mem.store.schema_version
    mem.close()
    assert suppression["record_id"] == made["id"] and "bees" not in turn["content"]
    assert version == LATEST_VERSION


def test_session_settings_reads_back_who_a_stored_session_acts_for(store_path: Path) -> None:
    """What an extraction job resumes a session with, decoded; None for a session never
    stored."""
    with granted_memory(store_path) as mem:
        session = mem.session(
            agent_id="assistant",
            user_id="alice",
            session_id="s1",
            now=NOW,
            authoritative_tools=["deploy"],
        )
        session.add_turn("user", "I moved to Lisbon.", at=NOW)
        assert session_settings(mem.store, "s1") == {
            "agent_id": "assistant",
            "user_id": "alice",
            "write_targets": {"personal": "user:alice"},
            "authoritative_tools": ["deploy"],
        }
        assert session_settings(mem.store, "s2") is None


def test_a_version_12_store_gains_api_keys_and_idempotency(store_path: Path) -> None:
    """Migration 13 (the HTTP API): a version-12 file gains the keys and idempotency tables; a
    key made afterwards authenticates, and only its digest is stored."""
    from agent_memory.core.store import api_keys as keys

    Memory.open(store_path, embedder=HashingEmbedder(), now=NOW).close()
    with sqlite3.connect(store_path) as conn:
        _roll_back_to_version_12(conn)
    conn.close()
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    key, token = keys.add_key(mem.store, "planner", admin=False, now=NOW)
    assert keys.authenticate(mem.store, token) == key
    assert keys.authenticate(mem.store, token[:-1] + "x") is None
    stored = mem.store.query("SELECT * FROM api_keys")
    assert token not in [str(v) for row in stored for v in tuple(row)]
    assert mem.store.schema_version == LATEST_VERSION
    mem.close()
