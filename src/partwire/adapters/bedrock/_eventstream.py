"""AWS event stream framing (``application/vnd.amazon.eventstream``), decoded in pure Python.

ConverseStream's HTTP body is not SSE but a sequence of binary messages, each:

    total length (uint32) | headers length (uint32) | prelude CRC32 (uint32)
    headers | payload | message CRC32 (uint32)

all big-endian; the prelude CRC covers the first 8 bytes, the message CRC everything before it.
A header is a name (uint8 length + UTF-8), a type byte and a value (types 0-9: true, false,
byte, short, int, long, bytes, string, timestamp, uuid). ``:message-type`` is ``event`` or
``exception``; ``:event-type`` / ``:exception-type`` names the member; the payload is its JSON.
Bytes may arrive split anywhere; a CRC mismatch or a length out of bounds is a
:class:`~partwire.errors.WireFormatError`, never a silent skip.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from partwire.errors import WireFormatError

__all__ = ["EventStreamDecoder", "aiter_events", "iter_events"]

_PRELUDE = 12
_MAX_MESSAGE = 16 * 1024 * 1024  # the format's limit on one message
_MAX_HEADERS = 128 * 1024
_FIXED = {2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
_SIGNED = {2: ">b", 3: ">h", 4: ">i", 5: ">q", 8: ">q"}
_API = "bedrock"


class EventStreamDecoder:
    """Feed it chunks of bytes; it returns the ``{member: payload}`` items they complete."""

    __slots__ = ("_buffer",)

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[dict[str, Any]]:
        """Decode ``chunk``; the stream items it completes, in order."""
        buffer = self._buffer
        buffer += chunk
        items: list[dict[str, Any]] = []
        while len(buffer) >= _PRELUDE:
            total, headers_length, prelude_crc = struct.unpack_from(">III", buffer)
            if zlib.crc32(buffer[:8]) != prelude_crc:
                raise WireFormatError(_API, "event stream", "the prelude's CRC32 does not match")
            if total < _PRELUDE + 4 + headers_length or total > _MAX_MESSAGE \
                    or headers_length > _MAX_HEADERS:
                raise WireFormatError(_API, "event stream",
                                      f"a message of {total} bytes with {headers_length} bytes of "
                                      "headers is out of bounds")
            if len(buffer) < total:
                break
            message = bytes(buffer[:total])
            del buffer[:total]
            (crc,) = struct.unpack_from(">I", message, total - 4)
            if zlib.crc32(message[:-4]) != crc:
                raise WireFormatError(_API, "event stream", "a message's CRC32 does not match")
            headers = _headers(message[_PRELUDE:_PRELUDE + headers_length])
            payload = message[_PRELUDE + headers_length:-4]
            items.append(_item(headers, payload))
        return items

    def flush(self) -> None:
        """End of input: bytes left over are a message cut short."""
        if self._buffer:
            left = len(self._buffer)
            self._buffer.clear()
            raise WireFormatError(_API, "event stream",
                                  f"the stream ends inside a message ({left} bytes left over)")


def _headers(data: bytes) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    pos = 0
    end = len(data)
    while pos < end:
        size = data[pos]
        name = data[pos + 1:pos + 1 + size].decode("utf-8")
        pos += 1 + size
        kind = data[pos]
        pos += 1
        value: Any
        if kind in (0, 1):
            value = kind == 0
        elif kind in _FIXED:
            width = _FIXED[kind]
            raw = data[pos:pos + width]
            if len(raw) != width:
                raise WireFormatError(_API, "event stream", f"header {name!r} is cut short")
            value = raw.hex() if kind == 9 else struct.unpack(_SIGNED[kind], raw)[0]
            pos += width
        elif kind in (6, 7):
            (length,) = struct.unpack_from(">H", data, pos)
            raw = data[pos + 2:pos + 2 + length]
            if len(raw) != length:
                raise WireFormatError(_API, "event stream", f"header {name!r} is cut short")
            value = raw.decode("utf-8") if kind == 7 else raw
            pos += 2 + length
        else:
            raise WireFormatError(_API, "event stream", f"header {name!r} has unknown type {kind}")
        headers[name] = value
    return headers


def _item(headers: dict[str, Any], payload: bytes) -> dict[str, Any]:
    kind = headers.get(":message-type")
    if kind == "event":
        member = headers.get(":event-type")
    elif kind == "exception":
        member = headers.get(":exception-type")
    elif kind == "error":
        # A transport error: its code and message are headers, the payload is empty.
        return {str(headers.get(":error-code") or "error"):
                {"message": str(headers.get(":error-message") or "")}}
    else:
        raise WireFormatError(_API, "event stream", f"unknown message type {kind!r}")
    if not isinstance(member, str):
        raise WireFormatError(_API, "event stream", f"an {kind} message without its type header")
    try:
        body = json.loads(payload) if payload else {}
    except ValueError as exc:
        raise WireFormatError(_API, "event stream",
                              f"the {member} payload is not JSON: {payload[:80]!r}") from exc
    return {member: body}


def iter_events(chunks: Iterable[bytes | bytearray | memoryview]) -> Iterator[dict[str, Any]]:
    """The items of a body given as chunks of bytes."""
    decoder = EventStreamDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
    decoder.flush()


async def aiter_events(chunks: AsyncIterable[bytes | bytearray | memoryview]
                       ) -> AsyncIterator[dict[str, Any]]:
    """The items of a body given as an asynchronous stream of chunks."""
    decoder = EventStreamDecoder()
    async for chunk in chunks:
        for item in decoder.feed(chunk):
            yield item
    decoder.flush()
