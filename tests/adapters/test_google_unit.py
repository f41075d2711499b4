"""Unit behaviour of the Google adapter: signatures, ids and pairing, writing requests, key styles,
schemas; reading a request is in ``test_google_request.py``, streams in ``test_google_stream.py``."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from google.genai import types

from partwire import (
    AssistantMessage,
    DeveloperMessage,
    ImagePart,
    Opaque,
    RefusalPart,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolDefinition,
    ToolMessage,
    UserMessage,
)
from partwire.adapters import ProviderError, WireFormatError, get_adapter, google
from partwire.adapters.google._wire import PLACEHOLDER_SIGNATURE, camel_keys, same_model, shape
from partwire.caches import clear
from partwire.errors import ArgumentError, LossError
from partwire.parts import Base64Source
from partwire.settings import RequestSettings
from tests.harness.validity import request_errors

MODEL = "gemini-3-flash-preview"
SIG = "CtwCAdHtim+7Zc0u3Vq1/lzZ0x7tTq5E3mEo8N2rN3pJm4cWfO0yF/s//g=="
SIG2 = "Cp8BAdHtim8+fCv6kcDY5f8LF6LD5NX2BxgpOktcbX6PkPvv"


def response(*parts: dict[str, Any], finish: str | None = "STOP", **top: Any) -> dict[str, Any]:
    """A Gemini response body with one candidate holding ``parts``."""
    cand: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish is not None:
        cand["finishReason"] = finish
    return {"candidates": [cand], "modelVersion": MODEL, "responseId": "r1", **top}


def wire(history: list[Any], model: str = MODEL, **kwargs: Any) -> dict[str, Any]:
    """The request body to_wire makes."""
    body: dict[str, Any] = google.to_wire(history, model=model, **kwargs).request
    return body


# -- signatures --------------------------------------------------------------------------------


def test_signatures_do_not_cross_models() -> None:
    """A signature issued by one Gemini model is not sent to another; the loss says so."""
    message = google.from_wire(response({"text": "hi", "thoughtSignature": SIG}))
    projection = google.to_wire([UserMessage("q"), message, UserMessage("again")], model="gemini-2.5-pro")
    assert "thoughtSignature" not in projection.request["contents"][1]["parts"][0]
    assert [(loss.action, loss.part_type, loss.path) for loss in projection.losses] == [
        ("dropped", "text", "history[1].parts[0].provider_data")]


def test_same_model_accepts_the_resolved_version() -> None:
    """An alias and the version it resolved to are one model; different families are not."""
    assert same_model("gemini-2.5-flash-preview-05-20", "gemini-2.5-flash")
    assert same_model("gemini-3-flash-preview", "google:gemini-3-flash-preview")
    assert not same_model("gemini-2.5-flash", "gemini-3-flash-preview")
    assert same_model(None, "gemini-3-flash-preview")


def test_foreign_calls_get_the_placeholder_on_the_first_call_only() -> None:
    """Calls from another provider sent to Gemini 3: the first of the turn gets Google's placeholder, reported; the rest none."""
    a = ToolCallPart.create("f", {"x": 1}, provider_ids={"anthropic": "toolu_1"})
    b = ToolCallPart.create("f", {"x": 2}, provider_ids={"anthropic": "toolu_2"})
    history: list[Any] = [UserMessage("go"), AssistantMessage([a, b]),
               ToolMessage(call_id=a.id, tool_name="f", output_text="1"),
               ToolMessage(call_id=b.id, tool_name="f", output_text="2")]
    projection = google.to_wire(history, model=MODEL)
    first, second = projection.request["contents"][1]["parts"]
    assert first["thoughtSignature"] == PLACEHOLDER_SIGNATURE
    assert "thoughtSignature" not in second
    assert [(loss.action, loss.path) for loss in projection.losses] == [
        ("rewritten", "history[1].parts[0]")]
    # Anthropic's ids fit Gemini's rules: they go on, so the trip back to Anthropic keeps them.
    assert [p["functionCall"]["id"] for p in (first, second)] == ["toolu_1", "toolu_2"]


def test_ids_outside_geminis_rules_are_mapped_to_canonical() -> None:
    """A foreign id Gemini's rules do not admit is replaced by the canonical id, reported as id_mapped."""
    call = ToolCallPart.create("f", {}, provider_ids={"other": "bad id with spaces"})
    projection = google.to_wire([UserMessage("go"), AssistantMessage([call])], model="gemini-2.5-flash")
    assert projection.request["contents"][1]["parts"][0]["functionCall"]["id"] == call.id
    assert [(loss.action, loss.part_type) for loss in projection.losses] == [("id_mapped", "tool_call")]


def test_no_placeholder_for_models_that_do_not_require_signatures() -> None:
    """Gemini 2.5 gets calls without signatures as they are."""
    call = ToolCallPart.create("f", {})
    body = wire([UserMessage("go"), AssistantMessage([call])], model="gemini-2.5-flash")
    assert "thoughtSignature" not in body["contents"][1]["parts"][0]


def test_strict_refuses_the_placeholder() -> None:
    """strict=True turns the placeholder rewrite into an error instead of a silent degrade."""
    with pytest.raises(LossError):
        google.to_wire([UserMessage("go"), AssistantMessage([ToolCallPart.create("f", {})])],
                       model=MODEL, strict=True)


def test_reasoning_from_another_provider_is_dropped_with_a_loss() -> None:
    """Anthropic thinking cannot go to Gemini: dropped and reported."""
    thinking = ThinkingPart(text="hmm", signature=Opaque(value="sig", issuer="anthropic"))
    projection = google.to_wire([UserMessage("q"), AssistantMessage([thinking, "a"])], model=MODEL)
    assert projection.request["contents"][1]["parts"] == [{"text": "a"}]
    assert [(x.action, x.part_type) for x in projection.losses] == [("dropped", "thinking")]


# -- ids and pairing --------------------------------------------------------------------------


def test_call_without_id_gets_a_canonical_id_and_goes_back_without_one() -> None:
    """An id-less call gets a tu_ id; its result points at it; both go back to Gemini without ids."""
    message = google.from_wire(response({"functionCall": {"name": "f", "args": {}}}))
    call = message.parts[0]
    assert isinstance(call, ToolCallPart)
    assert call.id.startswith("tu_")
    assert call.provider_ids == {}
    body = wire([UserMessage("go"), message, ToolMessage(call_id=call.id, tool_name="f", output_text="ok")])
    assert body["contents"][1]["parts"][0]["functionCall"] == {"name": "f", "args": {}}
    assert body["contents"][2]["parts"][0]["functionResponse"] == {"name": "f", "response": {"output": "ok"}}


def test_gemini_ids_are_kept_per_issuer() -> None:
    """Gemini's own id is kept under provider_ids['google'] and echoed on the call and its result."""
    message = google.from_wire(response({"functionCall": {"id": "k3", "name": "f", "args": {"a": 1}}}))
    call = message.parts[0]
    assert isinstance(call, ToolCallPart)
    assert call.provider_ids == {"google": "k3"}
    body = wire([UserMessage("go"), message, ToolMessage(call_id=call.id, tool_name="f", output_text="x")])
    assert body["contents"][2]["parts"][0]["functionResponse"]["id"] == "k3"


def test_id_less_results_are_sent_in_call_order() -> None:
    """Without ids Gemini pairs by order and name, so results go in the order of their calls."""
    message = google.from_wire(response({"functionCall": {"name": "f", "args": {"n": 1}}},
                                        {"functionCall": {"name": "g", "args": {"n": 2}}}))
    a, b = message.parts
    assert isinstance(a, ToolCallPart)
    assert isinstance(b, ToolCallPart)
    body = wire([UserMessage("go"), message, ToolMessage(call_id=b.id, tool_name="g", output_text="2"),
                 ToolMessage(call_id=a.id, tool_name="f", output_text="1")])
    names = [p["functionResponse"]["name"] for p in body["contents"][2]["parts"]]
    assert names == ["f", "g"]


# -- writing requests ---------------------------------------------------------------------------


def test_camel_keys_copies_only_what_it_renames() -> None:
    """A camelCase body comes back as the same object; a mixed one is renamed in a copy, the input
    unchanged, and the parts nothing was renamed in are shared."""
    import copy

    camel_body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
                  "generationConfig": {"maxOutputTokens": 5, "stopSequences": ["x"]}}
    assert camel_keys(camel_body) is camel_body
    assert camel_keys(camel_body) is camel_body  # the keys now known: the short walk
    mixed = {"contents": camel_body["contents"],
             "generation_config": {"max_output_tokens": 5, "thinking_config": {"include_thoughts": True}},
             "tools": [{"functionDeclarations": [{"name": "f", "parameters": {
                 "type": "OBJECT", "properties": {"snake_key": {"type": "STRING"}}}}]}]}
    before = copy.deepcopy(mixed)
    out = camel_keys(mixed)
    assert mixed == before
    assert out["generationConfig"] == {"maxOutputTokens": 5, "thinkingConfig": {"includeThoughts": True}}
    assert out["contents"] is camel_body["contents"]
    assert out["tools"] is mixed["tools"]  # property names are user data: nothing renamed there
    nested = {"contents": [{"role": "user", "parts": [{"inline_data": {"mime_type": "a/b", "data": ""}}]}]}
    renamed = camel_keys(nested)
    assert renamed == {"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "a/b", "data": ""}}]}]}
    assert nested["contents"][0]["parts"][0] == {"inline_data": {"mime_type": "a/b", "data": ""}}


def test_camel_keys_remembers_a_field_only_while_it_is_unchanged() -> None:
    """A body field seen in camelCase is not walked again, yet the same tools with a snake_case key
    added in place, or in another body, are still renamed."""
    parameters: dict[str, Any] = {"type": "OBJECT"}
    tools = [{"functionDeclarations": [{"name": "f", "parameters": parameters}]}]
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": tools}
    assert camel_keys(body) is body
    assert camel_keys(body) is body  # remembered: the same value comes back itself
    parameters["property_ordering"] = ["a"]
    renamed = camel_keys(body)
    assert renamed["tools"][0]["functionDeclarations"][0]["parameters"] == {
        "type": "OBJECT", "propertyOrdering": ["a"]}
    other = {"contents": body["contents"], "tools": [{"function_declarations": [{"name": "f"}]}]}
    assert camel_keys(other)["tools"] == [{"functionDeclarations": [{"name": "f"}]}]


def test_params_are_written_in_camel_case_and_merged_with_max_tokens() -> None:
    """Generation settings given in snake_case land in generationConfig in camelCase, beside maxOutputTokens."""
    body = wire([UserMessage("hi")], max_tokens=64,
                params={"generation_config": {"temperature": 0.2, "stop_sequences": ["END"],
                                              "response_mime_type": "application/json"},
                        "safety_settings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
                        "cached_content": "cachedContents/abc"})
    assert body["generationConfig"] == {"temperature": 0.2, "stopSequences": ["END"],
                                        "responseMimeType": "application/json", "maxOutputTokens": 64}
    assert body["cachedContent"] == "cachedContents/abc"
    assert request_errors("google", body) == []


def test_both_thinking_budget_and_level_are_refused() -> None:
    """thinkingBudget and thinkingLevel together are a 400 at Gemini; to_wire refuses them first."""
    with pytest.raises(ValueError, match="not both"):
        wire([UserMessage("hi")], params={"generationConfig": {"thinkingConfig": {
            "thinkingBudget": 10, "thinkingLevel": "LOW"}}})


def test_system_and_developer_messages() -> None:
    """System messages make one systemInstruction; a developer message joins the user turn, reported."""
    projection = google.to_wire([SystemMessage("a"), SystemMessage("b"), UserMessage("q"),
                                 DeveloperMessage("ctx")], model=MODEL)
    assert projection.request["systemInstruction"] == {"parts": [{"text": "a"}, {"text": "b"}]}
    assert projection.request["contents"] == [{"role": "user", "parts": [{"text": "q"}, {"text": "ctx"}]}]
    assert [x.action for x in projection.losses] == ["attached"]


def test_openapi_dialect_rewrites_are_reported() -> None:
    """schema_dialect='openapi' upper-cases types, turns null unions into nullable and says what it dropped."""
    tool = ToolDefinition(name="f", description="d", side_effects="none", input_schema={
        "type": "object", "additionalProperties": False,
        "properties": {"n": {"type": ["integer", "null"]}, "k": {"type": "string", "enum": ["a"]}}})
    projection = google.to_wire([UserMessage("q")], model=MODEL, tools=[tool], schema_dialect="openapi")
    params = projection.request["tools"][0]["functionDeclarations"][0]["parameters"]
    assert params == {"type": "OBJECT", "properties": {"n": {"type": "INTEGER", "nullable": True},
                                                       "k": {"type": "STRING", "enum": ["a"]}}}
    assert [(x.action, x.part_type) for x in projection.losses] == [("rewritten", "tool")]
    vertex = google.to_wire([UserMessage("q")], model=MODEL, tools=[tool],
                            options={"schema_dialect": "openapi", "backend": "vertex"})
    assert vertex.lossless
    types.FunctionDeclaration.model_validate(projection.request["tools"][0]["functionDeclarations"][0])


def test_multimodal_tool_result_goes_in_function_response_parts() -> None:
    """An image attached to a tool result travels inside functionResponse.parts."""
    call = ToolCallPart.create("shot", {})
    body = wire([UserMessage("go"), AssistantMessage([call]), ToolMessage(
        call_id=call.id, tool_name="shot", output_text="taken",
        parts=(ImagePart(source=Base64Source(data="iVBORw0KGgo="), media_type="image/png"),))])
    response = body["contents"][2]["parts"][0]["functionResponse"]
    assert response["parts"] == [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]
    assert request_errors("google", body) == []


# -- responses --------------------------------------------------------------------------------


@pytest.mark.parametrize(("finish", "stop"), [
    ("STOP", "stop"), ("MAX_TOKENS", "length"), ("SAFETY", "content_filter"),
    ("RECITATION", "content_filter"), ("BLOCKLIST", "content_filter"),
    ("PROHIBITED_CONTENT", "content_filter"), ("SPII", "content_filter"),
    ("MALFORMED_FUNCTION_CALL", "error"), ("CONTINUATION", "pause"), ("SOMETHING_NEW", None)])
def test_finish_reasons_are_mapped_with_the_raw_value_kept(finish: str, stop: str | None) -> None:
    """Every finishReason maps to a canonical stop reason; the raw value is kept; unknown maps to None."""
    message = google.from_wire(response({"text": "x"}, finish=finish))
    assert (message.stop_reason, message.stop_reason_raw) == (stop, finish)


def test_stop_with_calls_is_tool_use() -> None:
    """STOP ending a turn of function calls is tool_use."""
    assert google.from_wire(response({"functionCall": {"name": "f"}})).stop_reason == "tool_use"


def test_blocked_prompt_is_a_refusal() -> None:
    """promptFeedback.blockReason without candidates is a refusal with the reason kept."""
    message = google.from_wire({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}})
    assert message.parts == (RefusalPart(text="The prompt was blocked (PROHIBITED_CONTENT)."),)
    assert (message.stop_reason, message.stop_reason_raw) == ("refusal", "PROHIBITED_CONTENT")


def test_metadata_and_usage_are_kept() -> None:
    """finishMessage and grounding metadata are kept; usage counts thoughts as output and tool prompts as input."""
    body = response({"text": "x"}, finish="MALFORMED_FUNCTION_CALL",
                    usageMetadata={"promptTokenCount": 100, "cachedContentTokenCount": 40,
                                   "candidatesTokenCount": 10, "thoughtsTokenCount": 5,
                                   "toolUsePromptTokenCount": 7, "totalTokenCount": 122})
    body["candidates"][0]["finishMessage"] = "Malformed function call: f(x"
    body["candidates"][0]["groundingMetadata"] = {"webSearchQueries": ["q"]}
    message = google.from_wire(body)
    assert message.provider_data is not None
    assert message.provider_data.data["candidate"] == {  # type: ignore[index, call-overload]
        "finishMessage": "Malformed function call: f(x", "groundingMetadata": {"webSearchQueries": ["q"]}}
    usage = message.usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.reasoning_tokens) == (
        107, 15, 40, 5)


def test_error_body_raises() -> None:
    """An error body raises ProviderError; a non-object raises WireFormatError."""
    with pytest.raises(ProviderError, match="RESOURCE_EXHAUSTED"):
        google.from_wire({"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}})
    with pytest.raises(WireFormatError):
        google.from_wire("3")
    with pytest.raises(WireFormatError):
        google.from_wire({"candidates": [{"content": {"parts": "nope"}}]})


def test_sdk_response_object_keeps_the_signature_as_sent() -> None:
    """The SDK's object decodes like the raw body: its bytes go back to the standard base64 the server sent."""
    body = response({"functionCall": {"id": "a", "name": "f", "args": {}}, "thoughtSignature": SIG})
    sdk = types.GenerateContentResponse.model_validate(body)
    assert sdk.candidates[0].content.parts[0].thought_signature == base64.b64decode(SIG)  # type: ignore[index, union-attr]
    message = google.from_wire(sdk)
    assert message.parts[0].provider_data.data["thoughtSignature"] == SIG  # type: ignore[union-attr, index, call-overload]


# -- options ----------------------------------------------------------------------------------


def test_options_endpoint_pins_the_api_version() -> None:
    """Options build the Gemini API and Vertex URLs with the version pinned."""
    assert google.Options().endpoint("google:gemini-3-flash-preview") == (
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-3-flash-preview:generateContent")
    assert google.Options(api_version="v1").endpoint("gemini-2.5-pro", stream=True).endswith(
        "/v1/models/gemini-2.5-pro:streamGenerateContent?alt=sse")
    vertex = google.Options(backend="vertex", project="p", location="us-central1")
    assert vertex.endpoint("gemini-3-pro") == (
        "https://us-central1-aiplatform.googleapis.com/v1beta1/projects/p/locations/us-central1/"
        "publishers/google/models/gemini-3-pro:generateContent")


def test_options_by_mapping_and_keyword() -> None:
    """options= takes a mapping (strings coerced) and switches as keywords; unknown names are refused."""
    call = ToolCallPart.create("f", {})
    history: list[Any] = [UserMessage("go"), AssistantMessage([call])]
    assert "thoughtSignature" not in wire(history, options={"signatures": "optional"})["contents"][1]["parts"][0]
    assert wire(history, model="gemini-2.5-flash", signatures="required")["contents"][1]["parts"][0][
        "thoughtSignature"] == PLACEHOLDER_SIGNATURE
    with pytest.raises(ValueError, match="no 'nope'"):
        google.to_wire(history, model=MODEL, options={"nope": 1})


def test_registered_and_estimates() -> None:
    """get_adapter finds the adapter; the estimate grows with the history."""
    adapter = get_adapter("google")
    assert adapter.NAME == "google"
    small = adapter.estimate_input_tokens([UserMessage("hi")])
    assert adapter.estimate_input_tokens([UserMessage("hi " * 400)]) > small > 0


# -- refusals name where; strange shapes are kept ------------------------------------------------


_HI = {"role": "user", "parts": [{"text": "hi"}]}


def _objects(value: Any) -> list[dict[str, Any]]:
    """Every JSON object inside ``value``, depth first."""
    found: list[dict[str, Any]] = []
    if isinstance(value, dict):
        found.append(value)
        for item in value.values():
            found.extend(_objects(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(_objects(item))
    return found


def test_body_objects_are_plain_independent_dicts() -> None:
    """Every object of a body is a plain dict; changing one (a key added or set) changes no other."""
    call = ToolCallPart.create("grep", {"q": "x"}, provider_ids={"google": "c1"})
    other = ToolCallPart.create("grep", {"q": "y"}, provider_ids={"google": "c2"})
    history = [UserMessage("find it"), AssistantMessage([TextPart(text="looking"), call, other]),
               ToolMessage(call_id=call.id, tool_name="grep", output_text="found"),
               ToolMessage(call_id=other.id, tool_name="grep", status="error", output_text="no"),
               UserMessage("thanks")]
    body = wire(history, model="gemini-2.5-flash")
    before = json.dumps(body)
    objects = _objects(body)
    assert objects
    assert all(type(o) is dict for o in objects)
    first_call, second_call = body["contents"][1]["parts"][1:3]
    first_call["extra"] = 1
    first_call["functionCall"]["name"] = "renamed"
    assert second_call == {"functionCall": {"id": "c2", "name": "grep", "args": {"q": "y"}}}
    assert json.loads(before)["contents"][2] == body["contents"][2]
    assert list(first_call) == ["functionCall", "extra"]


def test_shape_copies_keep_key_order() -> None:
    """A copy of a shape() template lists its keys in the template's order, whatever order they were set in."""
    template = shape("id", "name", "args")
    made = template.copy()
    made["args"], made["name"], made["id"] = {}, "n", "i"
    assert type(made) is dict
    assert list(made) == ["id", "name", "args"]
    assert json.dumps(made) == '{"id": "i", "name": "n", "args": {}}'
    assert template == {"id": None, "name": None, "args": None}


def test_settings_sent_again_write_the_same_body_and_losses() -> None:
    """Settings written before give the same generationConfig and losses, per model, in a body of
    their own (its thinkingConfig and stop sequences are new objects), and still refuse a
    generationConfig key the caller also passed."""
    settings = RequestSettings(temperature=0.2, stop_sequences=("END",), end_user_id="u-1",
                               reasoning={"effort": "high"}, output_format={"type": "json_object"})
    for model in ("gemini-2.5-flash", "gemini-3-pro-preview", "gemini-2.5-flash"):
        clear()
        first = google.to_wire([UserMessage("hi")], model=model, settings=settings)
        second = google.to_wire([UserMessage("hi")], model=model, settings=settings)
        assert second.request == first.request
        assert [(loss.path, loss.reason) for loss in second.losses] == \
            [(loss.path, loss.reason) for loss in first.losses]
        assert any(loss.path == "request.settings.end_user_id" for loss in second.losses)
        config, again = first.request["generationConfig"], second.request["generationConfig"]
        assert again["thinkingConfig"] is not config["thinkingConfig"]
        assert again["stopSequences"] is not config["stopSequences"]
    budget = google.to_wire([UserMessage("hi")], model="gemini-2.5-flash", settings=settings)
    level = google.to_wire([UserMessage("hi")], model="gemini-3-pro-preview", settings=settings)
    assert "thinkingBudget" in budget.request["generationConfig"]["thinkingConfig"]
    assert level.request["generationConfig"]["thinkingConfig"] == {"thinkingLevel": "HIGH"}
    with pytest.raises(ArgumentError, match="temperature"):
        google.to_wire([UserMessage("hi")], model=MODEL, settings=settings,
                       params={"generationConfig": {"temperature": 0.9}})


def test_a_tool_sent_again_reports_its_losses_at_its_new_place() -> None:
    """A definition converted before gives the same declaration, its losses at the path it has in
    this request, and a declaration of its own that the caller may extend."""
    lazy = ToolDefinition(name="lookup", description="Look up.", input_schema={"type": "object"},
                          side_effects="none", defer_loading=True)
    other = ToolDefinition(name="other", description="Other.", input_schema={"type": "object"},
                           side_effects="none")
    first = google.to_wire([UserMessage("hi")], model=MODEL, tools=[lazy])
    second = google.to_wire([UserMessage("hi")], model=MODEL, tools=[other, lazy])
    assert [loss.path for loss in first.losses] == ["request.tools[0].defer_loading"]
    assert [loss.path for loss in second.losses] == ["request.tools[1].defer_loading"]
    declared = first.request["tools"][0]["functionDeclarations"][0]
    assert second.request["tools"][0]["functionDeclarations"][1] == declared
    declared["behavior"] = "NON_BLOCKING"
    assert "behavior" not in second.request["tools"][0]["functionDeclarations"][1]


def test_shape_falls_back_to_a_plain_template(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where shared key tables are not smaller, shape() gives a plain dict template whose copies
    keep the template's key order all the same."""
    import sys

    size = sys.getsizeof
    monkeypatch.setattr(sys, "getsizeof", lambda obj: 0)  # nothing looks smaller
    template = shape("role", "parts")
    assert size(template) == size({"role": None, "parts": None})  # a plain dict's table
    made = template.copy()
    made["parts"], made["role"] = [], "user"
    assert list(made) == ["role", "parts"]
    assert made == {"role": "user", "parts": []}
    assert template == {"role": None, "parts": None}
