"""Unit tests of the Cohere v2 adapter's mapping, one rule per test: to_wire, from_wire, options."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from partwire import (
    AssistantMessage,
    Base64Source,
    DeveloperMessage,
    DocumentCitation,
    DocumentPart,
    ImagePart,
    Opaque,
    ProviderData,
    RedactedThinkingPart,
    SystemMessage,
    TextPart,
    TextSource,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from partwire.adapters import cohere
from partwire.adapters.cohere.blocks import part_from_wire, part_to_wire, stop_reason_from_wire
from partwire.errors import LossError, ProviderError, WireFormatError
from partwire.pricing import message_cost
from partwire.settings import RequestSettings
from partwire.streaming import accumulate

MODEL = "command-a-03-2025"
PLAN = ProviderData(issuer="cohere", data={"field": "tool_plan"})


def _wire(history: list[Any], **kwargs: Any) -> tuple[dict[str, Any], list[tuple[str, str, str]]]:
    projection = cohere.to_wire(history, model=MODEL, **kwargs)
    return projection.request, [(x.path, x.part_type, x.action) for x in projection.losses]


def test_one_plain_text_is_a_string_and_more_parts_a_list() -> None:
    """A message of one plain text goes out as a string; two texts as a list of text items."""
    body, losses = _wire([UserMessage("hi"), UserMessage(["a", "b"])])
    assert body["messages"] == [{"role": "user", "content": "hi"},
                                {"role": "user", "content": [{"type": "text", "text": "a"},
                                                             {"type": "text", "text": "b"}]}]
    assert losses == []


def test_model_prefix_is_cut_and_another_providers_refused() -> None:
    """``cohere:<name>`` sends the name; a model of another provider is refused."""
    assert cohere.to_wire([UserMessage("hi")], model=f"cohere:{MODEL}").request["model"] == MODEL
    with pytest.raises(Exception, match="belongs to 'anthropic'"):
        cohere.to_wire([UserMessage("hi")], model="anthropic:claude-sonnet-4-6")


def test_a_marked_text_part_is_the_tool_plan() -> None:
    """A text part marked as the tool plan goes to ``tool_plan``, beside the calls, not in content."""
    call = ToolCallPart(id="tu_1", name="f", arguments_json='{"a":1}', provider_ids={"cohere": "f_abc123"})
    body, losses = _wire([UserMessage("q"), AssistantMessage([TextPart(text="I will call f.", provider_data=PLAN), call])])
    assert body["messages"][1] == {"role": "assistant", "tool_plan": "I will call f.", "tool_calls": [
        {"id": "f_abc123", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}]}
    assert losses == []


def test_thinking_goes_as_thinking_and_a_foreign_signature_is_named() -> None:
    """Reasoning text is a thinking item; another issuer's signature is not sent (rewritten)."""
    signed = ThinkingPart(text="hmm", signature=Opaque(value="sig", issuer="anthropic"))
    body, losses = _wire([UserMessage("q"), AssistantMessage([signed, "a"])])
    assert body["messages"][1]["content"] == [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "a"}]
    assert losses == [("history[1].parts[0]", "thinking", "rewritten")]


@pytest.mark.parametrize(("option", "expected", "action"), [
    ("text", [{"type": "text", "text": "hmm"}, {"type": "text", "text": "a"}], "downgraded"),
    ("drop", "a", "dropped"),
])
def test_foreign_thinking_option(option: str, expected: object, action: str) -> None:
    """``foreign_thinking`` sends reasoning as plain text, or drops it, each with its loss."""
    body, losses = _wire([UserMessage("q"), AssistantMessage([ThinkingPart(text="hmm"), "a"])],
                         foreign_thinking=option)
    assert body["messages"][1]["content"] == expected
    assert losses == [("history[1].parts[0]", "thinking", action)]


def test_an_inline_image_is_a_data_url_and_original_detail_is_high() -> None:
    """Base64 image data goes as a data URL; Cohere has no 'original' detail (sent as high)."""
    image = ImagePart(source=Base64Source(data="iVBORw0KGgo="), media_type="image/png", detail="original")
    body, losses = _wire([UserMessage([image, "what is it?"])])
    assert body["messages"][0]["content"][0] == {"type": "image_url", "image_url": {
        "url": "data:image/png;base64,iVBORw0KGgo=", "detail": "high"}}
    assert losses == [("history[0].parts[0].detail", "image", "rewritten")]


def test_a_users_text_document_goes_to_the_requests_documents() -> None:
    """A user's text document is sent in ``documents`` (rewritten), its title kept; a PDF is dropped."""
    doc = DocumentPart(source=TextSource(text="Cohere was founded in 2019."), media_type="text/plain", title="About")
    pdf = DocumentPart(source=Base64Source(data="JVBERi0="), media_type="application/pdf")
    body, losses = _wire([UserMessage([doc, pdf, "when?"])])
    assert body["documents"] == [{"data": {"text": "Cohere was founded in 2019.", "title": "About"}}]
    assert body["messages"] == [{"role": "user", "content": "when?"}]
    assert losses == [("history[0].parts[0]", "document", "rewritten"), ("history[0].parts[1]", "document", "dropped")]


def test_a_tool_result_with_a_document_is_a_list_of_items() -> None:
    """A tool result's JSON document goes as a document item after its text; its status is lost."""
    call = ToolCallPart(id="tu_1", name="f", arguments_json="{}", provider_ids={"cohere": "f_1"})
    result = ToolMessage(call_id="tu_1", tool_name="f", output_text="found", status="error",
                         parts=[DocumentPart(source=TextSource(text='{"rows": 3}'), media_type="application/json")])
    body, losses = _wire([UserMessage("q"), AssistantMessage([call]), result])
    assert body["messages"][2] == {"role": "tool", "tool_call_id": "f_1", "content": [
        {"type": "text", "text": "found"}, {"type": "document", "document": {"data": {"rows": 3}}}]}
    assert losses == [("history[2].status", "tool_message", "dropped")]


def test_developer_is_a_system_message_and_redacted_reasoning_is_dropped() -> None:
    """A developer message goes as a system message (downgraded); redacted reasoning is dropped."""
    redacted = RedactedThinkingPart(data=Opaque(value="x", issuer="anthropic"))
    body, losses = _wire([SystemMessage("be brief"), UserMessage("q"), DeveloperMessage("ls: 3 files"),
                          AssistantMessage([redacted, "a"])])
    assert [m["role"] for m in body["messages"]] == ["system", "user", "system", "assistant"]
    assert losses == [("history[2]", "developer_message", "downgraded"),
                      ("history[3].parts[0]", "redacted_thinking", "dropped")]


def test_a_call_keeps_an_id_cohere_takes_and_maps_one_it_does_not() -> None:
    """Another provider's call id that fits Cohere's rule is sent as it is; one that does not is
    replaced by the canonical id (id_mapped), and its result follows it."""
    good = ToolCallPart(id="tu_1", name="f", arguments_json="{}", provider_ids={"openai": "call_abc"})
    bad = ToolCallPart(id="tu_2", name="f", arguments_json="{}", provider_ids={"x": "has spaces"})
    body, losses = _wire([UserMessage("q"), AssistantMessage([good, bad]),
                          ToolMessage("1", call_id="tu_1", tool_name="f"), ToolMessage("2", call_id="tu_2", tool_name="f")])
    assert [c["id"] for c in body["messages"][1]["tool_calls"]] == ["call_abc", "tu_2"]
    assert [m["tool_call_id"] for m in body["messages"][2:]] == ["call_abc", "tu_2"]
    assert losses == [("history[1].parts[1]", "tool_call", "id_mapped")]


def test_another_apis_citations_are_not_sent() -> None:
    """Citations that are not Cohere's are reported at the text part's citations."""
    cited = TextPart(text="Paris.", citations=[DocumentCitation(document_index=0, unit="char", start=0, end=5)])
    body, losses = _wire([UserMessage("q"), AssistantMessage([cited])])
    assert "citations" not in body["messages"][1]
    assert losses == [("history[1].parts[0].citations", "text", "dropped")]


def test_strict_refuses_a_lossy_history() -> None:
    """strict=True raises LossError where the projection would lose a part."""
    with pytest.raises(LossError):
        cohere.to_wire([UserMessage("q"), AssistantMessage([RedactedThinkingPart(
            data=Opaque(value="x", issuer="anthropic"))])], model=MODEL, strict=True)


# -- settings --------------------------------------------------------------------------------


def test_settings_go_to_coheres_own_fields() -> None:
    """Each setting Cohere has goes to its own field: p, k, thinking with a budget, a schema."""
    settings = RequestSettings(max_output_tokens=100, temperature=0.3, top_p=0.9, top_k=40, seed=7,
                               stop_sequences=("END",), presence_penalty=0.5, frequency_penalty=0.2,
                               tool_choice="required", reasoning={"budget_tokens": 2048},
                               output_format={"type": "json_schema", "json_schema": {"type": "object"}})
    body, losses = _wire([UserMessage("q")], settings=settings)
    assert {k: v for k, v in body.items() if k not in ("model", "messages")} == {
        "max_tokens": 100, "temperature": 0.3, "p": 0.9, "k": 40, "seed": 7, "stop_sequences": ["END"],
        "presence_penalty": 0.5, "frequency_penalty": 0.2, "tool_choice": "REQUIRED",
        "thinking": {"type": "enabled", "token_budget": 2048},
        "response_format": {"type": "json_object", "json_schema": {"type": "object"}}}
    assert losses == []


@pytest.mark.parametrize(("settings", "field", "action"), [
    ({"tool_choice": "lookup"}, "tool_choice", "downgraded"),
    ({"parallel_tool_calls": False}, "parallel_tool_calls", "dropped"),
    ({"end_user_id": "u1"}, "end_user_id", "dropped"),
    ({"reasoning": "high"}, "reasoning", "rewritten"),
    ({"top_k": 900}, "top_k", "rewritten"),
    ({"presence_penalty": -1.0}, "presence_penalty", "dropped"),
    ({"output_format": {"type": "json_schema", "json_schema": {}, "name": "x"}}, "output_format.name", "dropped"),
])
def test_a_setting_cohere_cannot_hold_is_named(settings: dict[str, Any], field: str, action: str) -> None:
    """A setting Cohere lacks, or cannot hold at that value, is a loss at request.settings.<field>."""
    _, losses = _wire([UserMessage("q")], settings=settings)
    assert losses == [(f"request.settings.{field}", "setting", action)]


def test_settings_read_back_from_a_body() -> None:
    """A body's own fields read into the canonical settings, and write back exactly."""
    body = {"model": MODEL, "messages": [{"role": "user", "content": "q"}], "max_tokens": 9, "p": 0.5,
            "k": 3, "tool_choice": "NONE", "thinking": {"type": "disabled"},
            "response_format": {"type": "json_object"}, "safety_mode": "OFF"}
    imported = cohere.from_wire_request(body)
    assert imported.settings.top_k == 3
    assert imported.settings.top_p == 0.5
    assert imported.settings.reasoning is not None
    assert imported.settings.reasoning.enabled is False
    assert imported.params == {"safety_mode": "OFF"}
    assert cohere.to_wire(imported.history, **imported.to_wire_kwargs()).request == body


# -- responses -------------------------------------------------------------------------------


def test_usage_is_the_billed_units_with_the_raw_object_kept() -> None:
    """Input and output are the billed units; tokens and cached tokens stay in the raw usage."""
    message = cohere.from_wire({"id": "r", "message": {"role": "assistant", "content": [{"type": "text", "text": "a"}]},
                                "finish_reason": "COMPLETE", "usage": {
                                    "billed_units": {"input_tokens": 7.0, "output_tokens": 88},
                                    "tokens": {"input_tokens": 69, "output_tokens": 89}, "cached_tokens": 64}})
    assert message.usage is not None
    assert (message.usage.input_tokens, message.usage.output_tokens, message.usage.cache_read_tokens) == (7, 88, 0)
    assert message.usage.provider_data is not None
    raw: Any = message.usage.provider_data.data
    assert raw["billed_units"]["input_tokens"] == 7
    assert raw["cached_tokens"] == 64


@pytest.mark.parametrize(("raw", "stop"), [("COMPLETE", "stop"), ("STOP_SEQUENCE", "stop"),
                                          ("MAX_TOKENS", "length"), ("TOOL_CALL", "tool_use"),
                                          ("ERROR", "error"), ("TIMEOUT", "error"), ("NEW", None)])
def test_finish_reasons(raw: str, stop: str | None) -> None:
    """Each finish_reason maps to its stop reason; one this version does not know stays raw only."""
    message = cohere.from_wire({"id": "r", "message": {"role": "assistant"}, "finish_reason": raw})
    assert (message.stop_reason, message.stop_reason_raw) == (stop, raw)
    assert stop_reason_from_wire(raw) == stop


def test_an_error_body_raises_provider_error() -> None:
    """``{"message": "..."}`` (with its id) is Cohere's error body: a ProviderError saying it."""
    with pytest.raises(ProviderError, match="invalid request: model 'x' not found") as caught:
        cohere.from_wire({"id": "e1", "message": "invalid request: model 'x' not found"})
    assert caught.value.request_id == "e1"


def test_another_apis_response_is_refused_naming_it() -> None:
    """A Chat Completions response read as Cohere's is a WireFormatError that says what it is."""
    with pytest.raises(WireFormatError, match="OpenAI Chat Completions"):
        cohere.from_wire({"id": "c", "object": "chat.completion", "choices": []})


def test_a_thinking_citation_stays_in_the_messages_provider_data() -> None:
    """A citation of thinking content cites no text part: it is kept raw on the message."""
    citation = {"start": 0, "end": 3, "text": "abc", "type": "THINKING_CONTENT", "content_index": 0,
                "sources": [{"type": "tool", "id": "f_1:0", "tool_output": {"a": "b"}}]}
    message = cohere.from_wire({"id": "r", "finish_reason": "COMPLETE", "message": {
        "role": "assistant", "content": [{"type": "thinking", "thinking": "abc"}, {"type": "text", "text": "x"}],
        "citations": [citation]}})
    assert all(not getattr(p, "citations", ()) for p in message.parts)
    assert message.provider_data is not None
    kept: Any = message.provider_data.data
    assert kept["citations"] == [citation]


def test_blocks_read_and_write_one_item() -> None:
    """The blocks module reads an item as from_wire does and writes a part as to_wire does."""
    part, losses = part_from_wire({"type": "image_url", "image_url": {"url": "https://x/a.png"}})
    assert part == ImagePart(source=UrlSource(url="https://x/a.png"))
    assert losses == ()
    item, losses = part_to_wire(part)
    assert item == {"type": "image_url", "image_url": {"url": "https://x/a.png"}}
    assert losses == ()
    unknown, _ = part_from_wire({"type": "audio", "audio": {}})
    assert unknown.type == "unknown"


def test_an_estimate_counts_the_billed_text() -> None:
    """The estimate of a bare question is its own token count, without Cohere's template."""
    assert cohere.estimate_input_tokens([UserMessage("Tell me a joke, pirate style")]) == 7


def test_model_id_names_the_model_of_an_answer_and_its_stream() -> None:
    """Cohere's answers name no model: the model_id option records it, whole and streamed, and
    the answer is priced by it."""
    body = {"id": "r", "finish_reason": "COMPLETE", "message": {"role": "assistant", "content": [{"type": "text", "text": "a"}]},
            "usage": {"billed_units": {"input_tokens": 1000, "output_tokens": 1000}}}
    assert cohere.from_wire(body).model is None
    message = cohere.from_wire(body, model_id="command-r")
    assert message.model == "cohere:command-r"
    assert message_cost(message).usd == Decimal("0.00075")  # command-r: $0.15 and $0.60 a million
    events = [{"id": "r", "type": "message-start", "delta": {"message": {"role": "assistant"}}},
              {"type": "message-end", "delta": {"finish_reason": "COMPLETE"}}]
    assert accumulate(cohere.stream(events, model_id="command-r")).model == "cohere:command-r"
