"""``Memory``: the object a host embeds. It owns one store, one embedder and one vector index.

    mem = Memory.open("data/memory.db")
    mem.grant("planner", "user:u1", access="readwrite")
    ...
    mem.close()

Host provisioning (grants) and whole-store operations live here; what a model can do goes
through sessions and the tool surface.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_memory.core import erasure, ledger, policy, users
from agent_memory.core.config import Config
from agent_memory.core.embedder import Embedder, make_embedder
from agent_memory.core.engine import Engine, Lazy
from agent_memory.core.errors import InvalidArgument, PermissionDenied
from agent_memory.core.index import LiveIndex, VectorIndex
from agent_memory.core.items import Items
from agent_memory.core.jobs import Dispatcher, Jobs, LeasePolicy
from agent_memory.core.logging import get_logger
from agent_memory.core.models import Access, Grant, Record, utcnow
from agent_memory.core.search.rerank import FlagRerankerBackend, Reranker
from agent_memory.core.search.retriever import Retriever
from agent_memory.core.search.rewrite import AnthropicRewriter, QueryRewriter
from agent_memory.core.session import Session
from agent_memory.core.store import Store
from agent_memory.core.store.sessions import idle_sessions, session_list
from agent_memory.core.write import conversation, importer
from agent_memory.core.write.ingestor import Ingestor

if TYPE_CHECKING:
    from agent_memory.core.judge import Judge

log = get_logger("agent_memory")


class Memory:
    """A memory store opened by a host. Safe to share between threads; several processes may
    open the same file and each sees the others' writes on its next search.

    The composition root: it builds the store's parts into one ``Engine`` (``mem.engine``),
    which sessions, tools, search, writes and extraction are given; none of them imports this
    module."""

    def __init__(
        self,
        store: Store,
        config: Config,
        embedder: Embedder,
        judge: Judge | None = None,
        dispatcher: Dispatcher | None = None,
        *,
        reranker: Reranker | None = None,
        rewriter: QueryRewriter | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.embedder = embedder
        self.dispatcher = dispatcher
        self.jobs = Jobs(
            store,
            LeasePolicy(
                lease_seconds=config.worker.lease_seconds,
                max_attempts=config.worker.max_attempts,
                requeue_after_seconds=config.worker.requeue_after_seconds,
                stage_timeout_seconds=config.worker.stage_timeout_seconds,
                retry_delay_seconds=config.worker.retry_delay_seconds,
                retry_max_delay_seconds=config.worker.retry_max_delay_seconds,
                retry_jitter=config.worker.retry_jitter,
            ),
            dispatcher=lambda: self.dispatcher,
        )
        self._index = LiveIndex(store, lambda: embedder.dims)
        self._judge = Lazy(lambda: judge if judge is not None else _make_judge(config))
        self._retriever = Lazy(lambda: Retriever(self.engine))
        self.engine = Engine(
            store=store,
            config=config,
            embedder=embedder,
            index=self._index,
            jobs=self.jobs,
            judge=self._judge,
            reranker=Lazy(lambda: reranker if reranker is not None else _make_reranker(config)),
            rewriter=Lazy(lambda: rewriter if rewriter is not None else _make_rewriter(config)),
            ingestor=Lazy(lambda: Ingestor(self.engine)),
            retriever=self._retriever,
            dispatcher=lambda: self.dispatcher,
        )
        # Keyed items: host-provisioned records addressed by a namespace and a key
        # (core.items; the LangGraph store adapter is built on them).
        self.items = Items(self.engine)

    # -- lifecycle -------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | Path,
        config: Config | None = None,
        *,
        embedder: Embedder | None = None,
        judge: Judge | None = None,
        reranker: Reranker | None = None,
        rewriter: QueryRewriter | None = None,
        dispatcher: Dispatcher | None = None,
        now: datetime | None = None,
        initialise: bool = False,
        read_only: bool = False,
    ) -> Memory:
        """Open or create the store at ``path``, migrating it to the current schema.

        ``embedder``, ``judge``, ``reranker`` and ``rewriter`` replace the configured ones
        (tests pass ``HashingEmbedder``; hosts may pass their own implementations, e.g. a
        rewriter with their Anthropic client). ``dispatcher`` sends the queue message when a
        session ends (``workers.WorkerApp``; without one the job waits in the store until a
        worker's sweep finds it). Opening a
        store whose vectors came from another model raises EmbedderMismatchError, which names
        ``agent-memory reembed``. The model itself loads on first use, not here.

        A path that holds no store is refused with StoreError and left unchanged: a corrupt
        or non-SQLite file, a read-only file or folder, and an SQLite database of another
        application, unless ``initialise`` asks to add a store's tables to it. The error for
        a read-only file or folder names ``read_only=True``.

        ``read_only=True`` opens an existing store so that nothing is written to it, e.g. on
        read-only media: memory_search and memory_get work (a search cannot be logged, and
        its explanation says ``logged: false``); the write tools answer the structured error
        ``read_only``, and every other write (a session's end, grants, imports, jobs) raises
        ReadOnlyStoreError. Nothing migrates: a store of an older schema is refused.
        Read-only is never chosen silently: a host that means to write must hear that it
        cannot, at open.
        """
        config = config or Config()
        embedder = embedder or make_embedder(config.embedder)
        store = Store.open(
            path,
            busy_timeout_ms=config.store.busy_timeout_ms,
            initialise=initialise,
            read_only=read_only,
        )
        try:
            store.bind_embedder(embedder.identity, now=now or utcnow())
        except BaseException:
            store.close()
            raise
        return cls(store, config, embedder, judge, dispatcher, reranker=reranker, rewriter=rewriter)

    def close(self) -> None:
        """Close the store. Further calls raise StoreClosedError."""
        self.store.close()
        self._index.drop()
        retriever = self._retriever.reset()
        if retriever is not None:
            retriever.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def path(self) -> Path:
        return self.store.path

    @property
    def read_only(self) -> bool:
        """Whether the store was opened read-only (``Memory.open(read_only=True)``)."""
        return self.store.read_only

    def warm(self) -> None:
        """Get the embedder ready for queries, build the vector index and load the evidence
        judge's parser now, instead of on first use. Hosts call this at startup so the first
        search and the first evidenced write are as fast as the rest.
        (With a cached ONNX graph the embedder is ready without torch, which then loads on
        the first bulk embedding; see core.embedder.)"""
        if hasattr(self.embedder, "load"):
            self.embedder.load()
        self.index()
        self.judge.warm()

    def index(self) -> VectorIndex:
        """This process's vector index, built on first use and synced with the store (and so
        with every other process) on each call."""
        return self._index()

    @property
    def judge(self) -> Judge:
        """The evidence judge (``judge.kind`` in config), created on first use."""
        return self._judge()

    def ingestor(self) -> Ingestor:
        """The write path shared by every session of this Memory."""
        return self.engine.ingestor()

    def retriever(self) -> Retriever:
        """The search pipeline shared by every session of this Memory."""
        return self._retriever()

    # -- sessions ----------------------------------------------------------------------------

    def session(
        self,
        *,
        agent_id: str,
        user_id: str,
        session_id: str,
        write_targets: Mapping[str, str] | None = None,
        authoritative_tools: Iterable[str] = (),
        now: datetime | None = None,
    ) -> Session:
        """Start (or resume, after a restart) the session ``session_id`` of ``agent_id`` acting
        for ``user_id``. ``write_targets`` maps the symbolic targets the model may name to
        scopes; the default is ``{"personal": "user:<user_id>"}``. ``authoritative_tools``
        adds to ``evidence.authoritative_tools`` the tools whose output may back a confirmed
        tool_result in this session. Identity always comes from the host, never from the
        model."""
        return Session(
            self.engine,
            host=self,
            agent_id=agent_id,
            user_id=user_id,
            session_id=session_id,
            write_targets=write_targets,
            authoritative_tools=authoritative_tools,
            now=now,
        )

    def sessions(
        self,
        *,
        open: bool | None = None,
        agent_id: str | None = None,
        user_id: str | None = None,
        limit: int = 100,
    ) -> list[dict[str, Any]]:
        """Sessions, most recently active first: ``open=True`` only those not ended yet,
        ``False`` only ended ones. Each: ids, start, last activity, end and its reason
        (ended, idle, cli), turn count and its extraction job, if any."""
        return session_list(self.store, open=open, agent_id=agent_id, user_id=user_id, limit=limit)

    def end_idle_sessions(self, *, now: datetime | None = None) -> list[str]:
        """End every open session with turns and no activity for
        ``worker.session_idle_seconds`` (session_ended with reason idle), so that a host
        that never calls end() still gets its sessions extracted. Returns their job ids. A
        session refused at end() (a write target without a grant) stays open and is
        logged. The worker's sweep runs this."""
        idle = self.config.worker.session_idle_seconds
        if idle <= 0:
            return []
        now = now or utcnow()
        jobs = []
        for row in idle_sessions(self.store, before=now - timedelta(seconds=idle)):
            session = Session.resume(
                self.engine,
                host=self,
                agent_id=row["agent_id"],
                user_id=row["user_id"],
                session_id=row["session_id"],
                write_targets=json.loads(row["write_targets"]),
                authoritative_tools=json.loads(row["authoritative_tools"]),
            )
            try:
                jobs.append(session.end(now=now, reason="idle"))
            except PermissionDenied as exc:
                log.warning(
                    "session.idle_not_ended", session_id=row["session_id"], error=exc.message
                )
        return jobs

    # -- lifecycle ---------------------------------------------------------------------------

    def expire_provisional(self, *, now: datetime | None = None) -> list[str]:
        """Expire provisional records whose expires_at has passed. Returns their ids."""
        return self.store.expire_provisional(now=now or utcnow())

    def due_reviews(self, *, now: datetime | None = None, limit: int = 100) -> list[Record]:
        """Live records whose review_at has come and that are not flagged yet."""
        return self.store.due_reviews(now=now or utcnow(), limit=limit)

    def flag_due_reviews(self, *, now: datetime | None = None, limit: int = 500) -> list[str]:
        """Path C: set review_flagged_at on records whose review_at has come and append a
        record.review_due event for each, atomically. Content, status and source are never
        touched; a record is flagged once however many workers run this. Returns the ids."""
        return self.store.flag_due_reviews(now=now or utcnow(), limit=limit)

    # -- grants (host provisioning) ----------------------------------------------------------

    def grant(
        self, agent_id: str, scope: str, *, access: str = "readwrite", now: datetime | None = None
    ) -> Grant:
        """Allow ``agent_id`` to read, write or readwrite ``scope``. Granting more access to an
        agent that already has some widens it (read + write = readwrite). Private agent-user
        scopes are implicit and refused here."""
        parsed = policy.check_grantable(agent_id, scope)
        wanted = _parse_access(access)
        current = {g.scope: g.access for g in self.store.grants(agent_id)}.get(str(parsed))
        merged = policy.merge_access(current, wanted)
        return self.store.put_grant(agent_id, parsed, merged, now=now or utcnow())

    def revoke(self, agent_id: str, scope: str, *, now: datetime | None = None) -> bool:
        """Remove every access ``agent_id`` has to ``scope``. Returns whether it had any."""
        parsed = policy.check_grantable(agent_id, scope)
        return self.store.delete_grant(agent_id, parsed, now=now or utcnow())

    def grants(self, agent_id: str | None = None) -> list[Grant]:
        """The grant table, optionally for one agent."""
        return self.store.grants(agent_id)

    def readable_scopes(self, agent_id: str, user_id: str) -> tuple[str, ...]:
        """Scopes ``agent_id`` may read while acting for ``user_id``."""
        principal = policy.Principal(agent_id, user_id)
        return policy.readable_scopes(principal, self.store.grants(agent_id))

    def writable_scopes(self, agent_id: str, user_id: str) -> tuple[str, ...]:
        """Scopes ``agent_id`` may write while acting for ``user_id``."""
        principal = policy.Principal(agent_id, user_id)
        return policy.writable_scopes(principal, self.store.grants(agent_id))

    # -- bulk import -------------------------------------------------------------------------

    def import_records(
        self,
        records: Iterable[Mapping[str, Any]],
        *,
        scope: str,
        agent_id: str | None = None,
        batch_size: int = 256,
        now: datetime | None = None,
    ) -> list[str]:
        """Validate, embed (in batches) and write records into ``scope``; ids in input order.
        One invalid record rejects the whole call and writes nothing. See core.write.importer."""
        return importer.import_records(
            self.engine, records, scope=scope, agent_id=agent_id, batch_size=batch_size, now=now
        )

    def import_conversation(
        self,
        turns: Iterable[Mapping[str, Any]],
        *,
        scope: str,
        session_id: str | None = None,
        agent_id: str | None = None,
        batch_size: int = 256,
        now: datetime | None = None,
    ) -> list[str]:
        """Store each turn of one session (``{id, role, text, speaker?, at}``, in order) as an
        episodic record with ``source_ref`` = the turn id and the session date and preceding
        turns as retrieval context; ids in input order. One invalid turn rejects the whole
        call and writes nothing. See core.write.conversation."""
        return conversation.import_conversation(
            self.engine,
            turns,
            scope=scope,
            session_id=session_id,
            agent_id=agent_id,
            batch_size=batch_size,
            now=now,
        )

    def forget(
        self,
        record_id: str,
        *,
        reason: str | None = None,
        agent_id: str | None = None,
        now: datetime | None = None,
    ) -> bool:
        """Host-level erasure of a record and its lineage (see ``erase``). Returns False if
        there was nothing left to erase (no such record, or it was already forgotten)."""
        return bool(self.erase(record_id, reason=reason, agent_id=agent_id, now=now))

    def erase(
        self,
        record_id: str,
        *,
        reason: str | None = None,
        agent_id: str | None = None,
        lineage: bool = True,
        now: datetime | None = None,
    ) -> list[str]:
        """Erase a record and, with ``lineage`` (the default), every other version of its
        lineage: a superseded version says the same thing in older words. Returns the ids
        erased (empty: nothing was left to erase, and nothing changed).

        Each becomes a tombstone: content, evidence, FTS entry and vector are erased and the
        file's freed pages zeroed; every process drops the vector on its next search. Each
        also leaves a suppression, and the turns it quoted are redacted, so a session's
        extraction does not write it again (core.erasure). Events keep ids and reasons only.
        Idempotent: erasing an erased record erases whatever of its lineage is still left."""
        return erasure.erase(
            self.store,
            record_id,
            reason=reason,
            agent_id=agent_id,
            lineage=lineage,
            now=now,
            embedder=self.engine.embedder,
        )

    # -- a user's data on request ------------------------------------------------------------

    def forget_user(self, user_id: str, *, now: datetime | None = None) -> dict[str, Any]:
        """Erase everything stored of ``user_id``: records of user:<id> and of every private
        agent:<agent>/<id> scope, sessions and transcripts, job outputs, search and write logs,
        entities and aliases. The receipt counts rows per table and lists the record and
        session ids; a user with nothing stored gets an empty one (core.users)."""
        return users.forget_user(self.store, user_id, now=now or utcnow())

    def export_user(
        self, user_id: str, path: str | Path, *, now: datetime | None = None
    ) -> dict[str, int]:
        """Write everything stored of ``user_id`` to ``path`` as JSON lines that
        ``agent-memory import`` reads again (core.users); counts per kind."""
        return users.export_user(self.store, user_id, path, now=now or utcnow())

    # -- whole store -----------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Counts, versions and the embedder, as a JSON-ready dict."""
        stats = self.store.stats()
        index = self._index.built()
        stats["index_vectors"] = len(index) if index is not None else None
        return stats

    def snapshot(self, destination: str | Path) -> Path:
        """Copy the whole store to ``destination`` (a new file), consistently, while in use."""
        return self.store.snapshot(destination)

    def restore(self, source: str | Path, *, now: datetime | None = None) -> dict[str, Any]:
        """Replace the whole store with a snapshot. Every process rebuilds its index. What was
        erased since the snapshot is erased again (core.ledger); returns what was."""
        at = now or utcnow()
        ledger_rows, events = ledger.read(self.store)
        self.store.restore(source, now=at)
        self.store.bind_embedder(self.embedder.identity, now=at)
        return ledger.reapply(
            self.store, ledger_rows, events, source=source, now=at, embedder=self.embedder
        )


def _parse_access(access: str | Access) -> Access:
    try:
        return Access(access)
    except ValueError:
        raise InvalidArgument(
            f"access must be one of read, write, readwrite; got {access!r}", field="access"
        ) from None


def _make_judge(config: Config) -> Judge:
    from agent_memory.core.judge import (
        make_judge,  # on first use: the judge's modules are not small
    )

    return make_judge(config.judge)


def _make_reranker(config: Config) -> Reranker | None:
    if not config.reranker.enabled:
        return None
    return FlagRerankerBackend(config.reranker.model, device=config.embedder.device)


def _make_rewriter(config: Config) -> QueryRewriter | None:
    if not config.rewrite.enabled:
        return None
    import anthropic  # a dependency; the client reads ANTHROPIC_API_KEY on use

    # The client gives up when the stage does (no retries: a retry would outlive the stage),
    # so its thread is not left waiting.
    return AnthropicRewriter(
        anthropic.Anthropic(max_retries=0),
        model=config.rewrite.model,
        timeout_s=config.rewrite.timeout_ms / 1000,
    )
