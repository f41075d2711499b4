"""Responses bodies the API accepted come back exactly: empty assistant items, chained tool results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from partwire import AssistantMessage, HistoryEvent, TextPart, ToolCallPart, UserMessage
from partwire.adapters import openai_responses
from partwire.projection import Loss


def _round_trip(body: dict[str, Any]) -> tuple[dict[str, Any], Sequence[Loss]]:
    imported = openai_responses.from_wire_request(body)
    projection = openai_responses.to_wire(imported.history, **imported.to_wire_kwargs())
    return projection.request, projection.losses


def test_an_empty_assistant_item_after_tool_calls_is_kept() -> None:
    """``{"role": "assistant", "content": ""}`` after a turn of tool calls re-exports exactly."""
    body = {"model": "gpt-4.1", "input": [
        {"role": "user", "content": "What is the weather in Paris?"},
        {"type": "function_call", "call_id": "call_1", "name": "weather", "arguments": "{\"city\":\"Paris\"}"},
        {"role": "assistant", "content": ""},
        {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
    ]}
    request, losses = _round_trip(body)
    assert request == body
    assert losses == ()


def test_an_empty_assistant_text_is_sent_not_dropped() -> None:
    """A canonical assistant text that is empty goes out as an empty assistant item, with no loss."""
    history: list[HistoryEvent] = [UserMessage("hi"),
               AssistantMessage(parts=(ToolCallPart(id="tu_1", name="f", arguments_json="{}"), TextPart(text="")))]
    projection = openai_responses.to_wire(history, model="gpt-4.1")
    assert {"role": "assistant", "content": ""} in projection.request["input"]
    assert not [loss for loss in projection.losses if loss.part_type == "text"]


@pytest.mark.parametrize(("field", "value"), [("previous_response_id", "resp_0a1b2c"),
                                              ("conversation", "conv_0a1b2c"),
                                              ("conversation", {"id": "conv_0a1b2c"})])
def test_a_chained_request_keeps_the_output_of_a_call_the_server_holds(field: str, value: Any) -> None:
    """A request that continues server state sends a tool output whose call only the server holds."""
    body = {"model": "gpt-4.1", field: value,
            "input": [{"type": "function_call_output", "call_id": "call_9", "output": "42"}]}
    request, losses = _round_trip(body)
    assert request == body
    assert losses == ()
