"""partwire.bridges.mcp against the mcp package's own types: tool results and sampling messages."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.types import (
    Annotations,
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    CreateMessageResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    SamplingMessage,
    TextContent,
    TextResourceContents,
    ToolResultContent,
    ToolUseContent,
)

from partwire import (
    AssistantMessage,
    AudioPart,
    DocumentPart,
    HistoryEvent,
    ImagePart,
    ThinkingPart,
    ToolCallPart,
    ToolDefinition,
    ToolMessage,
    UrlSource,
    UserMessage,
    WireFormatError,
)
from partwire.adapters import get_adapter
from partwire.bridges import mcp
from partwire.errors import LossError
from tests.harness.validity import assert_valid_request
from tests.strategies import json_values

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA="
PDF = "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PD4+CmVuZG9iagp0cmFpbGVyCjw8Pj4KJSVFT0YK"


def every_kind() -> CallToolResult:
    """A result holding each content kind MCP defines, with annotations, _meta and structured content."""
    return CallToolResult(
        content=[
            TextContent(type="text", text="Found 2 files.", annotations=Annotations(audience=["assistant"])),
            ImageContent(type="image", data=PNG, mime_type="image/png"),
            AudioContent(type="audio", data=WAV, mime_type="audio/wav", _meta={"seconds": 0}),
            ResourceLink(type="resource_link", uri="file:///repo/README.md", name="README.md",
                         description="The readme", mime_type="text/markdown", size=120),
            EmbeddedResource(type="resource", resource=TextResourceContents(
                uri="file:///repo/notes.txt", mime_type="text/plain", text="remember the milk")),
            EmbeddedResource(type="resource", resource=BlobResourceContents(
                uri="file:///repo/spec.pdf", mime_type="application/pdf", blob=PDF)),
            EmbeddedResource(type="resource", resource=BlobResourceContents(
                uri="file:///repo/logo.png", mime_type="image/png", blob=PNG)),
            TextContent(type="text", text="Done."),
        ],
        structured_content={"files": ["README.md", "notes.txt"]},
        is_error=False,
    )


def test_every_content_kind_crosses_both_ways() -> None:
    """A CallToolResult with every content kind becomes one tool message and comes back equal."""
    result = every_kind()
    message = mcp.from_call_tool_result(result, call_id="tu_1", tool_name="find")
    assert message.output_text == "Found 2 files.\nREADME.md: file:///repo/README.md\nDone."
    assert [type(p) for p in message.parts] == [ImagePart, AudioPart, DocumentPart, DocumentPart, ImagePart]
    assert message.parts[2].title == "file:///repo/notes.txt"  # type: ignore[union-attr]
    assert message.data == {"files": ["README.md", "notes.txt"]}
    assert message.status == "success"
    exported = mcp.to_call_tool_result(message)
    assert exported.lossless
    assert exported.result == result
    as_dict = mcp.to_call_tool_result(message, as_dict=True).result
    assert as_dict == result.model_dump(mode="json", by_alias=True, exclude_unset=True)


def test_plain_dicts_and_errors_cross_too() -> None:
    """The result's JSON imports like the object; isError is the error status and back."""
    body = {"content": [{"type": "text", "text": "no such file"}], "isError": True}
    message = mcp.from_call_tool_result(body, call_id="tu_1", tool_name="read")
    assert (message.status, message.output_text) == ("error", "no such file")
    assert mcp.to_call_tool_result(message, as_dict=True).result == body
    assert mcp.to_call_tool_result(message).result == CallToolResult.model_validate(body)


def test_a_changed_message_is_written_from_what_it_says() -> None:
    """When the text no longer matches the kept blocks, the result is rebuilt from the message."""
    message = mcp.from_call_tool_result(every_kind(), call_id="tu_1", tool_name="find")
    edited = message.model_copy(update={"output_text": "Shortened."})
    result = mcp.to_call_tool_result(edited).result
    assert isinstance(result.content[0], TextContent)
    assert result.content[0].text == "Shortened."
    assert [c.type for c in result.content] == ["text", "image", "audio", "resource", "resource", "image"]


def test_what_mcp_cannot_hold_is_reported() -> None:
    """A denied status is sent as an error and a URL image as a resource link, each a loss."""
    message = ToolMessage("nope", call_id="tu_1", tool_name="rm", status="denied",
                          parts=[ImagePart(source=UrlSource(url="https://example.com/a.png"))])
    exported = mcp.to_call_tool_result(message)
    assert exported.result.is_error is True
    assert isinstance(exported.result.content[1], ResourceLink)
    assert [(loss.part_type, loss.action) for loss in exported.losses] == [
        ("image", "rewritten"), ("tool_message", "downgraded")]
    with pytest.raises(LossError):
        mcp.to_call_tool_result(message, strict=True)


@pytest.mark.parametrize("api", ["anthropic", "openai_chat", "openai_responses", "google"])
def test_an_mcp_result_sent_through_each_adapter_is_a_valid_request(api: str) -> None:
    """A tool call answered by an MCP result with every content kind gives each provider a
    request its SDK's own types accept, naming whatever the provider cannot take."""
    call = ToolCallPart.create("find", {"pattern": "*.md"})
    history: list[HistoryEvent] = [
        UserMessage("Find the docs."),
        AssistantMessage([call], provider="anthropic", model="anthropic:claude-sonnet-4-6", stop_reason="tool_use"),
        mcp.from_call_tool_result(every_kind(), call_id=call.id, tool_name="find"),
    ]
    tool = ToolDefinition(name="find", description="Find files.", side_effects="read",
                          input_schema={"type": "object", "properties": {"pattern": {"type": "string"}}})
    model = {"anthropic": "anthropic:claude-sonnet-4-6", "google": "google:gemini-2.5-pro"}.get(api, "openai:gpt-5")
    projection = get_adapter(api).to_wire(history, model=model, tools=[tool])
    assert_valid_request(api, projection.request)
    text = str(projection.request)
    assert "README.md: file:///repo/README.md" in text  # the resource link reaches the model
    assert "Found 2 files." in text


def test_sampling_messages_cross_both_ways() -> None:
    """Sampling messages with text, media, a tool use and its result import and export equal."""
    messages = [
        SamplingMessage(role="user", content=TextContent(type="text", text="What is in the image?")),
        SamplingMessage(role="user", content=[ImageContent(type="image", data=PNG, mime_type="image/png")]),
        SamplingMessage(role="assistant", content=[
            TextContent(type="text", text="Let me look."),
            ToolUseContent(type="tool_use", id="use_1", name="describe", input={"detail": "high"})]),
        SamplingMessage(role="user", content=ToolResultContent(
            type="tool_result", tool_use_id="use_1", content=[TextContent(type="text", text="a cat")],
            structured_content={"label": "cat"})),
        SamplingMessage(role="assistant", content=AudioContent(type="audio", data=WAV, mime_type="audio/wav")),
    ]
    history = mcp.from_sampling_messages(messages, system_prompt="Be brief.")
    kinds = [(type(e).__name__, getattr(e, "status", None)) for e in history]
    assert kinds == [("SystemMessage", None), ("UserMessage", None), ("UserMessage", None),
                     ("AssistantMessage", "complete"), ("ToolMessage", "success"),
                     ("AssistantMessage", "complete")]
    call = history[3].parts[1]  # type: ignore[union-attr]
    assert isinstance(call, ToolCallPart)
    tool = history[4]
    assert isinstance(tool, ToolMessage)
    assert (tool.call_id, tool.tool_name, tool.data) == (call.id, "describe", {"label": "cat"})
    exported = mcp.to_sampling_messages(history)
    assert exported.lossless
    assert exported.system_prompt == "Be brief."
    assert exported.messages == messages


def test_sampling_names_what_it_cannot_hold() -> None:
    """Reasoning has no sampling block: it is dropped with a loss, the rest is sent."""
    history: list[HistoryEvent] = [UserMessage("hi"), AssistantMessage([ThinkingPart(text="hmm"), "hello"])]
    exported = mcp.to_sampling_messages(history, as_dict=True)
    assert exported.messages[1] == {"role": "assistant", "content": {"type": "text", "text": "hello"}}
    assert [(loss.path, loss.part_type) for loss in exported.losses] == [("history[1].parts[0]", "thinking")]


def test_a_create_message_result_is_an_assistant_message() -> None:
    """A sampling result becomes an assistant message with its model and normalised stop reason."""
    result = CreateMessageResult(role="assistant", content=TextContent(type="text", text="Paris."),
                                 model="claude-sonnet-4-6", stop_reason="maxTokens")
    message = mcp.from_create_message_result(result)
    assert (message.text, message.model, message.stop_reason, message.stop_reason_raw) == (
        "Paris.", "claude-sonnet-4-6", "length", "maxTokens")


def test_bad_results_get_errors_naming_where() -> None:
    """Malformed results are refused with the block at fault."""
    with pytest.raises(WireFormatError, match="content is not a list"):
        mcp.from_call_tool_result({"content": "hi"}, call_id="tu_1", tool_name="t")
    with pytest.raises(WireFormatError, match=r"content\[1\].*image block"):
        mcp.from_call_tool_result({"content": [{"type": "text", "text": "a"}, {"type": "image"}]},
                                  call_id="tu_1", tool_name="t")
    with pytest.raises(WireFormatError, match="not an MCP"):
        mcp.from_call_tool_result(42, call_id="tu_1", tool_name="t")


def test_a_block_kind_newer_than_the_bridge_is_kept() -> None:
    """An unknown content block does not reach the model's text but comes back in the result."""
    body = {"content": [{"type": "text", "text": "a"}, {"type": "hologram", "frames": 3}]}
    message = mcp.from_call_tool_result(body, call_id="tu_1", tool_name="t")
    assert message.output_text == "a"
    assert mcp.to_call_tool_result(message, as_dict=True).result == body


_TEXT = st.text(max_size=40)
_B64 = st.sampled_from([PNG, WAV, PDF, ""])
_ANNOTATIONS = st.none() | st.builds(Annotations, audience=st.none() | st.just(["user"]),
                                     priority=st.none() | st.floats(min_value=0, max_value=1))
_BLOCKS = st.one_of(
    st.builds(TextContent, type=st.just("text"), text=_TEXT, annotations=_ANNOTATIONS),
    st.builds(ImageContent, type=st.just("image"), data=_B64, mime_type=st.sampled_from(["image/png", "image/gif"])),
    st.builds(AudioContent, type=st.just("audio"), data=_B64, mime_type=st.just("audio/wav")),
    st.builds(ResourceLink, type=st.just("resource_link"), uri=st.sampled_from(["file:///a.md", "https://x.org/b"]),
              name=_TEXT, title=st.none() | _TEXT, description=st.none() | _TEXT,
              mime_type=st.none() | st.just("text/markdown")),
    st.builds(EmbeddedResource, type=st.just("resource"), resource=st.one_of(
        st.builds(TextResourceContents, uri=st.just("file:///n.txt"), text=_TEXT,
                  mime_type=st.none() | st.just("text/plain")),
        st.builds(BlobResourceContents, uri=st.just("file:///b"), blob=_B64,
                  mime_type=st.sampled_from([None, "image/png", "audio/wav", "application/pdf"])))),
)


@settings(max_examples=150, deadline=None)
@given(content=st.lists(_BLOCKS, max_size=6), structured=st.none() | json_values(), is_error=st.booleans())
def test_any_call_tool_result_comes_back_equal(content: list[Any], structured: Any, is_error: bool) -> None:
    """Law: to_call_tool_result(from_call_tool_result(r)) == r, with no loss, for any result of
    any content kinds (texts with newlines of their own included)."""
    result = CallToolResult(content=content, structured_content=structured, is_error=is_error)
    message = mcp.from_call_tool_result(result, call_id="tu_1", tool_name="t")
    exported = mcp.to_call_tool_result(message)
    assert exported.lossless
    assert exported.result.model_dump(mode="json", by_alias=True) == result.model_dump(mode="json", by_alias=True)
