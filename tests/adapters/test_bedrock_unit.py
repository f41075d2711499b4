"""The Converse format's own content, one behaviour per test: reasoning provenance and the switch
rule, cache points and where Converse refuses them, tool results of every content kind, media
as bytes and S3 locations, guard content, citations, id and name rules, settings per model
family, and the model a price is looked up by. Reading a request (and boto3's bytes form) is in
``test_bedrock_request.py``, the event stream in ``test_bedrock_stream.py``."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from partwire import (
    AssistantMessage,
    Base64Source,
    DocumentPart,
    ImagePart,
    Opaque,
    RedactedThinkingPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from partwire.adapters import anthropic, bedrock
from partwire.history import HistoryEvent
from partwire.parts import DocumentCitation, UrlCitation
from partwire.pricing import message_cost
from partwire.streaming import accumulate
from partwire.switch import check_switch

CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
NOVA = "amazon.nova-2-lite-v1:0"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 24).decode()


def _signed(issuer: str) -> AssistantMessage:
    return AssistantMessage([ThinkingPart(text="Think.", signature=Opaque(value="c2ln", issuer=issuer)),
                             TextPart(text="Done.")])


def _request(content: list[Any], role: str = "user") -> dict[str, Any]:
    return {"modelId": CLAUDE, "messages": [{"role": role, "content": content}]}


def _round_trip(request: dict[str, Any]) -> Any:
    imported = bedrock.from_wire_request(request)
    return bedrock.to_wire(imported.history, **imported.to_wire_kwargs())


# -- reasoning provenance --------------------------------------------------------------------


def test_a_bedrock_signature_is_bedrocks_and_anthropic_drops_it_by_default() -> None:
    """Claude's signature read from Converse has issuer bedrock; Anthropic's API gets no such
    reasoning (a loss), unless bedrock is an accepted issuer there."""
    history: list[HistoryEvent] = [UserMessage("q"), _signed("bedrock"), UserMessage("more")]
    plain = anthropic.to_wire(history, model="claude-sonnet-4-6")
    assert [(loss.part_type, loss.action) for loss in plain.losses] == [("thinking", "dropped")]
    both = anthropic.to_wire(history, model="claude-sonnet-4-6", accept_issuers={"anthropic", "bedrock"})
    assert both.losses == ()
    assert both.request["messages"][1]["content"][0] == {"type": "thinking", "thinking": "Think.",
                                                         "signature": "c2ln"}


def test_anthropics_signature_is_not_sent_to_bedrock_unless_accepted() -> None:
    """The other way round: Anthropic's signed reasoning is dropped for Bedrock (or sent as text
    with foreign_thinking="text"), and sent as it is when anthropic is accepted."""
    history: list[HistoryEvent] = [UserMessage("q"), _signed("anthropic"), UserMessage("more")]
    dropped = bedrock.to_wire(history, model=CLAUDE)
    assert dropped.request["messages"][1]["content"] == [{"text": "Done."}]
    assert "cannot be verified by Bedrock" in dropped.losses[0].reason
    as_text = bedrock.to_wire(history, model=CLAUDE, foreign_thinking="text")
    assert as_text.request["messages"][1]["content"][0] == {"text": "Think."}
    accepted = bedrock.to_wire(history, model=CLAUDE, accept_issuers={"bedrock", "anthropic"})
    assert accepted.request["messages"][1]["content"][0] == {
        "reasoningContent": {"reasoningText": {"text": "Think.", "signature": "c2ln"}}}


def test_check_switch_names_the_reasoning_a_move_to_anthropic_loses() -> None:
    """Moving a Bedrock session to Anthropic's API predicts the dropped signature before the switch."""
    history: list[HistoryEvent] = [UserMessage("q"), _signed("bedrock"), UserMessage("more")]
    losses = check_switch(history, "anthropic", model="anthropic:claude-sonnet-4-6")
    assert [loss.path for loss in losses] == ["history[1].parts[0]"]


def test_unsigned_reasoning_goes_back_only_when_bedrock_sent_it() -> None:
    """Nova's unsigned reasoning is echoed to Bedrock; unsigned reasoning from elsewhere is not."""
    content = [{"reasoningContent": {"reasoningText": {"text": "hmm"}}}, {"text": "ok"}]
    message = bedrock.from_wire({"output": {"message": {"role": "assistant", "content": content}},
                                 "stopReason": "end_turn"})
    again = bedrock.to_wire([UserMessage("q"), message], model=NOVA)
    assert again.request["messages"][1]["content"] == content
    foreign = bedrock.to_wire([UserMessage("q"), AssistantMessage([ThinkingPart(text="hmm"), "ok"])],
                              model=NOVA)
    assert foreign.request["messages"][1]["content"] == [{"text": "ok"}]


def test_redacted_reasoning_goes_out_as_bytes_and_comes_back_as_base64_text() -> None:
    """redactedContent is bytes for boto3, base64 text in canonical form, whichever way it came."""
    blob = b"\x01\x02secret"
    message = bedrock.from_wire({"output": {"message": {"role": "assistant", "content": [
        {"reasoningContent": {"redactedContent": blob}}, {"text": "x"}]}}, "stopReason": "end_turn"})
    part = message.parts[0]
    assert isinstance(part, RedactedThinkingPart)
    assert part.data == Opaque(value=base64.b64encode(blob).decode(), issuer="bedrock")
    sent = bedrock.to_wire([UserMessage("q"), message], model=CLAUDE).request
    assert sent["messages"][1]["content"][0] == {"reasoningContent": {"redactedContent": blob}}


# -- cache points --------------------------------------------------------------------------


def test_a_cache_point_after_reasoning_is_refused_with_a_loss() -> None:
    """Converse refuses a cache point right after a reasoning block: it is not sent, and said so."""
    thought = ThinkingPart(text="t", signature=Opaque(value="s", issuer="bedrock"),
                           provider_data={"issuer": "bedrock", "data": {"cache_point": {"type": "default"}}})
    projection = bedrock.to_wire([UserMessage("q"), AssistantMessage([thought, "a"])], model=CLAUDE)
    assert {"cachePoint": {"type": "default"}} not in projection.request["messages"][1]["content"]
    assert [loss.path for loss in projection.losses] == ["history[1].parts[0].cache_point"]


def test_a_cache_point_inside_a_tool_result_is_refused_with_a_loss() -> None:
    """A tool result's content has no cachePoint member: an attachment's cache point is reported."""
    image = ImagePart(source=Base64Source(data=PNG), media_type="image/png",
                      provider_data={"issuer": "bedrock", "data": {"cache_point": {"type": "default"}}})
    call = ToolCallPart.create("shot", {}, provider_ids={"bedrock": "t1"})
    history: list[HistoryEvent] = [UserMessage("q"), AssistantMessage([call]),
               ToolMessage(call_id=call.id, tool_name="shot", output_text="here", parts=(image,))]
    projection = bedrock.to_wire(history, model=CLAUDE)
    result = projection.request["messages"][2]["content"][0]["toolResult"]
    assert [list(block) for block in result["content"]] == [["text"], ["image"]]
    assert [loss.path for loss in projection.losses] == ["history[2].parts[0].cache_point"]


# -- tool results, media, guard content, citations -----------------------------------------


def test_denied_tool_status_goes_as_an_error_with_a_loss() -> None:
    """Converse's statuses are success and error: denied is sent as error and reported."""
    call = ToolCallPart.create("rm", {}, provider_ids={"bedrock": "t1"})
    history: list[HistoryEvent] = [UserMessage("q"), AssistantMessage([call]),
               ToolMessage(call_id=call.id, tool_name="rm", status="denied", output_text="no")]
    projection = bedrock.to_wire(history, model=CLAUDE)
    assert projection.request["messages"][2]["content"][0]["toolResult"]["status"] == "error"
    assert [(loss.path, loss.action) for loss in projection.losses] == [("history[2].status", "downgraded")]


def test_media_goes_as_bytes_for_boto3_or_base64_for_the_json_body_and_s3_as_a_location() -> None:
    """Inline media are bytes by default, base64 text with blobs="base64"; an s3:// URL is an S3
    location; an http URL cannot be sent (a loss)."""
    history = [UserMessage(["look", ImagePart(source=Base64Source(data=PNG), media_type="image/png"),
                            ImagePart(source=UrlSource(url="s3://my-bucket/cat.jpeg"), media_type="image/jpeg"),
                            ImagePart(source=UrlSource(url="https://example.com/a.png"), media_type="image/png"),
                            DocumentPart(source=Base64Source(data=PNG), media_type="application/pdf",
                                         title="report.v2")])]
    projection = bedrock.to_wire(history, model=CLAUDE)
    content = projection.request["messages"][0]["content"]
    assert content[1] == {"image": {"format": "png", "source": {"bytes": base64.b64decode(PNG)}}}
    assert content[2] == {"image": {"format": "jpeg", "source": {"s3Location": {"uri": "s3://my-bucket/cat.jpeg"}}}}
    assert content[3]["document"]["name"] == "report-v2"
    assert [(loss.path, loss.action) for loss in projection.losses] == [
        ("history[0].parts[3]", "dropped"), ("history[0].parts[4].title", "rewritten")]
    as_json = bedrock.to_wire(history, model=CLAUDE, blobs="base64").request
    assert as_json["messages"][0]["content"][1]["image"]["source"] == {"bytes": PNG}
    json.dumps(as_json)  # the JSON form is JSON


def test_citations_are_typed_and_go_back_exactly() -> None:
    """citationsContent reads as text with typed citations (web, document spans) and re-encodes
    to the same block."""
    block = {"citationsContent": {"content": [{"text": "Paris is the capital."}], "citations": [
        {"title": "Atlas", "sourceContent": [{"text": "Paris, capital"}],
         "location": {"documentPage": {"documentIndex": 0, "start": 3, "end": 4}}},
        {"location": {"web": {"url": "https://example.com/paris"}}}]}}
    message = bedrock.from_wire({"output": {"message": {"role": "assistant", "content": [block]}},
                                 "stopReason": "end_turn"})
    text = message.parts[0]
    assert isinstance(text, TextPart)
    assert text.text == "Paris is the capital."
    assert text.citations == (
        DocumentCitation(document_index=0, document_title="Atlas", unit="page", start=3, end=4,
                         cited_text="Paris, capital"),
        UrlCitation(url="https://example.com/paris"))
    assert bedrock.to_wire([UserMessage("q"), message], model=CLAUDE).request["messages"][1]["content"] == [block]


# -- ids and names -------------------------------------------------------------------------


def test_ids_converse_refuses_are_mapped_and_the_others_kept() -> None:
    """A 65-character id is sent as the canonical id (id_mapped); an OpenAI id is kept as is; a
    tool name with a dot is rewritten the same way for every call."""
    long_call = ToolCallPart.create("lookup", {}, provider_ids={"anthropic": "toolu_" + "a" * 59})
    openai_call = ToolCallPart.create("gemini.tool", {}, provider_ids={"openai": "call_abc123"})
    history: list[HistoryEvent] = [UserMessage("q"), AssistantMessage([long_call, openai_call]),
               ToolMessage(call_id=long_call.id, tool_name="lookup", output_text="1"),
               ToolMessage(call_id=openai_call.id, tool_name="gemini.tool", output_text="2")]
    projection = bedrock.to_wire(history, model=CLAUDE)
    uses = [b["toolUse"] for b in projection.request["messages"][1]["content"]]
    results = [b["toolResult"]["toolUseId"] for b in projection.request["messages"][2]["content"]]
    assert [u["toolUseId"] for u in uses] == [long_call.id, "call_abc123"] == results
    assert uses[1]["name"] == "gemini_tool"
    assert [(loss.action, loss.path) for loss in projection.losses] == [
        ("id_mapped", "history[1].parts[0]"), ("rewritten", "history[1].parts[1].name")]


# -- settings ------------------------------------------------------------------------------


def test_settings_go_to_inference_config_and_the_model_familys_fields() -> None:
    """Sampling in inferenceConfig; top_k and reasoning where Claude and Nova take them."""
    settings = {"max_output_tokens": 500, "temperature": 1.5, "top_p": 0.9, "stop_sequences": ["END"],
                "top_k": 40, "reasoning": "high"}
    claude = bedrock.to_wire([UserMessage("q")], model=CLAUDE, settings=settings)
    assert claude.request["inferenceConfig"] == {"maxTokens": 500, "temperature": 1, "topP": 0.9,
                                                 "stopSequences": ["END"]}
    assert claude.request["additionalModelRequestFields"] == {
        "top_k": 40, "thinking": {"type": "enabled", "budget_tokens": 16384}}
    assert [(loss.path, loss.action) for loss in claude.losses] == [
        ("request.settings.temperature", "rewritten"), ("request.settings.reasoning", "rewritten")]
    nova = bedrock.to_wire([UserMessage("q")], model=NOVA, settings={"top_k": 40, "reasoning": "high"})
    assert nova.request["additionalModelRequestFields"] == {
        "inferenceConfig": {"topK": 40}, "reasoningConfig": {"type": "enabled", "maxReasoningEffort": "high"}}
    llama = bedrock.to_wire([UserMessage("q")], model="meta.llama3-2-1b-instruct-v1:0",
                            settings={"top_k": 40, "seed": 1, "tool_choice": "none"})
    assert "additionalModelRequestFields" not in llama.request
    assert {loss.path for loss in llama.losses} == {
        "request.settings.top_k", "request.settings.seed", "request.settings.tool_choice"}


def test_a_param_that_clashes_with_a_setting_is_refused() -> None:
    """params may add inferenceConfig keys, not restate one the settings write."""
    with pytest.raises(ValueError, match="maxTokens"):
        bedrock.to_wire([UserMessage("q")], model=CLAUDE, max_tokens=5,
                        params={"inferenceConfig": {"maxTokens": 6}})
    ok = bedrock.to_wire([UserMessage("q")], model=CLAUDE, max_tokens=5,
                         params={"inferenceConfig": {"topP": 0.5}})
    assert ok.request["inferenceConfig"] == {"maxTokens": 5, "topP": 0.5}


# -- the event stream (test_bedrock_stream.py reads the same events) ------------------------


def _events() -> list[dict[str, Any]]:
    return [{"messageStart": {"role": "assistant"}},
            {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "hi"}}},
            {"contentBlockStop": {"contentBlockIndex": 0}},
            {"messageStop": {"stopReason": "end_turn"}}]


# -- accounting ----------------------------------------------------------------------------


def test_a_bedrock_message_is_priced_by_the_model_its_request_named() -> None:
    """Converse responses name no model: model_id records it (from_wire and stream alike), and
    the price data knows Bedrock's model ids, inference profiles included."""
    response = {"output": {"message": {"role": "assistant", "content": [{"text": "hi"}]}},
                "stopReason": "end_turn", "usage": {"inputTokens": 1000, "outputTokens": 100,
                                                    "totalTokens": 1100}}
    assert bedrock.from_wire(response).model is None
    message = bedrock.from_wire(response, model_id=CLAUDE)
    assert message.model == f"bedrock:{CLAUDE}"
    streamed = accumulate(bedrock.stream(_events(), model_id="amazon.nova-micro-v1:0"))
    assert streamed.model == "bedrock:amazon.nova-micro-v1:0"
    cost = message_cost(message)
    assert cost.usd is not None
    assert cost.usd > 0
    assert cost.version is not None
    assert cost.version.source == "genai-prices"


# -- regressions from the law suite ----------------------------------------------------------


def test_a_document_with_an_empty_name_is_sent_a_numbered_one_with_a_loss() -> None:
    """Converse's document name has a minimum length of 1: an empty file name (no title) is sent
    as a numbered name, reported as rewritten, and the request passes botocore's validator."""
    from tests.harness.validity import request_errors

    history: list[HistoryEvent] = [UserMessage([
        TextPart(text="read this"),
        DocumentPart(source=Base64Source(data=""), media_type="application/pdf", filename="")])]
    projection = bedrock.to_wire(history, model=CLAUDE)
    block = projection.request["messages"][0]["content"][1]["document"]
    assert block["name"] == "document 1"
    assert [(loss.path, loss.part_type, loss.action) for loss in projection.losses] == [
        ("history[0].parts[1].title", "document", "rewritten")]
    assert request_errors("bedrock", projection.request) == []


def test_a_blank_document_title_is_also_replaced() -> None:
    """A whitespace-only name passes the length check but names nothing: it is replaced too."""
    history: list[HistoryEvent] = [UserMessage([
        TextPart(text="read this"),
        DocumentPart(source=Base64Source(data=""), media_type="application/pdf", title="   ")])]
    projection = bedrock.to_wire(history, model=CLAUDE)
    assert projection.request["messages"][0]["content"][1]["document"]["name"] == "document 1"
    assert [loss.action for loss in projection.losses] == ["rewritten"]


def test_audio_in_a_tool_result_is_dropped_with_a_loss_not_sent() -> None:
    """Converse's tool result content takes json, text, image, document, video and searchResult
    only: an audio attachment is not written there (botocore refuses it) but reported."""
    from partwire.parts import AudioPart
    from tests.harness.validity import request_errors

    history: list[HistoryEvent] = [
        UserMessage("go"),
        AssistantMessage([ToolCallPart(id="tu_1", name="n", arguments_json="{}")]),
        ToolMessage(call_id="tu_1", tool_name="n", output_text="",
                    parts=(AudioPart(source=Base64Source(data=""), media_type="audio/wav"),))]
    projection = bedrock.to_wire(history, model=CLAUDE)
    result = projection.request["messages"][2]["content"][0]["toolResult"]
    assert all("audio" not in block for block in result["content"])
    assert [(loss.path, loss.part_type, loss.action) for loss in projection.losses] == [
        ("history[2].parts[0]", "audio", "dropped")]
    assert request_errors("bedrock", projection.request) == []


@pytest.mark.parametrize("arguments", ["\r", " ", "\n\t"])
def test_blank_but_not_empty_arguments_are_sent_as_an_object_with_a_loss(arguments: str) -> None:
    """Arguments of only whitespace are not a JSON object: Converse gets {} and a loss says so
    (they do not come back as they were, so silence would lose them)."""
    history: list[HistoryEvent] = [
        UserMessage("go"),
        AssistantMessage([ToolCallPart(id="tu_1", name="A", arguments_json=arguments)])]
    projection = bedrock.to_wire(history, model=CLAUDE)
    assert projection.request["messages"][1]["content"][0]["toolUse"]["input"] == {}
    assert [(loss.path, loss.part_type, loss.action) for loss in projection.losses] == [
        ("history[1].parts[0]", "tool_call", "rewritten")]


def test_empty_arguments_are_an_empty_object_without_a_loss() -> None:
    """The empty string stays the usual spelling of no arguments: {} and no loss."""
    history: list[HistoryEvent] = [
        UserMessage("go"), AssistantMessage([ToolCallPart(id="tu_1", name="A", arguments_json="")])]
    projection = bedrock.to_wire(history, model=CLAUDE)
    assert projection.request["messages"][1]["content"][0]["toolUse"]["input"] == {}
    assert projection.losses == ()
