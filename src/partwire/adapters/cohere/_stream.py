"""Cohere v2 stream -> neutral stream events, folded by the shared accumulator as they go.

Input is raw SSE (``event: content-delta`` / ``data: {...}``, bytes or text, whole or in chunks),
parsed JSON events, or the SDK's ``V2ChatStreamResponse`` objects. Text and thinking stream as
deltas at their content index; the tool plan at :data:`PLAN_INDEX`; tool calls at
:data:`TOOL_INDEX` plus their own index. A citation goes onto the text part it cites from as it
arrives; one that cites no text part comes with the stop, in the message's ``provider_data``,
as :func:`~partwire.adapters.cohere.from_wire` keeps it. An unknown content type arrives whole
at its ``content-end``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from partwire import streaming as _streaming
from partwire._base import ProviderData
from partwire._json import SHAPE_ERRORS, as_json
from partwire.adapters._kernel import Translator as _KernelTranslator
from partwire.adapters._sse import ServerSentEvent
from partwire.adapters.cohere._decode import PLAN_MARK, citation_from_wire, part_from_wire
from partwire.adapters.cohere._wire import (
    API,
    FINISH_REASONS,
    ISSUER,
    PLAN_INDEX,
    TOOL_INDEX,
    usage_from_wire,
)
from partwire.errors import WireFormatError
from partwire.history import ErrorEvent
from partwire.ids import new_tool_call_id
from partwire.parts import TextPart, ThinkingPart
from partwire.streaming import StreamEvent

__all__ = ["Translator"]

_NONE: tuple[StreamEvent, ...] = ()
_PLAN_PART = TextPart(text="", provider_data=ProviderData(issuer=ISSUER, data=PLAN_MARK))
_CALL_FIELDS = frozenset({"id", "type", "function"})


class Translator(_KernelTranslator):
    """Turns wire events into stream events, one at a time, and keeps the message they build."""

    __slots__ = ("kinds", "model", "pending", "plan", "unattached")
    provider = API
    dicts_are_items = True

    def __init__(self, model_id: str | None = None) -> None:
        super().__init__()
        self.model = f"{ISSUER}:{model_id}" if model_id else None
        self.kinds: dict[int, str] = {}  # content index -> "text" / "thinking"
        self.pending: dict[int, dict[str, Any]] = {}  # content items of a type this version lacks
        self.plan = False
        self.unattached: list[Any] = []

    @staticmethod
    def from_sse(sse: ServerSentEvent) -> Mapping[str, Any] | None:
        """The wire event of one server-sent event (``None`` for an empty one or ``[DONE]``)."""
        return _sse_event(sse)

    @staticmethod
    def from_object(item: Any) -> Mapping[str, Any] | None:
        """The wire event of a parsed JSON event or an SDK event object."""
        return item if type(item) is dict else _object_event(item)

    def feed(self, wire: Mapping[str, Any]) -> tuple[StreamEvent, ...]:
        """The stream events one wire event stands for (often one, sometimes none)."""
        if self.finished:
            return _NONE
        kind = wire.get("type")
        if kind == "content-delta":
            event = self._content_delta(wire)
        elif kind == "tool-call-delta":
            piece = wire["delta"]["message"]["tool_calls"]["function"].get("arguments")
            if not piece:
                return _NONE
            event = _streaming.ToolCallDeltaEvent(TOOL_INDEX + wire["index"], piece)
        elif kind == "tool-plan-delta":
            piece = wire["delta"]["message"].get("tool_plan")
            if not piece:
                return _NONE
            if not self.plan:
                self.plan = True
                return self.emit([_streaming.PartEvent(PLAN_INDEX, _PLAN_PART), _streaming.TextDeltaEvent(PLAN_INDEX, piece)])
            event = _streaming.TextDeltaEvent(PLAN_INDEX, piece)
        else:
            return self._other(kind, wire)
        if event is None:
            return _NONE
        if not self.started:
            return self.emit([event])
        self.acc.feed(event)
        return (event,)

    def finish(self) -> tuple[StreamEvent, ...]:
        """End of input: a stream cut short still yields what arrived, as a partial message."""
        if self.finished:
            return _NONE
        self.finished = True
        flushed = self.emit(self._flush())
        return (*flushed, self.complete(whole=False))

    def _content_delta(self, wire: Mapping[str, Any]) -> StreamEvent | None:
        index: int = wire["index"]
        content = wire["delta"]["message"]["content"]
        pending = self.pending.get(index)
        if pending is not None:
            for key, value in content.items():  # the unknown item's text fields, appended
                if isinstance(value, str):
                    pending[key] = pending.get(key, "") + value
            return None
        text = content.get("text")
        if text is not None and self.kinds.get(index) != "thinking":
            return _streaming.TextDeltaEvent(index, text) if text else None
        thinking = content.get("thinking")
        if thinking:
            return _streaming.ThinkingDeltaEvent(index, thinking)
        return None

    def _other(self, kind: Any, wire: Mapping[str, Any]) -> tuple[StreamEvent, ...]:
        if kind == "message-start":
            return self.emit([self.start_event(response_id=wire.get("id"), model=self.model,
                                               provider=ISSUER, api=API)])
        if kind == "content-start":
            return self.emit(self._content_start(wire))
        if kind == "content-end":
            item = self.pending.pop(wire["index"], None)
            return _NONE if item is None else self.emit([_streaming.PartEvent(wire["index"], part_from_wire(item))])
        if kind == "tool-call-start":
            return self.emit(self._call_start(wire))
        if kind == "tool-call-end":
            return self.emit([_streaming.ToolCallEndEvent(TOOL_INDEX + wire["index"])])
        if kind == "citation-start":
            return self.emit(self._citation(wire["delta"]["message"]["citations"]))
        if kind == "message-end":
            self.finished = True
            events = self._flush()
            events += self._message_end(wire)
            return (*self.emit(events), self.complete())
        # citation-end, debug, and event types this version does not know
        return _NONE

    def _content_start(self, wire: Mapping[str, Any]) -> list[StreamEvent]:
        index: int = wire["index"]
        content = wire["delta"]["message"]["content"]
        kind = content.get("type")
        if kind == "text":
            self.kinds[index] = "text"
            return [_streaming.PartEvent(index, TextPart(text=content.get("text") or ""))]
        if kind == "thinking":
            self.kinds[index] = "thinking"
            return [_streaming.PartEvent(index, ThinkingPart(text=content.get("thinking") or ""))]
        self.pending[index] = dict(content)
        return []

    def _call_start(self, wire: Mapping[str, Any]) -> list[StreamEvent]:
        index = TOOL_INDEX + wire["index"]
        call = wire["delta"]["message"]["tool_calls"]
        function = call.get("function") or {}
        extras = {k: v for k, v in call.items() if k not in _CALL_FIELDS}
        wire_id = call.get("id")
        events: list[StreamEvent] = [_streaming.ToolCallStartEvent(
            index, new_tool_call_id(), function["name"],
            {ISSUER: wire_id} if isinstance(wire_id, str) else {},
            ProviderData(issuer=ISSUER, data={"call": extras}) if extras else None)]
        arguments = function.get("arguments")
        if arguments:
            events.append(_streaming.ToolCallDeltaEvent(index, arguments))
        return events

    def _citation(self, raw: Any) -> list[StreamEvent]:
        at = self._citation_target(raw)
        if at is not None:
            try:
                return [_streaming.CitationEvent(at, citation_from_wire(raw))]
            except SHAPE_ERRORS:
                pass
        self.unattached.append(raw)
        return []

    def _citation_target(self, raw: Any) -> int | None:
        if not isinstance(raw, dict):
            return None
        kind = raw.get("type")
        if kind == "PLAN":
            return PLAN_INDEX if self.plan else None
        if kind not in (None, "TEXT_CONTENT"):
            return None
        index = raw.get("content_index")
        if index is None:
            index = next((i for i, k in self.kinds.items() if k == "text"), None)
        return index if isinstance(index, int) and self.kinds.get(index) == "text" else None

    def _flush(self) -> list[StreamEvent]:
        events: list[StreamEvent] = [_streaming.PartEvent(i, part_from_wire(item)) for i, item in self.pending.items()]
        self.pending.clear()
        return events

    def _message_end(self, wire: Mapping[str, Any]) -> list[StreamEvent]:
        delta = wire.get("delta")
        delta = delta if isinstance(delta, dict) else {}
        events: list[StreamEvent] = []
        error = delta.get("error")
        if error:
            code = delta.get("error_type")
            events.append(_streaming.StreamErrorEvent(ErrorEvent(
                code=code if isinstance(code, str) else None, message=str(error), provider=ISSUER,
                retryable=False)))
        raw = delta.get("finish_reason")
        data = {"citations": self.unattached} if self.unattached else None
        if isinstance(raw, str) or data:
            events.append(_streaming.StopEvent(FINISH_REASONS.get(raw) if isinstance(raw, str) else None,
                                               raw if isinstance(raw, str) else None,
                                               ProviderData(issuer=ISSUER, data=data) if data else None))
        usage = delta.get("usage")
        if isinstance(usage, dict):
            events.append(_streaming.UsageEvent(usage_from_wire(usage)))
        return events


# -- inputs ---------------------------------------------------------------------------------


def _object_event(item: Any) -> Mapping[str, Any]:
    event = as_json(item)
    if not isinstance(event, dict):
        raise WireFormatError(ISSUER, "stream event", f"got {type(event).__name__}")
    return event


def _sse_event(sse: ServerSentEvent) -> Mapping[str, Any] | None:
    if not sse.data or sse.data == "[DONE]":
        return None
    try:
        data = json.loads(sse.data)
    except ValueError as exc:
        raise WireFormatError(ISSUER, "stream event", f"data is not JSON: {sse.data[:80]!r}") from exc
    if not isinstance(data, dict):
        raise WireFormatError(ISSUER, "stream event", f"data is a JSON {type(data).__name__}")
    if "type" not in data and sse.event:
        data = {"type": sse.event, **data}
    return data
