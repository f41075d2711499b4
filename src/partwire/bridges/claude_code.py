"""Import Claude Code session files (``~/.claude/projects/<project>/<session>.jsonl``).

Anthropic does not specify the format. Its shape here is the one Claude Code's users describe
in their tools (named in ``docs/migrate/agent-logs.md``): one JSON object per line, with
``type``, ``uuid``, ``parentUuid``, ``sessionId``, ``timestamp``, ``cwd``, ``version``,
``gitBranch``, ``isSidechain``; ``user`` and ``assistant`` lines carry an Anthropic Messages
``message``. An assistant response streamed as several lines (one per content block, sharing
``message.id``) is one assistant message.

Import only: :func:`read_dump` (the file's bytes, text, or parsed lines) and :func:`read_file`.
Messages are read by the Anthropic adapter, so every content block it knows becomes its part
and any other stays an unknown part. Each message keeps its line's envelope (everything but
``message``) in ``metadata["claude_code"]``; lines that are not messages (``system``,
``file-history-snapshot``, ``queue-operation``, ``progress``, sub-agent ``isSidechain`` lines,
lines that are not JSON) become unknown events holding the line as it was. Ids are derived from
the lines' ``uuid`` and the calls' ``toolu_`` ids, so importing a file twice gives the same
history.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from partwire._base import replace
from partwire.adapters import anthropic
from partwire.errors import PartwireError
from partwire.history import CompactionEvent, HistoryEvent, TaskMetadataEvent, UnknownEvent
from partwire.ids import derive_id
from partwire.messages import AssistantMessage

from ._agentlog import Line, Linker, lines_of, parse_time

__all__ = ["NAME", "read_dump", "read_file"]

NAME = "claude_code"
"""The importer's name; metadata is kept under it."""
_ISSUER = "anthropic"
# A one-message request body around a user line's message, for the adapter's request reader.
_REQUEST_HEAD = {"model": "claude", "max_tokens": 1}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def read_file(path: str | Path) -> list[HistoryEvent]:
    """The history of a Claude Code session file."""
    return read_dump(Path(path))


def read_dump(data: Any) -> list[HistoryEvent]:
    """The history of a Claude Code session: the file as bytes, text or a path, or its lines
    parsed (a list of dicts)."""
    return _Importer().run(lines_of(data, NAME))


class _Importer:
    def __init__(self) -> None:
        self.linker = Linker(NAME, _ISSUER)
        self.history: list[HistoryEvent] = []
        self.session: str | None = None
        # The assistant response being read: its lines, until a line of another message.
        self.pending: list[tuple[Line, dict[str, Any]]] = []
        # A line's uuid -> the id of the event it became (lines of one response share one).
        self.ids: dict[str, str] = {}
        self.deferred: list[HistoryEvent] = []
        self.start = _EPOCH

    def run(self, lines: Any) -> list[HistoryEvent]:
        lines = list(lines)
        # Lines without a time of their own (summaries) take the first time in the file.
        self.start = next((t for line in lines if isinstance(line.value, dict)
                           and (t := parse_time(line.value.get("timestamp"))) is not None), _EPOCH)
        for line in lines:
            value = line.value
            if line.problem is not None or not isinstance(value, dict):
                self._flush()
                self.history.append(UnknownEvent(
                    original_type=None, raw=value,
                    problem=line.problem or f"line {line.number} is not a JSON object"))
                continue
            if self.session is None and isinstance(value.get("sessionId"), str):
                self.session = value["sessionId"]
                self.history.insert(0, TaskMetadataEvent(
                    id=derive_id(NAME, self.session), task_id=self.session, created_at=self._time(value),
                    data={"source": "claude-code", **{k: value[k] for k in ("cwd", "gitBranch", "version")
                                                      if k in value}}))
            self._line(line, value)
        self._flush()
        return self.history

    def _time(self, value: Mapping[str, Any]) -> datetime:
        when = parse_time(value.get("timestamp"))
        return when if when is not None else self.start

    def _line(self, line: Line, value: dict[str, Any]) -> None:
        kind = value.get("type")
        message = value.get("message")
        if value.get("isSidechain") is True:
            self._unknown(line, value, "a sub-agent (sidechain) line: not part of this conversation")
        elif kind == "assistant" and isinstance(message, dict) and isinstance(message.get("content"), list):
            if self.pending and self.pending[-1][1]["message"].get("id") != message.get("id"):
                self._flush()
            self.pending.append((line, value))
        elif kind == "user" and isinstance(message, dict) and "content" in message:
            self._flush()
            if value.get("isCompactSummary") is True:
                self._compaction(line, value)
            else:
                self._user(line, value)
        elif kind == "summary" and isinstance(value.get("summary"), str):
            self._flush()
            self.history.append(TaskMetadataEvent(
                id=derive_id(NAME, str(line.number), str(value.get("leafUuid"))), title=value["summary"],
                created_at=self._time(value), data=value))
        else:
            self._unknown(line, value, f"a Claude Code {kind!r} line: not a message")

    def _unknown(self, line: Line, value: dict[str, Any], problem: str) -> None:
        kind = value.get("type")
        event = UnknownEvent(id=derive_id(NAME, str(value.get("uuid") or line.number), at=parse_time(value.get("timestamp"))),
                             created_at=self._time(value), original_type=kind if isinstance(kind, str) else None,
                             raw=value, problem=problem)
        if isinstance(value.get("uuid"), str):
            self.ids[value["uuid"]] = event.id
        # A line between the lines of one streamed response follows the response.
        (self.deferred if self.pending else self.history).append(event)

    def _user(self, line: Line, value: dict[str, Any]) -> None:
        message = value["message"]
        try:
            imported = anthropic.from_wire_request({**_REQUEST_HEAD, "messages": [message]})
        except PartwireError as exc:
            self._unknown(line, value, f"line {line.number}: its message is not an Anthropic message: {exc}")
            return
        for k, event in enumerate(imported.history):
            self.history.append(self._placed(self.linker.link(event), value, k))

    def _compaction(self, line: Line, value: dict[str, Any]) -> None:
        content = value["message"]["content"]
        summary = content if isinstance(content, str) else "".join(
            b.get("text", "") for b in content if isinstance(b, Mapping) and b.get("type") == "text")
        self.history.append(CompactionEvent(
            id=derive_id(NAME, str(value.get("uuid") or line.number)), created_at=self._time(value),
            summary=summary, metadata={NAME: value}))

    def _flush(self) -> None:
        """The assistant response read so far, as one message; then the lines held back."""
        if not self.pending:
            return
        lines, self.pending = self.pending, []
        deferred, self.deferred = self.deferred, []
        first, last = lines[0][1], lines[-1][1]
        body = {**last["message"], "content": [b for _, v in lines for b in v["message"]["content"]]}
        try:
            message = anthropic.from_wire(body)
        except PartwireError as exc:
            for line, value in lines:
                self._unknown(line, value, f"line {line.number}: not an Anthropic response: {exc}")
            self.history.extend(deferred)
            return
        placed = self._placed(self.linker.link(message), first, 0)
        for _, value in lines[1:]:
            self.ids[str(value.get("uuid", ""))] = placed.id
        if len(lines) > 1:
            envelopes = [_envelope(v) for _, v in lines]
            placed = replace(placed, metadata={NAME: {**envelopes[0], "lines": envelopes[1:]}})
        self.history.append(placed)
        self.history.extend(deferred)

    def _placed(self, event: HistoryEvent, value: dict[str, Any], k: int) -> HistoryEvent:
        """``event`` with the id, time, parent and envelope of the line it came from."""
        uuid = str(value.get("uuid", ""))
        when = parse_time(value.get("timestamp"))
        keys = (NAME, uuid, str(k)) if k else (NAME, uuid)
        changes: dict[str, Any] = {"id": derive_id(*keys, at=when), "metadata": {NAME: _envelope(value)}}
        if k == 0:
            self.ids[uuid] = changes["id"]
        if when is not None:
            changes["created_at"] = when
        parent = value.get("parentUuid")
        if isinstance(parent, str) and k == 0 and parent in self.ids:
            changes["parent_id"] = self.ids[parent]
        if isinstance(event, AssistantMessage) and event.model == f"{_ISSUER}:<synthetic>":
            changes["model"] = None  # Claude Code's own messages (an API error shown as a reply)
        return event.model_copy(update=changes)


def _envelope(value: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if k != "message"}


