"""The AI SDK's UI message stream both ways (``partwire.ui.ai_sdk_stream``), read by the ``ai``
package's own ``parseJsonEventStream`` (with its chunk schema) and ``readUIMessageStream``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable
from datetime import UTC, datetime
from typing import Any

from partwire import (
    AssistantMessage,
    ErrorEvent,
    Opaque,
    RedactedThinkingPart,
    RefusalPart,
    ServerToolCallPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UnknownPart,
    Usage,
)
from partwire.streaming import (
    MessageCompleteEvent,
    MessageStartEvent,
    SignatureEvent,
    StreamEvent,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    UsageEvent,
)
from partwire.ui import ai_sdk_stream
from tests.harness.streams import fold
from tests.ui.canonical import dumped
from tests.ui.conftest import Node
from tests.ui.corpus import streams


def _sse(events: Iterable[StreamEvent]) -> str:
    return "".join(ai_sdk_stream.sse(ai_sdk_stream.to_stream(events)))


def _content(message: AssistantMessage) -> dict[str, list[Any]]:
    """Text, reasoning and tool calls of a canonical message, as a UI shows them."""
    out: dict[str, list[Any]] = {"text": [], "reasoning": [], "tools": []}
    for part in message.parts:
        if isinstance(part, TextPart | RefusalPart):
            out["text"].append(part.text)
        elif isinstance(part, ThinkingPart):
            out["reasoning"].append(part.text)
        elif isinstance(part, RedactedThinkingPart):
            out["reasoning"].append("")
        elif isinstance(part, ToolCallPart):
            try:
                value = json.loads(part.arguments_json)
            except ValueError:
                value = part.arguments_json
            out["tools"].append([part.id, part.name, value])
        elif isinstance(part, ServerToolCallPart):
            out["tools"].append([part.id, part.name, part.input])
    return out


def _sdk_content(message: dict[str, Any]) -> dict[str, list[Any]]:
    """The same, of the UIMessage ``readUIMessageStream`` built."""
    out: dict[str, list[Any]] = {"text": [], "reasoning": [], "tools": []}
    for part in message["parts"]:
        if part["type"] == "text":
            out["text"].append(part["text"])
        elif part["type"] == "reasoning":
            out["reasoning"].append(part["text"])
        elif part["type"].startswith("tool-") or part["type"] == "dynamic-tool":
            name = part.get("toolName") or part["type"][5:]
            out["tools"].append([part["toolCallId"], name, part.get("input")])
    return out


def test_read_ui_message_stream_reads_every_corpus_stream_with_equal_content(node: Node) -> None:
    """For every recorded provider stream, the SDK parses every chunk partwire writes with its
    chunk schema, and the UIMessage ``readUIMessageStream`` builds shows the same text,
    reasoning and tool calls as partwire's own message for that stream."""
    found = streams()
    chunks = [list(ai_sdk_stream.to_stream(events)) for _, events in found]
    texts = ["".join(ai_sdk_stream.sse(c)) for c in chunks]
    results = node("read-stream", texts)
    wrong = []
    for (file, events), sent, result in zip(found, chunks, results, strict=True):
        message, _ = fold(events)
        if not result["ok"] or result["chunks"] != len(sent) or \
                _sdk_content(result["message"]) != _content(message):
            wrong.append((file, result.get("error")))
    assert len(found) > 450
    assert wrong == []


def test_every_corpus_stream_reads_back_to_its_message() -> None:
    """``from_stream`` of partwire's UI stream gives the stream's accumulated message, field for
    field (signatures, usage, ids, provider echo state)."""
    differ = []
    for file, events in streams():
        message, _ = fold(events)
        back = ai_sdk_stream.from_stream(_sse(events)).value
        if [dumped(e) for e in back] != [dumped(message)]:
            differ.append(file)
    assert differ == []


def test_headers_are_the_sdks(node: Node) -> None:
    """:data:`HEADERS` are the SDK's own ``UI_MESSAGE_STREAM_HEADERS``."""
    [headers] = node("headers", [None])
    assert dict(ai_sdk_stream.HEADERS) == headers


def _events() -> list[StreamEvent]:
    """A small Anthropic-like stream: signed thinking, text, a tool call, usage."""
    final = AssistantMessage(
        id="msg_1", parts=[
            ThinkingPart(text="Let me see.", signature=Opaque(value="SIG", issuer="anthropic")),
            TextPart(text="Checking."),
            ToolCallPart(id="toolu_1", name="get_weather", arguments_json='{"city":"Paris"}')],
        stop_reason="tool_use", usage=Usage(input_tokens=10, output_tokens=5),
        model="anthropic:claude-sonnet-4-6", created_at=datetime(2026, 1, 1, tzinfo=UTC))
    return [
        MessageStartEvent(message_id="msg_1", model="anthropic:claude-sonnet-4-6"),
        ThinkingDeltaEvent(index=0, text="Let me see."),
        SignatureEvent(index=0, signature=Opaque(value="SIG", issuer="anthropic")),
        TextDeltaEvent(index=1, text="Checking."),
        ToolCallStartEvent(index=2, id="toolu_1", name="get_weather"),
        ToolCallDeltaEvent(index=2, arguments_delta='{"city":'),
        ToolCallDeltaEvent(index=2, arguments_delta='"Paris"}'),
        ToolCallEndEvent(index=2),
        UsageEvent(usage=Usage(input_tokens=10, output_tokens=5)),
        MessageCompleteEvent(message=final),
    ]


def test_chunks_follow_the_protocol() -> None:
    """The chunk sequence: start, step, reasoning and text deltas, tool input streaming then
    available, the parts' ends (the signature under Anthropic's key), finish with usage."""
    chunks = list(ai_sdk_stream.to_stream(_events()))
    assert [c["type"] for c in chunks] == [
        "start", "start-step", "reasoning-start", "reasoning-delta", "text-start", "text-delta",
        "tool-input-start", "tool-input-delta", "tool-input-delta", "tool-input-available",
        "reasoning-end", "text-end", "finish-step", "finish"]
    assert chunks[0]["messageId"] == "msg_1"
    assert chunks[9]["input"] == {"city": "Paris"}
    assert chunks[10]["providerMetadata"]["anthropic"] == {"signature": "SIG"}
    finish = chunks[-1]
    assert finish["finishReason"] == "tool-calls"
    assert finish["messageMetadata"]["partwire"]["usage"]["input_tokens"] == 10


def test_sse_frames_each_chunk_and_ends_with_done() -> None:
    """Each chunk is one ``data:`` event and a blank line; ``[DONE]`` ends the stream."""
    lines = list(ai_sdk_stream.sse([{"type": "start"}, {"type": "finish"}]))
    assert lines == ['data: {"type":"start"}\n\n', 'data: {"type":"finish"}\n\n', "data: [DONE]\n\n"]


def test_the_async_stream_equals_the_sync_one() -> None:
    """``ato_stream`` and ``asse`` give the same text as ``to_stream`` and ``sse``."""

    async def events() -> AsyncIterator[StreamEvent]:
        for event in _events():
            yield event

    async def text() -> str:
        return "".join([line async for line in ai_sdk_stream.asse(ai_sdk_stream.ato_stream(events()))])

    assert asyncio.run(text()) == _sse(_events())


def test_the_async_reader_equals_the_sync_one() -> None:
    """``afrom_stream`` over chunks gives what ``from_stream`` gives."""
    chunks = list(ai_sdk_stream.to_stream(_events()))

    async def source() -> AsyncIterator[dict[str, Any]]:
        for chunk in chunks:
            yield chunk

    back = asyncio.run(ai_sdk_stream.afrom_stream(source())).value
    assert [dumped(e) for e in back] == [dumped(e) for e in ai_sdk_stream.from_stream(chunks).value]


def test_a_stream_the_sdk_wrote_reads_as_steps() -> None:
    """A two-step stream of ``streamText`` (a tool run between the steps) gives an assistant
    message, the tool's message, the next assistant message; the error chunk an error event;
    a chunk type partwire does not know is kept as an unknown part."""
    chunks = [
        {"type": "start", "messageId": "m1"},
        {"type": "start-step"},
        {"type": "tool-input-available", "toolCallId": "c1", "toolName": "add", "input": {"a": 1}},
        {"type": "tool-output-available", "toolCallId": "c1", "output": 2},
        {"type": "finish-step"},
        {"type": "start-step"},
        {"type": "text-start", "id": "t"},
        {"type": "text-delta", "id": "t", "delta": "It is 2."},
        {"type": "text-end", "id": "t"},
        {"type": "future-chunk", "value": 1},
        {"type": "error", "errorText": "overloaded"},
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "stop"},
    ]
    history = ai_sdk_stream.from_stream(chunks).value
    first, tool, second, error = history
    assert isinstance(first, AssistantMessage)
    assert isinstance(first.parts[0], ToolCallPart)
    assert isinstance(tool, ToolMessage)
    assert (tool.call_id, tool.data) == ("c1", 2)
    assert isinstance(second, AssistantMessage)
    assert second.status == "error"
    assert isinstance(second.parts[0], TextPart)
    assert second.parts[0].text == "It is 2."
    assert isinstance(second.parts[1], UnknownPart)
    assert second.parts[1].raw == {"type": "future-chunk", "value": 1}
    assert isinstance(error, ErrorEvent)
    assert error.message == "overloaded"


def test_a_tool_output_between_steps_reaches_the_sdk_and_reads_back(node: Node) -> None:
    """A server that runs the tool sends ``tool_output``: the SDK's message shows the output on
    the call's part, and ``from_stream`` gives the tool message back whole."""
    chunks = list(ai_sdk_stream.to_stream(_events()))
    tool = ToolMessage(call_id="toolu_1", tool_name="get_weather", output_text="18°C",
                       created_at=datetime(2026, 1, 1, tzinfo=UTC))
    failed = ToolMessage(call_id="toolu_1", tool_name="get_weather", status="error", output_text="down")
    for message, state in ((tool, "output-available"), (failed, "output-error")):
        sent = [*chunks[:-2], ai_sdk_stream.tool_output(message), *chunks[-2:]]
        [result] = node("read-stream", ["".join(ai_sdk_stream.sse(sent))])
        assert result["ok"], result.get("error")
        part = next(p for p in result["message"]["parts"] if p.get("toolCallId") == "toolu_1")
        assert part["state"] == state
        back = ai_sdk_stream.from_stream(sent).value
        assert [dumped(e) for e in back[1:]] == [dumped(message)]
