"""Bearer tokens for the MCP server's HTTP transport: who a request acts for.

Over HTTP the identity (agent, user, write targets, trigger mode) comes from the credential,
never from a tool's arguments. ``agent-memory mcp --http HOST:PORT --tokens FILE`` reads a
JSON or TOML file (by its extension: ``.toml`` is TOML, anything else JSON) listing tokens:

    # tokens.toml
    [[tokens]]
    name = "alice-desktop"          # names the token in logs; never the secret
    sha256 = "9f86d081884c7d65..."  # hex SHA-256 of the token (printf %s TOKEN | sha256sum)
    agent = "assistant"             # the agent every call of this token acts as
    users = ["alice"]               # the users it may act for; the first is the default
    # optional:
    write_targets = { personal = "user:alice", current_project = "project:apollo" }
    mode = "hybrid"                 # trigger mode; default: the command's --mode

JSON is the same object: ``{"tokens": [{"name": ..., "sha256": ..., ...}]}``. ``token =
"..."`` may stand in for ``sha256`` (the file then holds the secret itself; keep it private).
A token with several users picks one per request with the ``X-Agent-Memory-User`` header
(a user outside the list is refused); without it, the first. ``write_targets`` default to
``{"personal": "user:<user>"}``; targets naming ``{user}`` are filled in per user.

A request presents ``Authorization: Bearer TOKEN``: its SHA-256 is compared with every
entry's (``hmac.compare_digest``, all entries, so the time taken says nothing about which
matched). A missing or unknown token is answered 401 by the SDK's bearer middleware before
any MCP message is read.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server.auth.provider import AccessToken

from agent_memory.core.errors import InvalidArgument, PermissionDenied
from agent_memory.core.models import validate_id
from agent_memory.core.tools import TRIGGER_MODES, TriggerMode

USER_HEADER = "x-agent-memory-user"

_KEYS = {"name", "sha256", "token", "agent", "users", "user", "write_targets", "mode"}


@dataclass(frozen=True, slots=True)
class Binding:
    """What one credential (a token, or the stdio command line) binds a caller to."""

    name: str
    agent_id: str
    users: tuple[str, ...]
    write_targets: Mapping[str, str] | None = None
    mode: TriggerMode | None = None

    def targets_for(self, user_id: str) -> dict[str, str] | None:
        """The write targets of ``user_id``'s sessions (``{user}`` filled in)."""
        if not self.write_targets:
            return None
        return {
            label: scope.replace("{user}", user_id) for label, scope in self.write_targets.items()
        }

    def user(self, requested: str | None) -> str:
        """The user a request acts for: ``requested`` if this binding may act for it, else
        the first; a user outside the list is PermissionDenied."""
        if requested is None or requested == "":
            return self.users[0]
        if requested not in self.users:
            raise PermissionDenied(
                "this credential may not act for the user named in X-Agent-Memory-User",
                field="user",
            )
        return requested


def sha256_hex(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class TokenEntry:
    digest: bytes
    binding: Binding


class TokenTable:
    """The tokens of a file, checked; ``verify_token`` is the SDK's TokenVerifier."""

    def __init__(self, entries: Sequence[TokenEntry]) -> None:
        if not entries:
            raise InvalidArgument("the tokens file lists no token", field="tokens")
        names = [entry.binding.name for entry in entries]
        if len(set(names)) != len(names):
            raise InvalidArgument("token names must be unique", field="tokens")
        digests = [entry.digest for entry in entries]
        if len(set(digests)) != len(digests):
            raise InvalidArgument("two tokens have the same secret", field="tokens")
        self.entries = tuple(entries)
        self.bindings = {entry.binding.name: entry.binding for entry in entries}

    def match(self, token: str) -> Binding | None:
        """The binding of ``token``, or None. Compares against every entry, in constant time
        per entry, whichever matches."""
        digest = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        found = None
        for entry in self.entries:
            if hmac.compare_digest(digest, entry.digest):
                found = entry.binding
        return found

    async def verify_token(self, token: str) -> AccessToken | None:
        binding = self.match(token)
        if binding is None:
            return None
        # client_id names the binding: handlers look it up (tokens never leave this table),
        # and the SDK ties each HTTP session to the credential that opened it.
        return AccessToken(token="", client_id=binding.name, scopes=[])


def load_tokens(path: str | Path) -> TokenTable:
    """Read and check a tokens file (module docstring); errors name the entry and field."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidArgument(f"cannot read {path}: {exc.strerror}", field="tokens") from None
    except UnicodeDecodeError:
        raise InvalidArgument(f"{path} is not UTF-8 text", field="tokens") from None
    try:
        data: Any = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise InvalidArgument(f"{path} cannot be parsed: {exc}", field="tokens") from None
    items = data.get("tokens") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise InvalidArgument(f"{path} must hold a list named tokens", field="tokens")
    return TokenTable([_entry(item, i) for i, item in enumerate(items)])


def _entry(item: Any, index: int) -> TokenEntry:
    where = f"tokens[{index}]"
    if not isinstance(item, dict):
        raise InvalidArgument(f"{where} must be an object", field=where)
    unknown = sorted(set(item) - _KEYS)
    if unknown:
        raise InvalidArgument(f"{where} has unknown keys: {', '.join(unknown)}", field=where)
    name = _text(item, "name", where)
    if ("sha256" in item) == ("token" in item):
        raise InvalidArgument(f"{where} needs exactly one of sha256 and token", field=where)
    if "token" in item:
        secret = _text(item, "token", where)
        if len(secret) < 16:
            raise InvalidArgument(f"{where}.token must be at least 16 characters", field=where)
        digest = hashlib.sha256(secret.encode("utf-8")).digest()
    else:
        try:
            digest = bytes.fromhex(_text(item, "sha256", where))
        except ValueError:
            digest = b""
        if len(digest) != 32:
            raise InvalidArgument(f"{where}.sha256 must be 64 hex digits", field=where)
    agent = validate_id(_text(item, "agent", where), what=f"{where}.agent")
    raw_users = item.get("users", [item["user"]] if "user" in item else None)
    if not isinstance(raw_users, list) or not raw_users:
        raise InvalidArgument(f"{where} needs users (a non-empty list) or user", field=where)
    users = tuple(validate_id(_str(u, f"{where}.users"), what=f"{where}.users") for u in raw_users)
    targets = item.get("write_targets")
    if targets is not None and (
        not isinstance(targets, dict)
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in targets.items())
    ):
        raise InvalidArgument(f"{where}.write_targets must map labels to scopes", field=where)
    mode = item.get("mode")
    if mode is not None and mode not in TRIGGER_MODES:
        raise InvalidArgument(
            f"{where}.mode must be one of {', '.join(TRIGGER_MODES)}", field=f"{where}.mode"
        )
    return TokenEntry(digest, Binding(name, agent, users, targets, mode))


def _text(item: dict[str, Any], key: str, where: str) -> str:
    if key not in item:
        raise InvalidArgument(f"{where} needs {key}", field=f"{where}.{key}")
    return _str(item[key], f"{where}.{key}")


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(f"{where} must be a non-empty string", field=where)
    return value.strip()


__all__ = ["USER_HEADER", "Binding", "TokenTable", "load_tokens", "sha256_hex"]
