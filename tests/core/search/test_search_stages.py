"""The optional stages of memory_search: query rewrite and reranker, with their timeouts.

Fakes enter through the Memory.open seams (rewriter=, reranker=); the Anthropic rewriter talks
to a stub HTTP server on 127.0.0.1 that replays a recorded Messages API response."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import anthropic
import pytest

from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.config import PACKAGED_MINILM
from agent_memory.core.search.ranking import replay
from agent_memory.core.search.rerank import FlagRerankerBackend, Reranker, untrained_cross_encoder
from agent_memory.core.search.rewrite import AnthropicRewriter, QueryRewriter
from tests.support.clock import NOW

RECORDS = [
    {"content": "Alice is allergic to peanuts."},
    {"content": "Alice prefers tea over coffee."},
    {"content": "Alice lives in Lisbon since November."},
]
OPEN_GATE = {"dense_floor": -1.0, "lexical_floor": 0.0}


def open_memory(path: Path, config: Config, **seams: Any) -> Memory:
    mem = Memory.open(path, config, embedder=HashingEmbedder(), now=NOW, **seams)
    mem.grant("a", "user:alice", now=NOW)
    mem.import_records(RECORDS, scope="user:alice", now=NOW)
    return mem


class Slow(QueryRewriter, Reranker):
    """A stage that takes longer than its timeout."""

    name = "slow"

    def rewrite(self, query: str, context: str) -> str:
        time.sleep(0.5)
        return "never used"

    def score_batch(self, query: str, texts: Sequence[str]) -> list[float]:
        time.sleep(0.5)
        return [0.0] * len(texts)


class Reverse(Reranker):
    """Scores later candidates higher, so a rerank visibly reverses the fused order."""

    name = "reverse"

    batch_size = 100

    def score_batch(self, query: str, texts: Sequence[str]) -> list[float]:
        return [i / len(texts) for i in range(len(texts))]


class Held(Reranker):
    """Scores one text per batch and counts the batches it ran; the first batch waits until
    the test releases it (after the search has given up on the stage)."""

    name = "held"
    batch_size = 1

    def __init__(self) -> None:
        self.batches = 0
        self.release = threading.Event()
        self.finished = threading.Event()

    def score(
        self, query: str, texts: Sequence[str], *, deadline: float | None = None
    ) -> list[float]:
        try:
            return super().score(query, texts, deadline=deadline)
        finally:
            self.finished.set()

    def score_batch(self, query: str, texts: Sequence[str]) -> list[float]:
        self.batches += 1
        self.release.wait(10)
        return [0.0] * len(texts)


class TeaOnly(Reranker):
    """Scores texts about tea high and everything else below any sensible floor."""

    name = "tea-only"

    def score_batch(self, query: str, texts: Sequence[str]) -> list[float]:
        return [0.9 if "tea" in t else 0.01 for t in texts]


class Broken(QueryRewriter, Reranker):
    """A stage returning the wrong shape: a non-string rewrite, one score too few."""

    name = "broken"

    def rewrite(self, query: str, context: str) -> str:
        return None  # type: ignore[return-value]

    def score_batch(self, query: str, texts: Sequence[str]) -> list[float]:
        return [0.5] * (len(texts) - 1)


def search(mem: Memory, query: str) -> dict[str, Any]:
    session = mem.session(agent_id="a", user_id="alice", session_id="s", now=NOW)
    session.add_turn("user", "What about her allergies?", at=NOW)
    return session.call("memory_search", {"query": query}, now=NOW)


def logged(mem: Memory, result: dict[str, Any]) -> dict[str, Any]:
    row = mem.store.query("SELECT payload FROM search_log WHERE id = ?", (result["search_id"],))
    return json.loads(row[0]["payload"])


@pytest.fixture
def stub_anthropic() -> Iterator[str]:
    """A local HTTP server that answers POST /v1/messages with a recorded response."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers["content-length"])
            request = json.loads(self.rfile.read(length))
            assert "allergies" in request["messages"][0]["content"]
            body = json.dumps(
                {
                    "id": "msg_01",
                    "type": "message",
                    "role": "assistant",
                    "model": request["model"],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "content": [{"type": "text", "text": "Alice peanut allergy"}],
                    "usage": {"input_tokens": 42, "output_tokens": 5},
                }
            ).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_anthropic_rewriter_rewrites_and_both_forms_are_logged(
    tmp_path: Path, stub_anthropic: str
) -> None:
    """With rewrite on, the rewritten query is searched and the log keeps raw and rewritten."""
    client = anthropic.Anthropic(api_key="test", base_url=stub_anthropic, max_retries=0)
    config = Config(rewrite={"enabled": True}, gate=OPEN_GATE)
    mem = open_memory(
        tmp_path / "m.db", config, rewriter=AnthropicRewriter(client, model="claude-haiku-4-5")
    )
    result = search(mem, "what about that?")
    rewrite = result["explanation"]["rewrite"]
    assert rewrite["status"] == "rewritten" and rewrite["rewritten"] == "Alice peanut allergy"
    assert result["explanation"]["rewritten_query"] == "Alice peanut allergy"
    # The rewritten words were searched: the raw "what about that?" matches nothing lexically.
    # (Top rank is not asserted: the entity generator ties both records on Alice.)
    by_content = {r["content"]: r["explanation"] for r in result["results"]}
    assert by_content["Alice is allergic to peanuts."]["generators"]["lexical"]["rank"] == 1
    payload = logged(mem, result)
    assert payload["request"]["query"] == "what about that?"
    assert payload["query"] == "Alice peanut allergy"
    mem.close()


def test_a_slow_rewriter_falls_back_to_the_raw_query(tmp_path: Path) -> None:
    """A rewrite past rewrite.timeout_ms keeps the raw query and says so."""
    config = Config(rewrite={"enabled": True, "timeout_ms": 50}, gate=OPEN_GATE)
    mem = open_memory(tmp_path / "m.db", config, rewriter=Slow())
    result = search(mem, "peanuts")
    assert result["explanation"]["rewrite"]["status"].startswith("timeout")
    assert result["results"][0]["content"] == "Alice is allergic to peanuts."
    mem.close()


def test_a_limit_above_retrieval_max_limit_is_cut_to_it(tmp_path: Path) -> None:
    """The tool schema accepts up to 50; a store configured for fewer returns at most that
    many, and the log records the limit applied."""
    mem = open_memory(
        tmp_path / "m.db", Config(retrieval={"max_limit": 2, "default_limit": 2}, gate=OPEN_GATE)
    )
    session = mem.session(agent_id="a", user_id="alice", session_id="s", now=NOW)
    result = session.call("memory_search", {"query": "Alice", "limit": 50}, now=NOW)
    assert len(result["results"]) == 2
    assert logged(mem, result)["request"]["limit"] == 2
    mem.close()


def test_the_reranker_reorders_and_the_log_replays_it(tmp_path: Path) -> None:
    """An enabled reranker changes the order; the explanation and the log record it."""
    config = Config(reranker={"enabled": True}, gate=OPEN_GATE)
    mem = open_memory(tmp_path / "m.db", config, reranker=Reverse())
    result = search(mem, "Alice")
    payload = logged(mem, result)
    assert payload["reranker"]["applied"] is True
    assert payload["reranker"]["order"] == list(reversed(payload["reranker"]["before"]))
    assert [r["id"] for r in result["results"]] == payload["reranker"]["order"]
    n = len(result["results"])
    fused = [c["id"] for c in payload["candidates"]["fused"]]
    for rank, r in enumerate(result["results"], start=1):
        assert r["explanation"]["reranker"]["rank_after"] == rank == r["explanation"]["rank"]
        assert r["explanation"]["reranker"]["rank_before"] == n + 1 - rank
        assert r["explanation"]["fused_rank"] == fused.index(r["id"]) + 1 == n + 1 - rank
    assert replay(payload) == [r["id"] for r in result["results"]]
    mem.close()


def test_a_slow_reranker_keeps_the_fused_order(tmp_path: Path) -> None:
    """A reranker past reranker.timeout_ms is skipped: fused order, and the log says why."""
    config = Config(reranker={"enabled": True, "timeout_ms": 50}, gate=OPEN_GATE)
    mem = open_memory(tmp_path / "m.db", config, reranker=Slow())
    result = search(mem, "Alice")
    payload = logged(mem, result)
    assert payload["reranker"] == {"applied": False, "status": "timeout; fused order kept"}
    assert replay(payload) == [r["id"] for r in result["results"]]
    mem.close()


def test_a_timed_out_rerank_stops_working_in_the_background(tmp_path: Path) -> None:
    """After the timeout the scoring thread stops at its next batch instead of scoring every
    candidate for nobody, so slow reranks cannot pile up in the stage pool."""
    config = Config(reranker={"enabled": True, "timeout_ms": 50}, gate=OPEN_GATE)
    reranker = Held()
    mem = open_memory(tmp_path / "m.db", config, reranker=reranker)
    result = search(mem, "Alice")
    assert len(result["results"]) == 3
    assert logged(mem, result)["reranker"]["status"] == "timeout; fused order kept"
    reranker.release.set()  # the deadline has passed: no batch may start after this one
    assert reranker.finished.wait(10)
    assert reranker.batches <= 1  # not 3: one per candidate had it kept going
    mem.close()


def test_flag_reranker_loads_offline_and_scores_every_candidate(
    real_embedder, tmp_path: Path
) -> None:
    """FlagReranker runs on a one-label cross-encoder built from the packaged MiniLM (its head
    is untrained, so only the code path is checked, never the ranking quality): one score in
    [0, 1] per text, equal to what FlagReranker's own compute_score gives."""
    from agent_memory.core.embedder import _resolve_model

    folder, _, _ = _resolve_model(PACKAGED_MINILM)
    cross_encoder = untrained_cross_encoder(folder, tmp_path / "cross-encoder")
    reranker = FlagRerankerBackend(str(cross_encoder), batch_size=2)
    texts = ["Alice is allergic to peanuts.", "Tea.", "Alice lives in Lisbon since November."]
    scores = reranker.score("peanut allergy", texts)
    assert len(scores) == 3 and all(0.0 <= s <= 1.0 for s in scores)
    own = reranker._load().compute_score([["peanut allergy", t] for t in texts], normalize=True)
    assert scores == pytest.approx(own, abs=1e-5)


def test_replace_floors_drops_what_the_reranker_floors_and_the_log_replays_it(
    tmp_path: Path,
) -> None:
    """In replace_floors mode the reranker's score floor removes candidates; replaying the
    search_log row gives the same results, and every result's explanation is in the row."""
    config = Config(
        reranker={"enabled": True, "mode": "replace_floors", "score_floor": 0.5}, gate=OPEN_GATE
    )
    mem = open_memory(tmp_path / "m.db", config, reranker=TeaOnly())
    result = search(mem, "Alice")
    assert [r["content"] for r in result["results"]] == ["Alice prefers tea over coffee."]
    payload = logged(mem, result)
    assert replay(payload) == [r["id"] for r in result["results"]]
    assert payload["result_explanations"] == {r["id"]: r["explanation"] for r in result["results"]}
    mem.close()


@pytest.mark.parametrize("gate_mode", ["response", "candidate"])
def test_replace_floors_without_a_working_reranker_leaves_the_judging_to_the_floors(
    tmp_path: Path, gate_mode: str
) -> None:
    """replace_floors turns the floors off for the reranker to judge; a reranker that fails
    does not judge, so the floors do: a query nothing matches strongly is answered empty, as
    with the reranker off, and the log replays it."""
    # No subject signal either: "tea coffee" names a record's every word at cosine 0.7.
    strict = {"dense_floor": 0.99, "lexical_floor": 1000.0, "mode": gate_mode, "subject_drop": 0}
    reranker = {"enabled": True, "mode": "replace_floors"}
    plain = open_memory(tmp_path / "plain.db", Config(gate=strict))
    failing = open_memory(
        tmp_path / "m.db", Config(gate=strict, reranker=reranker), reranker=Broken()
    )
    for query in ("tea coffee", "Alice"):  # weak everywhere; an exact entity match
        expected = [r["content"] for r in search(plain, query)["results"]]
        result = search(failing, query)
        assert [r["content"] for r in result["results"]] == expected, query
        payload = logged(failing, result)
        assert payload["reranker"]["status"] == "failed (ValueError); fused order kept"
        assert replay(payload) == [r["id"] for r in result["results"]]
    assert search(failing, "tea coffee")["explanation"]["why_empty"].startswith("every candidate")
    plain.close()
    failing.close()


def test_stages_returning_the_wrong_shape_fall_back_and_say_so(tmp_path: Path) -> None:
    """A rewriter that returns no text and a reranker that returns too few scores are stage
    failures: the raw query and the fused order are used, never an internal error."""
    config = Config(rewrite={"enabled": True}, reranker={"enabled": True}, gate=OPEN_GATE)
    broken = Broken()
    mem = open_memory(tmp_path / "m.db", config, rewriter=broken, reranker=broken)
    result = search(mem, "Alice")
    assert len(result["results"]) == 3
    payload = logged(mem, result)
    assert payload["rewrite"]["status"] == "failed (TypeError); raw query used"
    assert payload["reranker"]["status"] == "failed (ValueError); fused order kept"
    mem.close()
