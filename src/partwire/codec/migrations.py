"""Migrations: the registry that lifts older history lines to the current schema version.

``MIGRATIONS[n]`` turns a line of version ``n`` into one of version ``n + 1``; the reader applies
them in order on every older line it meets, and writers only ever write the current version.
Version 0 is the legacy shape ``{role, content: str | null, tool_calls: [...], tool_call_id?,
name?}`` (the ContentBlock refactor's seed): it has no ``v`` and no ``type``.

Migrations work on parsed JSON (plain dicts) and never on models, so a migration written today
keeps working after the models change. Legacy lines carry no ids, so ids are *derived* from the
line number and the line's bytes: loading the same file twice gives the same ids. A legacy
``tool`` line names its call by the legacy id of an earlier assistant ``tool_calls`` entry, and
servers reuse those ids, so the reader carries a :class:`MigrationContext` from line to line that
maps each legacy id to the canonical id of the latest call that used it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import TypeAdapter, ValidationError

from partwire.errors import PartwireError
from partwire.ids import TOOL_CALL_PREFIX, derive_id
from partwire.messages import SCHEMA_VERSION

__all__ = [
    "LEGACY_ROLES",
    "MIGRATIONS",
    "Migration",
    "MigrationContext",
    "MigrationError",
    "is_legacy",
    "migrate",
]

LEGACY_ROLES: frozenset[str] = frozenset({"system", "developer", "user", "assistant", "tool"})
"""Roles a version-0 line may have."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Keys of a legacy line that the migration turns into fields; anything else is kept under
# metadata["legacy"] so that nothing the old file said is lost. Only a tool line's "name" is the
# tool's name (elsewhere it names a participant), and only an assistant line makes tool calls.
_CONSUMED = frozenset({"role", "content", "timestamp", "created_at", "v"})
_CONSUMED_BY_ROLE = {
    "assistant": frozenset({"tool_calls"}),
    "tool": frozenset({"tool_call_id", "name"}),
}
_CONSUMED_CALL = frozenset({"id", "type", "function", "name", "arguments", "parameters"})
_DATETIME: TypeAdapter[datetime] = TypeAdapter(datetime)


class MigrationError(PartwireError, ValueError):
    """An older line has a shape its migration cannot convert."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        self.message = message
        """What is wrong."""
        self.path = path
        """Location inside the line, e.g. ``tool_calls[1].function.name``, when known."""
        super().__init__(f"{message} at {path}" if path else message)


@dataclass
class MigrationContext:
    """State the reader carries from line to line of one file while it migrates."""

    file: str | None = None
    """The file being read, when there is one."""
    line: int = 0
    """1-based number of the line being migrated."""
    raw: bytes = b""
    """The exact bytes of that line (without the newline); ids are derived from them."""
    call_ids: dict[str, str] = field(default_factory=dict)
    """Legacy tool-call id -> canonical id of the latest call that used it."""
    call_names: dict[str, str] = field(default_factory=dict)
    """Legacy tool-call id -> tool name of the latest call that used it."""


Migration = Callable[[dict[str, Any], MigrationContext], dict[str, Any]]
"""Turns one parsed line of version N into a line of version N + 1."""


def is_legacy(obj: dict[str, Any]) -> bool:
    """Whether a parsed line is of the legacy (version 0) shape: a ``role``, no ``v``, no ``type``."""
    return "v" not in obj and "type" not in obj and "role" in obj


def migrate(obj: dict[str, Any], version: int, context: MigrationContext) -> dict[str, Any]:
    """Lift ``obj`` from ``version`` to the current schema version, one registered step at a time."""
    for step in range(version, SCHEMA_VERSION):
        migration = MIGRATIONS.get(step)
        if migration is None:
            raise MigrationError(f"no migration from schema version {step}", path="v")
        obj = migration(obj, context)
    return obj


# -- version 0 (legacy) -> 1 -------------------------------------------------------------------


def _v0_to_v1(obj: dict[str, Any], context: MigrationContext) -> dict[str, Any]:
    role = obj.get("role")
    if role not in LEGACY_ROLES:
        raise MigrationError(f"unknown legacy role {role!r}", path="role")
    created_at = _legacy_time(obj)
    # ULIDs cannot hold a time before 1970: such a line's ids carry the epoch instead.
    id_time = created_at if created_at >= _EPOCH else _EPOCH
    line_key = str(context.line)
    message: dict[str, Any] = {
        "v": 1,
        "type": "message",
        "role": role,
        "id": derive_id("v0", line_key, context.raw.decode("utf-8", "replace"), at=id_time),
        "created_at": created_at.isoformat(),
        "metadata": {"migrated_from": "v0"},
    }
    consumed = _CONSUMED | _CONSUMED_BY_ROLE.get(role, frozenset())
    leftovers = {k: v for k, v in obj.items() if k not in consumed}
    if leftovers:
        message["metadata"]["legacy"] = leftovers

    text = _legacy_content(obj)
    if role == "tool":
        _tool_result(message, obj, text, context)
        return message
    parts: list[dict[str, Any]] = []
    if text:
        parts.append({"type": "text", "text": text})
    calls = obj.get("tool_calls") if role == "assistant" else None
    if calls is not None:
        if not isinstance(calls, list):
            raise MigrationError("tool_calls must be a list", path="tool_calls")
        parts.extend(_tool_call(call, i, id_time, context) for i, call in enumerate(calls))
    message["parts"] = parts
    return message


def _legacy_time(obj: dict[str, Any]) -> datetime:
    for key in ("created_at", "timestamp"):
        value = obj.get(key)
        if value is None:
            continue
        try:
            moment = _DATETIME.validate_python(value)
        except ValidationError as exc:
            raise MigrationError(f"{key} is not a time: {value!r}", path=key) from exc
        # A legacy time without a zone was written by a local clock we cannot know; UTC is the
        # only reading that gives the same instant on every machine.
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return _EPOCH


def _legacy_content(obj: dict[str, Any]) -> str:
    content = obj.get("content")
    if content is None:
        return ""
    if not isinstance(content, str):
        raise MigrationError("legacy content must be a string or null", path="content")
    return content


def _tool_call(call: Any, index: int, id_time: datetime, context: MigrationContext) -> dict[str, Any]:
    where = f"tool_calls[{index}]"
    if not isinstance(call, dict):
        raise MigrationError("a legacy tool call must be an object", path=where)
    function = call.get("function")
    if function is not None and not isinstance(function, dict):
        raise MigrationError("function must be an object", path=f"{where}.function")
    source: dict[str, Any] = function if function is not None else call
    name = source.get("name")
    if not isinstance(name, str):
        name_path = f"{where}.function.name" if function is not None else f"{where}.name"
        raise MigrationError("a legacy tool call needs a string name", path=name_path)
    arguments = source.get("arguments", source.get("parameters"))
    if arguments is None:
        arguments_json = "{}"
    elif isinstance(arguments, str):
        arguments_json = arguments  # the model's exact text, malformed or not
    else:
        arguments_json = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))

    legacy_id = call.get("id")
    if isinstance(legacy_id, int) and not isinstance(legacy_id, bool):
        legacy_id = str(legacy_id)
    part: dict[str, Any] = {"type": "tool_call", "name": name, "arguments_json": arguments_json}
    if isinstance(legacy_id, str):
        part["id"] = derive_id("v0-call", str(context.line), legacy_id, at=id_time,
                               prefix=TOOL_CALL_PREFIX)
        part["provider_ids"] = {"legacy": legacy_id}
        # The latest call with this id wins: servers reuse ids, and a result answers the
        # nearest call before it.
        context.call_ids[legacy_id] = part["id"]
        context.call_names[legacy_id] = name
    else:
        part["id"] = derive_id("v0-call", str(context.line), f"#{index}", at=id_time,
                               prefix=TOOL_CALL_PREFIX)
    extras = {k: v for k, v in call.items() if k not in _CONSUMED_CALL}
    if function is not None:
        extras.update({f"function.{k}": v for k, v in function.items()
                       if k not in ("name", "arguments", "parameters")})
    if call.get("type", "function") != "function":
        extras["type"] = call["type"]
    if extras:
        part["legacy"] = extras
    return part


def _tool_result(
    message: dict[str, Any], obj: dict[str, Any], text: str, context: MigrationContext
) -> None:
    legacy_id = obj.get("tool_call_id")
    if isinstance(legacy_id, int) and not isinstance(legacy_id, bool):
        legacy_id = str(legacy_id)
    if not isinstance(legacy_id, str):
        raise MigrationError("a legacy tool line needs a string tool_call_id", path="tool_call_id")
    message["output_text"] = text
    call_id = context.call_ids.get(legacy_id)
    if call_id is None:
        # An answer to a call this file never made (the call was cut off, or the file was
        # split): give it a stable id of its own and keep the legacy id to find it by.
        call_id = derive_id("v0-orphan", legacy_id, prefix=TOOL_CALL_PREFIX)
        message["metadata"]["legacy_call_id"] = legacy_id
    message["call_id"] = call_id
    name = obj.get("name")
    message["tool_name"] = name if isinstance(name, str) else context.call_names.get(legacy_id, "")


MIGRATIONS: dict[int, Migration] = {0: _v0_to_v1}
"""Version N -> the migration that lifts a line of version N to version N + 1."""
