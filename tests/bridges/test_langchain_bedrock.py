"""The LangChain bridge and langchain-aws's ChatBedrockConverse messages: its content blocks,
reasoning signatures and metadata cross both ways with langchain-core's own types, Bedrock's
reasoning stays Bedrock's, and media parts keep their kind."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core import messages as lc

from partwire import (
    AssistantMessage,
    AudioPart,
    Base64Source,
    DocumentPart,
    ImagePart,
    RedactedThinkingPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UserMessage,
)
from partwire.adapters import bedrock
from partwire.adapters.bedrock._wire import STOP_REASONS
from partwire.bridges import langchain as bridge
from tests.harness.validity import request_errors

MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
CALL = {"name": "get_weather", "args": {"city": "Paris"}, "id": "tooluse_Q1w2E3", "type": "tool_call"}


def converse_answer(*reasoning: dict[str, Any], stop: str = "tool_use") -> lc.AIMessage:
    """An answer as ChatBedrockConverse returns it (its own content format, not v1): reasoning,
    text and a tool call, with the Converse response's metadata and usage."""
    return lc.AIMessage(
        content=[*reasoning, {"type": "text", "text": "Let me look that up."},
                 {"type": "tool_use", "id": CALL["id"], "name": CALL["name"], "input": CALL["args"]}],
        tool_calls=[CALL], id="run-7f3c",
        response_metadata={"ResponseMetadata": {"RequestId": "9ef1e313", "HTTPStatusCode": 200,
                                                "RetryAttempts": 0},
                           "stopReason": stop, "metrics": {"latencyMs": [812]},
                           "model_provider": "bedrock_converse", "model_name": MODEL},
        usage_metadata={"input_tokens": 1530, "output_tokens": 84, "total_tokens": 1614,
                        "input_token_details": {"cache_read": 1024, "cache_creation": 0}})


SIGNED = {"type": "reasoning_content",
          "reasoning_content": {"text": "The user wants Paris weather.", "signature": "EqQBCkgIARAB"}}


def test_a_converse_answer_imports_as_bedrocks_and_goes_back_exactly() -> None:
    """model_provider bedrock_converse is Bedrock: the provider, the model id, the signature's
    issuer and the call id are Bedrock's, stopReason is the stop reason, and the export dumps
    exactly as the message did."""
    message = converse_answer(SIGNED)
    answer = bridge.from_messages([message])[0]
    assert isinstance(answer, AssistantMessage)
    assert (answer.provider, answer.model) == ("bedrock", f"bedrock:{MODEL}")
    assert (answer.stop_reason, answer.stop_reason_raw) == ("tool_use", "tool_use")
    thinking, _text, call = answer.parts
    assert isinstance(thinking, ThinkingPart)
    assert thinking.signature is not None
    assert (thinking.signature.issuer, thinking.signature.value) == ("bedrock", "EqQBCkgIARAB")
    assert isinstance(call, ToolCallPart)
    assert call.provider_ids == {"bedrock": CALL["id"]}
    assert answer.usage is not None
    assert answer.usage.cache_read_tokens == 1024
    exported = bridge.to_messages([answer])
    assert exported.losses == ()
    assert exported.messages[0].model_dump() == message.model_dump()


def test_an_imported_converse_answer_is_sent_back_to_bedrock_with_its_signature() -> None:
    """The Bedrock adapter accepts the imported reasoning as its own: the next Converse request
    echoes the signature and the call id, loses nothing, and botocore's validator takes it."""
    history = bridge.from_messages([lc.HumanMessage("Weather in Paris?"), converse_answer(SIGNED),
                                    lc.ToolMessage("18°C, clear", tool_call_id=CALL["id"],
                                                   name="get_weather")])
    projection = bedrock.to_wire(history, model=f"bedrock:{MODEL}")
    assert projection.losses == ()
    assistant = projection.request["messages"][1]["content"]
    assert assistant[0] == {"reasoningContent": {"reasoningText": {
        "text": "The user wants Paris weather.", "signature": "EqQBCkgIARAB"}}}
    assert assistant[2]["toolUse"]["toolUseId"] == CALL["id"]
    assert request_errors("bedrock", projection.request) == []


def test_a_bedrock_answer_exports_in_the_form_chatbedrockconverse_echoes() -> None:
    """An answer the Bedrock adapter decoded becomes a v1 AIMessage naming bedrock_converse (the
    provider whose v1 reasoning blocks langchain-aws turns back into signed reasoningContent),
    with stopReason where ChatBedrockConverse keeps it; importing it gives the answer back."""
    answer = bedrock.from_wire({
        "output": {"message": {"role": "assistant", "content": [
            {"reasoningContent": {"reasoningText": {"text": "Check the tool.", "signature": "c2ln"}}},
            {"reasoningContent": {"redactedContent": b"\x01\x02\x03"}},
            {"toolUse": {"toolUseId": CALL["id"], "name": "get_weather", "input": {"city": "Paris"}}}]}},
        "stopReason": "tool_use", "usage": {"inputTokens": 20, "outputTokens": 9, "totalTokens": 29},
        "metrics": {"latencyMs": 300}}, options={"model_id": MODEL})
    exported = bridge.to_messages([answer])
    assert exported.losses == ()
    message = exported.messages[0]
    assert message.response_metadata["model_provider"] == "bedrock_converse"
    assert message.response_metadata["model_name"] == MODEL
    assert message.response_metadata["stopReason"] == "tool_use"
    assert message.response_metadata["metrics"] == {"latencyMs": 300}  # the rest of the response
    blocks = message.content_blocks
    assert blocks[0] == {"type": "reasoning", "reasoning": "Check the tool.", "extras": {"signature": "c2ln"}}
    assert blocks[1] == {"type": "non_standard",
                         "value": {"reasoningContent": {"redactedContent": b"\x01\x02\x03"}}}
    assert bridge.from_messages([message])[0] == answer


def test_redacted_reasoning_from_converse_is_bedrocks_encrypted_reasoning() -> None:
    """A redacted reasoning block in ChatBedrockConverse's format (bytes from boto3) imports as
    encrypted reasoning Bedrock issued, base64 as the Bedrock adapter keeps it, and goes back
    to Converse as the same bytes."""
    redacted = {"type": "reasoning_content", "reasoning_content": {"redacted_content": b"\x00\xffsecret"}}
    history = bridge.from_messages([lc.HumanMessage("Weather in Paris?"), converse_answer(SIGNED, redacted)])
    part = history[1].parts[1]  # type: ignore[union-attr]
    assert isinstance(part, RedactedThinkingPart)
    assert (part.data.issuer, part.data.value) == ("bedrock", "AP9zZWNyZXQ=")
    request = bedrock.to_wire(history, model=f"bedrock:{MODEL}").request
    assert request["messages"][1]["content"][1] == {"reasoningContent": {"redactedContent": b"\x00\xffsecret"}}
    assert bridge.to_messages(history).messages[1].model_dump() == converse_answer(SIGNED, redacted).model_dump()


@pytest.mark.parametrize("raw", sorted(STOP_REASONS))
def test_converse_stop_reasons_mean_what_the_bedrock_adapter_says(raw: str) -> None:
    """Every Converse stopReason normalises as the Bedrock adapter normalises it."""
    answer = bridge.from_messages([converse_answer(stop=raw)])[0]
    assert isinstance(answer, AssistantMessage)
    assert (answer.stop_reason, answer.stop_reason_raw) == (STOP_REASONS[raw], raw)


def test_media_parts_keep_their_kind_whatever_their_media_type() -> None:
    """LangChain blocks name their kind (image, audio, file), so the bridge never guesses it from
    a media type, unlike pydantic-ai's binary content: each part comes back as the kind it was,
    even with a media type of another kind."""
    parts = (ImagePart(source=Base64Source(data="iVBORw0K"), media_type="image/png"),
             AudioPart(source=Base64Source(data="UklGRg=="), media_type="audio/wav"),
             AudioPart(source=Base64Source(data="AAAA"), media_type="video/mp4"),
             ImagePart(source=Base64Source(data="AAAA"), media_type="application/octet-stream"),
             DocumentPart(source=Base64Source(data="JVBERi0="), media_type="image/png"))
    user = UserMessage(parts=parts)
    exported = bridge.to_messages([user])
    assert exported.losses == ()
    assert [b["type"] for b in exported.messages[0].content_blocks] == ["image", "audio", "audio", "image", "file"]
    assert bridge.from_messages(exported.messages) == [user]
    result = ToolMessage(call_id="tu_1", tool_name="record", output_text="done", parts=parts[1:3])
    back = bridge.from_messages(bridge.to_messages([result]).messages)[0]
    assert isinstance(back, ToolMessage)
    assert back.parts == parts[1:3]


def test_cache_points_in_langchain_content_reach_converse() -> None:
    """A cachePoint block in LangChain content (how langchain-aws users mark a cache
    checkpoint) rides on the part before it, so the Bedrock adapter sends it after that part;
    the message exports back exactly, and a point with nothing before it stays a kept block."""
    point = {"cachePoint": {"type": "default"}}
    system = lc.SystemMessage(content=[{"type": "text", "text": "You are terse."}, point])
    human = lc.HumanMessage(content=[{"type": "text", "text": "A long document..."}, point,
                                     {"type": "text", "text": "Summarise it."}])
    lonely = lc.HumanMessage(content=[point, {"type": "text", "text": "And this?"}])
    history = bridge.from_messages([system, human])
    user = history[1]
    assert isinstance(user, UserMessage)
    assert user.parts[0].provider_data is not None
    assert user.parts[0].provider_data.data == {"cache_point": {"type": "default"}}
    request = bedrock.to_wire(history, model=f"bedrock:{MODEL}").request
    assert request["system"] == [{"text": "You are terse."}, point]
    assert request["messages"][0]["content"] == [{"text": "A long document..."}, point, {"text": "Summarise it."}]
    assert request_errors("bedrock", request) == []
    exported = bridge.to_messages(bridge.from_messages([system, human, lonely]))
    assert exported.losses == ()
    assert [m.model_dump() for m in exported.messages] == [m.model_dump() for m in (system, human, lonely)]


def test_converse_format_user_content_with_bytes_imports_and_goes_back_exactly() -> None:
    """A human message in Converse's own format (image bytes as boto3 takes them) imports as an
    image part the Bedrock adapter sends as the same bytes, and exports back byte for byte
    (the bytes LangChain held are kept as base64 in the bridge's provider data)."""
    human = lc.HumanMessage(content=[{"text": "What is this?"},
                                     {"image": {"format": "png", "source": {"bytes": b"\x89PNG\r\n"}}}])
    history = bridge.from_messages([human])
    user = history[0]
    assert isinstance(user, UserMessage)
    image = user.parts[1]
    assert isinstance(image, ImagePart)
    assert (image.media_type, image.source) == ("image/png", Base64Source(data="iVBORw0K"))
    request = bedrock.to_wire(history, model=f"bedrock:{MODEL}").request
    assert request["messages"][0]["content"][1] == {"image": {"format": "png", "source": {"bytes": b"\x89PNG\r\n"}}}
    exported = bridge.to_messages(history)
    assert exported.losses == ()
    assert exported.messages[0].model_dump() == human.model_dump()


def test_arguments_spelled_otherwise_go_out_as_a_tool_call_and_come_back_as_spelled() -> None:
    """A call whose arguments are a JSON object in other spacing (as a Converse request imports
    them) is a valid LangChain tool call, which provider packages send (an invalid_tool_call
    they drop, and the call vanished from the next request); the exact text comes back."""
    call = ToolCallPart(id="tu_01", name="top_song", arguments_json='{"sign": "WZPZ"}',
                        provider_ids={"bedrock": "tooluse_ZQEZ"})
    answer = AssistantMessage([call], provider="bedrock", model=f"bedrock:{MODEL}")
    exported = bridge.to_messages([answer])
    assert exported.losses == ()
    message = exported.messages[0]
    assert isinstance(message, lc.AIMessage)
    assert message.tool_calls == [{"type": "tool_call", "id": "tooluse_ZQEZ", "name": "top_song",
                                   "args": {"sign": "WZPZ"}}]
    assert message.invalid_tool_calls == []
    assert bridge.from_messages([message]) == [answer]


GUARDED = {"guardContent": {"text": {"text": "Tokyo is the capital of Japan.", "qualifiers": ["grounding_source"]}}}
VIDEO = {"video": {"format": "mp4", "source": {"s3Location": {"uri": "s3://clips/launch.mp4"}}}}
DOCUMENT = {"document": {"format": "txt", "name": "notes", "source": {"text": "Ship on Friday."},
                         "citations": {"enabled": True}}}


@pytest.mark.parametrize("form", ["converse", "langchain-aws"])
def test_converse_native_blocks_in_langchain_content_reach_converse(form: str) -> None:
    """guardContent, video and document blocks in LangChain content (Converse's own form, or
    langchain-aws's typed form) are read by the Bedrock adapter's own decoder, so the Bedrock
    adapter sends them as they were; the message exports back exactly as it was written."""
    if form == "converse":  # (langchain-core reads a Converse document block as a file block itself)
        content: list[Any] = [GUARDED, VIDEO, {"text": "What is the capital of Japan?"}]
        sent = [GUARDED, VIDEO, {"text": "What is the capital of Japan?"}]
    else:
        content = [{"type": "guard_content", "text": "Tokyo is the capital of Japan."},
                   {"type": "video", "video": VIDEO["video"]}, {"type": "document", "document": DOCUMENT["document"]},
                   {"type": "text", "text": "What is the capital of Japan?"}]
        sent = [{"guardContent": {"text": {"text": "Tokyo is the capital of Japan."}}}, VIDEO, DOCUMENT,
                {"text": "What is the capital of Japan?"}]
    human = lc.HumanMessage(content=content)
    history = bridge.from_messages([human])
    projection = bedrock.to_wire(history, model=f"bedrock:{MODEL}")
    assert projection.losses == ()
    assert projection.request["messages"][0]["content"] == sent
    assert request_errors("bedrock", projection.request) == []
    exported = bridge.to_messages(history)
    assert exported.losses == ()
    assert exported.messages[0].model_dump() == human.model_dump()


def test_a_guarded_converse_request_exports_in_the_form_langchain_aws_sends() -> None:
    """A Converse request's guardContent and video imported by the Bedrock adapter export as
    Converse's own blocks (non-standard to LangChain), with no loss, and come back equal."""
    history = bedrock.from_wire_request({"messages": [{"role": "user", "content": [GUARDED, VIDEO]}]}).history
    exported = bridge.to_messages(history)
    assert exported.losses == ()
    assert exported.messages[0].content_blocks == [{"type": "non_standard", "value": GUARDED},
                                                   {"type": "non_standard", "value": VIDEO}]
    assert [m.model_dump() for m in bridge.from_messages(exported.messages)] == [m.model_dump() for m in history]
