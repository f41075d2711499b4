"""Cross-provider: an Anthropic history with thinking and parallel tool calls goes to Chat Completions
and back, each request valid by its SDK's types and every difference in the loss list."""

from __future__ import annotations

import copy
from typing import Any

from partwire import ThinkingPart, ToolCallPart
from partwire.adapters import anthropic, openai_chat
from partwire.convert import convert
from tests.harness.validity import request_errors

SIGNATURE = ("EqQCCkgIBhABGAIiQNnJ3Dz0Ww8Y2k6qvY4t0bGmU7pL5xJcR1hK9sTaV3eZfB2nQyX8oCwM4iD6uP0jHrE7gSl"
             "WmKvN1bQ9tYxZaUc2oRfJ8dLhI3kPzXs5vB7nM0qAeT4yGw6jC1uD9rH2lSfK8xVbN3mQ5tZaPcE7oW4iY0gUjRk")
WEATHER = {"name": "get_weather", "description": "Get the current weather for a city.",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                            "required": ["city"]}}

ANTHROPIC_REQUEST: dict[str, Any] = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 2048,
    "system": "You are a weather assistant.",
    "messages": [
        {"role": "user", "content": "What's the weather in Paris and in Tokyo?"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Two cities: call the tool for both at once.",
             "signature": SIGNATURE},
            {"type": "text", "text": "Checking both cities."},
            {"type": "tool_use", "id": "toolu_01Hq7Wn3Kd9Ps2Lm5Xc8Vb4N", "name": "get_weather",
             "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_01Rt6Yp1Jf4Gs8Ka3Zd7Qe2M", "name": "get_weather",
             "input": {"city": "Tokyo"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01Hq7Wn3Kd9Ps2Lm5Xc8Vb4N", "content": "18 C, light rain"},
            {"type": "tool_result", "tool_use_id": "toolu_01Rt6Yp1Jf4Gs8Ka3Zd7Qe2M",
             "content": "weather service timed out", "is_error": True},
        ]},
    ],
    "tools": [WEATHER],
}


def _to_chat() -> tuple[Any, Any]:
    imported = anthropic.from_wire_request(ANTHROPIC_REQUEST)
    projection = openai_chat.to_wire(imported.history, model="gpt-5.5", tools=imported.tools)
    return imported, projection


def test_anthropic_history_becomes_a_valid_chat_request_with_each_loss() -> None:
    """Thinking is dropped and the error status lost, each reported; Anthropic's call ids, which
    Chat admits, go out as they are."""
    imported, projection = _to_chat()
    assert request_errors("openai_chat", projection.request) == []
    assert [(x.action, x.part_type, x.path) for x in projection.losses] == [
        ("dropped", "thinking", "history[2].parts[0]"),
        ("dropped", "tool_message", "history[4].status"),
    ]
    calls = [p for p in imported.history[2].parts if isinstance(p, ToolCallPart)]
    messages = projection.request["messages"]
    assert messages[0] == {"role": "system", "content": "You are a weather assistant."}
    wire_ids = [c.provider_ids["anthropic"] for c in calls]
    assert messages[2] == {"role": "assistant", "content": "Checking both cities.", "tool_calls": [
        {"id": w, "type": "function", "function": {"name": "get_weather", "arguments": c.arguments_json}}
        for w, c in zip(wire_ids, calls, strict=True)]}
    assert [m["tool_call_id"] for m in messages[3:]] == wire_ids


def test_and_back_to_anthropic_differs_only_by_the_reported_losses() -> None:
    """Back in Anthropic's form, the request is the original minus exactly what the losses name."""
    _, projection = _to_chat()
    back = openai_chat.from_wire_request(projection.request)
    again = anthropic.to_wire(back.history, model="claude-sonnet-4-6", tools=back.tools, max_tokens=2048)
    assert request_errors("anthropic", again.request) == []
    # The call ids made the trip unchanged (Chat admits Anthropic's ids, and Anthropic admits
    # them back): nothing about them is lost.
    assert again.losses == ()
    # The original with each reported loss of the first leg applied: the thinking block gone and
    # the tool error flag gone; the call ids are Anthropic's own.
    expected = copy.deepcopy(ANTHROPIC_REQUEST)
    assistant = expected["messages"][1]["content"]
    del assistant[0]
    results = expected["messages"][2]["content"]
    del results[1]["is_error"]
    assert again.request == expected


def test_chat_history_goes_to_anthropic_with_its_own_losses() -> None:
    """A Chat Completions request converts to Anthropic; its OpenAI call ids become canonical there."""
    _, projection = _to_chat()
    request, losses = convert(projection.request, source="openai-chat", target="anthropic",
                              model="claude-sonnet-4-6")
    assert request_errors("anthropic", request) == []
    assert all(loss.adapter in ("anthropic", "openai_chat") for loss in losses)


def test_convert_from_anthropic_to_openai_chat() -> None:
    """partwire.convert (the CLI's engine) goes from an Anthropic request to a valid Chat request."""
    request, losses = convert(ANTHROPIC_REQUEST, source="anthropic", target="openai-chat", model="gpt-5.5")
    assert request_errors("openai_chat", request) == []
    assert {loss.action for loss in losses} >= {"dropped"}
    assert "id_mapped" not in {loss.action for loss in losses}


def test_deepseek_thinking_is_not_sent_to_anthropic() -> None:
    """DeepSeek's unsigned reasoning cannot be verified by Anthropic: dropped there, reported."""
    message = openai_chat.from_wire({"id": "x", "model": "deepseek-reasoner", "choices": [{
        "index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": "4", "reasoning_content": "2+2"}}]}, dialect="deepseek")
    assert isinstance(message.parts[0], ThinkingPart)
    projection = anthropic.to_wire([message], model="claude-sonnet-4-6")
    assert [(x.action, x.part_type) for x in projection.losses] == [("dropped", "thinking")]


# OpenAI's server-side tool ids as recorded (tests/corpus/openai-responses): tool search's
# ``tsc_`` (54 characters) and web search's ``ws_`` (51); a client that replays them as Anthropic
# tool_use ids puts them in an Anthropic history.
OPENAI_TOOL_IDS = ("tsc_04bd69550b37ba260069aa689605cc8190bd2d9bf1199fa630",
                   "ws_689e2d4880a0819d98acca37694989b00b15d90494fc6b87")


def _history_with_ids(ids: tuple[str, ...]) -> Any:
    request = copy.deepcopy(ANTHROPIC_REQUEST)
    assistant, results = request["messages"][1]["content"], request["messages"][2]["content"]
    for block, result, call_id in zip(assistant[2:], results, ids, strict=True):
        block["id"] = result["tool_use_id"] = call_id
    return request


def test_openai_tool_ids_in_an_anthropic_history_come_back_from_chat_unchanged() -> None:
    """Call ids OpenAI issued for its server tools (51 to 54 characters, within Chat's 64) are
    sent to Chat as they are, with no id loss, and come back to Anthropic the same."""
    request = _history_with_ids(OPENAI_TOOL_IDS)
    imported = anthropic.from_wire_request(request)
    projection = openai_chat.to_wire(imported.history, model="gpt-5.5", tools=imported.tools)
    chat = projection.request
    assert [c["id"] for c in chat["messages"][2]["tool_calls"]] == list(OPENAI_TOOL_IDS)
    assert [m["tool_call_id"] for m in chat["messages"][3:5]] == list(OPENAI_TOOL_IDS)
    assert not [loss for loss in projection.losses if loss.action == "id_mapped"]
    back = openai_chat.from_wire_request(chat)
    again = anthropic.to_wire(back.history, model="claude-sonnet-4-6", max_tokens=2048,
                              tools=back.tools).request
    assert [b["id"] for b in again["messages"][1]["content"] if b["type"] == "tool_use"] == list(
        OPENAI_TOOL_IDS)
    assert [b["tool_use_id"] for b in again["messages"][2]["content"]] == list(OPENAI_TOOL_IDS)


def test_a_call_id_longer_than_chat_takes_is_mapped_and_reported() -> None:
    """An id over 64 characters is replaced by the canonical id on Chat, with an id_mapped loss
    naming the call, and its result follows it."""
    long_id = "toolu_" + "x" * 59
    request = _history_with_ids((long_id, OPENAI_TOOL_IDS[0]))
    imported = anthropic.from_wire_request(request)
    projection = openai_chat.to_wire(imported.history, model="gpt-5.5", tools=imported.tools)
    sent = projection.request["messages"][2]["tool_calls"][0]["id"]
    assert sent.startswith("tu_")
    assert projection.request["messages"][3]["tool_call_id"] == sent
    assert [(loss.path, loss.action) for loss in projection.losses if loss.action == "id_mapped"] == [
        ("history[2].parts[2]", "id_mapped")]
