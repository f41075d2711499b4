"""Responses stream -> neutral stream events, on the kernel's :class:`Translator`.

Events are keyed by ``output_index`` (and ``content_index`` / ``summary_index``). Text,
refusal-free message text, reasoning summaries, reasoning text and function-call arguments
stream as deltas, each item into its own part. ``response.output_item.done`` carries the
authoritative item (final status, annotations, the complete ``encrypted_content``): its parts
replace what the deltas built, so the streamed message equals what ``from_wire`` gives for the
final response. The terminal ``response.completed`` / ``.incomplete`` / ``.failed`` gives usage,
stop reason and response metadata; an ``error`` event (flat, or nested as over WebSocket) or a
failed response becomes an error event and the message so far.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from partwire import streaming as _streaming
from partwire._json import as_json
from partwire.adapters._kernel import Translator as _KernelTranslator
from partwire.adapters._sse import ServerSentEvent
from partwire.adapters.openai_responses._decode import (
    error_retryable,
    item_parts,
    response_marks,
)
from partwire.adapters.openai_responses._parts import marks_pd
from partwire.adapters.openai_responses._wire import (
    API,
    ISSUER,
    stop_reason,
    usage_from_wire,
)
from partwire.errors import WireFormatError
from partwire.history import ErrorEvent
from partwire.ids import new_tool_call_id
from partwire.parts import Part, RefusalPart, TextPart, ThinkingPart, ToolCallPart
from partwire.streaming import StreamEvent

__all__ = ["Translator"]

_NONE: tuple[StreamEvent, ...] = ()
_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})
_STARTS = frozenset({"response.created", "response.in_progress", "response.queued"})


class _Item:
    """An output item whose events are arriving: where its parts are in the message."""

    __slots__ = ("call_id", "done", "kind", "parts", "refusals", "started", "summaries", "tool_id",
                 "wire")

    def __init__(self, wire: Mapping[str, Any]) -> None:
        kind = wire.get("type")
        self.kind = kind if isinstance(kind, str) else ""
        self.wire: Mapping[str, Any] = wire
        self.parts: dict[int, int] = {}  # content_index (or 0) -> part index
        self.summaries = 0  # summary entries begun (reasoning)
        self.tool_id: str | None = None  # canonical id of a function call
        self.call_id: str | None = None
        self.done = False
        self.refusals: dict[int, str] = {}  # content_index -> refusal text so far
        self.started = False  # a custom tool call's input has begun


class Translator(_KernelTranslator):
    """Turns Responses stream events into stream events, one at a time."""

    __slots__ = ("errored", "next_index", "response", "wire_items")
    provider = API
    dicts_are_items = True

    def __init__(self) -> None:
        super().__init__()
        self.wire_items: dict[int, _Item] = {}
        self.next_index = 0
        self.response: Mapping[str, Any] = {}
        self.errored = False

    # -- input readers ----------------------------------------------------------------------

    @staticmethod
    def from_sse(sse: ServerSentEvent) -> Mapping[str, Any] | None:
        """The JSON of one SSE event; ``None`` for an empty event or a ``[DONE]`` line."""
        data = sse.data
        if not data or data.startswith("[DONE]"):
            return None
        try:
            event = json.loads(data)
        except ValueError as exc:
            raise WireFormatError(API, "stream event", f"data is not JSON: {exc}") from exc
        if not isinstance(event, dict):
            raise WireFormatError(API, "stream event", f"expected a JSON object, got {type(event).__name__}")
        if "type" not in event and sse.event:
            event["type"] = sse.event
        return event

    @staticmethod
    def from_object(item: Any) -> Mapping[str, Any] | None:
        """An SDK stream event (or a parsed one) as a dict."""
        if type(item) is dict:
            return item
        event = as_json(item)
        if not isinstance(event, dict):
            raise WireFormatError(API, "stream event", f"got {type(event).__name__}")
        return event

    @staticmethod
    def error_body(exc: Exception) -> Mapping[str, Any] | None:
        """A nested ``{"error": {...}}`` event the SDK raised as an ``APIError``, as an error event."""
        body = getattr(exc, "body", None)
        if not isinstance(body, dict):
            return None
        inner = body.get("error")
        error: dict[str, Any] = inner if isinstance(inner, dict) else body
        if "message" not in error and "code" not in error:
            return None
        return {"type": "error", "error": error}

    # -- events -----------------------------------------------------------------------------

    def feed(self, item: Mapping[str, Any]) -> tuple[StreamEvent, ...]:
        """The stream events one wire event stands for (often one, sometimes none)."""
        if self.finished:
            return _NONE
        kind = item.get("type")
        if kind == "response.output_text.delta" or kind == "response.reasoning_summary_text.delta" \
                or kind == "response.function_call_arguments.delta" \
                or kind == "response.reasoning_text.delta":
            event = self._delta(kind, item)
            if event is None:
                return _NONE
            self.acc.feed(event)
            return (event,)
        if kind in _STARTS:
            return self._start(item)
        if kind == "response.output_item.added":
            return self.emit(self._added(item))
        if kind == "response.content_part.added":
            return self.emit(self._content_added(item))
        if kind == "response.reasoning_summary_part.added":
            return self.emit(self._summary_added(item))
        if kind == "response.output_item.done":
            return self.emit(self._item_done(item))
        if kind in _TERMINAL:
            return self._terminal(item)
        if kind == "error":
            return self._error(item)
        if kind == "response.refusal.delta":
            return self.emit(self._refusal_delta(item))
        if kind == "response.custom_tool_call_input.delta":
            return self.emit(self._custom_delta(item))
        return _NONE  # done events repeat the deltas; tool progress events carry no content

    def finish(self) -> tuple[StreamEvent, ...]:
        """End of input: the message as it stands (partial when no terminal event came)."""
        if self.finished:
            return _NONE
        self.finished = True
        return (*self.emit([]), self.complete(whole=self.errored))

    # -- the parts of items -----------------------------------------------------------------

    def _new_index(self) -> int:
        index = self.next_index
        self.next_index += 1
        return index

    def _item(self, wire: Mapping[str, Any]) -> _Item | None:
        index = wire.get("output_index")
        return self.wire_items.get(index) if isinstance(index, int) else None

    def _start(self, wire: Mapping[str, Any]) -> tuple[StreamEvent, ...]:
        response = wire.get("response")
        if self.started or not isinstance(response, dict):
            return _NONE
        self.response = response
        model = response.get("model")
        ident = response.get("id")
        return self.emit([self.start_event(
            response_id=ident if isinstance(ident, str) else None,
            model=f"{ISSUER}:{model}" if isinstance(model, str) and model else None,
            provider=ISSUER, api=API)])

    def _added(self, wire: Mapping[str, Any]) -> list[StreamEvent]:
        index = wire.get("output_index")
        raw = wire.get("item")
        if not isinstance(index, int) or not isinstance(raw, dict):
            return []
        item = self.wire_items[index] = _Item(raw)
        if item.kind == "reasoning":
            part = self._new_index()
            item.parts[0] = part
            ident = raw.get("id")
            return [_streaming.PartEvent(part, ThinkingPart(id=ident if isinstance(ident, str) else None))]
        if item.kind in ("function_call", "custom_tool_call"):
            name = raw.get("name")
            call_id = raw.get("call_id")
            if not isinstance(name, str):
                return []
            part = self._new_index()
            item.parts[0] = part
            item.tool_id = new_tool_call_id()
            item.call_id = call_id if isinstance(call_id, str) else None
            return [_streaming.ToolCallStartEvent(part, item.tool_id, name,
                                                  {ISSUER: call_id} if isinstance(call_id, str) else {})]
        if item.kind == "message":
            return []  # its parts open with content_part.added
        # A provider-run item: its in-progress state holds its place until it is done.
        events: list[StreamEvent] = []
        for n, placeholder in enumerate(item_parts(raw)):
            item.parts[n] = self._new_index()
            events.append(_streaming.PartEvent(item.parts[n], placeholder))
        return events

    def _content_added(self, wire: Mapping[str, Any]) -> list[StreamEvent]:
        item = self._item(wire)
        content_index = wire.get("content_index")
        if item is None or item.kind != "message" or not isinstance(content_index, int):
            return []
        index = item.parts[content_index] = self._new_index()
        part = wire.get("part")
        if isinstance(part, dict) and part.get("type") == "refusal":
            return [_streaming.PartEvent(index, RefusalPart(text=""))]  # refusals arrive whole, at done
        return [_streaming.PartEvent(index, TextPart(text=""))]

    def _summary_added(self, wire: Mapping[str, Any]) -> list[StreamEvent]:
        item = self._item(wire)
        if item is None or item.kind != "reasoning":
            return []
        item.summaries += 1
        if item.summaries > 1:
            return [_streaming.ThinkingDeltaEvent(item.parts[0], "\n\n")]  # how the decoder joins summaries
        return []

    def _delta(self, kind: str, wire: Mapping[str, Any]) -> StreamEvent | None:
        item = self._item(wire)
        delta = wire.get("delta")
        if item is None or not isinstance(delta, str) or item.done:
            return None
        if kind == "response.output_text.delta":
            content_index = wire.get("content_index", 0)
            if not isinstance(content_index, int):
                return None
            part = item.parts.get(content_index)
            if part is None:
                part = item.parts[content_index] = self._new_index()
            return _streaming.TextDeltaEvent(part, delta)
        if kind == "response.function_call_arguments.delta":
            part = item.parts.get(0)
            return _streaming.ToolCallDeltaEvent(part, delta) if part is not None and item.tool_id else None
        part = item.parts.get(0)
        if part is None:
            return None
        if kind == "response.reasoning_text.delta" and item.summaries:
            return None  # the thinking text is the summary; raw reasoning text comes whole at done
        return _streaming.ThinkingDeltaEvent(part, delta)

    def _refusal_delta(self, wire: Mapping[str, Any]) -> list[StreamEvent]:
        """A refusal grows: the part is re-sent whole (there is no refusal delta event)."""
        item = self._item(wire)
        delta = wire.get("delta")
        content_index = wire.get("content_index", 0)
        if item is None or item.done or not isinstance(delta, str) or not isinstance(content_index, int):
            return []
        index = item.parts.get(content_index)
        if index is None:
            index = item.parts[content_index] = self._new_index()
        text = item.refusals[content_index] = item.refusals.get(content_index, "") + delta
        return [_streaming.PartEvent(index, RefusalPart(text=text))]

    def _custom_delta(self, wire: Mapping[str, Any]) -> list[StreamEvent]:
        """A custom tool's free-text input, streamed as the arguments ``{"input": ...}`` it becomes."""
        item = self._item(wire)
        delta = wire.get("delta")
        if item is None or item.done or item.tool_id is None or not isinstance(delta, str):
            return []
        # JSON escapes character by character, so the escaped pieces join to the escaped whole.
        piece = json.dumps(delta, ensure_ascii=False)[1:-1]
        if not item.started:
            item.started = True
            piece = '{"input": "' + piece
        return [_streaming.ToolCallDeltaEvent(item.parts[0], piece)]

    def _item_done(self, wire: Mapping[str, Any]) -> list[StreamEvent]:
        index = wire.get("output_index")
        raw = wire.get("item")
        if not isinstance(index, int) or not isinstance(raw, dict):
            return []
        item = self.wire_items.get(index)
        if item is None:
            item = self.wire_items[index] = _Item(raw)
        item.wire = raw
        item.done = True
        return self._settle(item, item_parts(raw))

    def _settle(self, item: _Item, parts: list[Part]) -> list[StreamEvent]:
        """Replace what the deltas of ``item`` built by its authoritative parts."""
        events: list[StreamEvent] = []
        first = parts[0] if len(parts) == 1 else None
        if item.tool_id is not None and isinstance(first, ToolCallPart):
            index = item.parts[0]
            events.append(_streaming.PartEvent(index, first.model_copy(update={"id": item.tool_id})))
            events.append(_streaming.ToolCallEndEvent(index))
            return events
        slots = [item.parts[k] for k in sorted(item.parts)]
        placed: dict[int, int] = {}
        for n, part in enumerate(parts):
            index = placed[n] = slots[n] if n < len(slots) else self._new_index()
            events.append(_streaming.PartEvent(index, part))
        item.parts = placed
        return events

    # -- the end ----------------------------------------------------------------------------

    def _terminal(self, wire: Mapping[str, Any]) -> tuple[StreamEvent, ...]:
        response = wire.get("response")
        response = response if isinstance(response, dict) else {}
        events: list[StreamEvent] = []
        if not self.started:
            events.extend(self._start({"response": response}))
        output = response.get("output")
        if isinstance(output, list):
            # The final output is what a whole response says: its items replace the streamed
            # ones (the server may re-encrypt reasoning, fill in call ids, finish a status).
            for index, raw in enumerate(output):
                if not isinstance(raw, dict):
                    continue
                item = self.wire_items.get(index)
                if item is None:
                    item = self.wire_items[index] = _Item(raw)
                elif item.done and item.wire == raw:
                    continue
                item.wire = raw
                item.done = True
                events.extend(self._settle(item, item_parts(raw)))
        else:
            output = [self.wire_items[i].wire for i in sorted(self.wire_items)]
        body = {**response, "output": output}
        reason, raw_reason, _ = stop_reason(body, [o for o in output if isinstance(o, dict)])
        usage = response.get("usage")
        if isinstance(usage, dict):
            events.append(_streaming.UsageEvent(usage_from_wire(usage)))
        marks = response_marks(response)
        events.append(_streaming.StopEvent(reason, raw_reason, marks_pd({"response": marks}) if marks else None))
        if response.get("status") == "failed" and not self.errored:
            error = response.get("error")
            error = error if isinstance(error, dict) else {}
            events.append(self._error_event(error))
        self.finished = True
        emitted = self.emit(events)
        if response.get("status") == "cancelled":
            self.acc.abort()  # cancelled on the server: the user's interrupt
        if response.get("status") in ("in_progress", "queued", "cancelled"):
            return (*emitted, self.complete(whole=False))
        return (*emitted, self.complete())

    def _error_event(self, error: Mapping[str, Any]) -> _streaming.StreamErrorEvent:
        code = error.get("code")
        code = code if isinstance(code, str) else (str(code) if code is not None else None)
        return _streaming.StreamErrorEvent(ErrorEvent(
            code=code or (error.get("type") if isinstance(error.get("type"), str) else None),
            message=str(error.get("message", "")), provider=ISSUER,
            retryable=error_retryable(code)))

    def _error(self, wire: Mapping[str, Any]) -> tuple[StreamEvent, ...]:
        # The stream may still send response.failed with the final state: it is not over yet.
        if self.errored:
            return _NONE
        self.errored = True
        inner = wire.get("error")
        return self.emit([self._error_event(inner if isinstance(inner, dict) else wire)])
