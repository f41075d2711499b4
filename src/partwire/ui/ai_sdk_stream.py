"""Canonical stream events as the AI SDK's UI message stream (``useChat``'s protocol), and back.

Out: :func:`to_stream` turns the :class:`~partwire.streaming.StreamEvent` of any adapter's
``stream`` into UI message stream chunks (``start``, ``text-delta``, ``reasoning-delta``,
``tool-input-start``/``-delta``/``-available``, ``tool-output-available``, ``error``,
``finish``...), and :func:`sse` frames chunks as the protocol's server-sent events; send them
with :data:`HEADERS`. A text or reasoning part ends (``text-end``, ``reasoning-end``) when the
message completes, carrying its signature in ``providerMetadata`` as the UIMessage format does;
``finish`` carries the finish reason and, under ``messageMetadata.partwire``, the message's
usage, model and the rest of its fields. Nothing here depends on a web framework: a generator of
strings is what every ASGI or WSGI server streams.

In: :func:`from_stream` reads a recorded UI message stream (SSE text, or chunks) into canonical
messages: what partwire wrote comes back equal to the stream's accumulated message.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import Any

from partwire import parts as _parts
from partwire import streaming as _streaming
from partwire.history import ErrorEvent, HistoryEvent
from partwire.messages import AssistantMessage, ToolMessage
from partwire.projection import Loss
from partwire.ui import _common, ai_sdk
from partwire.ui._ai_sdk_parts import DATA_PART
from partwire.ui._common import CARRIER, Converted, bad

__all__ = ["DONE", "FORMAT", "HEADERS", "afrom_stream", "asse", "ato_stream", "from_stream",
           "read_ui_message", "sse", "to_stream", "tool_output"]

FORMAT = "ai-sdk-ui-stream"
"""The format's name in the errors and losses it reports."""
HEADERS: Mapping[str, str] = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "connection": "keep-alive",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",
}
"""The response headers of a UI message stream (the SDK's ``UI_MESSAGE_STREAM_HEADERS``)."""
DONE = "data: [DONE]\n\n"
"""The last event of a UI message stream."""

_FINISH = {"stop": "stop", "length": "length", "tool_use": "tool-calls",
           "content_filter": "content-filter", "refusal": "content-filter", "error": "error",
           "pause": "other", "aborted": "other"}
_STOP = {"stop": "stop", "length": "length", "tool-calls": "tool_use",
         "content-filter": "content_filter", "error": "error"}


# -- out ----------------------------------------------------------------------------------------


def sse(chunks: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """Each chunk as one server-sent event (``data: {json}`` and a blank line), then ``[DONE]``."""
    for chunk in chunks:
        yield f"data: {json.dumps(chunk, ensure_ascii=False, separators=(',', ':'))}\n\n"
    yield DONE


async def asse(chunks: AsyncIterable[Mapping[str, Any]]) -> AsyncIterator[str]:
    """:func:`sse` over an asynchronous stream of chunks."""
    async for chunk in chunks:
        yield f"data: {json.dumps(chunk, ensure_ascii=False, separators=(',', ':'))}\n\n"
    yield DONE


def to_stream(events: Iterable[_streaming.StreamEvent]) -> Iterator[dict[str, Any]]:
    """UI message stream chunks for the events of one provider stream (one assistant message)."""
    writer = _Writer()
    for event in events:
        yield from writer.feed(event)
    yield from writer.close()


async def ato_stream(events: AsyncIterable[_streaming.StreamEvent]) -> AsyncIterator[dict[str, Any]]:
    """:func:`to_stream` over an asynchronous stream of events (an adapter's ``astream``)."""
    writer = _Writer()
    async for event in events:
        for chunk in writer.feed(event):
            yield chunk
    for chunk in writer.close():
        yield chunk


def tool_output(message: ToolMessage) -> dict[str, Any]:
    """The chunk that gives a tool call its output, for a server that runs the tool between two
    provider streams: ``tool-output-available`` (the structured ``data``, else the text),
    ``tool-output-error`` for ``error`` and ``aborted``, ``tool-output-denied`` for ``denied``."""
    extras = _common.strip(_common.event_json(message), ("call_id", "tool_name"))
    if message.status == "denied":
        return {"type": "tool-output-denied", "toolCallId": message.call_id}
    if message.status == "success":
        if message.data is None:
            extras.pop("output_text", None)
        output = message.data if message.data is not None else message.output_text
        return {"type": "tool-output-available", "toolCallId": message.call_id, "output": output,
                "providerMetadata": {CARRIER: {"result": extras}}}
    if message.output_text:
        extras.pop("output_text", None)
    else:
        extras["output_text"] = ""
    return {"type": "tool-output-error", "toolCallId": message.call_id,
            "errorText": message.output_text or f"the tool call was {message.status}",
            "providerMetadata": {CARRIER: {"result": extras}}}


class _Writer:
    """The chunks of one stream, event by event."""

    def __init__(self) -> None:
        self.acc = _streaming.Accumulator()
        self.order: list[int] = []  # stream indexes, in the order their parts opened
        self.open: dict[int, str] = {}  # index -> the UI chunk id of a text/reasoning part still open
        self.kinds: dict[int, str] = {}
        self.pending: dict[int, str] = {}
        self.deferred: list[int] = []  # indexes of whole parts not sent yet  # index -> id of a tool call whose input is not complete
        self.started = False
        self.finished = False
        self.folder = _Folder()  # what a reader folds from the chunks so far

    def emit(self, chunk: dict[str, Any]) -> dict[str, Any]:
        self.folder.feed(chunk, 0)
        return chunk

    def start(self) -> Iterator[dict[str, Any]]:
        if not self.started:
            self.started = True
            yield self.emit({"type": "start", "messageId": self.acc.message_id})
            yield self.emit({"type": "start-step"})

    def opened(self, index: int, kind: str) -> Iterator[dict[str, Any]]:
        if index not in self.kinds:
            self.order.append(index)
            self.kinds[index] = kind
            if kind in ("text", "reasoning"):
                self.open[index] = f"{kind}-{index}"
                yield self.emit({"type": f"{kind}-start", "id": self.open[index]})

    def feed(self, event: _streaming.StreamEvent) -> Iterator[dict[str, Any]]:
        if self.finished:
            return
        self.acc.feed(event)
        if not isinstance(event, _streaming.MessageStartEvent):
            yield from self.start()
        index = getattr(event, "index", None)
        if self.deferred and index is not None and index not in self.deferred:
            yield from self.flush()
        match event:
            case _streaming.MessageStartEvent():
                yield from self.start()
            case _streaming.TextDeltaEvent():
                yield from self.opened(event.index, "text")
                if event.text:
                    yield self.emit({"type": "text-delta", "id": self.open[event.index], "delta": event.text})
            case _streaming.ThinkingDeltaEvent():
                yield from self.opened(event.index, "reasoning")
                if event.text:
                    yield self.emit({"type": "reasoning-delta", "id": self.open[event.index],
                                     "delta": event.text})
            case _streaming.SignatureEvent():
                yield from self.opened(event.index, "reasoning")
            case _streaming.CitationEvent():
                yield from self.opened(event.index, "text")
            case _streaming.ToolCallStartEvent():
                yield from self.opened(event.index, "tool")
                self.pending[event.index] = event.id
                yield self.emit({"type": "tool-input-start", "toolCallId": event.id, "toolName": event.name})
            case _streaming.ToolCallDeltaEvent():
                if event.arguments_delta:
                    part = self.acc.part(event.index)
                    call_id = getattr(part, "id", "")
                    yield self.emit({"type": "tool-input-delta", "toolCallId": call_id,
                                     "inputTextDelta": event.arguments_delta})
            case _streaming.ToolCallEndEvent():
                part = self.acc.part(event.index)
                if part is not None and self.pending.pop(event.index, None) is not None:
                    yield from self.whole(part)
            case _streaming.PartEvent():
                if event.index in self.kinds:
                    # A part replaced in place: a provider-run call sent already is sent again
                    # (the SDK updates its input); others end with the message as they are then.
                    if self.kinds[event.index] == "whole" and event.index not in self.deferred \
                            and isinstance(event.part, _parts.ServerToolCallPart):
                        yield from self.whole(event.part)
                    return
                yield from self.begin(event.index, event.part)
            case _streaming.StreamErrorEvent():
                yield self.emit({"type": "error", "errorText": event.error.message})
            case _streaming.MessageCompleteEvent():
                yield from self.finish(event.message)
            case _streaming.UsageEvent() | _streaming.StopEvent() | _streaming.PartDataEvent():
                pass

    def begin(self, index: int, part: _parts.Part) -> Iterator[dict[str, Any]]:
        """A part that came whole: text, thinking and tool calls may still grow by deltas."""
        if isinstance(part, _parts.TextPart | _parts.ThinkingPart):
            kind = "text" if isinstance(part, _parts.TextPart) else "reasoning"
            yield from self.opened(index, kind)
            if part.text:
                yield self.emit({"type": f"{kind}-delta", "id": self.open[index], "delta": part.text})
        elif isinstance(part, _parts.ToolCallPart):
            yield from self.opened(index, "tool")
            self.pending[index] = part.id
            yield self.emit({"type": "tool-input-start", "toolCallId": part.id, "toolName": part.name})
            if part.arguments_json:
                yield self.emit({"type": "tool-input-delta", "toolCallId": part.id,
                                 "inputTextDelta": part.arguments_json})
        else:
            # Sent once the stream moves on: a provider may replace it meanwhile (a refusal or
            # a provider-run call that grows by whole updates).
            yield from self.opened(index, "whole")
            self.deferred.append(index)

    def flush(self, final: dict[int, _parts.Part] | None = None) -> Iterator[dict[str, Any]]:
        """Send the whole parts held back, as they stand now (or as the final message has them)."""
        for index in self.deferred:
            part = (final or {}).get(index) or self.acc.part(index)
            if part is not None:
                yield from self.whole(part)
        self.deferred = []

    def whole(self, part: _parts.Part) -> Iterator[dict[str, Any]]:
        """The chunks of a part that is complete now (a tool call, a part that came whole)."""
        ui = ai_sdk.part_to_ui(part)
        kind = ui["type"]
        if kind in ("text", "reasoning"):
            ident = f"{kind}-{len(self.order)}-whole"
            yield self.emit({"type": f"{kind}-start", "id": ident})
            if ui["text"]:
                yield self.emit({"type": f"{kind}-delta", "id": ident, "delta": ui["text"]})
            yield self.emit(_end(kind, ident, ui))
        elif "toolCallId" in ui:
            chunk: dict[str, Any] = {"type": "tool-input-available", "toolCallId": ui["toolCallId"],
                                     "toolName": kind[5:], "input": ui["input"]}
            if ui.get("providerExecuted"):
                chunk["providerExecuted"] = True
            if "callProviderMetadata" in ui:
                chunk["providerMetadata"] = ui["callProviderMetadata"]
            yield self.emit(chunk)
        elif isinstance(part, _parts.ServerToolResultPart) and self.folder.has_call(part.call_id):
            extras = _common.strip(_common.part_json(part), ("call_id", "output"))
            yield self.emit({"type": "tool-output-available", "toolCallId": part.call_id,
                             "output": part.output, "providerExecuted": True,
                             "providerMetadata": {CARRIER: {"result": extras}}})
        elif kind == "file":
            chunk = {"type": "file", "url": ui["url"], "mediaType": ui["mediaType"]}
            if "providerMetadata" in ui:
                chunk["providerMetadata"] = ui["providerMetadata"]
            yield self.emit(chunk)
        else:
            yield self.emit({"type": DATA_PART, "data": _common.part_json(part)})

    def finish(self, message: AssistantMessage) -> Iterator[dict[str, Any]]:
        """End the open parts with their final state, then the step and the message."""
        self.finished = True
        yield from self.start()
        positions = {index: k for k, index in enumerate(self.order)} \
            if len(self.order) == len(message.parts) else {}
        yield from self.flush({index: message.parts[k] for index, k in positions.items()})
        for index in list(self.pending):
            at = positions.get(index)
            call = message.parts[at] if at is not None else self.acc.part(index)
            if isinstance(call, _parts.ToolCallPart):
                yield from self.whole(call)
        self.pending.clear()
        for index, ident in self.open.items():
            at = positions.get(index)
            part = message.parts[at] if at is not None else self.acc.part(index)
            if part is None:
                continue
            ui = ai_sdk.part_to_ui(part)
            kind = "text" if ident.startswith("text") else "reasoning"
            if ui["type"] != kind:  # the part became another kind: the finish event carries it
                yield self.emit({"type": f"{kind}-end", "id": ident})
                continue
            yield self.emit(_end(kind, ident, ui))
        yield self.emit({"type": "finish-step"})
        extras = _common.strip(_common.event_json(message), ("parts",))
        # What a reader would make of the chunks: when it differs from the message (a part that
        # changed after it was sent), the finish event carries the message's parts whole.
        read = self.folder.message(extras)
        if [json.dumps(_common.part_json(p), sort_keys=True) for p in read.parts] != \
                [json.dumps(_common.part_json(p), sort_keys=True) for p in message.parts]:
            extras["parts"] = [_common.part_json(p) for p in message.parts]
        finish: dict[str, Any] = {"type": "finish", "messageMetadata": {**message.metadata, CARRIER: extras}}
        if message.stop_reason is not None:
            finish["finishReason"] = _FINISH[message.stop_reason]
        yield self.emit(finish)

    def close(self) -> Iterator[dict[str, Any]]:
        """The end of the input: a stream that never completed ends with its message so far."""
        if not self.finished:
            yield from self.finish(self.acc.message)


def _end(kind: str, ident: str, ui: Mapping[str, Any]) -> dict[str, Any]:
    chunk: dict[str, Any] = {"type": f"{kind}-end", "id": ident}
    if "providerMetadata" in ui:
        chunk["providerMetadata"] = ui["providerMetadata"]
    return chunk


# -- in -----------------------------------------------------------------------------------------


def from_stream(source: str | bytes | Iterable[Any]) -> Converted[list[HistoryEvent]]:
    """The canonical messages of a UI message stream: SSE text, or its chunks (dicts or JSON text).

    A stream partwire wrote gives back the assistant message it came from. Another gives one
    assistant message per step, with a tool message after it for each tool output, an
    ``error`` event for an error chunk; a chunk type partwire does not know is kept as an
    unknown part. A stream cut inside a chunk, or a chunk that is not a JSON object with a
    type, raises :class:`~partwire.errors.WireFormatError` naming the chunk.
    """
    folder = _Folder()
    for n, chunk in enumerate(_chunks(source)):
        folder.feed(chunk, n)
    ui = folder.ui_message()
    read = ai_sdk.from_wire([ui])
    history = list(read.value)
    losses: list[Loss] = list(read.losses)
    extras = _common.carried(folder.metadata)
    if extras.get("parts") is not None and history and isinstance(history[0], AssistantMessage):
        history[0] = _with_parts(history[0], extras["parts"])
    if not extras:
        history = folder.foreign_ending(history)
    return Converted(history, tuple(losses))


async def afrom_stream(source: AsyncIterable[Any]) -> Converted[list[HistoryEvent]]:
    """:func:`from_stream` over an asynchronous stream of chunks (dicts, or the JSON of each)."""
    return from_stream([chunk async for chunk in source])


def read_ui_message(source: str | bytes | Iterable[Any]) -> dict[str, Any]:
    """The ``UIMessage`` a UI message stream builds, as the SDK's ``readUIMessageStream`` does."""
    folder = _Folder()
    for n, chunk in enumerate(_chunks(source)):
        folder.feed(chunk, n)
    return folder.ui_message()


def _with_parts(message: AssistantMessage, parts: Any) -> AssistantMessage:
    data = _common.event_json(message)
    data["parts"] = parts
    event = _common.event_from_json(data, FORMAT, "finish.messageMetadata.partwire.parts")
    assert isinstance(event, AssistantMessage)
    return event


def _chunks(source: str | bytes | Iterable[Any]) -> Iterator[dict[str, Any]]:
    """The chunks of SSE text, or of an iterable of chunks (dicts, or the JSON of each)."""
    if isinstance(source, bytes):
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise bad(FORMAT, "UI message stream", f"not UTF-8 at byte {exc.start}", "sse") from exc
    if isinstance(source, str):
        yield from _sse_chunks(source)
        return
    for n, item in enumerate(source):
        if isinstance(item, str | bytes):
            yield _parse(item if isinstance(item, str) else item.decode("utf-8", "replace"), n)
        else:
            yield _check(item, n)


def _sse_chunks(text: str) -> Iterator[dict[str, Any]]:
    text = text.replace("\r\n", "\n")
    events = text.split("\n\n")
    tail = events.pop()  # what follows the last blank line: empty when the stream ended whole
    n = 0
    for block in events:
        data = [line[5:].removeprefix(" ") for line in block.split("\n") if line.startswith("data:")]
        if not data:
            continue  # a comment or a keep-alive
        payload = "\n".join(data)
        if payload == "[DONE]":
            return
        yield _parse(payload, n)
        n += 1
    if tail.strip():
        raise bad(FORMAT, "UI message stream", "the stream ends inside a chunk (no blank line "
                  "after its last event)", f"chunk[{n}]")


def _parse(payload: str, n: int) -> dict[str, Any]:
    try:
        value = json.loads(payload)
    except ValueError as exc:
        raise bad(FORMAT, "UI message stream", f"a chunk that is not JSON ({exc})", f"chunk[{n}]") from exc
    return _check(value, n)


def _check(value: Any, n: int) -> dict[str, Any]:
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        raise bad(FORMAT, "UI message stream", "a chunk must be a JSON object with a string type",
                  f"chunk[{n}]")
    return value


class _Folder:
    """Chunks folded into one ``UIMessage``, as ``readUIMessageStream`` folds them."""

    def __init__(self) -> None:
        self.id = ""
        self.metadata: dict[str, Any] = {}
        self.parts: list[dict[str, Any]] = []
        self.by_id: dict[str, dict[str, Any]] = {}  # text/reasoning chunk id -> its part
        self.calls: dict[str, dict[str, Any]] = {}  # tool call id -> its part
        self.args: dict[str, str] = {}
        self.error: str | None = None
        self.aborted: str | None = None
        self.finish_reason: str | None = None

    def has_call(self, call_id: str) -> bool:
        return call_id in self.calls

    def feed(self, chunk: dict[str, Any], n: int) -> None:
        kind = chunk["type"]
        where = f"chunk[{n}]"
        if kind == "start":
            self.id = chunk.get("messageId") or self.id
            self._meta(chunk.get("messageMetadata"))
        elif kind in ("text-start", "reasoning-start"):
            part = {"type": kind.split("-")[0], "text": "", "state": "streaming"}
            self.by_id[self._id(chunk, where)] = part
            self.parts.append(part)
        elif kind in ("text-delta", "reasoning-delta"):
            part = self._open(chunk, where)
            part["text"] += chunk.get("delta") if isinstance(chunk.get("delta"), str) else ""
        elif kind in ("text-end", "reasoning-end"):
            part = self._open(chunk, where)
            part["state"] = "done"
            if isinstance(chunk.get("providerMetadata"), dict):
                part["providerMetadata"] = chunk["providerMetadata"]
        elif kind == "tool-input-start":
            self._call(chunk, where, "input-streaming")
        elif kind == "tool-input-delta":
            call_id = chunk.get("toolCallId")
            if call_id not in self.calls:
                raise bad(FORMAT, "UI message stream", "tool input for a call that never started", where)
            self.args[call_id] = self.args.get(call_id, "") + str(chunk.get("inputTextDelta", ""))
            self.calls[call_id]["rawInput"] = self.args[call_id]
        elif kind in ("tool-input-available", "tool-input-error"):
            part = self._call(chunk, where, "input-available")
            part.pop("rawInput", None)
            part["input"] = chunk.get("input")
            if kind == "tool-input-error":
                part["state"] = "output-error"
                part["errorText"] = str(chunk.get("errorText", ""))
        elif kind in ("tool-output-available", "tool-output-error", "tool-output-denied"):
            found = self.calls.get(str(chunk.get("toolCallId")))
            if found is None:
                raise bad(FORMAT, "UI message stream", "a tool output for a call that never started", where)
            part = found
            if kind == "tool-output-available":
                part.update(state="output-available", output=chunk.get("output"))
            elif kind == "tool-output-error":
                part.update(state="output-error", errorText=str(chunk.get("errorText", "")))
            else:
                part.update(state="output-denied", approval={"id": part["toolCallId"], "approved": False})
            meta = chunk.get("providerMetadata")
            if isinstance(meta, dict):
                target = part.setdefault("callProviderMetadata", {})
                for key, value in meta.items():
                    target[key] = {**target.get(key, {}), **value} if isinstance(value, dict) else value
        elif kind == "start-step":
            self.parts.append({"type": "step-start"})
        elif kind in ("finish-step", "reset-step"):
            pass
        elif kind == "finish":
            self._meta(chunk.get("messageMetadata"))
            reason = chunk.get("finishReason")
            self.finish_reason = reason if isinstance(reason, str) else None
        elif kind == "message-metadata":
            self._meta(chunk.get("messageMetadata"))
        elif kind == "error":
            self.error = str(chunk.get("errorText", ""))
        elif kind == "abort":
            self.aborted = str(chunk.get("reason", ""))
        elif kind in ("file", "source-url", "source-document", "reasoning-file", "custom") or \
                kind.startswith("data-"):
            part = {k: v for k, v in chunk.items() if k != "transient"}
            self.parts.append(part)
        else:
            self.parts.append(dict(chunk))  # kept: read back as an unknown part

    def _id(self, chunk: Mapping[str, Any], where: str) -> str:
        ident = chunk.get("id")
        if not isinstance(ident, str):
            raise bad(FORMAT, "UI message stream", f"a {chunk['type']} chunk needs a string id", where)
        return ident

    def _open(self, chunk: Mapping[str, Any], where: str) -> dict[str, Any]:
        part = self.by_id.get(self._id(chunk, where))
        if part is None:
            raise bad(FORMAT, "UI message stream", f"a {chunk['type']} chunk for a part that never started",
                      where)
        return part

    def _call(self, chunk: Mapping[str, Any], where: str, state: str) -> dict[str, Any]:
        call_id, name = chunk.get("toolCallId"), chunk.get("toolName")
        if not isinstance(call_id, str) or not isinstance(name, str):
            raise bad(FORMAT, "UI message stream", f"a {chunk['type']} chunk needs a toolCallId and a toolName",
                      where)
        part = self.calls.get(call_id)
        if part is None:
            part = {"type": f"tool-{name}", "toolCallId": call_id, "state": state}
            if chunk.get("dynamic"):
                part = {"type": "dynamic-tool", "toolName": name, "toolCallId": call_id, "state": state}
            self.calls[call_id] = part
            self.parts.append(part)
        part["state"] = state
        if chunk.get("providerExecuted"):
            part["providerExecuted"] = True
        if isinstance(chunk.get("providerMetadata"), dict):
            part["callProviderMetadata"] = chunk["providerMetadata"]
        return part

    def _meta(self, value: Any) -> None:
        if isinstance(value, dict):
            self.metadata.update(value)

    def ui_message(self) -> dict[str, Any]:
        """The UIMessage so far."""
        parts = self.parts
        if _common.carried(self.metadata):
            # partwire's own stream: one step, its marker is not a part of the message
            parts = [p for p in parts if p["type"] != "step-start"]
        own = _common.carried(self.metadata).get("id")
        # the message's own id, when it came only with the stream's end
        out: dict[str, Any] = {"id": own if isinstance(own, str) else self.id, "role": "assistant",
                               "parts": parts}
        if self.metadata:
            out["metadata"] = self.metadata
        return out

    def message(self, extras: dict[str, Any]) -> AssistantMessage:
        """The assistant message a reader would make, with ``extras`` as its finish metadata."""
        ui = self.ui_message()
        ui["metadata"] = {**self.metadata, CARRIER: extras}
        read = ai_sdk.from_wire([ui]).value
        first = read[0] if read else None
        return first if isinstance(first, AssistantMessage) else AssistantMessage()

    def foreign_ending(self, history: list[HistoryEvent]) -> list[HistoryEvent]:
        """A stream partwire did not write: its finish reason, abort and error on the message."""
        last = next((i for i in range(len(history) - 1, -1, -1)
                     if isinstance(history[i], AssistantMessage)), None)
        if last is not None:
            message = history[last]
            assert isinstance(message, AssistantMessage)
            update: dict[str, Any] = {}
            if self.finish_reason in _STOP:
                update["stop_reason"] = _STOP[self.finish_reason]
            if self.finish_reason is not None:
                update["stop_reason_raw"] = self.finish_reason
            if self.error is not None:
                update.update(status="error", stop_reason="error")
            elif self.aborted is not None:
                update.update(status="aborted", stop_reason="aborted")
            elif self.finish_reason is None:
                update["status"] = "partial"
            history[last] = message.model_copy(update=update)
        if self.error is not None:
            history.append(ErrorEvent(message=self.error))
        return history

