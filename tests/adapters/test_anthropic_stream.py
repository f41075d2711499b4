"""Unit tests of Anthropic Messages streaming: SSE bytes in any chunking, SDK event objects,
in-stream errors, cut streams, server tool and compaction blocks, unknown events, async sources."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from partwire import (
    Opaque,
    ServerToolCallPart,
    ServerToolResultPart,
    ThinkingPart,
    ToolCallPart,
    UnknownPart,
)
from partwire.adapters import anthropic
from partwire.streaming import (
    MessageCompleteEvent,
    StreamErrorEvent,
    StreamEvent,
    ToolCallDeltaEvent,
    ToolCallStartEvent,
    accumulate,
)


def _stream_events() -> list[dict[str, Any]]:
    text = (
        '{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x",'
        '"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"cache_read_input_tokens":100,'
        '"output_tokens":1}}}\n'
        '{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}\n'
        '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}\n'
        '{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"S1"}}\n'
        '{"type":"content_block_stop","index":0}\n'
        '{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}\n'
        '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi "}}\n'
        '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"there"}}\n'
        '{"type":"content_block_stop","index":1}\n'
        '{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_9","name":"f","input":{}}}\n'
        '{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}\n'
        '{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\":"}}\n'
        '{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":" 1}"}}\n'
        '{"type":"content_block_stop","index":2}\n'
        '{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":30}}\n'
        '{"type":"message_stop"}'
    )
    return [json.loads(line) for line in text.splitlines()]


def _sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def test_a_stream_ends_with_one_completion_holding_the_message() -> None:
    """Deltas fold into the message the completion event carries; usage overwrites; ids are mapped."""
    events = list(anthropic.stream(_stream_events()))
    assert sum(isinstance(e, MessageCompleteEvent) for e in events) == 1
    final = events[-1]
    assert isinstance(final, MessageCompleteEvent)
    message = final.message
    assert (message.status, message.stop_reason, message.response_id) == ("complete", "tool_use", "msg_1")
    assert [p.type for p in message.parts] == ["thinking", "text", "tool_call"]
    assert message.parts[0] == ThinkingPart(text="hm", signature=Opaque(value="S1", issuer="anthropic"))
    assert message.parts[2].arguments_json == '{"a": 1}'  # type: ignore[union-attr]
    start = next(e for e in events if isinstance(e, ToolCallStartEvent))
    assert start.provider_ids == {"anthropic": "toolu_9"}
    assert message.parts[2] == ToolCallPart(id=start.id, name="f", arguments_json='{"a": 1}',
                                            provider_ids={"anthropic": "toolu_9"})
    assert message.usage is not None
    assert (message.usage.input_tokens, message.usage.output_tokens) == (105, 30)


@pytest.mark.parametrize("size", [1, 7, 64, 100_000])
def test_raw_sse_bytes_in_any_chunking_give_the_same_message(size: int) -> None:
    """SSE bytes split anywhere (a byte at a time included) give what the parsed events give."""
    expected = accumulate(anthropic.stream(_stream_events()))
    raw = _sse(_stream_events())
    got = accumulate(anthropic.stream([raw[i:i + size] for i in range(0, len(raw), size)]))
    assert got.parts[:2] == expected.parts[:2]
    assert got.parts[2].arguments_json == expected.parts[2].arguments_json  # type: ignore[union-attr]
    assert (got.usage, got.stop_reason) == (expected.usage, expected.stop_reason)


def test_sdk_event_objects_are_accepted() -> None:
    """The SDK's own event objects stream like the JSON they came from."""
    from anthropic._models import construct_type
    from anthropic.types import RawMessageStreamEvent

    objects = [construct_type(type_=RawMessageStreamEvent, value=e) for e in _stream_events()]
    assert accumulate(anthropic.stream(objects)).text == "Hi there"


def test_a_tool_call_with_no_argument_fragments_gets_an_empty_object() -> None:
    """With no input_json_delta, the input is the start's {} as text."""
    events = [e for e in _stream_events() if not (e.get("index") == 2 and e["type"] == "content_block_delta")]
    message = accumulate(anthropic.stream(events))
    assert message.parts[2].arguments_json == "{}"  # type: ignore[union-attr]


def test_an_in_stream_error_gives_an_error_event_and_the_partial_message() -> None:
    """event: error becomes a StreamErrorEvent, then the message so far with status error."""
    events = [*_stream_events()[:7], {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}]
    out = list(anthropic.stream(_sse(events)))
    errors = [e for e in out if isinstance(e, StreamErrorEvent)]
    assert [(e.error.code, e.error.retryable, e.error.provider) for e in errors] == [("overloaded_error", True, "anthropic")]
    final = out[-1]
    assert isinstance(final, MessageCompleteEvent)
    assert (final.message.status, final.message.stop_reason, final.message.text) == ("error", "error", "Hi ")


def test_the_sdks_stream_exception_becomes_an_error_event() -> None:
    """The SDK raises an in-stream error; the adapter turns it into events and keeps the partial."""

    class FakeStatusError(Exception):
        def __init__(self) -> None:
            super().__init__("stream error")
            self.body = {"type": "error", "error": {"type": "api_error", "message": "Internal"}}

    def sdk_stream() -> Iterator[dict[str, Any]]:
        yield from _stream_events()[:7]
        raise FakeStatusError

    out = list(anthropic.stream(sdk_stream()))
    assert isinstance(out[-1], MessageCompleteEvent)
    assert out[-1].message.status == "error"
    assert any(isinstance(e, StreamErrorEvent) and e.error.code == "api_error" for e in out)


def test_other_exceptions_from_the_source_propagate() -> None:
    """Only provider error bodies are turned into events; a bug in the source still raises."""

    def broken() -> Iterator[dict[str, Any]]:
        yield _stream_events()[0]
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        list(anthropic.stream(broken()))


def test_a_stream_cut_short_ends_with_the_partial_message() -> None:
    """Without message_stop, the last event holds what arrived, status partial."""
    out = list(anthropic.stream(_stream_events()[:12]))
    final = out[-1]
    assert isinstance(final, MessageCompleteEvent)
    assert final.message.status == "partial"
    assert final.message.parts[2].arguments_json == '{"a":'  # type: ignore[union-attr]


def test_server_tool_blocks_stream_whole() -> None:
    """A server_tool_use's JSON fragments and a result block arrive as complete parts."""
    events = [
        _stream_events()[0],
        {"type": "content_block_start", "index": 0, "content_block": {
            "type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"query": '}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '"x"}'}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {
            "type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_stop"},
    ]
    message = accumulate(anthropic.stream(events))
    assert message.parts == (
        ServerToolCallPart(id="srvtoolu_1", name="web_search", input={"query": "x"}, issuer="anthropic"),
        ServerToolResultPart(call_id="srvtoolu_1", name="web_search_tool_result", output=[], issuer="anthropic"),
    )


def test_blocks_inside_message_start_are_kept() -> None:
    """A replayed turn whose message_start already holds content and a stop reason streams whole."""
    start = {"type": "message_start", "message": {
        "id": "msg_2", "type": "message", "role": "assistant", "model": "claude-x", "stop_reason": "tool_use",
        "content": [{"type": "tool_use", "id": "toolu_5", "name": "roll", "input": {"n": 2}}],
        "usage": {"input_tokens": 0, "output_tokens": 0}}}
    message = accumulate(anthropic.stream([start, {"type": "message_stop"}]))
    assert message.stop_reason == "tool_use"
    assert message.parts[0].arguments_json == '{"n": 2}'  # type: ignore[union-attr]


def test_compaction_deltas_replace_the_block_content() -> None:
    """The beta compaction block arrives with its content from the last compaction delta."""
    events = [
        _stream_events()[0],
        {"type": "content_block_start", "index": 0, "content_block": {"type": "compaction", "content": None}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "compaction_delta", "content": "old"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "compaction_delta", "content": "summary"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_stop"},
    ]
    part = accumulate(anthropic.stream(events)).parts[0]
    assert isinstance(part, ServerToolResultPart)
    assert (part.name, part.output) == ("compaction", "summary")


def test_unknown_events_and_deltas_are_ignored_but_unknown_blocks_kept() -> None:
    """Unknown event and delta types pass by; an unknown block type becomes an UnknownPart."""
    events = [
        _stream_events()[0],
        {"type": "future_event", "x": 1},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "hologram", "v": 1}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "hologram_delta", "v": 2}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_stop"},
    ]
    message = accumulate(anthropic.stream(events))
    assert message.parts == (UnknownPart(original_type="hologram", raw={"type": "hologram", "v": 1}, issuer="anthropic"),)


def test_argument_fragments_are_the_exact_text() -> None:
    """Tool-call deltas carry the API's fragments unchanged, so the kept text is the model's own."""
    deltas = [e.arguments_delta for e in anthropic.stream(_stream_events()) if isinstance(e, ToolCallDeltaEvent)]
    assert deltas == ['{"a":', " 1}"]


async def test_astream_over_async_bytes_and_async_events() -> None:
    """The async variant takes async byte chunks or async parsed events, and sync input too."""
    raw = _sse(_stream_events())

    async def chunks() -> AsyncIterator[bytes]:
        for i in range(0, len(raw), 50):
            yield raw[i:i + 50]

    async def parsed() -> AsyncIterator[dict[str, Any]]:
        for e in _stream_events():
            yield e

    for source in (chunks(), parsed(), _stream_events()):
        out: list[StreamEvent] = [e async for e in anthropic.astream(source)]
        final = out[-1]
        assert isinstance(final, MessageCompleteEvent)
        assert final.message.text == "Hi there"


def test_an_unknown_delta_on_a_known_block_is_named_in_the_message() -> None:
    """A delta type this version cannot read is not dropped in silence: the message names it."""
    events = [
        _stream_events()[0],
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "sparkle_delta", "v": 2}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}},
        {"type": "message_stop"},
    ]
    message = accumulate(anthropic.stream(events))
    assert message.provider_data is not None
    assert message.provider_data.data["stream"] == {"ignored_deltas": ["sparkle_delta"]}  # type: ignore[index, call-overload]


def test_a_citation_of_an_unknown_kind_streams_to_what_from_wire_reads() -> None:
    """The stream keeps an untyped citation raw, as from_wire does: the two dumps are equal."""
    citation = {"type": "hologram_location", "cited_text": "x", "beam": 3}
    whole = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
             "content": [{"type": "text", "text": "a fact", "citations": [citation]}],
             "stop_reason": "end_turn", "stop_sequence": None,
             "usage": {"input_tokens": 3, "output_tokens": 2}}
    events = [
        {"type": "message_start", "message": {**whole, "content": [], "stop_reason": None}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "text", "text": "", "citations": []}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "a fact"}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "citations_delta", "citation": citation}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
         "usage": {"output_tokens": 2}},
        {"type": "message_stop"},
    ]
    streamed = accumulate(anthropic.stream(events))
    parsed = anthropic.from_wire(whole)
    assert streamed.parts[0].model_dump(mode="json") == parsed.parts[0].model_dump(mode="json")
    assert streamed.parts[0].provider_data is not None
