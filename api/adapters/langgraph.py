"""The LangGraph store adapter: agent-memory as a LangGraph ``BaseStore`` (extra ``deepagents``).

    from agent_memory.api.adapters.langgraph import MemoryStore

    mem.grant("assistant", "user:alice")          # host provisioning, as for every agent
    store = MemoryStore(mem, agent_id="assistant")
    store.put(("users", "alice", "prefs"), "diet", {"text": "Alice is vegetarian"})
    store.search(("users", "alice"), query="what does Alice eat?")   # hybrid search, explained
    graph = builder.compile(store=store)          # or create_deep_agent(..., store=store)

- Namespaces map to scopes by ``scope_for(namespace) -> scope | None`` (default
  ``default_scope``: ``("users", id, ...)`` -> ``user:id``, ``("projects", id, ...)`` ->
  ``project:id``, ``("orgs", id, ...)`` -> ``org:id``, ``("agents", id, ...)`` -> ``agent:id``).
  A namespace that maps to no scope is refused by put, get and delete (InvalidNamespaceError);
  as a search or listing prefix (``()``, ``("users",)``) it spans the readable scopes that hold
  items under it.
- The store acts as one agent, ``agent_id``, with the grants the host gave it: get, search and
  list need read access to the scope, put and delete write access, else ``PermissionDenied``
  (code ``permission_denied``) names the agent and the scope. With ``user_id`` the store acts
  for that one user (a ``user:`` scope is reachable only while acting for its user, and the
  private ``agent:<agent>/<user>`` scope is reachable); without it, a namespace that names a
  user's scope acts for that user, which suits a graph whose namespaces come from host code
  (``config["configurable"]``), never from the model. A search or listing that names no user
  then covers project, org and agent scopes only. An item is addressed by namespace and key
  alone: a put or delete of a key held in another scope (a rule mapping one namespace to each
  user's scope) also needs write access to that scope, else ``PermissionDenied``.
- put stores the value verbatim as a host-provisioned record (core.items: source_kind system,
  confirmed). Its searchable text is the value's indexed fields: put's ``index`` argument, else
  the store's ``fields`` (default ``["$"]``, the whole value as JSON), read with LangGraph's
  own path syntax; ``index=False`` stores it unindexed. A second put on the key supersedes the
  record (version + 1); a put of None (delete) erases the record and its lineage.
- search with a query runs memory_search's pipeline (dense, lexical and entity generators,
  fusion, relevance gate) over those scopes and returns the items among its results, in its
  order, after the filter, then offset and limit. ``item.value`` is the value as put;
  ``item.score`` is the fused score; ``item.explanation`` is the record's explanation from the
  pipeline and ``item.record_id`` its record (``MemorySearchItem``). ``explain_search`` also
  returns the search's own explanation (why an answer is empty). Like memory_search it returns
  what is relevant, not every item ranked: the gate may return nothing, near-duplicates
  collapse into the best of them, and each generator looks at most
  ``retrieval.candidates_per_generator`` deep into the scopes.
- search without a query (or a blank one) lists items under the prefix, most recently updated
  first, with the filter (equality on value fields, nested objects, and LangGraph's ``$eq``,
  ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``), then offset and limit; ``score`` is None.
- list_namespaces: prefix and suffix conditions with ``*`` wildcards, max_depth (namespaces
  cut to that depth, once each), sorted, then offset and limit.
- batch runs its ops in order (a get after a put in one batch sees the put); consecutive puts
  are embedded together and written in one transaction. abatch runs batch in a worker thread.
  TTLs are not supported (``supports_ttl`` False).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    get_text_at_path,
    validate_op_namespace,
)

from agent_memory.core import policy
from agent_memory.core.errors import InvalidArgument, InvalidIdentifier, PermissionDenied
from agent_memory.core.items import ItemPut, StoredItem
from agent_memory.core.memory import Memory
from agent_memory.core.models import Grant, Scope, ScopeKind, utcnow
from agent_memory.core.search.request import SearchRequest

ScopeRule = Callable[[tuple[str, ...]], str | None]

TAG = "langgraph"
# What the pipeline is asked for: every result it would keep, with no context budget (the
# store returns values to code, not text to a model); the generators' depth still bounds it.
_SEARCH_LIMIT = 1000
_SEARCH_BUDGET = 10_000_000

_ROOTS = {"users": "user", "projects": "project", "orgs": "org", "agents": "agent"}


def default_scope(namespace: tuple[str, ...]) -> str | None:
    """``("users", id, ...)`` -> ``user:id``; likewise ``projects``, ``orgs``, ``agents``;
    anything else (or an id that is not a valid one) names no scope."""
    if len(namespace) < 2 or namespace[0] not in _ROOTS:
        return None
    try:
        return str(Scope.parse(f"{_ROOTS[namespace[0]]}:{namespace[1]}"))
    except InvalidIdentifier:
        return None


class MemorySearchItem(SearchItem):
    """A search result with its record: ``record_id``, and for a search by query the record's
    ``explanation`` from memory_search's pipeline (None for a listing)."""

    __slots__ = ("explanation", "record_id")

    def __init__(
        self,
        stored: StoredItem,
        *,
        score: float | None = None,
        explanation: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(
            namespace=stored.namespace,
            key=stored.key,
            value=stored.value,
            created_at=stored.created_at,
            updated_at=stored.updated_at,
            score=score,
        )
        self.record_id = stored.record_id
        self.explanation = explanation

    def dict(self) -> dict[str, Any]:
        result: dict[str, Any] = super().dict()
        result["record_id"] = self.record_id
        result["explanation"] = self.explanation
        return result


class MemoryStore(BaseStore):
    """A LangGraph store over an agent-memory ``Memory`` (see the module's documentation)."""

    supports_ttl = False

    def __init__(
        self,
        memory: Memory,
        *,
        agent_id: str,
        user_id: str | None = None,
        scope_for: ScopeRule = default_scope,
        fields: Sequence[str] = ("$",),
    ) -> None:
        self.memory = memory
        # Principal validates both ids (the user stands in only to check them here).
        self.agent_id = policy.Principal(agent_id, user_id or "_").agent_id
        self.user_id = user_id
        self.scope_for = scope_for
        self.fields = list(fields)

    # -- the two entry points ----------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        grants = self.memory.grants(self.agent_id)  # once per batch
        results: list[Result] = []
        puts: list[PutOp] = []
        for op in ops:
            if isinstance(op, PutOp) and op.value is not None:
                puts.append(op)
                results.append(None)
                continue
            self._put_many(puts, grants)
            puts = []
            if isinstance(op, GetOp):
                results.append(self._get(op, grants))
            elif isinstance(op, PutOp):
                self._delete(op, grants)
                results.append(None)
            elif isinstance(op, SearchOp):
                hits: list[SearchItem] = list(self._search(op, grants)[0])
                results.append(hits)
            elif isinstance(op, ListNamespacesOp):
                results.append(self._namespaces(op, grants))
            else:
                raise InvalidArgument(f"unknown store operation {type(op).__name__}", field="op")
        self._put_many(puts, grants)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def explain_search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
    ) -> tuple[list[MemorySearchItem], dict[str, Any]]:
        """``search`` by query, with the search's own explanation (scopes, candidates, the
        gate's decision, and why the answer is empty when it is) and its ``search_id``."""
        op = SearchOp(tuple(namespace_prefix), filter, limit, offset, query)
        validate_op_namespace(op)
        return self._search(op, self.memory.grants(self.agent_id))

    # -- operations --------------------------------------------------------------------------

    def _get(self, op: GetOp, grants: list[Grant]) -> Item | None:
        self._scope(op.namespace, grants, write=False)
        stored = self.memory.items.get(op.namespace, str(op.key))
        if stored is None or not self._may(
            stored.scope, grants, write=False, user=_user_of(stored.scope)
        ):
            return None
        return Item(
            value=stored.value,
            key=stored.key,
            namespace=stored.namespace,
            created_at=stored.created_at,
            updated_at=stored.updated_at,
        )

    def _put_many(self, ops: list[PutOp], grants: list[Grant]) -> None:
        if not ops:
            return
        if any(op.ttl is not None for op in ops):
            raise NotImplementedError("MemoryStore does not support TTLs")
        entries = []
        for op in ops:
            if not op.namespace:
                raise InvalidNamespaceError("Namespace cannot be empty.")
            assert op.value is not None
            scope = self._scope(op.namespace, grants, write=True)
            self._may_replace(op.namespace, str(op.key), scope, grants)
            entries.append(
                ItemPut(
                    scope=scope,
                    namespace=tuple(op.namespace),
                    key=str(op.key),
                    value=op.value,
                    text=self._text(op.value, op.index),
                    tags=(TAG,),
                )
            )
        self.memory.items.put_many(entries, agent_id=self.agent_id)

    def _delete(self, op: PutOp, grants: list[Grant]) -> None:
        if not op.namespace:
            raise InvalidNamespaceError("Namespace cannot be empty.")
        scope = self._scope(op.namespace, grants, write=True)
        self._may_replace(op.namespace, str(op.key), scope, grants)
        self.memory.items.delete(
            op.namespace,
            str(op.key),
            reason="deleted through the LangGraph store",
            agent_id=self.agent_id,
        )

    def _search(
        self, op: SearchOp, grants: list[Grant]
    ) -> tuple[list[MemorySearchItem], dict[str, Any]]:
        prefix = tuple(op.namespace_prefix)
        scopes, user = self._readable_under(prefix, grants)
        if op.limit < 0 or op.offset < 0:
            raise InvalidArgument("limit and offset must not be negative", field="limit")
        if op.query is None or not op.query.strip():
            return self._list(prefix, scopes, op), {}
        if not scopes:
            nothing = "no scope this agent may read holds items under this prefix"
            return [], {"returned": 0, "why_empty": nothing, "search_id": None}
        request = SearchRequest(
            query=op.query,
            agent_id=self.agent_id,
            user_id=user or "",
            limit=_SEARCH_LIMIT,
            budget_tokens=_SEARCH_BUDGET,
        )
        answer = self.memory.retriever().search(request, readable=tuple(scopes), now=utcnow())
        found = self.memory.items.of_records([r["id"] for r in answer["results"]])
        hits = []
        for result in answer["results"]:
            stored = found.get(result["id"])
            if stored is None or not stored.indexed or not _under(stored.namespace, prefix):
                continue
            if op.filter and not _matches(stored.value, op.filter):
                continue
            explanation = result["explanation"]
            hits.append(
                MemorySearchItem(
                    stored, score=explanation.get("fused_score"), explanation=explanation
                )
            )
        explanation = {**answer["explanation"], "search_id": answer["search_id"]}
        return hits[op.offset : op.offset + op.limit], explanation

    def _list(
        self, prefix: tuple[str, ...], scopes: list[str], op: SearchOp
    ) -> list[MemorySearchItem]:
        if op.filter:
            every = self.memory.items.under(prefix, scopes)
            kept = [s for s in every if _matches(s.value, op.filter)]
            page = kept[op.offset : op.offset + op.limit]
        else:
            page = self.memory.items.under(prefix, scopes, limit=op.limit, offset=op.offset)
        return [MemorySearchItem(stored) for stored in page]

    def _namespaces(self, op: ListNamespacesOp, grants: list[Grant]) -> list[tuple[str, ...]]:
        conditions = op.match_conditions or ()
        # The literal head of a prefix condition narrows what is read (and is checked).
        heads = [_literal_head(c.path) for c in conditions if c.match_type == "prefix"]
        prefix = max(heads, key=len, default=())
        scopes, _ = self._readable_under(prefix, grants)
        found = [
            namespace
            for namespace in self.memory.items.namespaces(scopes)
            if all(_matches_condition(condition, namespace) for condition in conditions)
        ]
        if op.max_depth is not None:
            found = sorted({namespace[: op.max_depth] for namespace in found})
        return found[op.offset : op.offset + op.limit]

    # -- scopes and grants -------------------------------------------------------------------

    def _scope(self, namespace: tuple[str, ...], grants: list[Grant], *, write: bool) -> str:
        """The scope ``namespace`` maps to, if this agent may read (or write) it."""
        scope = self.scope_for(tuple(namespace))
        if scope is None:
            raise InvalidNamespaceError(
                f"namespace of {len(namespace)} labels maps to no scope: the default rule "
                "takes ('users' | 'projects' | 'orgs' | 'agents', id, ...); pass "
                "MemoryStore(scope_for=...) for another layout"
            )
        scope = str(Scope.parse(scope))
        if not self._may(scope, grants, write=write, user=_user_of(scope)):
            access = "write" if write else "read"
            raise PermissionDenied(
                f"agent {self.agent_id!r} may not {access} {scope}"
                + (f" while acting for user {self.user_id!r}" if self.user_id else "")
                + f"; the host grants it with mem.grant({self.agent_id!r}, {scope!r})",
                field="namespace",
            )
        return scope

    def _may_replace(
        self, namespace: tuple[str, ...], key: str, scope: str, grants: list[Grant]
    ) -> None:
        """An item is addressed by namespace and key alone, and a host rule may map one
        namespace to a different scope per user: a put or delete reaching an item held in
        another scope must be allowed to write that scope too, else it would supersede or
        erase another user's item. The refusal does not name the scope (nor its user)."""
        held = self.memory.items.get(namespace, key)
        if held is None or held.scope == scope:
            return
        if not self._may(held.scope, grants, write=True, user=_user_of(held.scope)):
            raise PermissionDenied(
                f"agent {self.agent_id!r} may not replace this key: it is held in a scope "
                f"it may not write, not in {scope}",
                field="key",
            )

    def _readable_under(
        self, prefix: tuple[str, ...], grants: list[Grant]
    ) -> tuple[list[str], str | None]:
        """The scopes a search or listing under ``prefix`` reads, and the user it acts for."""
        named = self.scope_for(prefix) if prefix else None
        user = self.user_id
        if named is not None:
            named = self._scope(prefix, grants, write=False)
            user = user or _user_of(named)
        held = self.memory.items.scopes_under(prefix)
        scopes = [s for s in held if self._may(s, grants, write=False, user=user)]
        return scopes, user

    def _may(self, scope: str, grants: list[Grant], *, write: bool, user: str | None) -> bool:
        """Whether this agent may read (write) ``scope`` acting for ``self.user_id``, else for
        ``user``. A user's scope (or a private one) needs a user; other scopes do not depend on
        the user, so a stand-in principal is asked about them."""
        parsed = Scope.parse(scope)
        acting = self.user_id or user
        if acting is None and (parsed.kind is ScopeKind.USER or parsed.is_private):
            return False
        principal = policy.Principal(self.agent_id, acting or "_")
        allowed = (
            policy.writable_scopes(principal, grants)
            if write
            else policy.readable_scopes(principal, grants)
        )
        return scope in allowed

    # -- values ------------------------------------------------------------------------------

    def _text(self, value: Mapping[str, Any], index: Any) -> str | None:
        """The searchable text of ``value``: the fields of ``index`` (or the store's), one
        per line; None when indexing is off or no field is present."""
        if index is False:
            return None
        paths = self.fields if index is None else list(index)
        texts = [text for path in paths for text in get_text_at_path(value, path)]
        joined = "\n".join(text for text in texts if text and text.strip())
        return joined or None


def _user_of(scope: str) -> str | None:
    parsed = Scope.parse(scope)
    if parsed.kind is ScopeKind.USER:
        return parsed.id
    return parsed.user_id  # the private agent:<agent>/<user> scope's user, else None


def _under(namespace: tuple[str, ...], prefix: tuple[str, ...]) -> bool:
    return namespace[: len(prefix)] == prefix


def _literal_head(path: Sequence[str]) -> tuple[str, ...]:
    head: list[str] = []
    for label in path:
        if label == "*":
            break
        head.append(label)
    return tuple(head)


def _matches_condition(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    if not path:
        return True
    if condition.match_type not in ("prefix", "suffix"):
        raise InvalidArgument(f"unknown match type {condition.match_type!r}", field="match_type")
    return all(p == "*" or p == label for p, label in zip(path, part, strict=True))


def _matches(value: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    return all(_equal(value.get(key), expected) for key, expected in wanted.items())


def _equal(actual: Any, expected: Any) -> bool:
    """LangGraph's filter semantics: equality, nested objects field by field, lists item by
    item, and an object of ``$`` operators compared as numbers (``$eq``/``$ne`` as values)."""
    if isinstance(expected, Mapping):
        if any(str(k).startswith("$") for k in expected):
            return all(_operator(actual, op, operand) for op, operand in expected.items())
        return isinstance(actual, Mapping) and _matches(actual, expected)
    if isinstance(expected, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(expected)
            and all(_equal(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return bool(actual == expected)


_ORDER: dict[str, Callable[[float, float], bool]] = {
    "$gt": lambda a, b: a > b,
    "$gte": lambda a, b: a >= b,
    "$lt": lambda a, b: a < b,
    "$lte": lambda a, b: a <= b,
}


def _operator(actual: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(actual == operand)
    if op == "$ne":
        return bool(actual != operand)
    if op not in _ORDER:
        raise InvalidArgument(f"unsupported filter operator {op!r}", field="filter")
    try:
        return _ORDER[op](float(actual), float(operand))
    except (TypeError, ValueError):
        return False  # a missing or non-numeric field is not in the range


__all__ = ["MemorySearchItem", "MemoryStore", "ScopeRule", "default_scope"]
