"""The Bedrock Converse adapter reading a request body (from_wire_request): what a request imports
as, what goes back exactly when it is written again, and what a refused request names."""

from __future__ import annotations

from partwire import (
    ToolMessage,
    UnknownPart,
    UserMessage,
)
from partwire.adapters import anthropic, bedrock
from tests.adapters.test_bedrock_unit import CLAUDE, PNG, _request


def test_cache_points_ride_on_the_part_before_them_and_go_back_in_place() -> None:
    """A cachePoint after system text, a user text and a tool result re-exports exactly."""
    request = {"modelId": CLAUDE,
               "system": [{"text": "sys"}, {"cachePoint": {"type": "default"}}],
               "messages": [
                   {"role": "user", "content": [{"text": "q"}, {"cachePoint": {"type": "default", "ttl": "1h"}}]},
                   {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]},
                   {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "r"}]}},
                                                {"cachePoint": {"type": "default"}}]}]}
    imported = bedrock.from_wire_request(request)
    assert all(not isinstance(p, UnknownPart) for e in imported.history for p in getattr(e, "parts", ()))
    projection = bedrock.to_wire(imported.history, **imported.to_wire_kwargs())
    assert projection.request == request
    assert projection.losses == ()


def test_anthropic_cache_control_is_reported_not_dropped_in_silence() -> None:
    """An Anthropic cache_control mark is Anthropic's provider data: Bedrock reports it."""
    request = {"model": "claude-sonnet-4-6", "max_tokens": 10, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "q", "cache_control": {"type": "ephemeral"}}]}]}
    history = anthropic.from_wire_request(request).history
    projection = bedrock.to_wire(history, model=CLAUDE)
    assert projection.request["messages"] == [{"role": "user", "content": [{"text": "q"}]}]
    assert [loss.reason for loss in projection.losses] == [
        "provider data from anthropic is not sent to Bedrock"]


def test_tool_results_of_every_content_kind_import_and_re_export_exactly() -> None:
    """Status error, text, JSON, image, document, a video and their order survive a round trip."""
    request = {"modelId": CLAUDE, "messages": [
        {"role": "user", "content": [{"text": "go"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "a", "name": "f", "input": {"x": 1}}},
                                          {"toolUse": {"toolUseId": "b", "name": "g", "input": {}}}]},
        {"role": "user", "content": [
            {"toolResult": {"toolUseId": "a", "status": "error", "content": [{"text": "boom"}]}},
            {"toolResult": {"toolUseId": "b", "content": [
                {"json": {"rows": 3}}, {"text": "see"}, {"image": {"format": "png", "source": {"bytes": PNG}}},
                {"document": {"format": "txt", "name": "notes", "source": {"text": "hello"}}},
                {"video": {"format": "mp4", "source": {"s3Location": {"uri": "s3://bucket/v.mp4"}}}}]}}]}]}
    imported = bedrock.from_wire_request(request)
    assert imported.options == {"blobs": "base64"}
    error, rich = imported.history[2], imported.history[3]
    assert isinstance(error, ToolMessage)
    assert error.status == "error"
    assert error.output_text == "boom"
    assert isinstance(rich, ToolMessage)
    assert rich.data == {"rows": 3}
    assert rich.output_text == "see"
    assert [p.type for p in rich.parts] == ["image", "document", "unknown"]
    projection = bedrock.to_wire(imported.history, **imported.to_wire_kwargs())
    assert projection.request == request
    assert projection.losses == ()


def test_guard_content_and_the_guardrail_trace_are_kept() -> None:
    """guardContent text (with qualifiers) reads as text and goes back as guardContent; a
    response's guardrail trace stays with the message."""
    request = _request([{"guardContent": {"text": {"text": "check me", "qualifiers": ["guard_content"]}}},
                        {"text": "plain"}])
    imported = bedrock.from_wire_request(request)
    user = imported.history[0]
    assert isinstance(user, UserMessage)
    assert user.text == "check meplain"
    assert bedrock.to_wire(imported.history, model=CLAUDE).request == request
    trace = {"guardrail": {"actionReason": "No action."}}
    message = bedrock.from_wire({"output": {"message": {"role": "assistant", "content": [{"text": "x"}]}},
                                 "stopReason": "guardrail_intervened", "trace": trace})
    assert message.stop_reason == "content_filter"
    assert message.provider_data is not None
    assert message.provider_data.data == {"response": {"trace": trace}}


def test_settings_read_back_from_a_body_without_a_model_go_back_exactly() -> None:
    """A stored HTTP body names no model: its Nova top_k is read by shape, and the family is
    remembered, so it goes back to the same field."""
    body = {"messages": [{"role": "user", "content": [{"text": "q"}]}],
            "inferenceConfig": {"temperature": 0.5},
            "additionalModelRequestFields": {"inferenceConfig": {"topK": 10}},
            "toolConfig": {"tools": [{"toolSpec": {"name": "f", "description": "d",
                                                   "inputSchema": {"json": {"type": "object"}}}}],
                           "toolChoice": {"any": {}}}}
    imported = bedrock.from_wire_request(body)
    assert (imported.settings.top_k, imported.settings.temperature) == (10, 0.5)
    assert imported.settings.tool_choice is not None
    assert imported.settings.tool_choice.type == "required"
    again = bedrock.to_wire(imported.history, **{**imported.to_wire_kwargs(), "model": "some-model"})
    assert again.request == {**body, "modelId": "some-model"}
    assert again.losses == ()


def test_a_video_in_boto3_form_goes_back_as_bytes() -> None:
    """Canonical form has no video part: a video block is kept whole (base64 inside) and goes back
    to boto3 with its bytes, and to another API not at all, with a loss."""
    video = b"\x00\x00\x00\x18ftypmp42"
    request = _request([{"text": "what happens?"},
                        {"video": {"format": "mp4", "source": {"bytes": video}}}])
    imported = bedrock.from_wire_request(request)
    assert imported.options is None  # bytes: boto3's form, the default
    assert bedrock.to_wire(imported.history, **imported.to_wire_kwargs()).request == request
    elsewhere = anthropic.to_wire(imported.history, model="claude-sonnet-4-6")
    assert [loss.part_type for loss in elsewhere.losses] == ["unknown"]
