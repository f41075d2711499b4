"""What the agent CLI session importers (Claude Code, Codex) share: reading JSONL lines,
deterministic ids, and linking tool results to calls read in another piece of the file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from partwire._base import replace
from partwire.errors import WireFormatError
from partwire.history import HistoryEvent
from partwire.ids import derive_id
from partwire.messages import AssistantMessage, ToolMessage
from partwire.parts import ToolCallPart

__all__ = ["Line", "Linker", "lines_of", "parse_time"]


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a session file: its 1-based number, its JSON value (or text, if not JSON)."""

    number: int
    value: Any
    problem: str | None = None


def lines_of(data: Any, source: str) -> Iterator[Line]:
    """The lines of a session file given as bytes, text, a path, or a list of parsed lines."""
    if isinstance(data, Path):
        data = data.read_bytes()
    if isinstance(data, bytes | bytearray):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise WireFormatError(source, "session file", f"not UTF-8 at byte {exc.start}") from exc
    if isinstance(data, str):
        for number, text in enumerate(data.splitlines(), 1):
            if not text.strip():
                continue
            try:
                yield Line(number, json.loads(text))
            except json.JSONDecodeError as exc:
                yield Line(number, text, f"line {number} is not JSON: {exc.msg}")
        return
    if isinstance(data, list):
        for number, value in enumerate(data, 1):
            yield Line(number, value)
        return
    raise WireFormatError(source, "session file", f"a {type(data).__name__}, not JSONL text, bytes or lines")


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 time as written by the agents (``...Z``), in UTC; ``None`` when absent or bad."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class Linker:
    """Gives tool calls ids derived from the provider's (importing twice gives the same ids) and
    points each tool result at its call, wherever in the file the call was read."""

    def __init__(self, source: str, issuer: str) -> None:
        self.source = source
        self.issuer = issuer
        self.names: dict[str, str] = {}
        self.wire_ids: dict[str, str] = {}  # the adapter's fresh id of a call -> the provider's

    def call_id(self, wire_id: str) -> str:
        return derive_id(self.source, wire_id, prefix="tu_")

    def link(self, event: HistoryEvent) -> HistoryEvent:
        if isinstance(event, AssistantMessage):
            parts = []
            for part in event.parts:
                if isinstance(part, ToolCallPart) and self.issuer in part.provider_ids:
                    wire_id = part.provider_ids[self.issuer]
                    self.names[wire_id] = part.name
                    self.wire_ids[part.id] = wire_id
                    part = replace(part, id=self.call_id(wire_id))
                parts.append(part)
            return replace(event, parts=tuple(parts))
        if isinstance(event, ToolMessage):
            # A result read with its call points at the adapter's fresh id of it; one read
            # without (from another piece of the file) still holds the provider's id.
            wire_id = self.wire_ids.get(event.call_id, event.call_id)
            return replace(event, call_id=self.call_id(wire_id),
                           tool_name=event.tool_name or self.names.get(wire_id, ""))
        return event
