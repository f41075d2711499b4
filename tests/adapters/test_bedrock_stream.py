"""Unit tests of the Converse event stream: the binary framing's checks (CRCs, lengths, a cut
frame), exception frames as error events, and async byte sources cut anywhere."""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

import pytest

from partwire.adapters import bedrock
from partwire.errors import WireFormatError
from partwire.streaming import StreamErrorEvent, accumulate
from tests.adapters.test_bedrock_unit import _events
from tests.harness.eventstream import encode_events, encode_message


def test_a_corrupt_event_stream_is_refused_not_skipped() -> None:
    """A flipped payload byte (message CRC), a flipped length (prelude CRC) and a stream cut
    inside a message each raise a WireFormatError saying which."""
    raw = bytearray(encode_events(_events()))
    payload = bytearray(raw)
    payload[40] ^= 0x01
    with pytest.raises(WireFormatError, match="message's CRC32"):
        list(bedrock.stream(bytes(payload)))
    prelude = bytearray(raw)
    prelude[3] ^= 0x01
    with pytest.raises(WireFormatError, match="prelude's CRC32"):
        list(bedrock.stream(bytes(prelude)))
    with pytest.raises(WireFormatError, match="ends inside a message"):
        list(bedrock.stream(bytes(raw[:-3])))


def test_an_exception_frame_ends_the_stream_with_an_error() -> None:
    """An exception message (:message-type exception) is a StreamErrorEvent with its type, and the
    message keeps the text before it."""
    raw = encode_events(_events()[:2]) + encode_message(
        {":message-type": "exception", ":exception-type": "throttlingException",
         ":content-type": "application/json"}, json.dumps({"message": "slow down"}).encode())
    events = list(bedrock.stream([raw[:9], raw[9:]]))
    errors = [e for e in events if isinstance(e, StreamErrorEvent)]
    assert [(e.error.code, e.error.message, e.error.retryable) for e in errors] == [
        ("throttlingException", "slow down", True)]
    message = accumulate(events)
    assert (message.status, message.text) == ("error", "hi")


def test_a_length_out_of_bounds_is_refused_before_reading_it() -> None:
    """A prelude that claims 1 GiB is refused at once, not buffered."""
    prelude = struct.pack(">II", 1 << 30, 0)
    frame = prelude + struct.pack(">I", zlib.crc32(prelude))
    with pytest.raises(WireFormatError, match="out of bounds"):
        list(bedrock.stream(frame))


async def test_astream_reads_event_stream_bytes_from_an_async_source() -> None:
    """An async byte stream (an aiohttp or httpx body) of event-stream frames, cut anywhere."""
    raw = encode_events([*_events(), {"metadata": {"usage": {"inputTokens": 3, "outputTokens": 1,
                                                              "totalTokens": 4}, "metrics": {"latencyMs": 5}}}])

    async def body() -> Any:
        for i in range(0, len(raw), 11):
            yield raw[i:i + 11]

    events = [event async for event in bedrock.astream(body())]
    message = accumulate(events)
    assert (message.text, message.status, message.stop_reason) == ("hi", "complete", "stop")
    assert message.usage is not None
    assert message.usage.input_tokens == 3
