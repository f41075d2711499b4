"""Import Codex rollout files (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``).

The format is Codex's own (``RolloutLine`` and ``RolloutItem`` in ``openai/codex``; the version
read is named in ``docs/migrate/agent-logs.md``): one JSON object per line, ``{"timestamp",
"ordinal"?, "type", "payload"}``, where ``type`` is ``session_meta``, ``response_item`` (an
OpenAI Responses item), ``turn_context``, ``compacted``, ``event_msg`` or a newer kind.

Import only: :func:`read_dump` (the file's bytes, text, or parsed lines) and :func:`read_file`.
Response items are read by the OpenAI Responses adapter, a model response's items (up to the
``token_count`` event Codex writes after it) into one assistant message with that event's usage
and the model of the turn's ``turn_context``. ``session_meta`` becomes a task metadata event
(the session id its ``task_id``) and, with base instructions, a system message; ``compacted``
a compaction event; a change of model between turns a model switch. Every other line
(``event_msg`` lines, ``turn_context``, Codex's ``ghost_snapshot`` undo records, which are no Responses items,
kinds newer than this importer) is kept as an unknown event holding the line; one read in the
middle of a model response is placed after it. Ids are derived from the session id, the line number and the call ids, so importing a file
twice gives the same history.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from partwire import history as _history
from partwire.adapters import openai_responses
from partwire.errors import PartwireError
from partwire.ids import derive_id
from partwire.messages import AssistantMessage, SystemMessage
from partwire.usage import Usage

from ._agentlog import Line, Linker, lines_of, parse_time

__all__ = ["NAME", "read_dump", "read_file"]

NAME = "codex"
"""The importer's name."""
_ISSUER = "openai"
# Items Codex records for itself that are no Responses API item (its undo snapshots).
_HARNESS_ITEMS = frozenset({"ghost_snapshot"})


def read_file(path: str | Path) -> list[_history.HistoryEvent]:
    """The history of a Codex rollout file."""
    return read_dump(Path(path))


def read_dump(data: Any) -> list[_history.HistoryEvent]:
    """The history of a Codex session: the rollout file as bytes, text or a path, or its lines
    parsed (a list of dicts)."""
    return _Importer().run(lines_of(data, NAME))


class _Importer:
    def __init__(self) -> None:
        self.linker = Linker(NAME, _ISSUER)
        self.history: list[_history.HistoryEvent] = []
        self.session = ""
        self.provider = _ISSUER
        self.model: str | None = None
        self.run_items: list[tuple[Line, dict[str, Any]]] = []
        self.deferred: list[_history.HistoryEvent] = []

    def run(self, lines: Any) -> list[_history.HistoryEvent]:
        for line in lines:
            value = line.value
            if line.problem is not None or not isinstance(value, dict):
                self._flush()
                self.history.append(_history.UnknownEvent(id=self._id(line), original_type=None, raw=value,
                                                          problem=line.problem or f"line {line.number} is not a JSON object"))
                continue
            self._line(line, value)
        self._flush()
        return self.history

    def _id(self, line: Line, k: int = 0, value: Any = None) -> str:
        when = parse_time(value.get("timestamp")) if isinstance(value, dict) else None
        return derive_id(NAME, self.session, str(line.number), str(k), at=when)

    def _unknown(self, line: Line, value: dict[str, Any], problem: str) -> _history.UnknownEvent:
        kind, payload = value.get("type"), value.get("payload")
        inner = payload.get("type") if isinstance(payload, dict) else None
        return _history.UnknownEvent(id=self._id(line, value=value), created_at=_time(value),
                                     original_type=f"{kind}:{inner}" if isinstance(inner, str) else
                                     kind if isinstance(kind, str) else None, raw=value, problem=problem)

    def _line(self, line: Line, value: dict[str, Any]) -> None:
        kind, payload = value.get("type"), value.get("payload")
        if not isinstance(payload, dict):
            self._flush()
            self.history.append(self._unknown(line, value, f"line {line.number} has no payload object"))
            return
        if kind == "response_item" and payload.get("type") in _HARNESS_ITEMS:
            event = self._unknown(line, value, "a Codex undo snapshot: not a Responses item")
            (self.deferred if self.run_items else self.history).append(event)
        elif kind == "response_item":
            self.run_items.append((line, payload))
        elif kind == "event_msg" and payload.get("type") == "token_count":
            info = payload.get("info")
            last = info.get("last_token_usage") if isinstance(info, dict) else None
            self._flush(usage=_usage(last) if isinstance(last, dict) else None)
            self.history.append(self._unknown(line, value, "Codex's token count: its last usage is the "
                                                           "usage of the assistant message before it"))
        elif kind == "event_msg":
            event = self._unknown(line, value, "a Codex UI event: the response items hold the conversation")
            (self.deferred if self.run_items else self.history).append(event)
        elif kind == "session_meta":
            self._flush()
            self._session(line, value, payload)
        elif kind == "turn_context":
            self._flush()
            model = payload.get("model")
            if isinstance(model, str) and model != self.model:
                if self.model is not None:
                    self.history.append(_history.ModelSwitchEvent(
                        id=self._id(line, 1, value), created_at=_time(value), from_model=self._model_id(self.model),
                        to_model=self._model_id(model), reason="turn_context"))
                self.model = model
            self.history.append(self._unknown(line, value, "the context of a Codex turn (cwd, policies, model)"))
        elif kind == "compacted" and isinstance(payload.get("message"), str):
            self._flush()
            rest = {k: v for k, v in payload.items() if k != "message"}
            self.history.append(_history.CompactionEvent(id=self._id(line, value=value), created_at=_time(value),
                                                         summary=payload["message"], metadata={NAME: rest} if rest else {}))
        else:
            self._flush()
            self.history.append(self._unknown(line, value, f"a Codex {kind!r} line: not a message"))

    def _session(self, line: Line, value: dict[str, Any], payload: dict[str, Any]) -> None:
        if isinstance(payload.get("id"), str):
            self.session = payload["id"]
        if isinstance(payload.get("model_provider"), str) and payload["model_provider"]:
            self.provider = payload["model_provider"]
        self.history.append(_history.TaskMetadataEvent(id=self._id(line, value=value), created_at=_time(value),
                                                       task_id=self.session or None, data=payload))
        instructions = payload.get("base_instructions")
        text = instructions.get("text") if isinstance(instructions, dict) else instructions
        if isinstance(text, str):
            self.history.append(SystemMessage(text, id=self._id(line, 1, value), created_at=_time(value)))

    def _model_id(self, model: str) -> str:
        return f"{self.provider}:{model}"

    def _flush(self, usage: Usage | None = None) -> None:
        """The response items read so far, as messages; then the events held back."""
        items, self.run_items = self.run_items, []
        deferred, self.deferred = self.deferred, []
        if items:
            first = items[0][0]
            stamp = first.value if isinstance(first.value, dict) else {}
            body = {"model": self.model or "", "input": [payload for _, payload in items]}
            try:
                events = list(openai_responses.from_wire_request(body).history)
            except PartwireError as exc:
                for line, payload in items:
                    value = {"type": "response_item", "payload": payload}
                    self.history.append(self._unknown(line, value, f"not a Responses item: {exc}"))
                events = []
            assistants = [k for k, e in enumerate(events) if isinstance(e, AssistantMessage)]
            for k, event in enumerate(events):
                event = self.linker.link(event)
                changes: dict[str, Any] = {"id": self._id(first, k + 1, stamp), "created_at": _time(stamp)}
                if isinstance(event, AssistantMessage):
                    changes.update(provider=self.provider, api=openai_responses.NAME)
                    if self.model:
                        changes["model"] = self._model_id(self.model)
                    if usage is not None and assistants and k == assistants[-1]:
                        changes["usage"] = usage
                self.history.append(event.model_copy(update=changes))
        self.history.extend(deferred)


def _usage(last: dict[str, Any]) -> Usage | None:
    """Codex's per-response token usage (the Responses API's figures: input counts cached tokens,
    output counts reasoning tokens, as partwire's do)."""
    counts = {field: last.get(key) for key, field in (
        ("input_tokens", "input_tokens"), ("cached_input_tokens", "cache_read_tokens"),
        ("output_tokens", "output_tokens"), ("reasoning_output_tokens", "reasoning_tokens"))}
    if not all(isinstance(v, int) for v in counts.values()):
        return None
    return Usage(**counts)


def _time(value: dict[str, Any]) -> Any:
    when = parse_time(value.get("timestamp"))
    return when if when is not None else parse_time("1970-01-01T00:00:00Z")
