"""How the quickstart tour reaches its reader: printed for a person, or one JSON document."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_memory.core import Config


class Printer:
    """Prints the tour for a person, or collects it as one JSON document."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.steps: list[dict[str, Any]] = []

    def section(self, title: str, explanation: str) -> None:
        if self.as_json:
            self.steps.append({"step": title, "lines": []})
            return
        print(f"\n{title}")
        if explanation:
            print(f"   {explanation}")

    def line(self, text: str, **data: Any) -> None:
        if self.as_json:
            if data:
                self.steps[-1]["lines"].append(data)
            return
        print(f"   {text}")

    def finish(self) -> None:
        if self.as_json:
            print(json.dumps({"quickstart": self.steps}, indent=2, default=str))


def backend_label(config: Config) -> str:
    """The extraction backend a worker started now would use, as the tour names it."""
    backend = config.extraction.backend
    if backend == "auto":
        return "Anthropic" if os.environ.get("ANTHROPIC_API_KEY") else "offline (rule-based)"
    return "Anthropic" if backend == "anthropic" else "offline (rule-based)"


def stage_result(output: dict[str, Any]) -> str:
    """One extraction stage's output in a few words."""
    if "candidates" in output:
        return f"{len(output['candidates'])} candidates"
    if "decisions" in output:
        return f"{len(output['accepted'])} of {len(output['decisions'])} accepted"
    if "written" in output:
        return f"{len(output['written'])} written, {len(output['rejected'])} rejected"
    if "summary_id" in output:
        said = len(output.get("assistant_words", []))
        return f"summary {output['summary_id']}, {said} part(s) of the assistant's words kept"
    return ""


def show_search(out: Printer, user: str, query: str, result: dict[str, Any]) -> None:
    """One search as the tour shows it: the question, each result and why it passed."""
    out.line(f"search    as assistant for {user}: {query!r}", user=user, query=query, result=result)
    if parts := result["explanation"].get("parts"):  # a question of several, searched apart
        out.line(f"            asked as {len(parts)}: {' | '.join(p['query'] for p in parts)}")
    if cue := result["explanation"]["time_cue"]:
        out.line(
            f"            time cue {', '.join(repr(p) for p in cue['phrases'])}: event "
            f"time {cue['since'][:10]} to {cue['until'][:10]}",
            time_cue=cue,
        )
    for r in result["results"]:
        out.line(f"            {r['scope']:<15} {r['content']}")
        found_by = ", ".join(
            f"{g} #{m['rank']}" + (" (a passage)" if m.get("passage") else "")
            for g, m in r["explanation"]["generators"].items()
        )
        out.line(f"                            (found by {found_by}; {r['explanation']['gate']})")
    if not result["results"]:
        out.line(f"            nothing: {result['explanation']['why_empty']}")
