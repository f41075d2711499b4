"""The AI SDK's ``UIMessage`` both ways (``partwire.ui.ai_sdk``), judged by the ``ai`` package."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings

from partwire import (
    AssistantMessage,
    Base64Source,
    ErrorEvent,
    ImagePart,
    Opaque,
    RedactedThinkingPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UnknownPart,
    UserMessage,
)
from partwire.history import HistoryEvent
from partwire.ui import ai_sdk
from tests.harness.depth import examples
from tests.strategies import histories as any_history
from tests.ui.canonical import dumped
from tests.ui.conftest import Node
from tests.ui.corpus import histories
from tests.ui.laws import round_trip_problems

LAWS = settings(max_examples=examples(25), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _json(value: Any) -> Any:
    """As it would cross HTTP: JSON text and back."""
    return json.loads(json.dumps(value))


def _round_trip(history: list[HistoryEvent]) -> list[str]:
    written = ai_sdk.to_wire(history)
    back = ai_sdk.from_wire(_json(written.value))
    return round_trip_problems(history, written.losses, back.value)


def _call(name: str = "get_weather", ident: str = "tu_1") -> ToolCallPart:
    return ToolCallPart(id=ident, name=name, arguments_json='{"city":"Paris"}')


# -- the SDK's own validator ---------------------------------------------------------------------


def test_validate_ui_messages_accepts_every_corpus_history(node: Node) -> None:
    """``validateUIMessages`` accepts the UI messages of every corpus history of the five APIs,
    and gives them back unchanged (it strips no key it does not know)."""
    items = [ai_sdk.to_wire(history).value for _, history in histories()]
    results = node("validate-ui", items)
    refused = [(file, r.get("error")) for (file, _), r in zip(histories(), results, strict=True)
               if not (r["ok"] and r["same"])]
    assert len(items) > 1000
    assert refused == []


def test_validate_ui_messages_accepts_every_part_and_tool_state(node: Node) -> None:
    """Every kind of UI part partwire writes (each tool state included) passes the validator."""
    call = _call()
    history: list[HistoryEvent] = [
        UserMessage(parts=[TextPart(text="hi"), ImagePart(source=Base64Source(data="aGk="),
                                                          media_type="image/png")]),
        AssistantMessage(parts=[
            ThinkingPart(text="hm", signature=Opaque(value="sig", issuer="anthropic")),
            RedactedThinkingPart(data=Opaque(value="xyz", issuer="anthropic")),
            call, _call(ident="tu_2"), _call(ident="tu_3"), _call(ident="tu_4"),
            UnknownPart(original_type="future", raw={"a": 1}, issuer="anthropic")]),
        ToolMessage(call_id="tu_1", tool_name=call.name, output_text="sunny"),
        ToolMessage(call_id="tu_2", tool_name=call.name, status="error", output_text="boom"),
        ToolMessage(call_id="tu_3", tool_name=call.name, status="denied"),
    ]
    written = ai_sdk.to_wire(history).value
    states = [p.get("state") for p in written[1]["parts"] if "toolCallId" in p]
    assert states == ["output-available", "output-error", "output-denied", "input-available"]
    [result] = node("validate-ui", [written])
    assert result == {"ok": True, "same": True}


# -- the law -------------------------------------------------------------------------------------


def test_round_trip_keeps_every_corpus_history() -> None:
    """canonical -> UIMessage -> canonical keeps ids and signatures of every corpus history, and
    every other difference is a loss."""
    broken = {file: p[:3] for file, history in histories() if (p := _round_trip(list(history)))}
    assert broken == {}


@LAWS
@given(any_history())
def test_round_trip_keeps_any_history(history: list[HistoryEvent]) -> None:
    """The same law on generated histories: every role, part and event type, unknown fields."""
    assert _round_trip(history) == []


# -- where things go -----------------------------------------------------------------------------


def test_signatures_ride_where_the_sdk_providers_put_them() -> None:
    """Anthropic's signature, OpenAI's encrypted content and item id, Gemini's thought signature
    and redacted data sit in ``providerMetadata`` under their provider's own keys."""
    message = AssistantMessage(parts=[
        ThinkingPart(text="a", signature=Opaque(value="S1", issuer="anthropic")),
        ThinkingPart(text="b", id="rs_1", signature=Opaque(value="E1", issuer="openai")),
        ThinkingPart(text="c", signature=Opaque(value="G1", issuer="google")),
        RedactedThinkingPart(data=Opaque(value="R1", issuer="anthropic")),
    ])
    parts = ai_sdk.to_wire([message]).value[0]["parts"]
    metadata = [{k: v for k, v in p["providerMetadata"].items() if k != "partwire"} for p in parts]
    assert metadata == [{"anthropic": {"signature": "S1"}},
                        {"openai": {"reasoningEncryptedContent": "E1", "itemId": "rs_1"}},
                        {"google": {"thoughtSignature": "G1"}},
                        {"anthropic": {"redactedData": "R1"}}]


def test_a_tool_message_becomes_its_calls_output() -> None:
    """A tool result is the output of its call's ``tool-{name}`` part, not a message of its own."""
    history: list[HistoryEvent] = [
        AssistantMessage(parts=[_call()]),
        ToolMessage(call_id="tu_1", tool_name="get_weather", output_text="sunny"),
    ]
    written = ai_sdk.to_wire(history)
    [message] = written.value
    [part] = message["parts"]
    assert (part["type"], part["toolCallId"], part["state"], part["input"], part["output"]) == \
        ("tool-get_weather", "tu_1", "output-available", {"city": "Paris"}, "sunny")
    assert written.losses == ()


def test_what_cannot_go_is_a_loss() -> None:
    """A history event that is not a message is dropped, a result with no call too, and a result
    far from its call is moved: each one a loss at its path."""
    history: list[HistoryEvent] = [
        ToolMessage(call_id="tu_0", tool_name="x", output_text="orphan"),
        AssistantMessage(parts=[_call()]),
        ErrorEvent(message="rate limited"),
        ToolMessage(call_id="tu_1", tool_name="get_weather", output_text="late"),
    ]
    losses = ai_sdk.to_wire(history).losses
    assert [(x.path, x.part_type, x.action, x.adapter) for x in losses] == [
        ("history[0]", "tool_message", "dropped", "ai-sdk-ui"),
        ("history[2]", "error", "dropped", "ai-sdk-ui"),
        ("history[3]", "tool_message", "rewritten", "ai-sdk-ui"),
    ]
    assert _round_trip(history) == []


# -- messages partwire did not write --------------------------------------------------------------


def _sdk_message() -> dict[str, Any]:
    """An assistant UIMessage as the SDK builds it from an Anthropic stream: two steps."""
    return {"id": "msg_1", "role": "assistant", "parts": [
        {"type": "step-start"},
        {"type": "reasoning", "text": "think", "state": "done",
         "providerMetadata": {"anthropic": {"signature": "SIG"}}},
        {"type": "tool-get_weather", "toolCallId": "toolu_1", "state": "output-available",
         "input": {"city": "Paris"}, "output": {"temp": 20}},
        {"type": "step-start"},
        {"type": "source-url", "sourceId": "s1", "url": "https://example.com"},
        {"type": "text", "text": "It is 20 degrees.", "state": "done"},
    ]}


def test_a_message_the_sdk_wrote_reads_as_steps_and_tool_results() -> None:
    """Each step is an assistant message, a tool output a tool message after it, and the
    signature comes back from Anthropic's key."""
    history = ai_sdk.from_wire([_sdk_message()]).value
    assert [type(e).__name__ for e in history] == ["AssistantMessage", "ToolMessage", "AssistantMessage"]
    first, tool, second = history
    assert isinstance(first, AssistantMessage)
    assert isinstance(tool, ToolMessage)
    thinking, call = first.parts
    assert isinstance(thinking, ThinkingPart)
    assert thinking.signature == Opaque(value="SIG", issuer="anthropic")
    assert isinstance(call, ToolCallPart)
    assert (call.id, call.arguments_json) == ("toolu_1", '{"city":"Paris"}')
    assert (tool.call_id, tool.data, tool.output_text) == ("toolu_1", {"temp": 20}, '{"temp":20}')
    assert [first.id, second.id] == ["msg_1", "msg_1-1"]


def test_an_unknown_ui_part_is_kept_and_written_back() -> None:
    """A part type partwire has no part for comes back as an unknown part, then as it came."""
    history = ai_sdk.from_wire([_sdk_message()]).value
    unknown = history[2].parts[0]  # type: ignore[union-attr]
    assert isinstance(unknown, UnknownPart)
    assert unknown.original_type == "source-url"
    again = ai_sdk.to_wire(history).value
    assert {"type": "source-url", "sourceId": "s1", "url": "https://example.com"} in again[1]["parts"]


def test_a_message_partwire_wrote_comes_back_whole() -> None:
    """Message fields the UI form has no field for (created_at, model, usage) come back."""
    message = AssistantMessage(parts=[TextPart(text="hi")], model="anthropic:claude-sonnet-4-6",
                               metadata={"app": 1})
    written = ai_sdk.to_wire([message]).value
    assert written[0]["metadata"]["app"] == 1
    [back] = ai_sdk.from_wire(_json(written)).value
    assert dumped(back) == dumped(message)
