"""Server-sent events: an incremental decoder for raw ``text/event-stream`` bodies.

It follows the WHATWG rules the provider SDKs follow: lines end in ``\\r\\n``, ``\\n`` or ``\\r``;
``data:`` lines of one event are joined with ``\\n``; one space after the colon is dropped;
lines starting with ``:`` are comments; a blank line dispatches the event. Bytes may be split
anywhere, even inside a UTF-8 character or between ``\\r`` and ``\\n``.
"""

from __future__ import annotations

import codecs
import itertools
import re
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["SSEDecoder", "ServerSentEvent", "aiter_sse", "aiter_wire_items", "iter_sse", "iter_wire_items"]

_EOL = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One dispatched event."""

    event: str | None
    """The ``event:`` name, when there was one."""
    data: str
    """The ``data:`` lines, joined with newlines."""
    id: str | None = None
    """The last ``id:`` seen, when there was one."""


class SSEDecoder:
    """Feed it chunks of bytes or text; it returns the events each chunk completes."""

    __slots__ = ("_data", "_decoder", "_event", "_id", "_partial", "_pending_cr")

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        # The pieces of a line not ended yet: kept apart, not joined to each chunk, so that a
        # long line fed in small chunks costs its length once, not once per chunk.
        self._partial: list[str] = []
        self._pending_cr = False
        self._event: str | None = None
        self._data: list[str] = []
        self._id: str | None = None

    def feed(self, chunk: bytes | bytearray | str) -> list[ServerSentEvent]:
        """Decode ``chunk``; return the events it completes."""
        text = self._decoder.decode(chunk) if isinstance(chunk, bytes | bytearray) else chunk
        if self._pending_cr and text.startswith("\n"):
            # The "\r\n" ending the last line was split across chunks: this "\n" ends nothing.
            text = text[1:]
        self._pending_cr = False
        events: list[ServerSentEvent] = []
        start = 0
        # Not str.splitlines: it also splits on U+2028 and friends, which JSON strings may hold.
        # Only the new text is searched: what is pending holds no line end.
        for end in _EOL.finditer(text):
            line = text[start:end.start()]
            if self._partial:
                self._partial.append(line)
                line = "".join(self._partial)
                self._partial = []
            event = self._line(line)
            start = end.end()
            if event is not None:
                events.append(event)
        if start < len(text):
            self._partial.append(text[start:])
        self._pending_cr = text.endswith("\r")
        return events

    def flush(self) -> list[ServerSentEvent]:
        """End of input: dispatch what is pending (a body whose last event lacks its blank line)."""
        rest = "".join(self._partial) + self._decoder.decode(b"", final=True)
        self._partial = []
        return [e for e in (self._line(rest) if rest else None, self._line("")) if e is not None]

    def _line(self, line: str) -> ServerSentEvent | None:
        if not line:
            if not self._data and self._event is None:
                return None
            event = ServerSentEvent(self._event, "\n".join(self._data), self._id)
            self._event = None
            self._data = []
            return event
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            self._id = value
        # "retry" and unknown fields are ignored, as the SDKs do.
        return None


def iter_sse(chunks: Iterable[bytes | bytearray | str]) -> Iterator[ServerSentEvent]:
    """The events of a body given as chunks of bytes or text."""
    decoder = SSEDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.flush()


async def aiter_sse(chunks: AsyncIterable[bytes | bytearray | str]) -> AsyncIterator[ServerSentEvent]:
    """The events of a body given as an asynchronous stream of chunks."""
    decoder = SSEDecoder()
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event
    for event in decoder.flush():
        yield event


# -- stream inputs of every kind ------------------------------------------------------------
# Every adapter's stream() takes raw SSE bytes, parsed JSON chunks or the SDK's own objects, and
# the SDKs raise an in-stream error instead of yielding it. These two functions are that
# dispatch, once; each adapter supplies what is its own.

WireItem = Mapping[str, Any]
FromSse = Callable[[ServerSentEvent], WireItem | None]
FromObject = Callable[[Any], WireItem | None]
ErrorBody = Callable[[Exception], WireItem | None]


def iter_wire_items(
    chunks: Any, *, from_sse: FromSse, from_object: FromObject, error_body: ErrorBody
) -> Iterator[WireItem]:
    """Wire items as dicts from raw SSE (bytes or text), parsed JSON or SDK objects.

    ``from_sse`` and ``from_object`` return ``None`` for what carries nothing (pings, helper
    events); an exception the SDK raises mid-stream becomes the item ``error_body`` makes of it.
    """
    if isinstance(chunks, bytes | bytearray | str):
        chunks = (chunks,)
    items = iter(chunks)
    first = next(items, None)
    if first is None:
        return
    items = itertools.chain((first,), items)
    if isinstance(first, bytes | bytearray | str):
        for sse in iter_sse(items):
            item = from_sse(sse)
            if item is not None:
                yield item
        return
    try:
        for raw in items:
            item = from_object(raw)
            if item is not None:
                yield item
    except Exception as exc:
        error = error_body(exc)
        if error is None:
            raise
        yield error


async def aiter_wire_items(
    chunks: AsyncIterable[Any], *, from_sse: FromSse, from_object: FromObject, error_body: ErrorBody
) -> AsyncIterator[WireItem]:
    """:func:`iter_wire_items` over an asynchronous source."""
    items = aiter(chunks)
    try:
        first = await anext(items)
    except StopAsyncIteration:
        return
    if isinstance(first, bytes | bytearray | str):
        async for sse in aiter_sse(_prepend(first, items)):
            item = from_sse(sse)
            if item is not None:
                yield item
        return
    try:
        async for raw in _prepend(first, items):
            item = from_object(raw)
            if item is not None:
                yield item
    except Exception as exc:
        error = error_body(exc)
        if error is None:
            raise
        yield error


async def _prepend(first: Any, rest: AsyncIterator[Any]) -> AsyncIterator[Any]:
    yield first
    async for item in rest:
        yield item
