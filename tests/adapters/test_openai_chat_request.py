"""The Chat Completions adapter reading a request body (from_wire_request): what a request imports
as, what goes back exactly when it is written again, and what a refused request names."""

from __future__ import annotations

from partwire import (
    ImagePart,
    ToolCallPart,
    ToolDefinition,
    ToolMessage,
    UserMessage,
)
from partwire.adapters import openai_chat


def test_stored_chat_log_is_a_valid_input() -> None:
    """A JSON list of messages (a stored chat log) imports as a history."""
    log = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"},
           {"role": "assistant", "content": "a", "refusal": None, "annotations": []}]
    imported = openai_chat.from_wire_request(log)
    assert [e.role for e in imported.history] == ["system", "user", "assistant"]  # type: ignore[union-attr]
    assert openai_chat.to_wire(imported.history, model="m").request["messages"] == log


def test_import_keeps_names_and_wire_forms() -> None:
    """name fields, a lone text sent as a list, omitted content and image detail "original" come back."""
    request = {"model": "gpt-4.1", "messages": [
        {"role": "user", "name": "ann", "content": [{"type": "text", "text": "hi"}]},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x.test/a.png",
                                                                         "detail": "original"}}]},
        {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
                                              "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "a"},
                                                               {"type": "text", "text": "b"}]},
    ], "max_completion_tokens": 10, "temperature": 0}
    imported = openai_chat.from_wire_request(request)
    tool = imported.history[3]
    assert isinstance(tool, ToolMessage)
    assert tool.output_text == "ab"
    image_message = imported.history[1]
    assert isinstance(image_message, UserMessage)
    image = image_message.parts[0]
    assert isinstance(image, ImagePart)
    assert image.detail == "original"
    assert tool.call_id == imported.history[2].parts[0].id  # type: ignore[union-attr]
    assert imported.max_tokens == 10
    assert imported.params == {}
    assert imported.settings.temperature == 0
    assert openai_chat.to_wire(imported.history, **imported.to_wire_kwargs()).request == request


def test_legacy_function_messages_round_trip() -> None:
    """The deprecated function_call / role "function" pair imports as a call and its result."""
    request = {"model": "m", "messages": [
        {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
        {"role": "function", "name": "f", "content": "done"}]}
    imported = openai_chat.from_wire_request(request)
    call, result = imported.history[0].parts[0], imported.history[1]  # type: ignore[union-attr]
    assert isinstance(call, ToolCallPart)
    assert isinstance(result, ToolMessage)
    assert result.call_id == call.id
    assert openai_chat.to_wire(imported.history, model="m").request == request


def test_every_imported_function_tool_becomes_a_definition() -> None:
    """Every wire function tool imports as a ToolDefinition: one outside the portable subset keeps
    its schema unchecked (``portable_schema=False``), and both re-encode exactly."""
    exact = {"type": "function", "function": {"name": "f", "description": "d",
                                              "parameters": {"type": "object", "properties": {}}}}
    loose = {"type": "function", "function": {"name": "g", "parameters": {"type": "object", "$defs": {}}}}
    body = {"model": "m", "messages": [], "tools": [exact, loose]}
    imported = openai_chat.from_wire_request(body)
    first, second = imported.tools
    assert isinstance(first, ToolDefinition)
    assert first.portable_schema
    assert isinstance(second, ToolDefinition)
    assert not second.portable_schema
    assert second.input_schema == {"type": "object", "$defs": {}}
    assert openai_chat.to_wire(imported.history, **imported.to_wire_kwargs()).request == body
