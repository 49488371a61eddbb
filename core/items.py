"""Keyed items: host-provisioned records addressed by a namespace and a key (issue 19).

    mem.items.put("user:alice", ("users", "alice", "prefs"), "diet",
                  {"text": "Alice is vegetarian"}, text="Alice is vegetarian")
    mem.items.get(("users", "alice", "prefs"), "diet")     # StoredItem | None
    mem.items.delete(("users", "alice", "prefs"), "diet")

A key-value surface over the records; api.adapters.langgraph's ``MemoryStore`` is built on it.
Each item is one record of its scope: a semantic record with source_kind ``system`` (the host
vouches for it, as for an import: no transcript, no evidence check, so it starts confirmed and
never expires), whose content is the item's searchable ``text`` (the host decides which of the
value's fields that is), embedded and in FTS like every record, so that memory_search and the
tools find it too. The value itself is kept verbatim, as JSON, beside the record.

- A put on a key whose value or text changed writes a new record in the old one's lineage
  (version + 1, ``supersedes_id``) and marks the old one superseded, in one transaction; the
  same value and text again only move ``updated_at``.
- ``text=None`` (not indexed): the record's content is the value's JSON and it gets no vector;
  ``StoredItem.indexed`` is False so that a search by query leaves it out.
- ``delete`` erases the record and its lineage through the controlled deletion path
  (core.erasure: tombstones, suppression, erasure ledger); a tombstone deletes the value with
  it, so memory_forget and forget_user on the record remove the item too.

No permission check happens here: like ``import_records`` this is host provisioning, and the
adapter checks the grants of the agent it acts as.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent_memory.core import erasure, passages, policy
from agent_memory.core.engine import Engine
from agent_memory.core.errors import InvalidArgument
from agent_memory.core.models import (
    MemoryType,
    Record,
    Scope,
    SourceKind,
    format_time,
    new_id,
    parse_time,
    utcnow,
)
from agent_memory.core.store import items as statements
from agent_memory.core.store.items import ItemRow
from agent_memory.core.store.records import NewRecord, insert_record, record_at

MAX_LABELS = 32
MAX_KEY_CHARS = 1000


@dataclass(frozen=True, slots=True)
class ItemPut:
    """One item to store: ``text`` is what search sees (None: not indexed)."""

    scope: str
    namespace: tuple[str, ...]
    key: str
    value: Mapping[str, Any]
    text: str | None = None
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StoredItem:
    """A live item: its value as put, its times, and the record that holds it."""

    namespace: tuple[str, ...]
    key: str
    scope: str
    value: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    record_id: str
    indexed: bool

    @classmethod
    def from_row(cls, row: ItemRow) -> StoredItem:
        return cls(
            namespace=row.namespace,
            key=row.key,
            scope=row.scope,
            value=json.loads(row.value),
            created_at=parse_time(row.created_at, field="created_at"),
            updated_at=parse_time(row.updated_at, field="updated_at"),
            record_id=row.record_id,
            indexed=row.indexed,
        )


class Items:
    """The keyed items of one store (``Memory.items``)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # -- writes ------------------------------------------------------------------------------

    def put(
        self,
        scope: str,
        namespace: Sequence[str],
        key: str,
        value: Mapping[str, Any],
        *,
        text: str | None = None,
        tags: Sequence[str] = (),
        agent_id: str | None = None,
        now: datetime | None = None,
    ) -> str:
        """Store ``value`` at (namespace, key) in ``scope``; the id of the record holding it."""
        entry = ItemPut(scope, tuple(namespace), key, value, text, tuple(tags))
        return self.put_many([entry], agent_id=agent_id, now=now)[0]

    def put_many(
        self,
        entries: Sequence[ItemPut],
        *,
        agent_id: str | None = None,
        now: datetime | None = None,
    ) -> list[str]:
        """Store several items: validated first (one bad entry writes nothing), embedded in one
        call, written in one transaction. The record ids, in input order; for a key given
        twice, the last value wins."""
        now = now or utcnow()
        checked = [_check(entry) for entry in entries]
        indexed = [(i, c.text) for i, c in enumerate(checked) if c.text is not None]
        texts = [text for _, text in indexed]
        embedded = passages.embed(self.engine.embedder, texts, texts)
        vector_of = {i: embedded[n] for n, (i, _) in enumerate(indexed)}
        ids: list[str] = []
        with self.engine.store.transaction() as conn:
            for i, entry in enumerate(checked):
                ids.append(self._put(conn, entry, vector_of.get(i), agent_id=agent_id, now=now))
        self.engine.index()  # this process's vectors current before its next search
        return ids

    def _put(
        self,
        conn: Any,
        entry: _Checked,
        vectors: passages.Embedded | None,
        *,
        agent_id: str | None,
        now: datetime,
    ) -> str:
        old = statements.find_item(conn, entry.namespace, entry.key)
        content = entry.text if entry.text is not None else entry.value
        if (
            old is not None
            and old.scope == entry.scope
            and old.value == entry.value
            and old.indexed == (entry.text is not None)
            and old.content == content
        ):
            statements.touch_item(conn, entry.namespace, entry.key, now)
            return old.record_id
        previous: Record | None = None
        if old is not None:
            previous = record_at(conn, old.record_rowid)
        same_lineage = previous is not None and previous.scope == entry.scope
        record = Record(
            id=new_id("mem", now),
            type=MemoryType.SEMANTIC,
            content=content,
            scope=entry.scope,
            source_kind=SourceKind.SYSTEM,
            status=policy.initial_status(SourceKind.SYSTEM),
            confidence=policy.initial_confidence(SourceKind.SYSTEM),
            created_at=format_time(now),
            source_ref=_reference(entry.namespace, entry.key),
            creator_agent_id=agent_id,
            tags=entry.tags,
            version=previous.version + 1 if same_lineage and previous else 1,
            lineage_id=previous.lineage_id if same_lineage and previous else None,
            supersedes_id=previous.id if same_lineage and previous else None,
        )
        rowid = insert_record(
            conn,
            NewRecord(record, None) if vectors is None else NewRecord(record, *vectors),
            embedder=self.engine.embedder.identity if vectors is not None else None,
            now=now,
            event_kind="record.imported",
        )
        if old is not None:
            statements.supersede(
                conn, old.record_rowid, old.record_id, by=record.id, agent_id=agent_id, now=now
            )
        statements.put_item(
            conn,
            namespace=entry.namespace,
            key=entry.key,
            scope=entry.scope,
            value=entry.value,
            indexed=entry.text is not None,
            record_rowid=rowid,
            created_at=old.created_at if old is not None else format_time(now),
            now=now,
        )
        return record.id

    def delete(
        self,
        namespace: Sequence[str],
        key: str,
        *,
        reason: str | None = None,
        agent_id: str | None = None,
        now: datetime | None = None,
    ) -> bool:
        """Erase the item and its record's lineage (core.erasure). False: there was none."""
        found = self.get(namespace, key)
        if found is None:
            return False
        erasure.erase(
            self.engine.store,
            found.record_id,
            reason=reason,
            agent_id=agent_id,
            now=now,
            embedder=self.engine.embedder,
        )
        self.engine.index()
        return True

    # -- reads -------------------------------------------------------------------------------

    def get(self, namespace: Sequence[str], key: str) -> StoredItem | None:
        with self.engine.store.reading() as conn:
            row = statements.find_item(conn, tuple(namespace), key)
        return None if row is None else StoredItem.from_row(row)

    def under(
        self,
        prefix: Sequence[str],
        scopes: Sequence[str],
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[StoredItem]:
        """Items at or under ``prefix`` in ``scopes``, most recently updated first."""
        with self.engine.store.reading() as conn:
            rows = statements.items_under(conn, prefix, scopes, limit=limit, offset=offset)
        return [StoredItem.from_row(row) for row in rows]

    def of_records(self, record_ids: Sequence[str]) -> dict[str, StoredItem]:
        """The items these records hold, by record id (records holding none are absent)."""
        with self.engine.store.reading() as conn:
            rows = statements.items_of_records(conn, record_ids)
        return {rid: StoredItem.from_row(row) for rid, row in rows.items()}

    def scopes_under(self, prefix: Sequence[str]) -> list[str]:
        """The scopes holding items at or under ``prefix``."""
        with self.engine.store.reading() as conn:
            return statements.scopes_under(conn, prefix)

    def namespaces(self, scopes: Sequence[str]) -> list[tuple[str, ...]]:
        """Every namespace holding an item in ``scopes``, sorted."""
        with self.engine.store.reading() as conn:
            return sorted(statements.namespaces(conn, scopes))


@dataclass(frozen=True, slots=True)
class _Checked:
    scope: str
    namespace: tuple[str, ...]
    key: str
    value: str  # canonical JSON text
    text: str | None
    tags: tuple[str, ...]


def _check(entry: ItemPut) -> _Checked:
    scope = str(Scope.parse(entry.scope))
    namespace = tuple(entry.namespace)
    if not namespace or len(namespace) > MAX_LABELS:
        raise InvalidArgument(
            f"a namespace has 1 to {MAX_LABELS} labels, got {len(namespace)}", field="namespace"
        )
    if not all(isinstance(label, str) and label for label in namespace):
        raise InvalidArgument("namespace labels must be non-empty strings", field="namespace")
    if not isinstance(entry.key, str) or not entry.key or len(entry.key) > MAX_KEY_CHARS:
        raise InvalidArgument(
            f"a key is a non-empty string of at most {MAX_KEY_CHARS} characters", field="key"
        )
    if not isinstance(entry.value, Mapping):
        raise InvalidArgument("an item's value must be a JSON object (a mapping)", field="value")
    try:
        value = json.dumps(dict(entry.value), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"an item's value must be JSON: {exc}", field="value") from None
    text = entry.text if entry.text is not None and entry.text.strip() else None
    return _Checked(scope, namespace, entry.key, value, text, tuple(entry.tags))


def _reference(namespace: tuple[str, ...], key: str) -> str:
    """The record's source_ref: where the item lives, for whoever reads the record alone."""
    return f"item:{statements.encode_namespace(namespace)}:{key}"


__all__ = ["ItemPut", "Items", "StoredItem"]
