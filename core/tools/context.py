"""``ToolContext``: what one tool call runs with, built by ``Session.call`` for that call.

The store's parts (``engine``), whose call it is (the principal and session the host named,
never the model), the session's write targets, and two views of the session the handlers need:
its transcript (a deferred session's held-back turns included: evidence is found there) and
the means to store what a deferred session has held back (memory_forget stores the turns
before it redacts them). The handlers see nothing else of the session.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agent_memory.core import policy

if TYPE_CHECKING:
    from agent_memory.core.engine import Engine
    from agent_memory.core.write.evidence import Turn


class Transcript(Protocol):
    """A session's turns in order; with ``last``, only the final ``last``."""

    def __call__(self, *, last: int | None = None) -> list[Turn]: ...


@dataclass(frozen=True, slots=True)
class ToolContext:
    engine: Engine
    principal: policy.Principal
    session_id: str
    write_targets: Mapping[str, str]
    transcript: Transcript
    store_pending: Callable[[], None]

    @property
    def agent_id(self) -> str:
        return self.principal.agent_id

    @property
    def user_id(self) -> str:
        return self.principal.user_id

    def readable_scopes(self) -> tuple[str, ...]:
        """The scopes this agent may read for this user, as the grant table says now."""
        return policy.readable_scopes(self.principal, self.engine.store.grants(self.agent_id))

    def writable_scopes(self) -> tuple[str, ...]:
        """The scopes this agent may write for this user, as the grant table says now."""
        return policy.writable_scopes(self.principal, self.engine.store.grants(self.agent_id))

    def recent_turns(self, count: int = 4) -> str:
        """The last ``count`` turns as text: the current-turn context a query rewriter sees
        (a long session's whole transcript is not read)."""
        turns = self.transcript(last=count)
        return "\n".join(f"{t.role}: {t.content}" for t in turns)


__all__ = ["ToolContext", "Transcript"]
