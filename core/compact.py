"""What the model reads of a tool result: ``for_model``, one pure function for every surface.

``Session.call`` is the host API and returns the full contract form (a memory_search result
carries every Record field and a full explanation; hosts and evaluation harnesses read
``evidence`` and ``source_ref`` from it). A model needs far less to use a memory, and every
character it reads costs context: one 10-record answer in the full form was 13,500
characters for 1,000 of content. So the model-facing surfaces (``api.host.MemoryHost``, used
by the Deep Agents and CrewAI adapters and by the auto/hybrid host search; later MCP and
HTTP) pass every result through ``for_model``:

- memory_search, unless the call says ``explain: true``: per record ``id``, ``type``,
  ``content``, ``status``, ``source_kind``, ``date`` (event_at or else created_at, as a day),
  ``procedure`` for a procedural record, and a one-line ``reason`` ("dense #1, lexical #2;
  passed the dense floor"); for the response ``search_id`` and a one-line ``reason`` (why it
  is empty, how many candidates were cut and why).
- ``explain: true``, any other tool, and every error: unchanged.

The full explanation is never lost: the search log keeps it (``search_id`` names the row), and
memory_get of an id returns the full record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Generators in the order a reason names them (core.ranking.GENERATORS).
_GENERATOR_ORDER = ("dense", "lexical", "entity", "time")

# How a result's gate basis (core.ranking: the signal it passed on) reads in a reason.
_PASSED = {
    "dense": "passed the dense floor",
    "lexical": "passed the lexical floor",
    "time": "passed the lexical floor in the time window",
    "entity": "exact entity match",
    "corroborated": "passed the shared-word floor",
    "margin": "close to the best result",
    "answer": "the answer passed on another result",
    "reranker": "kept by the reranker",
}


def for_model(name: Any, arguments: Any, result: Mapping[str, Any]) -> dict[str, Any]:
    """The form of ``result`` (of tool ``name`` called with ``arguments``) a model is shown."""
    if name != "memory_search" or "error" in result or "results" not in result:
        return dict(result)
    if isinstance(arguments, Mapping) and arguments.get("explain") is True:
        return dict(result)
    return compact_search(result)


def compact_search(result: Mapping[str, Any]) -> dict[str, Any]:
    """A full memory_search result in its compact, model-facing form."""
    return {
        "results": [compact_record(item) for item in result["results"]],
        "search_id": result["search_id"],
        "reason": response_reason(result["explanation"], returned=len(result["results"])),
    }


def compact_record(item: Mapping[str, Any]) -> dict[str, Any]:
    """One result: what a model needs to use it, and a one-line reason it was returned."""
    compact = {
        "id": item["id"],
        "type": item["type"],
        "content": item["content"],
        "status": item["status"],
        "source_kind": item["source_kind"],
        "date": (item.get("event_at") or item["created_at"])[:10],
    }
    if item.get("procedure"):
        compact["procedure"] = item["procedure"]
    compact["reason"] = result_reason(item["explanation"])
    return compact


def result_reason(explanation: Mapping[str, Any]) -> str:
    """ "dense #1, lexical #2; passed the dense floor": the generators that found the record,
    with its rank in each, then what let it through the gate."""
    generators = explanation.get("generators") or {}
    found = ", ".join(
        f"{name} #{generators[name]['rank']}" for name in _GENERATOR_ORDER if name in generators
    )
    basis = explanation.get("passed_on")
    passed = _PASSED.get(basis, "") if isinstance(basis, str) else ""
    return "; ".join(part for part in (found, passed) if part)


def response_reason(explanation: Mapping[str, Any], *, returned: int) -> str:
    """One line for the whole answer: why it is empty, or how many were returned and how
    many candidates were left out, and why."""
    if not returned:
        return str(explanation.get("why_empty") or "nothing matched")
    parts = [f"{returned} result{'s' if returned != 1 else ''}"]
    cut = explanation.get("cut") or {}
    if cut.get("count"):
        # The full explanation says why (cut.why); "weaker" is the gist, and every character
        # here is read on every turn.
        parts.append(f"{cut['count']} weaker candidates cut")
    if explanation.get("duplicates_collapsed"):
        parts.append(f"{explanation['duplicates_collapsed']} near-duplicates collapsed")
    if explanation.get("over_budget"):
        parts.append(f"{explanation['over_budget']} over the token budget")
    return "; ".join(parts)
