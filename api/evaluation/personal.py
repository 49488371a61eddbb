"""Personal-memory evaluation: `agent-memory eval --dataset personal --data FILE`.

Everyday chats of one user with an assistant (personal-memory-dev.json; its README gives the
format and the scoring), measured the way a real user's store is built, through the public
contract only (Memory, sessions, tools), each persona in a fresh store of its own:

- "extracted": each session's turns are added to a live session of the persona's agent (turn
  time: the session's started_at plus two minutes per turn), the session is ended and its
  extraction job runs to completion in-process (the worker app in immediate mode, with the
  configured extraction backend; ``auto`` is the offline one here, whatever the environment
  holds, so the figures do not depend on an API key being set).
- "turns": each session is imported as turn records (``Memory.import_conversation``).

Then every question is asked once with memory_search (gate on, the default limit, the
question text alone, at its asked_at) as the persona's agent, and the first five results are
scored as the data set's README says; then once more as an agent often asks it, about "the
user" (``third_person`` of api.evaluation.person: "Where does the user live?"), reported as
each path's ``third_person`` figures (no per-kind table; the calibration reads the first
pass only). A result matches a labelled turn: on the extracted path
when its ``evidence``, folded (lowercase, punctuation and runs of spaces to one space), is at
least 8 characters long and lies inside the turn's folded text; on the turns path when its
``source_ref`` is the turn's id. Per path and per kind: hit@5 (any evidence turn matched),
recall@5 (the share matched), the share answered empty; an unanswerable question is right
only when answered empty; an update is right ("current first") when a current-value match
ranks above every stale match, "stale shown" counts updates whose results (all of them,
as the model sees them) match a stale turn, and "stale restated" those with a session summary
among them restating a record of a stale turn (api.evaluation.metrics). Sizes are of what the
model reads, the JSON of the compact result a model-facing surface sends (``core.compact``),
beside the full form the host API returns and the records' content.

``--calibrate`` also replays every logged search with other gate floors
(api.evaluation.calibrate) and reports the sweep, chosen on the odd-numbered personas and
reported on the others.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agent_memory.api.evaluation.calibrate import calibrate_small_store_drop
from agent_memory.api.evaluation.metrics import mean, personal_metrics
from agent_memory.api.evaluation.person import third_person
from agent_memory.api.evaluation.personas import TURN_STEP, Answer, Persona, data_file, load
from agent_memory.core import Memory
from agent_memory.core.config import Config
from agent_memory.core.embedder import Embedder, make_embedder
from agent_memory.core.extraction import make_backend
from agent_memory.core.models import SourceKind, format_time
from agent_memory.core.search.explain import for_model, model_text
from agent_memory.core.store.inspect import user_records
from agent_memory.workers.app import WorkerApp

AGENT = "assistant"
MIN_EVIDENCE = 8  # folded characters; shorter evidence would match almost any turn
PATHS = ("extracted", "turns")


# ---------------------------------------------------------------------------------------------
# Building each persona's store


@contextmanager
def persona_store(
    persona: Persona, path: str, *, store_dir: Path, config: Config, embedder: Embedder
) -> Iterator[Memory]:
    """A fresh store holding ``persona``'s sessions the ``path`` way; the agent reads and
    writes the persona's user scope."""
    db = store_dir / f"{persona.id}-{path}.db"
    for suffix in ("", "-wal", "-shm", ".queue.db"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    with Memory.open(db, config, embedder=embedder) as mem:
        mem.grant(AGENT, f"user:{persona.id}")
        if path == "extracted":
            _extract(mem, persona, config)
        else:
            _import_turns(mem, persona)
        yield mem


def _extract(mem: Memory, persona: Persona, config: Config) -> None:
    """Live sessions, ended, each extraction job run to completion in this process at the
    session's end (the worker's clock), as a worker would right after the session."""
    backend = make_backend(config.extraction, environ={})
    ended = [datetime.now(UTC)]
    app = WorkerApp(mem.path, config, immediate=True, backend=backend, clock=lambda: ended[0])
    app.attach(mem)
    for session in persona.sessions:
        live = mem.session(
            agent_id=AGENT, user_id=persona.id, session_id=session.id, now=session.turns[0].at
        )
        for turn in session.turns:
            live.add_turn(turn.role, turn.text, at=turn.at)
        ended[0] = session.turns[-1].at + TURN_STEP
        job_id = live.end(now=ended[0])
        status = mem.jobs.status(job_id)["status"]
        if status != "done":
            raise RuntimeError(f"extraction of session {session.id} ended {status}")


def _import_turns(mem: Memory, persona: Persona) -> None:
    for session in persona.sessions:
        mem.import_conversation(
            [
                {"id": t.id, "role": t.role, "text": t.text, "at": format_time(t.at)}
                for t in session.turns
            ],
            scope=f"user:{persona.id}",
            session_id=session.id,
            agent_id=AGENT,
        )


# ---------------------------------------------------------------------------------------------
# Asking and matching


def ask(mem: Memory, persona: Persona, path: str) -> list[Answer]:
    """Every question of ``persona``, as written, as its agent's memory_search."""
    return ask_in_forms(mem, persona, path, (str,))[0]


def ask_in_forms(
    mem: Memory, persona: Persona, path: str, forms: Sequence[Callable[[str], str]]
) -> list[list[Answer]]:
    """Every question of ``persona`` as its agent's memory_search, once in each of ``forms``
    (the question as written, ``str``; about "the user", ``third_person``), the persona's
    labelled turns and restated records read once: a list of answers per form."""
    session = mem.session(agent_id=AGENT, user_id=persona.id, session_id=f"eval-{persona.id}")
    labelled = {t for q in persona.questions for t in q.evidence + q.stale}
    folded = {t: fold(persona.turn(t).text) for t in labelled}
    restating = _restated(mem, persona, path, folded)
    by_form = []
    for form in forms:
        answers = []
        for question in persona.questions:
            arguments = {"query": form(question.text)}
            result = session.call("memory_search", arguments, now=question.asked_at)
            if "error" in result:
                raise RuntimeError(f"search failed for {question.id}: {result['error']['code']}")
            results = result["results"]
            answers.append(
                Answer(
                    question,
                    tuple(_matches(r, path, folded) for r in results),
                    len(model_text(for_model("memory_search", arguments, result))),
                    len(model_text(result)),
                    sum(len(r["content"]) for r in results),
                    (logged := _logged(mem, result["search_id"])),
                    {
                        record_id: _matches(record.to_json(), path, folded)
                        for record_id, record in mem.store.get_records(
                            [c["id"] for c in logged["candidates"]["fused"]]
                        ).items()
                    },
                    tuple(restating(r) for r in results),
                )
            )
        by_form.append(answers)
    return by_form


def _restated(
    mem: Memory, persona: Persona, path: str, folded: dict[str, str]
) -> Callable[[dict[str, Any]], frozenset[str]]:
    """For a result, the labelled turns matched by the persona's records (any status) whose
    content a session summary restates: a summary is not scored as a match (it quotes no
    turn), but one that still says a retired value shows it."""
    said = [
        (phrase, matched)
        for record in user_records(mem.store, persona.id)
        if record.source_kind is not SourceKind.SESSION_SUMMARY
        and len(phrase := record.content.strip().rstrip(".")) >= MIN_EVIDENCE
        and (matched := _matches(record.to_json(), path, folded))
    ]

    def restating(result: dict[str, Any]) -> frozenset[str]:
        if result.get("source_kind") != SourceKind.SESSION_SUMMARY.value:
            return frozenset()
        text = result["content"]
        return frozenset().union(*(m for phrase, m in said if phrase in text))

    return restating


def _logged(mem: Memory, search_id: str) -> dict[str, Any]:
    """A search's search_log payload: every candidate, score and setting."""
    payload = mem.store.search_log_payload(search_id)
    if payload is None:  # every search logs itself: the row was just written
        raise RuntimeError(f"search {search_id} is missing from the search log")
    return payload


def fold(text: str) -> str:
    """Lowercase, punctuation and runs of spaces folded to one space (the README's rule)."""
    return re.sub(r"[\W_]+", " ", text.lower()).strip()


def _matches(result: dict[str, Any], path: str, folded: dict[str, str]) -> frozenset[str]:
    if path == "turns":
        ref = result.get("source_ref")
        return frozenset({ref}) if ref in folded else frozenset()
    evidence = fold(result.get("evidence") or "")
    if len(evidence) < MIN_EVIDENCE:
        return frozenset()
    return frozenset(t for t, text in folded.items() if evidence in text)


# ---------------------------------------------------------------------------------------------
# Running


def run(
    *,
    data: Path,
    config: Config,
    store_dir: Path | None = None,
    paths: tuple[str, ...] = PATHS,
    progress: bool = True,
    calibrate: bool = False,
) -> dict[str, Any]:
    """Build, ask and score every persona on each path; returns a JSON-ready report (with
    ``calibrate``, also the gate sweep of api.evaluation.calibrate)."""
    personas = load(data)
    embedder = make_embedder(config.embedder)  # one model for every persona's store
    report: dict[str, Any] = {
        "dataset": "personal",
        "data": str(data_file(data)),
        "personas": len(personas),
        "started": format_time(datetime.now(UTC)),
        "embedder": str(embedder.identity),
    }
    by_path: dict[str, list[list[Answer]]] = {}  # each path's answers, persona by persona
    with tempfile.TemporaryDirectory(prefix="agent-memory-personal-") as scratch:
        where = store_dir or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        for path in paths:
            answers: list[Answer] = []
            asked_about: list[Answer] = []  # the same questions about "the user"
            stored: list[int] = []
            by_path[path] = []
            for persona in tqdm(personas, desc=path, unit="persona", disable=not progress):
                with persona_store(
                    persona, path, store_dir=where, config=config, embedder=embedder
                ) as mem:
                    stored.append(mem.stats()["records"])
                    first, about = ask_in_forms(mem, persona, path, (str, third_person))
                    by_path[path].append(first)
                    answers += first
                    asked_about += about
            report[path] = personal_metrics(answers) | {
                "records_per_persona": mean(stored),
                "third_person": _without_kinds(personal_metrics(asked_about)),
            }
    if calibrate:
        report["calibration"] = calibrate_small_store_drop(by_path, config.gate)
    report["finished"] = format_time(datetime.now(UTC))
    return report


def _without_kinds(metrics: dict[str, Any]) -> dict[str, Any]:
    """The third-person pass's figures: every rate, not the per-kind table."""
    return {k: v for k, v in metrics.items() if k != "by_kind"}


def summary(report: dict[str, Any]) -> str:
    """The report as a few readable lines."""
    lines = [f"personal memory: {report['personas']} personas, {report['embedder']}"]
    for path in PATHS:
        if path not in report:
            continue
        m = report[path]
        a = m["answerable"]
        lines += [
            f"{path}: hit@5 {a['hit@5']}, recall@5 {a['recall@5']}, answerable answered empty "
            f"{a['empty']} (n {a['n']}); unanswerable empty {m['unanswerable_empty']}, "
            f"unanswerable_near empty {m['unanswerable_near_empty']}",
            f"    updates: current first {m['update_current_first']}, stale shown "
            f"{m['update_stale_shown']}, stale restated by a summary "
            f"{m['update_stale_restated']}; mean result {m['result_chars']} chars compact, "
            f"{m['full_result_chars']} full (content {m['content_chars']}); "
            f"{m['records_per_persona']} records per persona",
        ]
        if "third_person" in m:
            t = m["third_person"]
            lines.append(
                f'    asked about "the user": hit@5 {t["answerable"]["hit@5"]}, answerable '
                f"answered empty {t['answerable']['empty']}; unanswerable empty "
                f"{t['unanswerable_empty']}; current first {t['update_current_first']}, stale "
                f"shown {t['update_stale_shown']}; mean result {t['result_chars']} chars compact"
            )
        for kind, values in m["by_kind"].items():
            lines.append(f"    {kind:<18} " + ", ".join(f"{k} {v}" for k, v in values.items()))
    if "calibration" in report:
        chosen = report["calibration"]["chosen"]
        lines.append(
            f"calibration: small_store_drop {chosen['small_store_drop']} chosen (a small-store "
            f"dense floor of {chosen['small_dense_floor']}; configured "
            f"{report['calibration']['configured']}); objective "
            f"{chosen['objective/choose']} on the odd personas, {chosen['objective/report']} "
            "on the others"
        )
    return "\n".join(lines)
