"""Ollama's NDJSON stream: lines cut anywhere, the package's own objects, reasoning and calls,
the last line's usage, an error line, and a stream cut short."""

from __future__ import annotations

import json
from typing import Any

import pytest

from partwire import TextPart, ThinkingPart, ToolCallPart
from partwire.adapters import WireFormatError, ollama
from partwire.streaming import (
    MessageCompleteEvent,
    PartEvent,
    StreamErrorEvent,
    ThinkingDeltaEvent,
    accumulate,
)


def _line(**message: Any) -> dict[str, Any]:
    return {"model": "qwen3:8b", "created_at": "2026-03-14T09:04:30.021Z",
            "message": {"role": "assistant", "content": "", **message}, "done": False}


LINES: list[dict[str, Any]] = [
    _line(thinking="Rain "), _line(thinking="now."), _line(content="Take "), _line(content="one."),
    _line(tool_calls=[{"function": {"name": "get_forecast", "arguments": {"city": "Paris"}}}]),
    {"model": "qwen3:8b", "created_at": "2026-03-14T09:04:30.672Z",
     "message": {"role": "assistant", "content": ""}, "done_reason": "stop", "done": True,
     "total_duration": 900000000, "prompt_eval_count": 31, "eval_count": 12},
]
BODY = "".join(json.dumps(line) + "\n" for line in LINES).encode()


def test_a_stream_folds_reasoning_text_and_a_whole_call() -> None:
    """Thinking and content fragments fold into one thought and one text; the call arrives whole
    as one part; the last line gives the stop reason and usage."""
    events = list(ollama.stream(LINES))
    assert sum(isinstance(e, ThinkingDeltaEvent) for e in events) == 2
    assert sum(isinstance(e, PartEvent) for e in events) == 1
    message = accumulate(events)
    assert message.parts[:2] == (ThinkingPart(text="Rain now."), TextPart(text="Take one."))
    assert isinstance(message.parts[2], ToolCallPart)
    assert (message.status, message.stop_reason, message.stop_reason_raw) == ("complete", "tool_use", "stop")
    assert message.usage is not None
    assert (message.usage.input_tokens, message.usage.output_tokens) == (31, 12)


@pytest.mark.parametrize("size", [1, 7, 64, len(BODY)])
def test_raw_ndjson_cut_anywhere_gives_the_same_message(size: int) -> None:
    """The body as bytes in pieces of any size (a line split across them) folds like the lines."""
    pieces = [BODY[i:i + size] for i in range(0, len(BODY), size)]
    expected = accumulate(ollama.stream(LINES))
    got = accumulate(ollama.stream(pieces))
    assert got.parts[:2] == expected.parts[:2]
    assert (got.stop_reason, got.usage) == (expected.stop_reason, expected.usage)


def test_the_packages_chat_response_objects_are_read() -> None:
    """What ``ollama.Client.chat(stream=True)`` yields (ChatResponse objects) folds like the lines."""
    from ollama import ChatResponse

    message = accumulate(ollama.stream([ChatResponse.model_validate(line) for line in LINES]))
    assert message.text == "Take one."
    assert message.stop_reason == "tool_use"


def test_an_error_line_ends_the_stream_keeping_what_arrived() -> None:
    """``{"error": ...}`` mid-stream is one StreamErrorEvent; the message keeps the text before it."""
    events = list(ollama.stream([_line(content="Half "), {"error": "unexpected EOF"}, _line(content="x")]))
    errors = [e for e in events if isinstance(e, StreamErrorEvent)]
    assert [(e.error.message, e.error.provider) for e in errors] == [("unexpected EOF", "ollama")]
    message = accumulate(events)
    assert (message.status, message.text) == ("error", "Half ")
    assert isinstance(events[-1], MessageCompleteEvent)


def test_a_stream_cut_before_its_last_line_is_partial() -> None:
    """With no ``done: true`` line the message is what arrived, marked partial."""
    message = accumulate(ollama.stream(LINES[:3]))
    assert message.status == "partial"
    assert message.text == "Take "


def test_a_line_that_is_not_json_is_refused() -> None:
    """A broken line is a WireFormatError naming the stream, never skipped."""
    with pytest.raises(WireFormatError, match="not JSON"):
        list(ollama.stream(b'{"model": "m", "message": {"role": "assistant", "content": "a"}}\n{oops\n'))


async def test_astream_reads_ndjson_bytes_from_an_async_source() -> None:
    """An async byte stream (httpx's ``aiter_bytes``) cut anywhere folds like the lines."""
    async def body() -> Any:
        for i in range(0, len(BODY), 11):
            yield BODY[i:i + 11]

    message = accumulate([event async for event in ollama.astream(body())])
    assert (message.text, message.status, message.stop_reason) == ("Take one.", "complete", "tool_use")
