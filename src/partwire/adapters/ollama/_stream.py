"""Ollama's streamed chat (``stream: true``) -> neutral stream events.

The body is newline-delimited JSON, not SSE: one ``ChatResponse`` per line, each carrying a
fragment of the message (``thinking``, ``content``) or whole parts (``tool_calls``, ``images``:
Ollama sends a call complete, never in fragments). The last line has ``done: true``, the
``done_reason``, the counts and the durations. Input is the raw body (bytes or text, whole or
in chunks cut anywhere), the parsed lines, or the ``ollama`` package's ``ChatResponse`` objects.
A line ``{"error": "..."}`` ends the stream with a :class:`StreamErrorEvent`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import Any

from pydantic_core import from_json

from partwire import streaming as _streaming
from partwire._json import as_json
from partwire.adapters._kernel import Translator as _KernelTranslator
from partwire.adapters._sse import ServerSentEvent, iter_wire_items
from partwire.adapters.ollama._decode import (
    MESSAGE_FIELDS,
    image_from_wire,
    response_message,
    tool_call_from_wire,
)
from partwire.adapters.ollama._wire import API, ISSUER
from partwire.errors import WireFormatError
from partwire.history import ErrorEvent
from partwire.parts import Part
from partwire.streaming import StreamEvent

__all__ = ["Translator", "iter_lines"]

_NONE: tuple[StreamEvent, ...] = ()


def iter_lines(chunks: Iterable[bytes | bytearray | str]) -> Iterator[dict[str, Any]]:
    """The JSON objects of an NDJSON body given in chunks cut anywhere (blank lines skipped)."""
    pending = b""
    for chunk in chunks:
        data = chunk.encode() if isinstance(chunk, str) else bytes(chunk)
        pending += data
        if b"\n" not in data:
            continue
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if line.strip():
                yield _line(line)
    if pending.strip():
        yield _line(pending)


def _line(line: bytes) -> dict[str, Any]:
    try:
        item = from_json(line)  # pydantic's parser: a third of json.loads' time on a short line
    except ValueError:
        try:  # what it refuses and the stdlib reads (a lone surrogate escape)
            item = json.loads(line)
        except ValueError as exc:
            raise WireFormatError(API, "stream", f"a line is not JSON: {line[:80]!r}") from exc
    if not isinstance(item, dict):
        raise WireFormatError(API, "stream", f"a line is {type(item).__name__}, not an object")
    return item


class Translator(_KernelTranslator):
    """Turns Ollama's stream lines into stream events, one line at a time."""

    __slots__ = ("calls", "index", "stopped", "text_at", "thinking_at")
    provider = API
    dicts_are_items = True

    def __init__(self) -> None:
        super().__init__()
        self.index = 0  # the next part's stream index
        self.text_at: int | None = None
        self.thinking_at: int | None = None
        self.calls = 0
        self.stopped = False  # the last line (``done: true``) came

    # -- inputs -----------------------------------------------------------------------------

    @staticmethod
    def from_sse(sse: ServerSentEvent) -> Mapping[str, Any] | None:  # pragma: no cover
        """Ollama's native stream is never SSE; raw bytes are NDJSON (see :meth:`items`)."""
        raise WireFormatError(API, "stream", "Ollama's chat stream is NDJSON, not SSE")

    @staticmethod
    def from_object(item: Any) -> Mapping[str, Any] | None:
        """The line of one parsed chunk or ``ChatResponse`` object."""
        line = item if type(item) is dict else as_json(item)
        if not isinstance(line, dict):
            raise WireFormatError(API, "stream event", f"got {type(line).__name__}")
        return line

    def items(self, chunks: Any) -> Iterator[Mapping[str, Any]]:
        """Lines from the raw body (bytes or text, in chunks), parsed lines or SDK objects."""
        if isinstance(chunks, bytes | bytearray | str):
            chunks = (chunks,)
        source = iter(chunks)
        first = next(source, None)
        if first is None:
            return
        if isinstance(first, bytes | bytearray | str):
            yield from iter_lines(_chain(first, source))
            return
        yield from iter_wire_items(_chain(first, source), from_sse=self.from_sse,
                                   from_object=self.from_object, error_body=self.error_body)

    @staticmethod
    def error_body(exc: Exception) -> Mapping[str, Any] | None:
        """The error line the ``ollama`` package raised as ``ResponseError`` mid-stream."""
        error = getattr(exc, "error", None)
        if type(exc).__name__ != "ResponseError" or not isinstance(error, str):
            return None
        return {"error": error}

    async def _aitems(self, chunks: AsyncIterable[Any]) -> AsyncIterator[Mapping[str, Any]]:
        pending = b""
        try:
            async for raw in chunks:
                if isinstance(raw, bytes | bytearray | str):
                    pending += raw.encode() if isinstance(raw, str) else bytes(raw)
                    *lines, pending = pending.split(b"\n")
                    for line in lines:
                        if line.strip():
                            yield _line(line)
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
        if pending.strip():
            yield _line(pending)

    def aitems(self, chunks: AsyncIterable[Any]) -> AsyncIterator[Mapping[str, Any]]:
        """:meth:`items` over an asynchronous source."""
        return self._aitems(chunks)

    # -- lines ------------------------------------------------------------------------------

    def feed(self, line: Mapping[str, Any]) -> tuple[StreamEvent, ...]:
        """The stream events one line stands for."""
        if self.stopped or self.finished:
            return _NONE
        message = line.get("message")
        if type(message) is dict and len(message) == 2 and self.started and line.get("done") is False:
            # The line most of a stream is: one fragment of text, after the first.
            content = message.get("content")
            index = self.text_at
            if type(content) is str and content and index is not None:
                event = _streaming.TextDeltaEvent(index, content)
                self.acc.feed(event)
                return (event,)
        if not isinstance(message, dict):
            if "error" in line:
                return self._error(line)
            raise WireFormatError(API, "stream", "a line has no message object", "message")
        events: list[StreamEvent] = []
        if not self.started:
            model = line.get("model")
            events.append(self.start_event(
                provider=ISSUER, api=API,
                model=f"{ISSUER}:{model}" if isinstance(model, str) and model else None))
        thinking = message.get("thinking")
        if isinstance(thinking, str) and thinking:
            if self.thinking_at is None:
                self.thinking_at = self._next()
            events.append(_streaming.ThinkingDeltaEvent(self.thinking_at, thinking))
        content = message.get("content")
        if isinstance(content, str) and content:
            if self.text_at is None:
                self.text_at = self._next()
            events.append(_streaming.TextDeltaEvent(self.text_at, content))
        images = message.get("images")
        if isinstance(images, list):
            events.extend(self._whole(image_from_wire(image)) for image in images)
        calls = message.get("tool_calls")
        if isinstance(calls, list):
            created = line.get("created_at")
            for call in calls:
                events.append(self._whole(tool_call_from_wire(
                    call, created if isinstance(created, str) else "", f"0.{self.calls}")))
                self.calls += 1
        if line.get("done") is True:
            events.extend(self._done(line, message))
        return self.emit(events)

    def _next(self) -> int:
        index = self.index
        self.index += 1
        return index

    def _whole(self, part: Part) -> StreamEvent:
        return _streaming.PartEvent(self._next(), part)

    def _done(self, line: Mapping[str, Any], message: Mapping[str, Any]) -> list[StreamEvent]:
        """The last line: the stop reason and usage, read as a whole response reads them."""
        self.stopped = True
        whole = response_message(line, {k: v for k, v in message.items()
                                        if k not in MESSAGE_FIELDS}, [])
        tool_use = self.calls > 0 and whole.stop_reason == "stop"
        events: list[StreamEvent] = [_streaming.StopEvent(
            "tool_use" if tool_use else whole.stop_reason, whole.stop_reason_raw,
            whole.provider_data)]
        if whole.usage is not None:
            events.append(_streaming.UsageEvent(whole.usage))
        return events

    def finish(self) -> tuple[StreamEvent, ...]:
        """End of input: the message, whole when the last line came, else as it stands."""
        if self.finished:
            return _NONE
        self.finished = True
        opened = self.emit([self.start_event(provider=ISSUER, api=API)]) if not self.started else _NONE
        return (*opened, self.complete(whole=self.stopped))

    def _error(self, line: Mapping[str, Any]) -> tuple[StreamEvent, ...]:
        error = line.get("error")
        event = _streaming.StreamErrorEvent(ErrorEvent(
            message=error if isinstance(error, str) else json.dumps(error), provider=ISSUER))
        self.finished = True
        return (*self.emit([event]), self.complete())


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest


