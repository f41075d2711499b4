"""Cohere v2 request bodies read back (``from_wire_request``) and written again, exactly."""

from __future__ import annotations

from typing import Any

import pytest

from partwire import SystemMessage, ToolDefinition, ToolMessage, UserMessage
from partwire.adapters import cohere
from partwire.errors import WireFormatError

MODEL = "command-a-03-2025"


def _again(body: dict[str, Any]) -> dict[str, Any]:
    imported = cohere.from_wire_request(body)
    projection = cohere.to_wire(imported.history, **imported.to_wire_kwargs())
    assert projection.losses == ()
    return projection.request


@pytest.mark.parametrize("messages", [
    [{"role": "user", "content": [{"type": "text", "text": "one text as a list"}]}],
    [{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "f_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
     {"role": "tool", "tool_call_id": "f_1", "content": "done"}],
    [{"role": "user", "content": "q"}, {"role": "assistant", "tool_plan": "", "tool_calls": [
        {"id": "f_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
     {"role": "tool", "tool_call_id": "f_1", "content": [{"type": "document", "document": {"data": {"output": "60"}}},
                                                         {"type": "text", "text": "and more"}]}],
    [{"role": "system", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
     {"role": "user", "content": [{"type": "text", "text": "look"},
                                  {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=",
                                                                      "detail": "high"}}]}],
    [{"role": "user", "content": "q"}, {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "Obama."}], "citations": [
        {"start": 0, "end": 6, "text": "Obama.", "content_index": 1, "type": "TEXT_CONTENT",
         "sources": [{"type": "document", "id": "doc-2", "document": {"id": "doc-2", "text": "x"}}]}]}],
], ids=["text-list", "null-content", "empty-plan-and-document-result", "system-list-image", "citations"])
def test_a_request_written_its_own_way_comes_back_exactly(messages: list[dict[str, Any]]) -> None:
    """A lone text as a list, a null content, an empty plan, a tool result as items, a system list,
    an image with its detail and citations with their sources all re-export as written."""
    body = {"model": MODEL, "messages": messages}
    assert _again(body) == body


def test_documents_become_a_marked_user_message_after_the_system_prompt() -> None:
    """Top-level documents (strings and objects) are one user message of documents after the
    system messages, and go back to ``documents``."""
    body = {"model": MODEL, "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}],
            "documents": ["plain text", {"id": "d1", "data": {"title": "T", "snippet": "x", "url": "https://x"}}]}
    history = cohere.from_wire_request(body).history
    assert isinstance(history[0], SystemMessage)
    assert isinstance(history[1], UserMessage)
    assert [p.type for p in history[1].parts] == ["document", "document"]
    assert history[1].parts[1].media_type == "application/json"  # type: ignore[union-attr]
    assert _again(body) == body


def test_a_tool_result_pairs_with_its_call_and_reads_its_documents_as_text() -> None:
    """A tool message answers the call of the same wire id, its documents read as output text."""
    body = {"model": MODEL, "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "tool_calls": [{"id": "f_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "f_1", "content": [{"type": "document", "document": {"data": {"output": "60"}}}]}]}
    history = cohere.from_wire_request(body).history
    result = history[2]
    assert isinstance(result, ToolMessage)
    assert result.call_id == history[1].parts[0].id  # type: ignore[union-attr]
    assert (result.tool_name, result.output_text) == ("f", '{"output": "60"}')


def test_strict_tools_is_put_on_every_tool() -> None:
    """``strict_tools`` reads onto each tool definition, and writes back as one switch."""
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}
    body = {"model": MODEL, "messages": [{"role": "user", "content": "q"}], "tools": [tool], "strict_tools": True}
    imported = cohere.from_wire_request(body)
    assert isinstance(imported.tools[0], ToolDefinition)
    assert imported.tools[0].strict is True
    assert "strict_tools" not in imported.params
    assert _again(body) == body


@pytest.mark.parametrize(("body", "where"), [
    ({"model": MODEL, "messages": [{"role": "robot", "content": "q"}]}, "messages[0].role"),
    ({"model": MODEL, "messages": [{"role": "user", "content": 3}]}, "messages[0].content"),
    ({"model": MODEL, "messages": [{"role": "tool", "content": "x"}]}, "messages[0]"),
    ({"model": MODEL}, "messages"),
])
def test_a_body_it_cannot_read_is_refused_saying_where(body: dict[str, Any], where: str) -> None:
    """A role Cohere lacks, content of the wrong type, a tool message without its call id and a
    body without messages are WireFormatErrors at the place they are."""
    with pytest.raises(WireFormatError) as caught:
        cohere.from_wire_request(body)
    assert caught.value.path == where


def test_an_anthropic_body_is_refused_naming_it() -> None:
    """A Messages body (a top-level system prompt) read as Cohere's names what it is."""
    with pytest.raises(WireFormatError, match="Anthropic Messages"):
        cohere.from_wire_request({"model": "claude-sonnet-4-6", "max_tokens": 9, "system": "s",
                                  "messages": [{"role": "user", "content": "q"}]})
