"""AG-UI messages and events both ways (``partwire.ui.ag_ui``), judged by ``@ag-ui/core``'s
schemas under node and by the ``ag-ui-protocol`` models in Python."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from ag_ui.core import Event, Message
from hypothesis import HealthCheck, given, settings
from pydantic import TypeAdapter

from partwire import (
    AssistantMessage,
    ErrorEvent,
    Opaque,
    ProviderData,
    RedactedThinkingPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UnknownEvent,
    Usage,
    UserMessage,
)
from partwire.history import HistoryEvent
from partwire.streaming import (
    MessageCompleteEvent,
    MessageStartEvent,
    StreamErrorEvent,
    StreamEvent,
    TextDeltaEvent,
    ThinkingDeltaEvent,
)
from partwire.ui import ag_ui
from tests.harness.depth import examples
from tests.harness.streams import fold
from tests.strategies import histories as any_history
from tests.ui.canonical import dumped
from tests.ui.conftest import Node
from tests.ui.corpus import histories, streams
from tests.ui.laws import round_trip_problems

LAWS = settings(max_examples=examples(25), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
_EVENT: TypeAdapter[Any] = TypeAdapter(Event)
_MESSAGE: TypeAdapter[Any] = TypeAdapter(Message)


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _round_trip(history: list[HistoryEvent]) -> list[str]:
    written = ag_ui.to_wire(history)
    return round_trip_problems(history, written.losses, ag_ui.from_wire(_json(written.value)).value)


def _events(events: Any) -> list[dict[str, Any]]:
    return list(ag_ui.to_stream(events, thread_id="thread", run_id="run", history=[]))


def _python_problems(adapter: TypeAdapter[Any], items: list[dict[str, Any]]) -> list[str]:
    """What ``ag-ui-protocol`` refuses or changes (a dump that is not the input)."""
    problems = []
    for item in items:
        value = adapter.validate_python(item)
        if adapter.dump_python(value, by_alias=True, exclude_none=True, mode="json") != item:
            problems.append(json.dumps(item)[:200])
    return problems


# -- the official packages ------------------------------------------------------------------------


def test_ag_ui_core_accepts_every_message_and_event(node: Node) -> None:
    """``@ag-ui/core``'s MessageSchema accepts the messages of every corpus history and its
    EventSchemas every event of every corpus stream, each unchanged."""
    messages = [ag_ui.to_wire(h).value for _, h in histories()]
    events = [_events(e) for _, e in streams()]
    refused = [r["error"] for r in node("ag-ui-messages", messages) if not r["ok"]]
    refused += [r["error"] for r in node("ag-ui-events", events) if not r["ok"]]
    assert len(messages) > 1000
    assert len(events) > 450
    assert refused == []


def test_ag_ui_protocol_accepts_every_message_and_event() -> None:
    """The ``ag-ui-protocol`` models validate the same messages and events, and dump them back
    unchanged."""
    problems = [p for _, h in histories() for p in _python_problems(_MESSAGE, ag_ui.to_wire(h).value)]
    problems += [p for _, e in streams() for p in _python_problems(_EVENT, _events(e))]
    assert problems == []


# -- the laws -------------------------------------------------------------------------------------


def test_round_trip_keeps_every_corpus_history() -> None:
    """canonical -> AG-UI messages -> canonical keeps ids and signatures of every corpus history,
    and every other difference is a loss."""
    broken = {file: p[:3] for file, history in histories() if (p := _round_trip(list(history)))}
    assert broken == {}


@LAWS
@given(any_history())
def test_round_trip_keeps_any_history(history: list[HistoryEvent]) -> None:
    """The same law on generated histories."""
    assert _round_trip(history) == []


def test_every_corpus_stream_reads_back_to_its_message() -> None:
    """``from_stream`` of partwire's events gives each corpus stream's accumulated message."""
    differ = []
    for file, events in streams():
        message, _ = fold(events)
        back = ag_ui.from_stream(_json(list(ag_ui.to_stream(events, thread_id="t", run_id="r")))).value
        if [dumped(e) for e in back] != [dumped(message)]:
            differ.append(file)
    assert differ == []


# -- where things go ------------------------------------------------------------------------------


def test_reasoning_is_a_message_of_its_own_with_its_signature() -> None:
    """Thinking becomes reasoning messages before the assistant message, the signature and the
    redacted data their ``encryptedValue``; a Gemini call signature the call's."""
    message = AssistantMessage(id="m1", parts=[
        ThinkingPart(text="hm", signature=Opaque(value="SIG", issuer="anthropic")),
        RedactedThinkingPart(data=Opaque(value="RED", issuer="anthropic")),
        TextPart(text="Hello"),
        ToolCallPart(id="c1", name="f", arguments_json="{}",
                     provider_data=ProviderData(issuer="google", data={"thoughtSignature": "G"})),
    ])
    first, second, main = ag_ui.to_wire([message]).value
    assert (first["id"], first["role"], first["content"], first["encryptedValue"]) == \
        ("m1-reasoning-0", "reasoning", "hm", "SIG")
    assert (second["content"], second["encryptedValue"]) == ("", "RED")
    assert (main["id"], main["content"]) == ("m1", "Hello")
    assert main["toolCalls"] == [{"id": "c1", "type": "function", "encryptedValue": "G",
                                  "function": {"name": "f", "arguments": "{}"}}]


def test_events_follow_the_protocol() -> None:
    """A run: started, reasoning, text, the snapshot of the thread, finished with usage."""
    final = AssistantMessage(id="m1", parts=[ThinkingPart(text="hm", signature=Opaque(value="S", issuer="anthropic")),
                                             TextPart(text="Hi")],
                             usage=Usage(input_tokens=3, output_tokens=2),
                             created_at=datetime(2026, 1, 1, tzinfo=UTC))
    stream: list[StreamEvent] = [MessageStartEvent(message_id="m1"), ThinkingDeltaEvent(index=0, text="hm"),
                                 TextDeltaEvent(index=1, text="Hi"), MessageCompleteEvent(message=final)]
    earlier = UserMessage("hello")
    events = list(ag_ui.to_stream(stream, thread_id="t", run_id="r", history=[earlier]))
    assert [e["type"] for e in events] == [
        "RUN_STARTED", "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "REASONING_MESSAGE_END",
        "REASONING_ENCRYPTED_VALUE", "REASONING_END", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert [m["id"] for m in events[-2]["messages"]] == [earlier.id, "m1-reasoning-0", "m1"]
    assert events[-1]["usage"][0]["inputTokens"] == 3


def test_an_error_ends_the_run_with_run_error() -> None:
    """A stream error ends the run with ``RUN_ERROR`` (nothing after it), which reads back."""
    final = AssistantMessage(id="m1", parts=[TextPart(text="Hi")], status="error", stop_reason="error")
    stream: list[StreamEvent] = [MessageStartEvent(message_id="m1"), TextDeltaEvent(index=0, text="Hi"),
                                 StreamErrorEvent(error=ErrorEvent(message="overloaded")),
                                 MessageCompleteEvent(message=final)]
    events = list(ag_ui.to_stream(stream, thread_id="t", run_id="r"))
    assert (events[-1]["type"], events[-1]["message"]) == ("RUN_ERROR", "overloaded")
    [back] = ag_ui.from_stream(events).value
    assert dumped(back) == dumped(final)


def test_what_cannot_go_is_a_loss() -> None:
    """A history event that is not a message is dropped, with its path."""
    losses = ag_ui.to_wire([UserMessage("hi"), ErrorEvent(message="x")]).losses
    assert [(x.path, x.part_type, x.action, x.adapter) for x in losses] == [("history[1]", "error", "dropped", "ag-ui")]


# -- data partwire did not write ------------------------------------------------------------------


def test_messages_from_elsewhere_read_field_by_field() -> None:
    """Reasoning messages become thinking parts of the next assistant message, a tool message
    takes its call's name, an activity message is kept as an unknown event."""
    messages = [
        {"id": "u1", "role": "user", "content": "hi"},
        {"id": "r1", "role": "reasoning", "content": "hm", "encryptedValue": "E"},
        {"id": "a1", "role": "assistant", "content": "Let me look.",
         "toolCalls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "done"},
        {"id": "x1", "role": "activity", "activityType": "PLAN", "content": {"steps": []}},
    ]
    user, assistant, tool, activity = ag_ui.from_wire(messages).value
    assert isinstance(user, UserMessage)
    assert isinstance(assistant, AssistantMessage)
    thinking, text, call = assistant.parts
    assert isinstance(thinking, ThinkingPart)
    assert thinking.signature == Opaque(value="E", issuer="ag-ui")
    assert isinstance(text, TextPart)
    assert isinstance(call, ToolCallPart)
    assert isinstance(tool, ToolMessage)
    assert (tool.tool_name, tool.output_text) == ("f", "done")
    assert isinstance(activity, UnknownEvent)
    assert activity.original_type == "activity"


def test_events_from_elsewhere_read_into_messages() -> None:
    """Text, tool-call and result events of another agent fold into its messages; a state
    snapshot, which no message holds, is kept as an unknown event."""
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "Hi"},
        {"type": "TEXT_MESSAGE_END", "messageId": "a1"},
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f", "parentMessageId": "a1"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"a":1}'},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "2"},
        {"type": "STATE_SNAPSHOT", "snapshot": {"step": 1}},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    assistant, tool, state = ag_ui.from_stream(events).value
    assert isinstance(assistant, AssistantMessage)
    assert assistant.id == "a1"
    assert [type(p).__name__ for p in assistant.parts] == ["TextPart", "ToolCallPart"]
    assert isinstance(tool, ToolMessage)
    assert (tool.call_id, tool.output_text) == ("c1", "2")
    assert isinstance(state, UnknownEvent)
    assert state.original_type == "STATE_SNAPSHOT"


def test_the_async_twins_equal_the_sync_ones() -> None:
    """``ato_stream`` and ``afrom_stream`` give what ``to_stream`` and ``from_stream`` give."""
    _, events = streams()[0]

    async def source(items: list[Any]) -> AsyncIterator[Any]:
        for item in items:
            yield item

    async def both() -> tuple[list[dict[str, Any]], list[HistoryEvent]]:
        out = [e async for e in ag_ui.ato_stream(source(list(events)), thread_id="t", run_id="r")]
        return out, (await ag_ui.afrom_stream(source(out))).value

    out, back = asyncio.run(both())
    assert out == list(ag_ui.to_stream(events, thread_id="t", run_id="r"))
    assert [dumped(e) for e in back] == [dumped(e) for e in ag_ui.from_stream(out).value]


def test_a_tool_result_event_is_valid_and_reads_back(node: Node) -> None:
    """``tool_result`` writes a ``TOOL_CALL_RESULT`` both packages accept, read back whole."""
    call = AssistantMessage(id="m1", parts=[ToolCallPart(id="c1", name="f", arguments_json="{}")],
                            created_at=datetime(2026, 1, 1, tzinfo=UTC))
    result = ToolMessage(call_id="c1", tool_name="f", output_text="done")
    stream: list[StreamEvent] = [MessageStartEvent(message_id="m1"), MessageCompleteEvent(message=call)]
    events = [*ag_ui.to_stream(stream, thread_id="t", run_id="r"), ag_ui.tool_result(result)]
    [checked] = node("ag-ui-events", [events])
    assert checked["ok"], checked.get("error")
    assert _python_problems(_EVENT, events) == []
    back = ag_ui.from_stream(events).value
    assert [dumped(e) for e in back] == [dumped(call), dumped(result)]
