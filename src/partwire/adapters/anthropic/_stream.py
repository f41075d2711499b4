"""Anthropic stream -> neutral stream events, folded by the shared accumulator as they go.

Input is raw SSE (bytes or text, whole or in chunks), parsed JSON events, or the SDK's event
objects. Text, thinking, signatures, citations and client tool calls stream as deltas; blocks
without useful deltas (server tools, redacted thinking, compaction, unknown types) are buffered
and arrive complete as one ``PartEvent`` at their ``content_block_stop``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from partwire import streaming as _streaming
from partwire._base import ProviderData
from partwire._json import SHAPE_ERRORS, as_json, json_text
from partwire.adapters._kernel import Translator as _KernelTranslator
from partwire.adapters._sse import ServerSentEvent
from partwire.adapters.anthropic._decode import citation_from_wire, part_from_wire
from partwire.adapters.anthropic._wire import (
    API,
    ISSUER,
    RETRYABLE_ERRORS,
    SERVER_CALL_TYPES,
    STOP_REASONS,
    usage_from_wire,
)
from partwire.errors import WireFormatError
from partwire.history import ErrorEvent
from partwire.ids import new_tool_call_id
from partwire.parts import Opaque, TextPart, ThinkingPart
from partwire.streaming import StreamEvent

__all__ = ["Translator"]

_MESSAGE_FIELDS = frozenset({"id", "type", "role", "model", "content", "stop_reason", "usage"})
_NONE: tuple[StreamEvent, ...] = ()
# The usual opening states of text and thinking blocks, and their parts (immutable, so shared).
_TEXT_START = {"type": "text", "text": ""}
_THINKING_START = {"type": "thinking", "thinking": "", "signature": ""}
_EMPTY_TEXT = TextPart(text="")
_EMPTY_THINKING = ThinkingPart(text="")


class _Tool:
    __slots__ = ("empty", "start_input")

    def __init__(self, start_input: Any) -> None:
        self.start_input = start_input
        self.empty = True


class _Pending:
    __slots__ = ("block", "json")

    def __init__(self, block: dict[str, Any]) -> None:
        self.block = block
        self.json: list[str] = []


class Translator(_KernelTranslator):
    """Turns wire events into stream events, one at a time, and keeps the message they build."""

    __slots__ = ("cited", "ignored", "pending", "tools", "untyped", "usage")
    provider = API
    dicts_are_items = True

    def __init__(self) -> None:
        super().__init__()
        # Rare: raw citations by block (a kind this version cannot type keeps the block's raw
        # list, as from_wire does), and delta types this version does not know.
        self.cited: dict[int, list[Any]] = {}
        self.untyped: set[int] = set()
        self.ignored: list[str] = []
        self.tools: dict[int, _Tool] = {}
        self.pending: dict[int, _Pending] = {}
        self.usage: dict[str, Any] = {}

    @staticmethod
    def from_sse(sse: ServerSentEvent) -> Mapping[str, Any] | None:
        """The wire event of one server-sent event (``None`` for pings)."""
        return _sse_event(sse)

    @staticmethod
    def from_object(item: Any) -> Mapping[str, Any] | None:
        """The wire event of a parsed JSON event or an SDK event object."""
        return _dict_or_object(item)

    @staticmethod
    def error_body(exc: Exception) -> Mapping[str, Any] | None:
        """The ``error`` event of an exception the SDK raised for one."""
        return _error_body(exc)

    def feed(self, wire: Mapping[str, Any]) -> tuple[StreamEvent, ...]:
        """The stream events one wire event stands for (often one, sometimes none)."""
        if self.finished:
            return _NONE
        kind = wire.get("type")
        if kind == "content_block_delta":
            event = self.delta(wire)
            return _NONE if event is None else (event,)
        if kind == "content_block_start":
            return self._emit(self._block_start(wire))
        if kind == "content_block_stop":
            return self._emit(self._block_stop(wire["index"]))
        if kind == "message_start":
            return self._emit(self._message_start(wire))
        if kind == "message_delta":
            return self._emit(self._message_delta(wire))
        if kind == "message_stop":
            self.finished = True
            flushed = self._emit(self._flush())
            return (*flushed, self._complete())
        if kind == "error":
            return self._error(wire)
        # ping, the SDK's helper events (text, input_json, ...: they repeat the raw events), and
        # event types this version does not know.
        return _NONE

    def delta(self, wire: Mapping[str, Any]) -> StreamEvent | None:
        """The event for one ``content_block_delta``, already folded: the hot path of a stream."""
        if self.finished:
            return None
        delta = wire["delta"]
        kind = delta.get("type")
        index: int = wire["index"]
        event: StreamEvent
        if kind == "text_delta":
            event = _streaming.TextDeltaEvent(index, delta["text"])
        elif kind == "input_json_delta":
            piece = delta.get("partial_json")
            tool = self.tools.get(index)
            if tool is None:
                pending = self.pending.get(index)
                if pending is not None and piece:
                    pending.json.append(piece)
                return None
            if not piece:
                return None
            tool.empty = False
            event = _streaming.ToolCallDeltaEvent(index, piece)
        elif kind == "thinking_delta":
            event = _streaming.ThinkingDeltaEvent(index, delta["thinking"])
        elif kind == "signature_delta":
            event = _streaming.SignatureEvent(index, Opaque(value=delta["signature"], issuer=ISSUER))
        elif kind == "citations_delta":
            raw = delta.get("citation")
            self.cited.setdefault(index, []).append(raw)
            try:
                event = _streaming.CitationEvent(index, citation_from_wire(raw))
            except SHAPE_ERRORS:
                self.untyped.add(index)  # the block is rebuilt from its raw citations at its stop
                return None
        else:
            if kind == "compaction_delta" and index in self.pending:
                # The beta SDK replaces both fields on every compaction delta; so do we.
                block = self.pending[index].block
                block["content"] = delta.get("content")
                block["encrypted_content"] = delta.get("encrypted_content")
            elif index not in self.pending:
                # Not dropped in silence: the message's echo state names what was not read.
                self.ignored.append(str(kind))
            return None
        self.acc.feed(event)
        return event

    def finish(self) -> tuple[StreamEvent, ...]:
        """End of input: a stream cut short still yields what arrived, as a partial message."""
        if self.finished:
            return _NONE
        self.finished = True
        flushed = self._emit(self._flush())
        return (*flushed, self.complete(whole=False))

    def _emit(self, events: list[StreamEvent]) -> tuple[StreamEvent, ...]:
        return self.emit(events)

    def _complete(self) -> _streaming.MessageCompleteEvent:
        return self.complete()

    def _block_start(self, wire: Mapping[str, Any]) -> list[StreamEvent]:
        index: int = wire["index"]
        block = wire["content_block"]
        kind = block.get("type")
        if kind == "tool_use":
            extras = {k: v for k, v in block.items() if k not in ("type", "id", "name", "input")}
            self.tools[index] = _Tool(block.get("input"))
            return [_streaming.ToolCallStartEvent(
                index, new_tool_call_id(), block["name"], {ISSUER: block["id"]},
                ProviderData(issuer=ISSUER, data={"block": extras}) if extras else None)]
        if kind == "thinking":
            if block == _THINKING_START:
                return [_streaming.PartEvent(index, _EMPTY_THINKING)]
            text, signature = block.get("thinking"), block.get("signature")
            if isinstance(text, str):
                # The start's "signature": "" is a placeholder for the signature_delta to come;
                # an unsigned part must not echo it if the stream stops before that delta.
                extras = {k: v for k, v in block.items() if k not in ("type", "thinking", "signature")}
                return [_streaming.PartEvent(index, ThinkingPart(
                    text=text,
                    signature=Opaque(value=signature, issuer=ISSUER) if isinstance(signature, str)
                    and signature else None,
                    provider_data=ProviderData(issuer=ISSUER, data={"block": extras}) if extras else None,
                ))]
        elif kind == "text":
            if block == _TEXT_START:
                return [_streaming.PartEvent(index, _EMPTY_TEXT)]
            part = part_from_wire(block)
            if isinstance(part, TextPart):
                return [_streaming.PartEvent(index, part)]
        self.pending[index] = _Pending(dict(block))
        return []

    def _block_stop(self, index: int) -> list[StreamEvent]:
        if index in self.untyped:
            return [self._raw_citations(index)]
        tool = self.tools.pop(index, None)
        if tool is not None:
            if not tool.empty:
                return [_streaming.ToolCallEndEvent(index)]
            # No argument fragments: the API's input is the start's ({} in practice).
            start = tool.start_input if tool.start_input is not None else {}
            return [_streaming.ToolCallDeltaEvent(index, json_text(start)),
                    _streaming.ToolCallEndEvent(index)]
        pending = self.pending.pop(index, None)
        return [] if pending is None else [_pending_part(index, pending)]

    def _raw_citations(self, index: int) -> _streaming.PartEvent:
        """The text block whose citations include a kind this version cannot type, as from_wire
        reads it: text and every citation kept raw."""
        self.untyped.discard(index)
        built = self.acc.part(index)
        text = built.text if isinstance(built, TextPart) else ""
        return _streaming.PartEvent(index, part_from_wire(
            {"type": "text", "text": text, "citations": self.cited.pop(index, [])}))

    def _flush(self) -> list[StreamEvent]:
        events: list[StreamEvent] = [_pending_part(i, p) for i, p in self.pending.items()]
        self.pending.clear()
        return events

    def _message_start(self, wire: Mapping[str, Any]) -> list[StreamEvent]:
        message = wire.get("message")
        message = message if isinstance(message, dict) else {}
        model = message.get("model")
        rest = {k: v for k, v in message.items() if k not in _MESSAGE_FIELDS}
        events: list[StreamEvent] = [self.start_event(
            response_id=message.get("id"), model=f"{ISSUER}:{model}" if model else None,
            provider=ISSUER, api=API,
            provider_data=ProviderData(issuer=ISSUER, data={"response": rest}) if rest else None,
        )]
        usage = message.get("usage")
        if isinstance(usage, dict):
            self.usage = dict(usage)
            events.append(_streaming.UsageEvent(usage_from_wire(self.usage)))
        raw = message.get("stop_reason")
        if isinstance(raw, str):
            # A replayed turn (programmatic tool calling) can start already stopped.
            events.append(_streaming.StopEvent(STOP_REASONS.get(raw), raw))
        # Blocks can come whole inside message_start (programmatic tool calling replays them).
        content = message.get("content")
        if content is not None and not isinstance(content, list):
            # As from_wire refuses it: a string would otherwise be read one character a block.
            raise WireFormatError(ISSUER, "stream event", "it has no content list", "message.content")
        for index, block in enumerate(content or ()):
            if isinstance(block, dict) and block.get("type") == "tool_use":
                events += self._block_start({"index": index, "content_block": block})
                events += self._block_stop(index)
            else:
                events.append(_streaming.PartEvent(index, part_from_wire(block)))
        return events

    def _message_delta(self, wire: Mapping[str, Any]) -> list[StreamEvent]:
        delta = wire.get("delta")
        delta = delta if isinstance(delta, dict) else {}
        raw = delta.get("stop_reason")
        rest = {k: v for k, v in delta.items() if k != "stop_reason"}
        if rest.get("container", ...) is None:
            del rest["container"]  # the SDK keeps the start's container unless a new one comes
        rest.update({k: v for k, v in wire.items()
                     if k not in ("type", "delta", "usage") and v is not None})
        data: dict[str, Any] = {"response": rest} if rest else {}
        if self.ignored:
            data["stream"] = {"ignored_deltas": list(self.ignored)}
        events: list[StreamEvent] = [_streaming.StopEvent(
            STOP_REASONS.get(raw) if isinstance(raw, str) else None, raw,
            ProviderData(issuer=ISSUER, data=data) if data else None,
        )]
        usage = wire.get("usage")
        if isinstance(usage, dict):
            # Cumulative totals: overwrite. Optional counts left out mean "unchanged".
            merged = self.usage
            for key, value in usage.items():
                if value is not None or key == "output_tokens":
                    merged[key] = value
            events.append(_streaming.UsageEvent(usage_from_wire(merged)))
        return events

    def _error(self, wire: Mapping[str, Any]) -> tuple[StreamEvent, ...]:
        error = wire.get("error")
        error = error if isinstance(error, dict) else {}
        code = error.get("type")
        event = _streaming.StreamErrorEvent(ErrorEvent(
            code=code if isinstance(code, str) else None, message=str(error.get("message", "")),
            provider=ISSUER, retryable=code in RETRYABLE_ERRORS,
        ))
        self.finished = True
        first = self._emit([event])
        flushed = self._emit(self._flush())
        return (*first, *flushed, self._complete())


def _pending_part(index: int, pending: _Pending) -> _streaming.PartEvent:
    block = pending.block
    text = "".join(pending.json)
    if text and block.get("type") in SERVER_CALL_TYPES:
        try:
            block["input"] = json.loads(text)
        except ValueError:
            block["input"] = text  # truncated input is kept as its text, not discarded
    return _streaming.PartEvent(index, part_from_wire(block))


# -- inputs ---------------------------------------------------------------------------------


def _dict_or_object(item: Any) -> Mapping[str, Any]:
    return item if type(item) is dict else _object_event(item)


def _object_event(item: Any) -> Mapping[str, Any]:
    event = as_json(item)
    if not isinstance(event, dict):
        raise WireFormatError(ISSUER, "stream event", f"got {type(event).__name__}")
    return event


def _error_body(exc: Exception) -> dict[str, Any] | None:
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return {"type": "error", "error": body["error"]}
    return None


def _sse_event(sse: ServerSentEvent) -> Mapping[str, Any] | None:
    if sse.event == "ping" or not sse.data:
        return None
    try:
        data = json.loads(sse.data)
    except ValueError as exc:
        if sse.event == "error":
            return {"type": "error", "error": {"type": None, "message": sse.data}}
        raise WireFormatError(ISSUER, "stream event", f"data is not JSON: {sse.data[:80]!r}") from exc
    if not isinstance(data, dict):
        raise WireFormatError(ISSUER, "stream event", f"data is a JSON {type(data).__name__}")
    if sse.event == "error" and data.get("type") != "error":
        return {"type": "error", "error": data.get("error", data)}
    return data
