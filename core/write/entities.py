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
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent_memory.core import events
from agent_memory.core.errors import InvalidArgument
from agent_memory.core.models import EntityKind, MemoryType, Scope, new_id
from agent_memory.core.store import entities as stored
from agent_memory.core.write.evidence import normalise


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
    found = stored.match_alias(
        conn, alias_key(ref.name), ref.kind.value, readable, prefer=target_scope
    )
    if found:
        entity_id, canonical, scope = found
        return PlannedEntity(entity_id, ref.kind, canonical, scope, True)
    return PlannedEntity(
        new_id("ent", now), ref.kind, ref.name.strip(), target_scope, False, (ref.name.strip(),)
    )


def plan_principal(conn: sqlite3.Connection, user_id: str) -> PlannedEntity:
    """The principal's own person entity in ``user:<user_id>``, created on first use."""
    entity_id = principal_entity_id(user_id)
    exists = stored.exists(conn, entity_id)
    aliases = () if exists else (user_id,)
    return PlannedEntity(entity_id, EntityKind.PERSON, user_id, f"user:{user_id}", exists, aliases)


def plan(
    conn: sqlite3.Connection,
    about: Sequence[EntityRef],
    *,
    memory_type: MemoryType,
    scope: str,
    user_id: str | None,
    correcting: bool,
    readable: tuple[str, ...],
    now: datetime,
) -> list[PlannedEntity]:
    """The entities a write to ``scope`` will link: those ``about`` names; else none for an
    episode or a correction (it keeps its record's subject); else, in the principal's own
    user scope, the principal. Anything else must say what it is about (InvalidArgument)."""
    if about:
        return [resolve(conn, ref, readable=readable, target_scope=scope, now=now) for ref in about]
    if correcting or memory_type is MemoryType.EPISODIC:
        return []
    if user_id is not None and scope == f"user:{user_id}":
        return [plan_principal(conn, user_id)]
    raise InvalidArgument(
        f"a {memory_type.value} record in {scope} must say what it is about: pass "
        'about, e.g. [{"kind": "project", "name": "Apollo"}]',
        field="about",
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
        raced = stored.alias_in_scope(
            conn, alias_key(planned.name), planned.kind.value, planned.scope
        )
        if raced:
            return PlannedEntity(raced, planned.kind, planned.name, planned.scope, True)
        status = "provisional"
    created = events.EntityCreated(
        agent_id=agent_id,
        entity_id=planned.id,
        entity_kind=planned.kind.value,
        scope=planned.scope,
    )
    stored.insert(
        conn,
        created,
        name=planned.name,
        scope_kind=Scope.parse(planned.scope).kind.value,
        status=status,
        aliases=[(alias, alias_key(alias)) for alias in planned.aliases],
        now=now,
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
    return stored.merge(
        conn,
        loser=loser,
        survivor=survivor,
        subject_of=subject_of,
        agent_id=agent_id,
        reason=reason,
        now=now,
    )


def find(
    conn: Any,
    key: str,
    readable: tuple[str, ...],
    *,
    kind: str | None = None,
    scope: str | None = None,
) -> tuple[str, str, str] | None:
    """An entity by id, or by exact alias (of ``kind`` in ``scope``), in a readable scope."""
    alias = (alias_key(key), kind, scope) if kind is not None and scope is not None else None
    return stored.find(conn, key, readable, alias=alias)
