"""A store opened read-only (issue 17 item 8): search and get work, nothing is written.

Root ignores permission bits, so "read-only media" is a read-only bind mount where the
sandbox allows one (skipped elsewhere); everything else opens with ``read_only=True``.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent_memory.core import Memory
from agent_memory.core.embedder import FlagEmbedder
from agent_memory.core.errors import ReadOnlyStoreError, StoreError
from tests.support.clock import NOW

FACTS = [
    {"content": "The user prefers concise answers without preamble.", "attribute": "style"},
    {"content": "The user lives in Lisbon.", "attribute": "home_city"},
    {"content": "The user is allergic to peanuts.", "attribute": "allergy"},
]
WHO = {"agent_id": "assistant", "user_id": "u1"}


def make_store(path: Path, embedder: FlagEmbedder) -> list[str]:
    """A closed store with three records in user:u1, readable and writable by assistant,
    and one ended session with its extraction job."""
    with Memory.open(path, embedder=embedder, now=NOW) as mem:
        mem.grant("assistant", "user:u1", now=NOW)
        ids = mem.import_records(FACTS, scope="user:u1", agent_id="importer", now=NOW)
        session = mem.session(**WHO, session_id="s-old", now=NOW)
        session.add_turn("user", "I moved to Porto.", at=NOW)
        session.end(now=NOW)
    return ids


def contents(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, read without writing (immutable: the file is closed)."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE "
                "'CREATE VIRTUAL%' AND name NOT LIKE 'records_fts_%'"
            )
        ]
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in tables}
    finally:
        conn.close()


@pytest.fixture
def read_only_media(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """(folder, the same folder mounted read-only); skipped where mounting is not allowed."""
    folder, mounted = tmp_path / "media", tmp_path / "mounted"
    folder.mkdir()
    mounted.mkdir()
    done = subprocess.run(
        ["mount", "--bind", "-o", "ro", str(folder), str(mounted)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip("a read-only bind mount needs privileges this sandbox lacks")
    try:
        probe = mounted / "probe"
        with pytest.raises(OSError):
            probe.write_bytes(b"")
        yield folder, mounted
    finally:
        subprocess.run(["umount", str(mounted)], check=True)


@pytest.fixture
def immutable_file() -> Iterator[Callable[[Path], None]]:
    """Makes a file read-only even for root (``chattr +i``) in its writable folder; skipped
    where the file system has no such attribute. Undone at teardown."""
    made: list[Path] = []

    def make(path: Path) -> None:
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
            pytest.skip("this file system cannot make a file immutable (chattr +i)")
        made.append(path)

    yield make
    for path in made:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_read_only_file_in_a_writable_folder_opens_read_only(
    store_path: Path, real_embedder: FlagEmbedder, immutable_file: Callable[[Path], None]
) -> None:
    """A store file that cannot be written, in a folder that can: a writing open is refused
    naming read_only=True; a read-only open (mode=ro, its -shm made in the folder) searches,
    and the file stays as it was."""
    ids = make_store(store_path, real_embedder)
    before = store_path.read_bytes()
    immutable_file(store_path)
    with pytest.raises(StoreError, match=r"read-only \(its file is not writable\).*read_only=True"):
        Memory.open(store_path, embedder=real_embedder, now=NOW)
    with Memory.open(store_path, embedder=real_embedder, now=NOW, read_only=True) as mem:
        session = mem.session(**WHO, session_id="s-ro", now=NOW)
        found = session.call("memory_search", {"query": "Is the user allergic to anything?"})
        assert found["results"][0]["id"] == ids[2]
        assert found["explanation"]["logged"] is False
    assert store_path.read_bytes() == before


def test_a_store_opened_read_only_searches_and_gets_and_writes_nothing(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """Search returns explained results (not logged), get works, and every write-like
    operation is refused with read_only; the store's rows and bytes stay as they were."""
    ids = make_store(store_path, real_embedder)
    before, before_bytes = contents(store_path), store_path.read_bytes()
    with Memory.open(store_path, embedder=real_embedder, now=NOW, read_only=True) as mem:
        assert mem.read_only
        session = mem.session(**WHO, session_id="s-ro", now=NOW)
        session.add_turn("user", "How should you answer me?", at=NOW)
        found = session.call("memory_search", {"query": "how does the user like answers?"})
        assert found["results"][0]["id"] == ids[0]
        assert found["results"][0]["explanation"]["rank"] == 1
        assert found["explanation"]["logged"] is False
        got = session.call("memory_get", {"ids": [ids[1], "mem_missing"]})
        assert [r["id"] for r in got["records"]] == [ids[1]] and got["missing"] == ["mem_missing"]

        writes = {
            "memory_write": {
                "type": "semantic",
                "content": "The user likes tea.",
                "source_kind": "agent_inference",
            },
            "memory_revise": {"id": ids[1], "action": "correct", "content": "Porto."},
            "memory_forget": {"id": ids[2]},
        }
        for name, arguments in writes.items():
            error = session.call(name, arguments)["error"]
            assert error["code"] == "read_only", name
            assert "read-only" in error["message"]
        with pytest.raises(ReadOnlyStoreError):
            session.end(now=NOW)
        with pytest.raises(ReadOnlyStoreError):
            mem.grant("planner", "user:u1", now=NOW)
        with pytest.raises(ReadOnlyStoreError):
            mem.import_records([{"content": "x y z"}], scope="user:u1", now=NOW)
        [job] = mem.jobs.list()
        with pytest.raises(ReadOnlyStoreError):
            mem.jobs.claim(job["job_id"], "extract", worker="w1", now=NOW)
        with pytest.raises(ReadOnlyStoreError):
            mem.jobs.sweep(now=NOW)
        assert mem.stats()["records"] == 3
    assert contents(store_path) == before
    assert store_path.read_bytes() == before_bytes


def test_a_writing_open_still_works_after_a_read_only_one(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """A read-only open leaves nothing behind that stops the next writer: the search it
    could not log is the only one missing from the log."""
    make_store(store_path, real_embedder)
    with Memory.open(store_path, embedder=real_embedder, now=NOW, read_only=True) as ro:
        ro.session(**WHO, session_id="s-1", now=NOW).call("memory_search", {"query": "Lisbon"})
    with Memory.open(store_path, embedder=real_embedder, now=NOW) as mem:
        found = mem.session(**WHO, session_id="s-2", now=NOW).call(
            "memory_search", {"query": "Lisbon"}
        )
        assert found["explanation"]["logged"] is True
        assert [r["session_id"] for r in mem.store.query("SELECT session_id FROM search_log")] == [
            "s-2"
        ]


def test_read_only_refuses_what_it_cannot_open_without_writing(
    tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """No store, an empty file, and a store of an older schema (it would need a migration)
    are refused with StoreError, and nothing is created or changed."""
    missing = tmp_path / "none.db"
    with pytest.raises(StoreError, match="missing"):
        Memory.open(missing, embedder=real_embedder, read_only=True)
    assert not missing.exists()
    empty = tmp_path / "empty.db"
    empty.touch()
    with pytest.raises(StoreError, match="empty"):
        Memory.open(empty, embedder=real_embedder, read_only=True)
    assert empty.read_bytes() == b""
    with pytest.raises(StoreError, match="cannot be initialised"):
        Memory.open(empty, embedder=real_embedder, read_only=True, initialise=True)

    old = tmp_path / "old.db"
    make_store(old, real_embedder)
    with sqlite3.connect(old) as conn:
        conn.execute(
            "DELETE FROM schema_migrations "
            "WHERE version = (SELECT max(version) FROM schema_migrations)"
        )
    conn.close()
    before = contents(old)
    with pytest.raises(StoreError, match="migrate it first"):
        Memory.open(old, embedder=real_embedder, read_only=True)
    assert contents(old) == before


def test_a_store_on_read_only_media_is_refused_for_writing_and_opens_read_only(
    read_only_media: tuple[Path, Path], real_embedder: FlagEmbedder
) -> None:
    """In a read-only folder SQLite cannot make the WAL's -shm file: the store opens
    immutable, searches, and nothing appears beside it. A writing open is refused with an
    error that names read_only=True."""
    folder, mounted = read_only_media
    ids = make_store(folder / "memory.db", real_embedder)
    files = sorted(p.name for p in folder.iterdir())
    path = mounted / "memory.db"
    with pytest.raises(StoreError, match=r"read-only \(its file is not writable\).*read_only=True"):
        Memory.open(path, embedder=real_embedder, now=NOW)
    with Memory.open(path, embedder=real_embedder, now=NOW, read_only=True) as mem:
        session = mem.session(**WHO, session_id="s-ro", now=NOW)
        found = session.call("memory_search", {"query": "Where does the user live?"})
        assert found["results"][0]["id"] == ids[1]
        assert found["explanation"]["logged"] is False
        assert session.call("memory_forget", {"id": ids[1]})["error"]["code"] == "read_only"
    assert sorted(p.name for p in folder.iterdir()) == files


def test_read_only_media_with_unread_write_ahead_log_is_refused(
    read_only_media: tuple[Path, Path], tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """A store copied with a -wal that holds changes but no -shm: opening it immutable
    would silently show the store without them, so it is refused, saying what to do."""
    folder, mounted = read_only_media
    live = tmp_path / "live.db"
    make_store(live, real_embedder)
    holder = sqlite3.connect(live)  # an open reader: the last writer's close keeps the -wal
    holder.execute("SELECT count(*) FROM sqlite_master").fetchone()
    with Memory.open(live, embedder=real_embedder, now=NOW) as mem:
        mem.grant("planner", "user:u1", now=NOW)
    shutil.copyfile(live, folder / "memory.db")
    shutil.copyfile(f"{live}-wal", folder / "memory.db-wal")
    holder.close()
    assert (folder / "memory.db-wal").stat().st_size > 0
    with pytest.raises(StoreError, match="write-ahead log"):
        Memory.open(mounted / "memory.db", embedder=real_embedder, read_only=True)
