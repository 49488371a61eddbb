"""memory_write: permissions, evidence, entities, dedup, supersession, lifecycle, the write log."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.judge import OfflineJudge, Verdict
from agent_memory.core.models import format_time
from agent_memory.core.session import Session
from tests.support.clock import NOW


@pytest.fixture
def session(memory: Memory) -> Session:
    memory.grant("assistant", "user:u1", now=NOW)
    memory.grant("assistant", "project:apollo", access="readwrite", now=NOW)
    s = memory.session(
        agent_id="assistant",
        user_id="u1",
        session_id="s-1",
        now=NOW,
        authoritative_tools=["deploy_status"],
        write_targets={
            "personal": "user:u1",
            "current_project": "project:apollo",
            "private": "agent:assistant/u1",
            "ungranted": "org:acme",
        },
    )
    s.add_turn("user", "Please keep your answers concise. I live in Lisbon.", at=NOW)
    s.add_turn("assistant", "Understood, I will keep it short.", at=NOW)
    s.add_turn(
        "tool",
        "deploy-status: billing v2.3 deployed to production at 14:02 UTC",
        at=NOW,
        tool="deploy_status",
    )
    return s


def write(session: Session, **args: Any) -> dict[str, Any]:
    return session.call("memory_write", args, now=NOW)


def get(session: Session, *ids: str, history: bool = False) -> dict[str, Any]:
    return session.call("memory_get", {"ids": list(ids), "include_history": history}, now=NOW)


def test_an_evidenced_user_statement_is_confirmed(session: Session) -> None:
    """A quote found in a user turn that entails the content makes a confirmed record."""
    result = write(
        session,
        type="semantic",
        content="The user wants concise answers.",
        source_kind="user_statement",
        attribute="answer_style",
        evidence="Please keep your answers concise.",
    )
    assert result["action"] == "created" and result["notes"] == []
    assert (result["status"], result["source_kind"]) == ("confirmed", "user_statement")
    [record] = get(session, result["id"])["records"]
    assert record["scope"] == "user:u1"
    assert record["evidence"] == "Please keep your answers concise."
    assert record["subject"] == "ent_user_u1:answer_style"
    assert record["entities"] == ["ent_user_u1"]
    assert record["creator_agent_id"] == "assistant" and record["source_ref"] == "s-1"
    assert record["expires_at"] is None


@pytest.mark.parametrize(
    ("evidence", "why"),
    [
        (None, "no evidence quote"),
        ("I live in Porto", "not found verbatim in a user turn"),
        ("I will keep it short", "not found verbatim in a user turn"),  # the assistant said it
        ("concise", "too short"),
    ],
)
def test_unsupported_user_statements_are_downgraded(
    session: Session, evidence: str | None, why: str
) -> None:
    """Missing, unfound, assistant-spoken or too-short quotes make a provisional inference."""
    args: dict[str, Any] = {
        "type": "semantic",
        "content": "The user lives in Porto.",
        "source_kind": "user_statement",
        "attribute": "home_city",
    }
    if evidence:
        args["evidence"] = evidence
    result = write(session, **args)
    assert (result["status"], result["source_kind"]) == ("provisional", "agent_inference")
    assert any(why in note for note in result["notes"]), result["notes"]
    [record] = get(session, result["id"])["records"]
    assert record["expires_at"] == (NOW + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_a_quote_that_does_not_entail_the_content_is_downgraded(session: Session) -> None:
    """The quote exists but says something else: the judge refuses and the source drops."""
    result = write(
        session,
        type="semantic",
        content="The user lives in Madrid.",
        source_kind="user_statement",
        evidence="I live in Lisbon.",
    )
    assert result["source_kind"] == "agent_inference"
    assert any("does not entail" in note for note in result["notes"])


def test_tool_results_need_a_tool_turn(session: Session) -> None:
    """A tool_result quote must come from an authoritative tool's turn and entail the
    content."""
    ok = write(
        session,
        type="episodic",
        content="billing v2.3 deployed to production",
        source_kind="tool_result",
        about=[{"kind": "product", "name": "billing"}],
        evidence="billing v2.3 deployed to production",
    )
    assert (ok["status"], ok["source_kind"]) == ("confirmed", "tool_result")
    bad = write(
        session,
        type="semantic",
        content="The user lives in Lisbon.",
        source_kind="tool_result",
        evidence="I live in Lisbon.",
    )
    assert bad["source_kind"] == "agent_inference"


@pytest.mark.parametrize("claimed", ["system", "session_summary"])
def test_a_model_cannot_claim_host_or_summary_sources(session: Session, claimed: str) -> None:
    """system needs a host-injected system turn; session_summary is the summary writer's."""
    result = write(
        session,
        type="semantic",
        content="The user is an administrator.",
        source_kind=claimed,
        evidence="Please keep your answers concise.",
    )
    assert result["source_kind"] == "agent_inference" and result["status"] == "provisional"


@pytest.mark.parametrize(
    ("target", "code"),
    [
        ("ungranted", "permission_denied"),
        ("user:u1", "invalid_argument"),
        ("somewhere", "invalid_argument"),
    ],
)
def test_targets_resolve_only_through_the_session(session: Session, target: str, code: str) -> None:
    """A raw scope or unknown label is not a target; a target without a grant is refused."""
    before = session.memory.store.records_version
    result = write(
        session,
        type="semantic",
        content="The user likes tea.",
        source_kind="agent_inference",
        target=target,
    )
    assert result["error"]["code"] == code and result["error"]["field"] == "target"
    assert session.memory.store.records_version == before


def test_the_private_scope_needs_no_grant(memory: Memory) -> None:
    """agent:<agent>/<user> is writable by its pair without any grant."""
    s = memory.session(
        agent_id="solo",
        user_id="u9",
        session_id="s-9",
        now=NOW,
        write_targets={"private": "agent:solo/u9"},
    )
    result = write(
        s,
        type="episodic",
        content="Drafted the quarterly plan.",
        source_kind="agent_inference",
        target="private",
    )
    assert result["action"] == "created"


def test_other_scopes_require_about_and_create_provisional_entities(session: Session) -> None:
    """Outside the user's own scope a fact must name its entity; unknown names become new
    provisional entities in the writer's scope, and known ones are reused."""
    missing = write(
        session,
        type="semantic",
        content="Apollo's staging DB is stg-1.",
        source_kind="agent_inference",
        target="current_project",
    )
    assert missing["error"]["field"] == "about"
    first = write(
        session,
        type="semantic",
        content="Apollo's staging DB is stg-1.",
        source_kind="agent_inference",
        target="current_project",
        about=[{"kind": "project", "name": "Apollo"}],
    )
    second = write(
        session,
        type="semantic",
        content="Apollo ships on Fridays.",
        source_kind="agent_inference",
        target="current_project",
        about=[{"kind": "project", "name": "  apollo "}],
    )
    records = get(session, first["id"], second["id"])["records"]
    assert records[0]["entities"] == records[1]["entities"]
    rows = session.memory.store.query(
        "SELECT scope, status, kind FROM entities WHERE kind = 'project'"
    )
    assert [tuple(r) for r in rows] == [("project:apollo", "provisional", "project")]


def test_same_name_in_two_users_scopes_is_never_merged(memory: Memory) -> None:
    """Two users each mention 'Sam': two entities, one per user scope (design §14)."""
    ids = []
    for user in ("u1", "u2"):
        memory.grant("assistant", f"user:{user}", now=NOW)
        s = memory.session(agent_id="assistant", user_id=user, session_id=f"s-{user}", now=NOW)
        s.add_turn("user", "My brother Sam is a dentist.", at=NOW)
        result = write(
            s,
            type="semantic",
            content="Sam is a dentist.",
            source_kind="user_statement",
            evidence="Sam is a dentist",
            about=[{"kind": "person", "name": "Sam"}],
        )
        ids.append(get(s, result["id"])["records"][0]["entities"][0])
    assert ids[0] != ids[1]
    scopes = [
        r["scope"]
        for r in memory.store.query(
            "SELECT scope FROM entities WHERE canonical_name = 'Sam' ORDER BY scope"
        )
    ]
    assert scopes == ["user:u1", "user:u2"]


def test_a_repeated_fact_reinforces_instead_of_multiplying(session: Session) -> None:
    """The same fact written again reinforces the record: one record, higher confidence."""
    args = dict(
        type="semantic",
        content="The user enjoys hiking in the mountains.",
        source_kind="agent_inference",
    )
    first = write(session, **args)
    again = write(session, **args)
    assert again["action"] == "reinforced" and again["id"] == first["id"]
    assert again["status"] == "provisional"  # same session: not independent
    rows = session.memory.store.query("SELECT confidence, observations FROM records")
    assert len(rows) == 1 and rows[0]["confidence"] > 0.5 and rows[0]["observations"] == 2


def test_the_same_words_in_another_order_are_no_repeat(session: Session) -> None:
    """Two statements holding the same words at a duplicate's cosine but in swapped roles
    say different things: the second is written, not merged into the first."""
    first = write(
        session,
        type="semantic",
        content="The user wants distances in miles, never in kilometres.",
        source_kind="agent_inference",
    )
    second = write(
        session,
        type="semantic",
        content="The user wants distances in kilometres, never in miles.",
        source_kind="agent_inference",
    )
    assert second["action"] != "reinforced" and second["id"] != first["id"]
    contents = {r["content"] for r in get(session, first["id"], second["id"])["records"]}
    assert "The user wants distances in kilometres, never in miles." in contents
    # Nor does a search fold one into the other as a near-duplicate.
    found = session.call("memory_search", {"query": "Which units for distances?"}, now=NOW)
    assert {first["id"], second["id"]} <= {r["id"] for r in found["results"]}


@pytest.mark.parametrize(
    ("said", "again"),
    [
        ("The user hikes in the Alps every May.", "Every May the user hikes in the Alps."),
        (
            "The user is allergic to penicillin and peanuts.",
            "The user is allergic to peanuts and penicillin.",
        ),
        (
            "The user goes to the gym before going to work.",
            "Before going to work, the user goes to the gym.",
        ),
        (
            "The user drives to work but takes the train home.",
            "The user takes the train home but drives to work.",
        ),
    ],
)
def test_the_same_fact_in_another_word_order_reinforces(
    session: Session, said: str, again: str
) -> None:
    first = write(session, type="semantic", content=said, source_kind="agent_inference")
    second = write(session, type="semantic", content=again, source_kind="agent_inference")
    assert second["action"] == "reinforced" and second["id"] == first["id"]


def test_a_guess_repeated_in_another_session_only_extends_its_expiry(
    memory: Memory, session: Session
) -> None:
    """The same unevidenced guess written in two sessions stays provisional: repetition is
    not evidence. Its expiry moves to 30 days after the repeat."""
    args = dict(type="semantic", content="The user is pregnant.", source_kind="agent_inference")
    first = write(session, **args)
    other = memory.session(agent_id="assistant", user_id="u1", session_id="s-2", now=NOW)
    later_at = NOW + timedelta(days=3)
    later = other.call("memory_write", args, now=later_at)
    assert later["id"] == first["id"] and later["action"] == "reinforced"
    assert later["status"] == "provisional"
    [record] = other.call("memory_get", {"ids": [first["id"]]}, now=later_at)["records"]
    assert record["status"] == "provisional"
    assert record["expires_at"] == format_time(later_at + timedelta(days=30))


def test_two_different_user_quotes_promote_an_inference_and_the_event_says_why(
    memory: Memory, session: Session
) -> None:
    """Two observations quoting different words from different user turns confirm a
    provisional inference; the promotion event names the two turns."""
    session.add_turn("user", "I don't eat meat or fish.", at=NOW)
    args = dict(type="semantic", content="The user is vegetarian.", source_kind="agent_inference")
    first = write(session, **args, evidence="I don't eat meat or fish.")
    assert first["status"] == "provisional"
    same_words = write(session, **args, evidence="I don't eat meat or fish.")
    assert same_words["status"] == "provisional"  # the same quote again is not a second witness
    other = memory.session(agent_id="assistant", user_id="u1", session_id="s-2", now=NOW)
    other.add_turn("user", "Just the veggie burger for me, as always.", at=NOW)
    later = other.call(
        "memory_write", {**args, "evidence": "Just the veggie burger for me"}, now=NOW
    )
    assert later["id"] == first["id"] and later["status"] == "confirmed"
    [event] = memory.store.query("SELECT payload FROM events WHERE kind = 'record.promoted'")
    payload = json.loads(event["payload"])
    assert "different user or host turns" in payload["reason"]
    assert payload["turns"] == [["s-1", 4], ["s-2", 1]]


def test_a_user_who_changes_their_mind_supersedes_the_old_fact(session: Session) -> None:
    """Same subject, equal rank: the new record supersedes; default reads drop the old one."""
    session.add_turn("user", "Actually, I prefer detailed answers with examples.", at=NOW)
    old = write(
        session,
        type="semantic",
        content="The user prefers concise answers.",
        source_kind="user_statement",
        attribute="answer_style",
        evidence="Please keep your answers concise",
    )
    new = write(
        session,
        type="semantic",
        content="The user prefers detailed answers.",
        source_kind="user_statement",
        attribute="Answer Style",
        evidence="I prefer detailed answers",
    )
    assert new["action"] == "superseded" and new["supersedes_id"] == old["id"]
    assert get(session, old["id"])["missing"] == [old["id"]]
    [historic] = get(session, old["id"], history=True)["records"]
    assert historic["status"] == "superseded"
    [current] = get(session, new["id"])["records"]
    assert current["version"] == 2


def test_a_lower_rank_source_cannot_supersede_a_user_statement(session: Session) -> None:
    """An agent guess about the same subject is stored beside the user's words as a conflict."""
    stated = write(
        session,
        type="semantic",
        content="The user lives in Lisbon.",
        source_kind="user_statement",
        attribute="home_city",
        evidence="I live in Lisbon.",
    )
    guess = write(
        session,
        type="semantic",
        content="The user lives in Porto.",
        source_kind="agent_inference",
        attribute="home_city",
    )
    assert guess["action"] == "conflict" and guess["supersedes_id"] is None
    assert guess["conflicts_with"] == [stated["id"]]
    records = {r["id"]: r for r in get(session, stated["id"], guess["id"])["records"]}
    assert records[stated["id"]]["status"] == "confirmed"
    assert records[guess["id"]]["status"] == "provisional"


def test_episodic_records_are_never_superseded(session: Session) -> None:
    """Events are appended, even with the same attribute."""
    a = write(
        session,
        type="episodic",
        content="Chose SQLite for the store.",
        source_kind="agent_inference",
        attribute="decision",
        event_at="2026-09-03",
    )
    b = write(
        session,
        type="episodic",
        content="Moved the store to Postgres.",
        source_kind="agent_inference",
        attribute="decision",
        event_at="2026-10-03",
    )
    assert b["action"] == "created"
    assert len(get(session, a["id"], b["id"])["records"]) == 2


def test_procedures_are_versioned_by_name(session: Session) -> None:
    """A new version of a named procedure supersedes the old one in the same lineage."""
    steps = {
        "name": "Change embedder",
        "when": "switching the embedding model",
        "steps": ["run agent-memory reembed"],
        "pitfalls": [],
    }
    v1 = write(
        session,
        type="procedural",
        content="How to change the embedding model.",
        source_kind="agent_inference",
        procedure=steps,
    )
    steps2 = {
        **steps,
        "steps": ["run agent-memory reembed", "recalibrate the gate floors"],
        "pitfalls": ["forgetting to recalibrate"],
    }
    v2 = write(
        session,
        type="procedural",
        content="How to change the embedding model safely, with recalibration.",
        source_kind="agent_inference",
        procedure=steps2,
    )
    assert v2["action"] == "superseded" and v2["supersedes_id"] == v1["id"]
    [record] = get(session, v2["id"])["records"]
    assert record["version"] == 2 and record["procedure"]["steps"][1].startswith("recalibrate")
    missing = write(session, type="procedural", content="x y", source_kind="agent_inference")
    assert missing["error"]["field"] == "procedure"


def test_an_agent_guess_expires_unless_reinforced(memory: Memory, session: Session) -> None:
    """Provisional records expire after 30 days and then vanish from default reads."""
    guess = write(
        session,
        type="semantic",
        content="The user might be vegetarian.",
        source_kind="agent_inference",
    )
    assert memory.expire_provisional(now=NOW + timedelta(days=29)) == []
    assert memory.expire_provisional(now=NOW + timedelta(days=31)) == [guess["id"]]
    assert get(session, guess["id"])["missing"] == [guess["id"]]
    assert get(session, guess["id"], history=True)["records"][0]["status"] == "expired"


def test_every_write_is_logged_with_its_stages(session: Session) -> None:
    """write_log holds the request, the outcome and a timing for every stage."""
    result = write(
        session,
        type="semantic",
        content="The user wants concise answers.",
        source_kind="user_statement",
        evidence="Please keep your answers concise.",
    )
    [row] = session.memory.store.query("SELECT * FROM write_log")
    payload = json.loads(row["payload"])
    assert row["record_id"] == result["id"] and row["outcome"] == "created"
    assert payload["request"]["content"] == "The user wants concise answers."
    assert payload["outcome"]["status"] == "confirmed"
    stages = set(payload["timings_ms"])
    assert {
        "evidence_validation",
        "entity_resolution",
        "content_embedding",
        "duplicate_search",
        "contradiction_check",
        "sqlite_transaction",
        "vector_index_update",
    } <= stages
    assert row["total_ms"] > 0


def test_the_transcript_reads_whole_or_its_last_turns(session: Session) -> None:
    """transcript(last=n) is the final n turns in order (what the query rewrite reads)."""
    before = len(session.transcript())
    for n in range(5):
        session.add_turn("user", f"turn number {n}", at=NOW)
    turns = session.transcript()
    assert len(turns) == before + 5
    assert session.transcript(last=2) == turns[-2:]
    assert [t.content for t in session.transcript(last=2)] == ["turn number 3", "turn number 4"]


@contextmanager
def two_writers(tmp_path: Path, judge: OfflineJudge) -> Iterator[tuple[Memory, Session, Session]]:
    """A store judged by ``judge`` (duplicate floor 0.8) and two sessions writing to one
    user's scope."""
    config = Config(ingest={"duplicate_floor": 0.8})
    with Memory.open(
        tmp_path / "m.db", config, embedder=HashingEmbedder(), judge=judge, now=NOW
    ) as mem:
        mem.grant("assistant", "user:u1", now=NOW)
        a, b = (
            mem.session(agent_id="assistant", user_id="u1", session_id=s, now=NOW)
            for s in ("s-a", "s-b")
        )
        yield mem, a, b


class GatedJudge(OfflineJudge):
    """The offline judge, except that the first contradiction check made on the thread named
    "A" waits until the test lets it go, and that any statement about a bicycle contradicts
    anything: a seam to hold one write between its duplicate search and its transaction."""

    def __init__(self) -> None:
        super().__init__()
        self.searching = threading.Event()
        self.go_on = threading.Event()

    def contradicts(self, a: str, b: str) -> Verdict:
        if threading.current_thread().name == "A" and not self.searching.is_set():
            self.searching.set()
            assert self.go_on.wait(10)
        if "bicycle" in a or "bicycle" in b:
            return Verdict(holds=True, score=1.0, reason="a test's rule")
        return super().contradicts(a, b)


SAME = "The user rides a red bike."


# Cosines of SAME to each text, by the HashingEmbedder: "...red bicycle." 0.83, "...every
# day." 0.87, "..., not a bicycle." 0.95, "...three cats and a parrot." 0.52. The duplicate
# floor below is 0.8 (the neighbour floor stays 0.75).
@pytest.mark.parametrize(
    ("kind", "days_apart", "b_says", "records", "restarts"),
    [
        ("semantic", 0, SAME, 1, 1),
        ("episodic", 0, SAME, 1, 1),
        ("episodic", 1, SAME, 2, 0),  # an episode on another day is another record
        ("semantic", 0, "The user rides a red bike every day.", 1, 1),  # other words
        ("semantic", 0, "The user rides a red bike, not a bicycle.", 2, 1),  # contradicts
        ("semantic", 0, "The user owns three cats and a parrot.", 2, 0),  # not close
    ],
)
def test_two_writers_of_one_fact_at_once_leave_one_record(
    tmp_path: Path, kind: str, days_apart: int, b_says: str, records: int, restarts: int
) -> None:
    """Writer A searches for duplicates and finds none; writer B then commits the same fact;
    A's transaction sees B's record and A starts again, so that its duplicate search finds
    B's record and judges it outside any transaction: A reinforces it instead of adding a
    second, under the duplicate rules (occasion, cosine, the judge)."""
    judge = GatedJudge()
    with two_writers(tmp_path, judge) as (mem, a, b):
        fact = {"type": kind, "source_kind": "agent_inference"}
        day = NOW.date().isoformat()
        other_day = (NOW + timedelta(days=days_apart)).date().isoformat()
        # A neighbour for A's duplicate search to judge, and to wait on: on A's day.
        write(a, **fact, content="The user rides a red bicycle.", event_at=other_day)
        outcome: list[dict[str, Any]] = []
        writer_a = threading.Thread(
            target=lambda: outcome.append(write(a, **fact, content=SAME, event_at=other_day)),
            name="A",
        )
        writer_a.start()
        assert judge.searching.wait(10)  # A is past its duplicate search
        first = write(b, **fact, content=b_says, event_at=day)
        judge.go_on.set()
        writer_a.join(10)
        # B adds a record (superseding or conflicting with the neighbour: this test's judge
        # calls anything naming a bicycle contradictory, and both are about one person).
        assert first["action"] != "reinforced"
        rows = mem.store.query(
            "SELECT count(*) AS n FROM records WHERE content IN (?, ?)", (SAME, b_says)
        )
        assert rows[0]["n"] == records
        if records == 1:
            assert outcome[0]["action"] == "reinforced" and outcome[0]["id"] == first["id"]
        else:
            assert outcome[0]["action"] != "reinforced"
        logged = mem.store.query(
            "SELECT payload FROM write_log WHERE record_id = ? ORDER BY rowid DESC LIMIT 1",
            (outcome[0]["id"],),
        )
        decisions = json.loads(logged[0]["payload"])["decisions"]
        assert decisions["restarts"] == restarts
        assert decisions["raced"] == [first["id"]] * restarts


class RacingJudge(OfflineJudge):
    """The offline judge, with a rival writer: while ``rival`` is set, every contradiction
    check (several in one duplicate search) commits, through it, a record close to the
    statements below that this judge then calls contradictory (it names a bicycle). A write
    judged this way is raced on every search."""

    def __init__(self) -> None:
        super().__init__()
        self.rival: Session | None = None
        self._racing = False

    def contradicts(self, a: str, b: str) -> Verdict:
        if self.rival is not None and not self._racing:
            self._racing = True  # the rival's own write calls this judge too
            try:
                rival = write(
                    self.rival,
                    type="semantic",
                    source_kind="agent_inference",
                    content="The user rides a red bike, not a bicycle.",
                )
                assert rival["action"] != "reinforced", rival
            finally:
                self._racing = False
        if "bicycle" in a or "bicycle" in b:
            return Verdict(holds=True, score=1.0, reason="a test's rule")
        return super().contradicts(a, b)


def test_a_write_raced_on_every_search_lands_after_three_restarts_and_says_so(
    tmp_path: Path,
) -> None:
    """A likely duplicate committed during every one of a write's searches makes it start
    over three times; the fourth attempt writes, with a note naming the record it raced."""
    judge = RacingJudge()
    with two_writers(tmp_path, judge) as (mem, a, b):
        fact = {"type": "semantic", "source_kind": "agent_inference"}
        write(a, **fact, content="The user rides a red bicycle.")  # a neighbour to judge
        judge.rival = b
        result = write(a, **fact, content=SAME)
        judge.rival = None
        assert result["action"] != "reinforced"
        [note] = [n for n in result["notes"] if "written anyway" in n]
        rivals = mem.store.query(
            "SELECT id FROM records WHERE content = 'The user rides a red bike, not a bicycle.'"
        )
        assert len(rivals) >= 4  # one or more during each of the four searches
        assert any(r["id"] in note for r in rivals)
        logged = mem.store.query(
            "SELECT payload FROM write_log WHERE record_id = ?", (result["id"],)
        )
        assert json.loads(logged[0]["payload"])["decisions"]["restarts"] == 3
