"""The evidence judge: does a verbatim quote entail a stored statement, do two statements clash?

When an agent says a fact is a user statement or a tool result it must quote the transcript, and
the judge decides whether the quote *entails* the statement. A "no" only downgrades the record
to ``agent_inference``; a wrong "yes" pollutes the store. So every judge here is conservative:
when unsure, the answer is "not entailed". The same judge answers "do these two statements
contradict?" (so "I like coffee" and "I don't like coffee" are never merged as duplicates, and
conflicting records are flagged).

``OfflineJudge`` (the default, ``judge.kind = "offline"``) is a set of explainable rules and a
clause reading over a small packaged parser (spaCy, optional): no download, deterministic,
tens of milliseconds at most for a short pair. ``NLIJudge``
(``judge.kind = "nli"``) runs a natural-language-inference cross-encoder through transformers,
loaded lazily on first use. ``make_judge`` builds the configured one.

Modules: ``base`` (the interface), ``text`` (normalisation and tokens, shared by the offline
rules, with ``tokens``, ``values`` and ``stemming``), ``offline`` (the judge and its documented
limits) with ``align`` (its in-order word reading), ``paraphrase`` with ``paraphrase_checks``
and ``context`` (its second reading, the quote in its turn), ``clauses`` with
``clause_covers``, ``clause_checks``, ``syntax``, ``lexicon``, ``relations`` and ``parse`` (its
clause reading), ``overlap`` and ``contradiction`` (contradiction), ``nli`` (the
cross-encoder).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_memory.core.errors import ConfigError
from agent_memory.core.judge.base import Judge, JudgeUnavailable, Verdict
from agent_memory.core.judge.nli import NLIJudge
from agent_memory.core.judge.offline import OfflineJudge

if TYPE_CHECKING:
    from agent_memory.core.config import JudgeConfig


def make_judge(config: JudgeConfig) -> Judge:
    """The judge ``config`` asks for; nothing is loaded until it is first used."""
    if config.kind == "offline":
        return OfflineJudge()
    if config.kind == "nli":
        return NLIJudge(
            config.nli_model,
            entail_threshold=config.entail_threshold,
            contradiction_threshold=config.contradiction_threshold,
        )
    raise ConfigError(f"unknown judge kind {config.kind!r}; expected 'offline' or 'nli'")


__all__ = [
    "Judge",
    "JudgeUnavailable",
    "NLIJudge",
    "OfflineJudge",
    "Verdict",
    "make_judge",
]
