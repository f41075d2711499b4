"""The Anthropic Messages adapter reading a request body (from_wire_request): what a request imports
as, what goes back exactly when it is written again, and what a refused request names."""

from __future__ import annotations

from datetime import UTC

import pytest

from partwire import (
    AssistantMessage,
    DocumentPart,
    ProviderData,
    SystemMessage,
    ToolCallPart,
    ToolMessage,
    UserMessage,
)
from partwire.adapters import (
    ImportedRequest,
    WireFormatError,
    anthropic,
)
from partwire.tools import ServerToolDefinition, ToolDefinition
from tests.adapters.test_anthropic_unit import MODEL


def test_cache_breakpoints_and_document_options_round_trip() -> None:
    """cache_control, a document's context and citation switch live in provider_data and come back."""
    body = {"model": MODEL, "max_tokens": 100,
            "system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
            "messages": [{"role": "user", "content": [
                {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "d"},
                 "title": "D", "context": "ctx", "citations": {"enabled": True}, "cache_control": {"type": "ephemeral"}},
                {"type": "image", "source": {"type": "url", "url": "https://x/a.png"},
                 "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": "q", "cache_control": {"type": "ephemeral"}}]}]}
    imported = anthropic.from_wire_request(body)
    document = imported.history[1].parts[0]  # type: ignore[union-attr]
    assert isinstance(document, DocumentPart)
    assert document.provider_data == ProviderData(issuer="anthropic", data={"block": {
        "context": "ctx", "citations": {"enabled": True}, "cache_control": {"type": "ephemeral"}}})
    assert anthropic.to_wire(imported.history, **imported.to_wire_kwargs()).request == body


def test_a_request_imports_as_history_and_tools() -> None:
    """from_wire_request unpacks as (history, tools) and keeps every other field for to_wire."""
    tool = {"name": "f", "description": "F.", "input_schema": {"type": "object", "properties": {}}}
    body = {"model": MODEL, "max_tokens": 50, "system": "s", "temperature": 0.2, "stream": True,
            "tools": [tool, {"type": "web_search_20250305", "name": "web_search"}],
            "tool_choice": {"type": "auto"},
            "messages": [{"role": "user", "content": "hi"}]}
    imported = anthropic.from_wire_request(body)
    history, tools = imported
    assert isinstance(imported, ImportedRequest)
    assert [type(e) for e in history] == [SystemMessage, UserMessage]
    assert isinstance(tools[0], ToolDefinition)
    assert tools[0].side_effects == "execute"
    assert tools[1] == ServerToolDefinition(kind="web_search", issuer="anthropic", name="web_search")
    assert imported.params == {"stream": True}
    assert (imported.settings.temperature, imported.settings.max_output_tokens) == (0.2, 50)
    assert anthropic.to_wire(history, **imported.to_wire_kwargs()).request == body


def test_imported_tool_results_point_at_the_canonical_call() -> None:
    """A tool_result becomes a ToolMessage whose call_id is the canonical id of its tool_use."""
    body = {"model": MODEL, "max_tokens": 9, "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "r",
                                      "is_error": True}, {"type": "text", "text": "more"}]}]}
    history, _ = anthropic.from_wire_request(body)
    assert isinstance(history[1], AssistantMessage)
    call = history[1].parts[0]
    result = history[2]
    assert isinstance(call, ToolCallPart)
    assert isinstance(result, ToolMessage)
    assert (result.call_id, result.tool_name, result.status, result.output_text) == (call.id, "f", "error", "r")
    assert isinstance(history[3], UserMessage)


def test_a_request_without_max_tokens_gets_the_default() -> None:
    """Documented exception to the import law: max_tokens is required, so to_wire always sends one."""
    body = {"model": MODEL, "messages": [{"role": "user", "content": "q"}]}
    imported = anthropic.from_wire_request(body)
    assert anthropic.to_wire(imported.history, **imported.to_wire_kwargs()).request == {
        **body, "max_tokens": anthropic.DEFAULT_MAX_TOKENS}


def test_a_request_that_is_not_one_is_refused() -> None:
    """No messages list, or a message with a role only Chat Completions has, raises WireFormatError."""
    with pytest.raises(WireFormatError, match="no messages"):
        anthropic.from_wire_request({"model": MODEL})
    with pytest.raises(WireFormatError, match=r"Chat Completions request \(a tool message\)"):
        anthropic.from_wire_request({"model": MODEL, "messages": [{"role": "tool", "content": "x"}]})


def test_an_unknown_block_in_a_system_message_is_echoed_verbatim() -> None:
    """A block type this version does not know, in a system-role message, goes back as it came."""
    body = {"model": "m", "max_tokens": 5, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "system", "content": [{"type": "future_block", "x": 1}]},
        {"role": "user", "content": "next"}]}
    imported = anthropic.from_wire_request(body)
    projection = anthropic.to_wire(imported.history, **imported.to_wire_kwargs())
    assert projection.request == body
    assert projection.losses == ()


def test_messages_a_reader_makes_get_their_own_line_fields() -> None:
    """Messages made by a request reader (without validation) carry a version, increasing ids, a
    UTC time and a metadata dict of their own, as constructed ones do."""
    body = {"model": "claude-sonnet-4-5", "max_tokens": 10,
            "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
                         {"role": "user", "content": [{"type": "text", "text": "c",
                                                       "cache_control": {"type": "ephemeral"}}]}]}
    history = anthropic.from_wire_request(body).history
    made = UserMessage("d")
    assert [event.v for event in history] == [1, 1, 1]
    ids = [event.id for event in history] + [made.id]
    assert ids == sorted(set(ids))
    assert all(event.created_at.tzinfo is UTC for event in history)
    history[0].metadata["k"] = 1
    assert [event.metadata for event in history[1:]] == [{}, {}]
    assert {name: getattr(history[1], name) for name in ("v", "metadata", "parent_id")} == \
        {name: getattr(AssistantMessage("b"), name) for name in ("v", "metadata", "parent_id")}
