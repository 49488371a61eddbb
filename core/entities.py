"""Entities: people, projects, orgs, repos and products that records are about (design §8).

Resolution is exact: an alias, normalised for case and spacing, of the same kind, in a scope the
agent can read. No fuzzy matching and no automatic merging: two people called "Sam" in two
users' scopes stay two entities. A name that resolves nowhere becomes a new provisional entity
in the writer's scope. Merges happen only through memory_revise(merge_entities).

Resolution is planned outside the write transaction and carried out inside it
(``create_planned``), which re-checks for an entity created meanwhile by another process.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.evidence import normalise
from core.models import EntityKind, Scope, format_time, new_id
from core.records import append_event, bump_records_version, record_alias_text


@dataclass(frozen=True, slots=True)
class EntityRef:
    """A mention from a model or extractor: ``{"kind": "person", "name": "Aditya"}``."""

    kind: EntityKind
    name: str


@dataclass(frozen=True, slots=True)
class PlannedEntity:
    """An entity a write will link: an existing one, or one to create in the writer's scope
    (with ``aliases``; empty for an existing entity, whose aliases are already stored)."""

    id: str
    kind: EntityKind
    name: str
    scope: str
    exists: bool
    aliases: tuple[str, ...] = ()


def alias_key(name: str) -> str:
    """The normalised form aliases are matched on."""
    return normalise(name)


def principal_entity_id(user_id: str) -> str:
    """The person entity of a principal user has a stable id, so every process agrees on it."""
    return f"ent_user_{user_id}"


def resolve(
    conn: sqlite3.Connection,
    ref: EntityRef,
    *,
    readable: tuple[str, ...],
    target_scope: str,
    now: datetime,
) -> PlannedEntity:
    """Plan the entity ``ref`` names: an exact alias match of the same kind in a readable scope,
    preferring the target scope; otherwise a new entity in the target scope."""
    marks = ",".join("?" * len(readable))
    rows = conn.execute(
        f"""
        SELECT e.id, e.canonical_name, e.scope, e.created_at
          FROM entity_aliases AS a JOIN entities AS e ON e.id = a.entity_id
         WHERE a.alias_norm = ? AND e.kind = ? AND e.status != 'merged'
           AND e.scope IN ({marks})
         ORDER BY (e.scope = ?) DESC, e.created_at DESC
        """,
        (alias_key(ref.name), ref.kind.value, *readable, target_scope),
    ).fetchall()
    if rows:
        entity_id, canonical, scope, _ = rows[0]
        return PlannedEntity(entity_id, ref.kind, canonical, scope, True)
    return PlannedEntity(
        new_id("ent", now), ref.kind, ref.name.strip(), target_scope, False, (ref.name.strip(),)
    )


def plan_principal(conn: sqlite3.Connection, user_id: str) -> PlannedEntity:
    """The principal's own person entity in ``user:<user_id>``, created on first use."""
    entity_id = principal_entity_id(user_id)
    exists = conn.execute("SELECT 1 FROM entities WHERE id = ?", (entity_id,)).fetchone()
    aliases = () if exists else (user_id,)
    return PlannedEntity(
        entity_id, EntityKind.PERSON, user_id, f"user:{user_id}", bool(exists), aliases
    )


def create_planned(
    conn: sqlite3.Connection, planned: PlannedEntity, *, agent_id: str | None, now: datetime
) -> PlannedEntity:
    """Inside the write transaction: create a planned entity, unless another writer created the
    same alias in the same scope meanwhile, in which case that one is used."""
    if planned.exists:
        return planned
    if planned.id.startswith("ent_user_"):
        status = "confirmed"
    else:
        raced = conn.execute(
            """
            SELECT e.id FROM entity_aliases AS a JOIN entities AS e ON e.id = a.entity_id
             WHERE a.alias_norm = ? AND e.kind = ? AND e.scope = ? AND e.status != 'merged'
            """,
            (alias_key(planned.name), planned.kind.value, planned.scope),
        ).fetchone()
        if raced:
            return PlannedEntity(raced[0], planned.kind, planned.name, planned.scope, True)
        status = "provisional"
    scope = Scope.parse(planned.scope)
    conn.execute(
        "INSERT OR IGNORE INTO entities (id, kind, canonical_name, scope_kind, scope, status, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            planned.id,
            planned.kind.value,
            planned.name,
            scope.kind.value,
            planned.scope,
            status,
            format_time(now),
        ),
    )
    for alias in planned.aliases:
        conn.execute(
            "INSERT OR IGNORE INTO entity_aliases (entity_id, alias, alias_norm) VALUES (?, ?, ?)",
            (planned.id, alias, alias_key(alias)),
        )
    append_event(
        conn,
        kind="entity.created",
        at=now,
        agent_id=agent_id,
        payload={"entity_id": planned.id, "kind": planned.kind.value, "scope": planned.scope},
    )
    return PlannedEntity(planned.id, planned.kind, planned.name, planned.scope, True)


def normalise_attribute(attribute: str) -> str:
    """``"Answer style"`` and ``"answer-style"`` name the same attribute: ``answer_style``."""
    key = "".join(ch if ch.isalnum() else "_" for ch in normalise(attribute))
    return "_".join(part for part in key.split("_") if part)


def subject_of(entity_id: str | None, attribute: str | None) -> str | None:
    """The system-owned identity of a current fact: entity id plus normalised attribute."""
    if entity_id is None or not attribute:
        return None
    normal = normalise_attribute(attribute)
    return f"{entity_id}:{normal}" if normal else None


def merge(
    conn: Any, *, loser: str, survivor: str, agent_id: str | None, reason: str | None, now: datetime
) -> int:
    """Inside a transaction: fold ``loser`` into ``survivor``. Record links and
    subject_entity_id are repointed, subjects and FTS subject and alias text rewritten, aliases
    moved, and the merge audited. Returns the number of records repointed."""
    repointed = [
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT record_rowid FROM record_entities WHERE entity_id = ? UNION "
            "SELECT rowid FROM records WHERE subject_entity_id = ?",
            (loser, loser),
        )
    ]
    conn.execute(
        "INSERT OR IGNORE INTO entity_aliases (entity_id, alias, alias_norm) "
        "SELECT ?, alias, alias_norm FROM entity_aliases WHERE entity_id = ?",
        (survivor, loser),
    )
    conn.execute(
        "UPDATE OR IGNORE record_entities SET entity_id = ? WHERE entity_id = ?", (survivor, loser)
    )
    conn.execute("DELETE FROM record_entities WHERE entity_id = ?", (loser,))
    for rowid, attribute in conn.execute(
        "SELECT rowid, attribute FROM records WHERE subject_entity_id = ?", (loser,)
    ).fetchall():
        conn.execute(
            "UPDATE records SET subject_entity_id = ?, subject = ?, updated_at = ? WHERE rowid = ?",
            (survivor, subject_of(survivor, attribute), format_time(now), rowid),
        )
    # Records already linked to the survivor gain the loser's aliases too.
    rowids = sorted(
        set(repointed)
        | {
            r[0]
            for r in conn.execute(
                "SELECT record_rowid FROM record_entities WHERE entity_id = ?", (survivor,)
            )
        }
    )
    for rowid in rowids:
        subject = conn.execute(
            "SELECT coalesce(subject, '') FROM records WHERE rowid = ?", (rowid,)
        ).fetchone()[0]
        conn.execute(
            "UPDATE records_fts SET subject = ?, aliases = ? WHERE rowid = ?",
            (subject, record_alias_text(conn, rowid), rowid),
        )
    conn.execute(
        "UPDATE entities SET status = 'merged', merged_into = ? WHERE id = ?", (survivor, loser)
    )
    if rowids:
        bump_records_version(conn, rowids)
    append_event(
        conn,
        kind="entity.merged",
        at=now,
        agent_id=agent_id,
        payload={"merged": loser, "into": survivor, "records": len(repointed), "reason": reason},
    )
    return len(repointed)


def find(
    conn: Any,
    key: str,
    readable: tuple[str, ...],
    *,
    kind: str | None = None,
    scope: str | None = None,
) -> tuple[str, str, str] | None:
    """An entity by id, or by exact alias (of ``kind`` in ``scope``), in a readable scope."""
    marks = ",".join("?" * len(readable))
    row = conn.execute(
        f"SELECT id, kind, scope FROM entities WHERE id = ? AND status != 'merged' "
        f"AND scope IN ({marks})",
        (key, *readable),
    ).fetchone()
    if row is None and kind is not None and scope is not None:
        row = conn.execute(
            "SELECT e.id, e.kind, e.scope FROM entity_aliases AS a JOIN entities AS e "
            "ON e.id = a.entity_id WHERE a.alias_norm = ? AND e.kind = ? AND e.scope = ? "
            "AND e.status != 'merged' ORDER BY e.created_at LIMIT 1",
            (alias_key(key), kind, scope),
        ).fetchone()
    return tuple(row) if row else None
