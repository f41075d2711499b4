"""ConverseStream -> neutral stream events, folded by the shared accumulator as they go.

Input is what boto3's ``converse_stream`` returns (the response dict, or its ``stream``), the
event dicts it yields (``{"contentBlockDelta": {...}}``), or the raw HTTP body: AWS event stream
bytes (``_eventstream``), whole or in chunks. Text, reasoning, signatures, citations and tool
calls stream as deltas; blocks without useful deltas (redacted reasoning, server tool results,
images) are buffered and arrive complete as one ``PartEvent`` at their ``contentBlockStop``.
``metadata`` (usage, metrics, trace) follows ``messageStop`` and ends the stream.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterable, AsyncIterator, Iterator, Mapping
from typing import Any

from partwire import streaming as _streaming
from partwire._base import ProviderData
from partwire._json import SHAPE_ERRORS, as_json, json_text
from partwire.adapters._kernel import Translator as _KernelTranslator
from partwire.adapters._sse import ServerSentEvent
from partwire.adapters.bedrock._decode import (
    OWN_REASONING,
    BlobReader,
    citation_from_wire,
    model_name,
    part_from_wire,
)
from partwire.adapters.bedrock._eventstream import EventStreamDecoder
from partwire.adapters.bedrock._wire import (
    API,
    ISSUER,
    RETRYABLE_ERRORS,
    STOP_REASONS,
    STREAM_ERRORS,
    blob_text,
    usage_from_wire,
)
from partwire.errors import WireFormatError
from partwire.history import ErrorEvent
from partwire.ids import new_tool_call_id
from partwire.parts import Opaque, ThinkingPart
from partwire.streaming import StreamEvent

__all__ = ["Translator"]

_NONE: tuple[StreamEvent, ...] = ()
# Keys of metadata (besides usage) kept with the message, as a whole response keeps them.
_PADDING = "p"  # the server pads every event with "p": "abcd..." (length hiding); never data


class _Pending:
    """A block buffered until its stop: its start member and the deltas that came for it."""

    __slots__ = ("deltas", "start")

    def __init__(self, start: dict[str, Any]) -> None:
        self.start = start
        self.deltas: list[dict[str, Any]] = []


class Translator(_KernelTranslator):
    """Turns ConverseStream items into stream events, one at a time."""

    __slots__ = ("model", "pending", "request_id", "stop", "stopped", "tools")
    provider = API
    dicts_are_items = True

    def __init__(self, model_id: str | None = None) -> None:
        super().__init__()
        self.model = model_name(model_id)
        self.tools: dict[int, bool] = {}  # index -> whether argument fragments came
        self.pending: dict[int, _Pending] = {}
        self.stop: tuple[Any, str | None] = (None, None)
        self.stopped = False
        self.request_id: str | None = None

    # -- inputs -----------------------------------------------------------------------------

    @staticmethod
    def from_sse(sse: ServerSentEvent) -> Mapping[str, Any] | None:  # pragma: no cover
        """ConverseStream is never SSE; raw bytes are the AWS event stream (see :meth:`items`)."""
        raise WireFormatError(API, "stream", "ConverseStream bodies are AWS event streams, not SSE")

    @staticmethod
    def from_object(item: Any) -> Mapping[str, Any] | None:
        """The item of one event dict (boto3's) or an object with the same JSON."""
        event = item if type(item) is dict else as_json(item)
        if not isinstance(event, dict):
            raise WireFormatError(API, "stream event", f"got {type(event).__name__}")
        return event

    @staticmethod
    def error_body(exc: Exception) -> Mapping[str, Any] | None:
        """The exception item of botocore's ``EventStreamError`` (an exception event it raised)."""
        response = getattr(exc, "response", None)
        error = response.get("Error") if isinstance(response, dict) else None
        if not isinstance(error, dict):
            return None
        code = str(error.get("Code") or "error")
        return {code[:1].lower() + code[1:]: {"message": str(error.get("Message") or "")}}

    def items(self, chunks: Any) -> Iterator[Mapping[str, Any]]:
        """Items from boto3's response or its stream, event dicts, or event stream bytes."""
        chunks = self._unwrap(chunks)
        if isinstance(chunks, bytes | bytearray | memoryview):
            chunks = (chunks,)
        source = iter(chunks)
        first = next(source, None)
        if first is None:
            return
        if isinstance(first, bytes | bytearray | memoryview):
            decoder = EventStreamDecoder()
            yield from decoder.feed(first)
            for chunk in source:
                yield from decoder.feed(chunk)
            decoder.flush()
            return
        try:
            for raw in _chain(first, source):
                item = self.from_object(raw)
                if item is not None:
                    yield item
        except Exception as exc:
            error = self.error_body(exc)
            if error is None:
                raise
            yield error

    async def _aitems(self, chunks: Any) -> AsyncIterator[Mapping[str, Any]]:
        chunks = self._unwrap(chunks)
        decoder: EventStreamDecoder | None = None
        try:
            async for raw in chunks:
                if isinstance(raw, bytes | bytearray | memoryview):
                    decoder = decoder or EventStreamDecoder()
                    for item in decoder.feed(raw):
                        yield item
                    continue
                found = self.from_object(raw)
                if found is not None:
                    yield found
        except WireFormatError:
            raise
        except Exception as exc:
            error = self.error_body(exc)
            if error is None:
                raise
            yield error
        if decoder is not None:
            decoder.flush()

    def aitems(self, chunks: AsyncIterable[Any]) -> AsyncIterator[Mapping[str, Any]]:
        """:meth:`items` over an asynchronous source."""
        return self._aitems(chunks)

    def _unwrap(self, chunks: Any) -> Any:
        """boto3's response dict: its ``stream``, with the request id as the response id."""
        if isinstance(chunks, dict) and "stream" in chunks:
            meta = chunks.get("ResponseMetadata")
            request_id = meta.get("RequestId") if isinstance(meta, dict) else None
            self.request_id = request_id if isinstance(request_id, str) else None
            return chunks["stream"]
        return chunks

    # -- items ------------------------------------------------------------------------------

    def feed(self, wire: Mapping[str, Any]) -> tuple[StreamEvent, ...]:
        """The stream events one item stands for (often one, sometimes none)."""
        if self.finished:
            return _NONE
        delta = wire.get("contentBlockDelta")
        if delta is not None:
            event = self.delta(delta)
            if event is None:
                return _NONE
            if not self.started:
                return self.emit([event])
            self.acc.feed(event)
            return (event,)
        for member, body in wire.items():
            body = body if isinstance(body, dict) else {}
            if member == "contentBlockStart":
                return self.emit(self._block_start(body))
            if member == "contentBlockStop":
                return self.emit(self._block_stop(body["contentBlockIndex"]))
            if member == "messageStart":
                return self.emit([self._start(body)])
            if member == "messageStop":
                return self.emit(self._message_stop(body))
            if member == "metadata":
                return self._metadata(body)
            if member in STREAM_ERRORS or member.endswith(("Exception", "exception")):
                return self._error(member, body)
        return _NONE  # a member this version does not know (the model may add some)

    def _start(self, body: Mapping[str, Any]) -> StreamEvent:
        rest = {k: v for k, v in body.items() if k not in ("role", _PADDING)}
        return self.start_event(provider=ISSUER, api=API, response_id=self.request_id, model=self.model,
                                provider_data=ProviderData(issuer=ISSUER, data={"response": rest})
                                if rest else None)

    def delta(self, body: Mapping[str, Any]) -> StreamEvent | None:
        """The event for one ``contentBlockDelta`` (not folded yet): the hot path of a stream."""
        index: int = body["contentBlockIndex"]
        delta = body["delta"]
        event: StreamEvent
        text = delta.get("text")
        if text is not None:
            event = _streaming.TextDeltaEvent(index, text)
        elif "toolUse" in delta:
            piece = delta["toolUse"].get("input")
            if index in self.tools:
                if not piece:
                    return None
                self.tools[index] = True
                event = _streaming.ToolCallDeltaEvent(index, piece)
            else:
                self._pend(index, delta)
                return None
        elif "reasoningContent" in delta:
            reasoning = delta["reasoningContent"]
            if "text" in reasoning:
                event = _streaming.ThinkingDeltaEvent(index, reasoning["text"])
            elif "signature" in reasoning:
                event = _streaming.SignatureEvent(index, Opaque(value=reasoning["signature"], issuer=ISSUER))
            else:
                self._pend(index, delta)  # redactedContent: one block, sent whole at its stop
                return None
        elif "citation" in delta:
            try:
                event = _streaming.CitationEvent(index, citation_from_wire(delta["citation"]))
            except SHAPE_ERRORS:
                self._pend(index, delta)
                return None
        else:
            self._pend(index, delta)
            return None
        return event

    def _pend(self, index: int, delta: dict[str, Any]) -> None:
        pending = self.pending.get(index)
        if pending is None:
            pending = self.pending[index] = _Pending({})
        pending.deltas.append(delta)

    def _block_start(self, body: Mapping[str, Any]) -> list[StreamEvent]:
        index: int = body["contentBlockIndex"]
        start = body.get("start") or {}
        tool = start.get("toolUse")
        if isinstance(tool, dict) and tool.get("type") != "server_tool_use":
            extras = {k: v for k, v in tool.items() if k not in ("toolUseId", "name")}
            self.tools[index] = False
            return [_streaming.ToolCallStartEvent(
                index, new_tool_call_id(), tool["name"], {ISSUER: tool["toolUseId"]},
                ProviderData(issuer=ISSUER, data={"block": extras}) if extras else None)]
        self.pending[index] = _Pending(dict(start))
        return []

    def _block_stop(self, index: int) -> list[StreamEvent]:
        fragments = self.tools.pop(index, None)
        if fragments is not None:
            if fragments:
                return [_streaming.ToolCallEndEvent(index)]
            # No argument fragments: the whole response's input is {}.
            return [_streaming.ToolCallDeltaEvent(index, json_text({})),
                    _streaming.ToolCallEndEvent(index)]
        pending = self.pending.pop(index, None)
        if pending is not None:
            return [_streaming.PartEvent(index, _assembled(pending))]
        part = self.acc.part(index)
        if isinstance(part, ThinkingPart) and part.signature is None and part.provider_data is None:
            return [_streaming.PartDataEvent(index, OWN_REASONING)]
        return []

    def _message_stop(self, body: Mapping[str, Any]) -> list[StreamEvent]:
        raw = body.get("stopReason")
        rest = {k: v for k, v in body.items() if k not in ("stopReason", _PADDING)}
        self.stop = (STOP_REASONS.get(raw) if isinstance(raw, str) else None,
                     raw if isinstance(raw, str) else None)
        self.stopped = True
        flushed = self._flush()
        return [*flushed, _streaming.StopEvent(self.stop[0], self.stop[1],
                                               ProviderData(issuer=ISSUER, data={"response": rest})
                                               if rest else None)]

    def _metadata(self, body: Mapping[str, Any]) -> tuple[StreamEvent, ...]:
        events: list[StreamEvent] = []
        usage = body.get("usage")
        if isinstance(usage, dict):
            events.append(_streaming.UsageEvent(usage_from_wire(usage)))
        rest = {k: v for k, v in body.items() if k not in ("usage", _PADDING)}
        if rest:
            events.append(_streaming.StopEvent(self.stop[0], self.stop[1],
                                               ProviderData(issuer=ISSUER, data={"response": rest})))
        self.finished = True
        emitted = self.emit([*self._flush(), *events])
        return (*emitted, self.complete(whole=self.stopped))

    def _flush(self) -> list[StreamEvent]:
        events: list[StreamEvent] = [_streaming.PartEvent(i, _assembled(p))
                                     for i, p in self.pending.items()]
        self.pending.clear()
        return events

    def finish(self) -> tuple[StreamEvent, ...]:
        """End of input: a stream cut short still yields what arrived, as a partial message."""
        if self.finished:
            return _NONE
        self.finished = True
        flushed = self.emit(self._flush())
        return (*flushed, self.complete(whole=self.stopped))

    def _error(self, member: str, body: Mapping[str, Any]) -> tuple[StreamEvent, ...]:
        status = body.get("originalStatusCode")
        event = _streaming.StreamErrorEvent(ErrorEvent(
            code=member, message=str(body.get("message", "")), provider=ISSUER,
            retryable=member in RETRYABLE_ERRORS,
            status=status if isinstance(status, int) and not isinstance(status, bool) else None))
        self.finished = True
        first = self.emit([event])
        flushed = self.emit(self._flush())
        return (*first, *flushed, self.complete())


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest


def _assembled(pending: _Pending) -> Any:
    """The block a buffered start and its deltas make, read as from a whole response."""
    start, deltas = pending.start, pending.deltas
    blobs = BlobReader()
    if "toolUse" in start:  # a server tool's call: input arrives as JSON text fragments
        text = "".join(d["toolUse"].get("input", "") for d in deltas if "toolUse" in d)
        try:
            arguments = json.loads(text) if text else {}
        except ValueError:
            arguments = text  # truncated input is kept as its text, not discarded
        return part_from_wire({"toolUse": {**start["toolUse"], "input": arguments}}, blobs)
    if "toolResult" in start:
        content = [item for d in deltas for item in d.get("toolResult", ())]
        return part_from_wire({"toolResult": {**start["toolResult"], "content": content}}, blobs)
    if "image" in start:
        member = dict(start["image"])
        for d in deltas:
            member.update(d.get("image", {}))
        return part_from_wire({"image": member}, blobs)
    redacted = [d["reasoningContent"]["redactedContent"] for d in deltas
                if "redactedContent" in d.get("reasoningContent", {})]
    if redacted and len(redacted) == len(deltas):
        data = b"".join(r if isinstance(r, bytes) else base64.b64decode(r) for r in redacted)
        return part_from_wire({"reasoningContent": {"redactedContent": blob_text(data)}}, blobs)
    return part_from_wire(start or {"delta": deltas}, blobs)
