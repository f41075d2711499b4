"""Unit tests of Gemini streaming: signatures on empty final parts and thought parts, parallel
calls, Vertex partial arguments, identity and usage from the last chunk, truncated streams, async
JSON-array bytes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from partwire import (
    Opaque,
    ProviderData,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from partwire.adapters import WireFormatError, google
from partwire.streaming import (
    MessageCompleteEvent,
    MessageStartEvent,
    PartDataEvent,
    SignatureEvent,
    ThinkingDeltaEvent,
    ToolCallStartEvent,
    accumulate,
)
from tests.adapters.test_google_unit import MODEL, SIG, response


def chunk(*parts: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    """One stream chunk (a delta)."""
    return response(*parts, finish=finish)


def test_signature_on_an_empty_final_part_joins_the_text_before_it() -> None:
    """The signature that arrives alone on an empty part ends up on the text part it belongs to."""
    events = list(google.stream([chunk({"text": "It's "}), chunk({"text": "18 °C"}),
                                 chunk({"text": "", "thoughtSignature": SIG}, finish="STOP")]))
    message = accumulate(events)
    assert message.text == "It's 18 °C"
    assert len(message.parts) == 1
    assert message.parts[0].provider_data == ProviderData(issuer="google", data={
        "thoughtSignature": SIG, "model": MODEL})
    assert any(isinstance(e, PartDataEvent) for e in events)


def test_thought_stream_with_signature_only_part() -> None:
    """Thought deltas join; a signature-only thought part signs the thought before it (a SignatureEvent)."""
    events = list(google.stream([chunk({"text": "a", "thought": True}), chunk({"text": "b", "thought": True}),
                                 chunk({"text": "", "thought": True, "thoughtSignature": SIG}),
                                 chunk({"text": "answer"}, finish="STOP")]))
    assert [type(e) for e in events].count(ThinkingDeltaEvent) == 2
    assert any(isinstance(e, SignatureEvent) for e in events)
    message = accumulate(events)
    assert message.parts[0] == ThinkingPart(text="ab", signature=Opaque(value=SIG, issuer="google", model=MODEL))
    assert message.parts[1] == TextPart(text="answer")


def test_parallel_calls_stream_whole_and_only_the_first_is_signed() -> None:
    """Calls arrive whole; the second (unsigned) call never gets the first one's signature."""
    message = accumulate(google.stream([
        chunk({"functionCall": {"id": "p", "name": "w", "args": {"c": "Paris"}}, "thoughtSignature": SIG}),
        chunk({"functionCall": {"id": "l", "name": "w", "args": {"c": "Lyon"}}}, finish="STOP")]))
    first, second = message.parts
    assert isinstance(first, ToolCallPart)
    assert first.provider_data is not None
    assert isinstance(second, ToolCallPart)
    assert second.provider_data is None
    assert message.stop_reason == "tool_use"


def test_vertex_partial_args_are_assembled() -> None:
    """Vertex argument streaming (partialArgs until willContinue ends) gives one call with whole arguments."""
    events = list(google.stream([
        chunk({"functionCall": {"name": "cook", "willContinue": True}, "thoughtSignature": SIG}),
        chunk({"functionCall": {"partialArgs": [{"jsonPath": "$.r.items[0].name", "stringValue": "Las",
                                                 "willContinue": True}], "willContinue": True}}),
        chunk({"functionCall": {"partialArgs": [{"jsonPath": "$.r.items[0].name", "stringValue": "agna"}],
                                "willContinue": True}}),
        chunk({"functionCall": {"partialArgs": [{"jsonPath": "$.r.n", "numberValue": 2.0}],
                                "willContinue": True}}),
        chunk({"functionCall": {"partialArgs": [{"jsonPath": "$.r.ok", "boolValue": True}]}}),
        chunk({"text": ""}, finish="STOP")]))
    assert sum(isinstance(e, ToolCallStartEvent) for e in events) == 1
    message = accumulate(events)
    (call,) = message.parts
    assert isinstance(call, ToolCallPart)
    assert call.arguments == {"r": {"items": [{"name": "Lasagna"}], "n": 2, "ok": True}}
    assert call.provider_data is not None


def test_stream_identity_and_usage_from_the_last_chunk() -> None:
    """One message id from start to end; usage is the last chunk's totals, not a sum."""
    first = chunk({"text": "a"})
    first["usageMetadata"] = {"promptTokenCount": 10, "totalTokenCount": 10}
    last = chunk({"text": "b"}, finish="STOP")
    last["usageMetadata"] = {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12}
    events = list(google.stream([first, last]))
    start, complete = events[0], events[-1]
    assert isinstance(start, MessageStartEvent)
    assert isinstance(complete, MessageCompleteEvent)
    assert start.message_id == complete.message.id
    assert complete.message.usage is not None
    assert (complete.message.usage.input_tokens, complete.message.usage.output_tokens) == (10, 2)


def test_truncated_stream_ends_partial() -> None:
    """A stream that ends without a finishReason gives the partial message, not a complete one."""
    message = accumulate(google.stream([chunk({"text": "half"})]))
    assert message.status == "partial"
    assert message.text == "half"


async def test_astream_over_raw_json_array_bytes() -> None:
    """astream reads the raw JSON array of streamGenerateContent (no alt=sse), split anywhere."""
    raw = json.dumps([chunk({"text": "héllo "}), chunk({"text": "wörld"}, finish="STOP")]).encode()

    async def pieces() -> Any:
        for i in range(0, len(raw), 3):
            yield raw[i:i + 3]

    message = None
    async for event in google.astream(pieces()):
        if isinstance(event, MessageCompleteEvent):
            message = event.message
    assert message is not None
    assert message.text == "héllo wörld"


def test_bad_stream_input_raises_wire_format_error() -> None:
    """A stream that is not Gemini's raises WireFormatError naming the provider."""
    with pytest.raises(WireFormatError, match="google"):
        list(google.stream([b"data: not json\r\n\r\n"]))
    with pytest.raises(WireFormatError):
        list(google.stream([b'[{"candidates": [']))


