"""Unit behaviour of the Google adapter: signatures, ids and pairing, key styles, schemas, streams."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from google.genai import types

from partwire import (
    AssistantMessage,
    DeveloperMessage,
    DocumentPart,
    ImagePart,
    Opaque,
    RefusalPart,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolDefinition,
    ToolMessage,
    UnknownPart,
    UserMessage,
)
from partwire._memo import forget
from partwire.adapters import ProviderError, WireFormatError, get_adapter, google
from partwire.adapters.google._request import _REST
from partwire.adapters.google._wire import PLACEHOLDER_SIGNATURE, camel_keys, same_model, shape
from partwire.errors import ArgumentError, LossError
from partwire.parts import Base64Source, ServerToolCallPart, ServerToolResultPart, UrlSource
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


def test_signatures_stay_on_their_parts_and_round_trip() -> None:
    """Signatures on a thought, a function call and a text part come back on the same parts, byte-exact."""
    body = response({"text": "planning", "thought": True, "thoughtSignature": SIG2},
                    {"functionCall": {"id": "a1", "name": "f", "args": {"x": 1}}, "thoughtSignature": SIG},
                    {"functionCall": {"id": "a2", "name": "f", "args": {"x": 2}}},
                    {"text": "done", "thoughtSignature": SIG2})
    message = google.from_wire(body)
    thought, first, second, _text = message.parts
    assert isinstance(thought, ThinkingPart)
    assert thought.signature == Opaque(value=SIG2, issuer="google", model=MODEL)
    assert isinstance(first, ToolCallPart)
    assert first.provider_data is not None
    assert isinstance(second, ToolCallPart)
    assert second.provider_data is None
    parts = wire([UserMessage("go"), message])["contents"][1]["parts"]
    assert parts == body["candidates"][0]["content"]["parts"]


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


def test_import_pairs_by_id_else_by_order_and_name() -> None:
    """Responses without ids pair with the earliest unanswered call of the same name."""
    request = {"contents": [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"n": 1}}},
                                    {"functionCall": {"name": "g", "args": {}}},
                                    {"functionCall": {"name": "f", "args": {"n": 2}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "g", "response": {"output": "G"}}},
                                   {"functionResponse": {"name": "f", "response": {"output": "F1"}}},
                                   {"functionResponse": {"name": "f", "response": {"output": "F2"}}}]},
    ]}
    history = google.from_wire_request(request).history
    calls = [p for p in history[1].parts if isinstance(p, ToolCallPart)]  # type: ignore[union-attr]
    results = [e for e in history if isinstance(e, ToolMessage)]
    assert [r.call_id for r in results] == [calls[1].id, calls[0].id, calls[2].id]
    assert [r.output_text for r in results] == ["G", "F1", "F2"]


def test_canonical_ids_survive_a_trip_through_gemini() -> None:
    """A canonical id sent to Gemini and read back is the canonical id again, not a new one."""
    call = ToolCallPart.create("f", {"x": 1})
    body = wire([UserMessage("go"), AssistantMessage([call]),
                 ToolMessage(call_id=call.id, tool_name="f", output_text="1")])
    history = google.from_wire_request(body).history
    back = history[1].parts[0]  # type: ignore[union-attr]
    assert isinstance(back, ToolCallPart)
    assert back.id == call.id
    assert back.provider_ids == {}
    assert isinstance(history[2], ToolMessage)
    assert history[2].call_id == call.id


def test_anthropic_to_gemini_to_anthropic_keeps_every_pairing() -> None:
    """Parallel Anthropic calls go to Gemini and back to Anthropic with every result on its call."""
    anthropic = get_adapter("anthropic")
    a = ToolCallPart.create("get_weather", {"city": "Paris"}, provider_ids={"anthropic": "toolu_01A"})
    b = ToolCallPart.create("get_weather", {"city": "Tokyo"}, provider_ids={"anthropic": "toolu_01B"})
    history: list[Any] = [UserMessage("weather?"), AssistantMessage(["Checking.", a, b], provider="anthropic"),
               ToolMessage(call_id=b.id, tool_name="get_weather", output_text="rain"),
               ToolMessage(call_id=a.id, tool_name="get_weather", output_text="sun", status="error")]
    gemini_body = google.to_wire(history, model=MODEL).request
    assert request_errors("google", gemini_body) == []
    back = google.from_wire_request(gemini_body).history
    anthropic_body = anthropic.to_wire(back, model="claude-sonnet-4-6", max_tokens=100).request
    uses = {block["id"]: block["input"]["city"] for block in anthropic_body["messages"][1]["content"]
            if block["type"] == "tool_use"}
    results = {block["tool_use_id"]: (block["content"], block.get("is_error", False))
               for block in anthropic_body["messages"][2]["content"]}
    assert {uses[i]: r for i, r in results.items()} == {"Paris": ("sun", True), "Tokyo": ("rain", False)}
    assert sorted(uses) == ["toolu_01A", "toolu_01B"]  # A -> Gemini -> A keeps A's ids
    assert request_errors("anthropic", anthropic_body) == []


# -- requests ---------------------------------------------------------------------------------


def test_key_styles_import_to_camel_case_and_keep_user_data() -> None:
    """snake_case and mixed bodies import; the re-export is camelCase; argument and property names are untouched."""
    request = {
        "contents": [{"role": "model", "parts": [{"function_call": {"name": "f", "args": {"snake_key": 1}}}]},
                     {"role": "user", "parts": [{"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}}]}],
        "generation_config": {"max_output_tokens": 50, "thinking_config": {"include_thoughts": True}},
        "tools": [{"function_declarations": [{"name": "f", "parameters": {
            "type": "OBJECT", "properties": {"snake_key": {"type": "STRING"}}}}]}],
    }
    imported = google.from_wire_request(request)
    assert imported.max_tokens == 50
    again = google.to_wire(imported.history, **imported.to_wire_kwargs()).request
    assert again == camel_keys(request)
    assert again["contents"][0]["parts"][0]["functionCall"]["args"] == {"snake_key": 1}
    assert again["tools"][0]["functionDeclarations"][0]["parameters"]["properties"] == {
        "snake_key": {"type": "STRING"}}


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


def test_a_body_whose_other_fields_were_met_reads_as_a_first_one() -> None:
    """A second body with the same settings, tools and system instruction (another turn of the
    conversation) reads as if met first: the same history shape, tools and settings, its own
    params (not the first body's objects), and a snake_case field still renamed in a copy."""
    def body(text: str, **extra: Any) -> dict[str, Any]:
        return {"contents": [{"role": "user", "parts": [{"text": text}]}],
                "systemInstruction": {"parts": [{"text": "Be brief."}]},
                "tools": [{"functionDeclarations": [{"name": "f", "description": "F.",
                                                     "parametersJsonSchema": {"type": "object"}}]}],
                "generationConfig": {"temperature": 0.5, "responseMimeType": "text/plain"},
                "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
                **extra}

    def snake(text: str) -> dict[str, Any]:
        made = body(text)
        del made["generationConfig"]
        return {**made, "generation_config": {"temperature": 0.5, "candidate_count": 2}}

    def snake_all(text: str) -> dict[str, Any]:
        # Every other field in snake_case, the settings taken whole: met again, only what is
        # still read (the system instruction, the tool config, the safety settings) is walked.
        return {"contents": [{"role": "user", "parts": [{"text": text}]}],
                "system_instruction": {"parts": [{"text": "Be brief."}]},
                "tools": [{"function_declarations": [{"name": "f", "description": "F.",
                                                      "parameters_json_schema": {"type": "object"}}]}],
                "tool_config": {"function_calling_config": {"mode": "VALIDATED"}},
                "generation_config": {"temperature": 0.5, "response_mime_type": "text/plain"},
                "safety_settings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]}

    for make in (body, snake, snake_all):
        first, second = make("one"), make("two")
        forget()
        a = google.from_wire_request(first)
        forget()
        fresh = google.from_wire_request(second)
        assert len(_REST) == 1  # the other fields are remembered...
        again = google.from_wire_request(second)  # ...and met again here
        b = google.from_wire_request(make("two"))
        for imported in (again, b):
            assert imported.settings == fresh.settings
            assert imported.tools == fresh.tools
            assert imported.params == fresh.params
            assert [type(e) for e in imported.history] == [type(e) for e in fresh.history]
            assert imported.history[1].model_dump(exclude={"id", "created_at"}) == \
                fresh.history[1].model_dump(exclude={"id", "created_at"})
            assert imported.history[0].id != fresh.history[0].id  # a system message of its own
        assert b.params["safetySettings"] is not a.params["safetySettings"]
        assert google.to_wire(b.history, **b.to_wire_kwargs()).request == google.to_wire(
            fresh.history, **fresh.to_wire_kwargs()).request
        if make is snake_all:
            assert "generationConfig" not in b.params
            assert b.settings.temperature == 0.5
            assert b.tool_choice == {"functionCallingConfig": {"mode": "VALIDATED"}}
            assert b.tool_choice is not a.tool_choice
            assert [t.name for t in b.tools if isinstance(t, ToolDefinition)] == ["f"]
            assert isinstance(b.history[0], SystemMessage)
            assert b.history[0].parts == (TextPart(text="Be brief."),)
        elif "generation_config" in first:
            assert b.params["generationConfig"] == {"candidateCount": 2}
            assert b.params["generationConfig"] is not a.params["generationConfig"]
            assert "generation_config" not in b.params


def test_another_system_instruction_meets_the_remembered_settings_and_tools() -> None:
    """The settings and tools are remembered by the fields they are read from alone: a body with
    the same tools and configs and another system instruction (or other kept fields) is a
    second meeting, and still reads its own system message and params."""
    def body(system: str, **extra: Any) -> dict[str, Any]:
        return {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
                "systemInstruction": {"parts": [{"text": system}]},
                "tools": [{"functionDeclarations": [{"name": "f", "parametersJsonSchema": {"type": "object"}}]}],
                "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
                "generationConfig": {"temperature": 0.5, "candidateCount": 2}, **extra}

    forget()
    first = google.from_wire_request(body("Be brief."))
    assert len(_REST) == 1
    second = google.from_wire_request(body("Be thorough.", cachedContent="cachedContents/c1"))
    assert len(_REST) == 1  # met again: nothing new remembered
    assert second.tools[0] is first.tools[0]
    assert second.settings is first.settings
    assert second.settings.temperature == 0.5
    system = second.history[0]
    assert isinstance(system, SystemMessage)
    assert system.parts == (TextPart(text="Be thorough."),)
    assert second.params == {"generationConfig": {"candidateCount": 2}, "cachedContent": "cachedContents/c1"}
    assert first.params == {"generationConfig": {"candidateCount": 2}}
    sent = body("Be thorough.", cachedContent="cachedContents/c1")
    assert google.to_wire(second.history, **second.to_wire_kwargs()).request == sent


def test_snake_case_contents_beside_camel_case_fields_are_renamed() -> None:
    """A body whose other fields need no renaming still has its contents walked, met first or
    again."""
    def body(key: str, mime: str) -> dict[str, Any]:
        return {"contents": [{"role": "user", "parts": [{key: {mime: "text/plain", "data": "aGk="}}]}],
                "generationConfig": {"temperature": 0.5}}

    forget()
    camel = google.from_wire_request(body("inlineData", "mimeType"))
    forget()
    for _ in range(2):
        snake = google.from_wire_request(body("inline_data", "mime_type"))
        assert snake.history[0].model_dump(exclude={"id", "created_at"}) == \
            camel.history[0].model_dump(exclude={"id", "created_at"})
        assert snake.settings == camel.settings


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


def test_tool_choice_and_tools() -> None:
    """Tool choice maps to functionCallingConfig; definitions gather in one Tool, native tools pass."""
    tool = ToolDefinition(name="f", description="d", input_schema={"type": "object", "properties": {}},
                          side_effects="none")
    body = wire([UserMessage("q")], tools=[{"googleSearch": {}}, tool], tool_choice="f")
    assert body["tools"] == [{"googleSearch": {}}, {"functionDeclarations": [
        {"name": "f", "description": "d", "parametersJsonSchema": {"type": "object", "properties": {}}}]}]
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f"]}}
    imported = google.from_wire_request(body)
    assert imported.tool_choice == "f"
    assert imported.tools[1] == tool.model_copy(update={"side_effects": "execute"})


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


def test_media_parts() -> None:
    """Base64 media go as inlineData, URLs and Files API ids as fileData; a PDF title is reported."""
    body = wire([UserMessage([ImagePart(source=Base64Source(data="iVBORw0KGgo="), media_type="image/png"),
                              ImagePart(source=UrlSource(url="https://x.test/a.jpg"), media_type="image/jpeg")])])
    assert body["contents"][0]["parts"] == [
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
        {"fileData": {"fileUri": "https://x.test/a.jpg", "mimeType": "image/jpeg"}}]
    files = google.from_wire_request({"contents": [{"role": "user", "parts": [{"fileData": {
        "mimeType": "application/pdf",
        "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc"}}]}]})
    part = files.history[0].parts[0]  # type: ignore[union-attr]
    assert isinstance(part, DocumentPart)
    assert part.source.type == "provider_file"


def test_multimodal_tool_result_goes_in_function_response_parts() -> None:
    """An image attached to a tool result travels inside functionResponse.parts."""
    call = ToolCallPart.create("shot", {})
    body = wire([UserMessage("go"), AssistantMessage([call]), ToolMessage(
        call_id=call.id, tool_name="shot", output_text="taken",
        parts=(ImagePart(source=Base64Source(data="iVBORw0KGgo="), media_type="image/png"),))])
    response = body["contents"][2]["parts"][0]["functionResponse"]
    assert response["parts"] == [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]
    assert request_errors("google", body) == []


def test_unknown_parts_are_echoed_to_google_only() -> None:
    """A part type partwire does not know is kept raw, echoed to Gemini, and dropped with a loss elsewhere."""
    imported = google.from_wire_request({"contents": [{"role": "user", "parts": [
        {"futurePart": {"x": 1}}]}]})
    part = imported.history[0].parts[0]  # type: ignore[union-attr]
    assert isinstance(part, UnknownPart)
    assert part.raw == {"futurePart": {"x": 1}}
    assert wire(list(imported.history))["contents"][0]["parts"] == [{"futurePart": {"x": 1}}]
    openai_chat = get_adapter("openai_chat")
    lost = openai_chat.to_wire(list(imported.history), model="gpt-5").losses
    assert ("dropped", "unknown") in [(x.action, x.part_type) for x in lost]


def test_code_execution_parts_round_trip() -> None:
    """executableCode and codeExecutionResult become server tool parts and go back unchanged."""
    body = response({"executableCode": {"language": "PYTHON", "code": "print(1)"}},
                    {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}})
    message = google.from_wire(body)
    assert isinstance(message.parts[0], ServerToolCallPart)
    assert isinstance(message.parts[1], ServerToolResultPart)
    assert wire([UserMessage("q"), message])["contents"][1]["parts"] == body["candidates"][0]["content"]["parts"]


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


@pytest.mark.parametrize(("body", "path"), [
    ({"contents": [_HI, 5]}, "contents[1]"),
    ({"contents": [{"role": "user", "parts": "hi"}]}, "contents[0].parts"),
    ({"systemInstruction": 5, "contents": [_HI]}, "systemInstruction"),
    ({"systemInstruction": {"parts": {"text": "x"}}, "contents": [_HI]}, "systemInstruction.parts"),
    ({"contents": {"role": "user"}}, "contents"),
    ({"contents": [_HI], "generationConfig": 5}, "generationConfig"),
])
def test_a_refused_request_names_the_content(body: dict[str, Any], path: str) -> None:
    """A request the reader refuses raises WireFormatError whose path is the content (or field) at fault."""
    with pytest.raises(WireFormatError) as refused:
        google.from_wire_request(body)
    assert refused.value.path == path
    assert f"at {path}" in str(refused.value)


@pytest.mark.parametrize(("role", "raw"), [
    ("model", {"text": 5, "thought": True}),
    ("model", {"inlineData": {"mimeType": "image/png", "data": 5}}),
    # A functionResponse whose parts are not a list: an unknown part of the user content.
    ("user", {"functionResponse": {"name": "f", "response": {"output": "x"}, "parts": 5}}),
])
def test_a_known_part_of_a_strange_shape_is_kept_whole(role: str, raw: dict[str, Any]) -> None:
    """A thought without text, inline data that is not base64 text, or a functionResponse with
    parts not a list stays an unknown part, sent back to Gemini as it came."""
    body = {"contents": [_HI, {"role": role, "parts": [raw]}]}
    imported = google.from_wire_request(body)
    (part,) = imported.history[1].parts  # type: ignore[union-attr]
    assert isinstance(part, UnknownPart)
    assert part.raw == raw
    again = google.to_wire(imported.history, **{**imported.to_wire_kwargs(), "model": "gemini-2.5-flash"})
    assert again.request["contents"][1]["parts"] == [raw]


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


def test_a_generation_config_met_again_reads_as_the_first_time_whatever_its_keys() -> None:
    """A generationConfig with a key that is not a string (a dict handed in, not JSON) keeps it in
    params the second time as the first, not an error."""
    forget()
    for _ in range(2):
        imported = google.from_wire_request({"contents": [], "generationConfig": {1: 2, "temperature": 0.5}})
        assert imported.settings.temperature == 0.5
        assert imported.params == {"generationConfig": {1: 2}}


def test_settings_read_again_leave_the_same_rest_in_params() -> None:
    """A generationConfig read a second time gives the same settings and the same keys left in
    params, and a value the settings refuse is put back every time, never remembered as read."""
    config = {"maxOutputTokens": 64, "temperature": 0.5, "candidateCount": 2}
    bad = {"maxOutputTokens": 64, "temperature": -3.0}
    for _ in range(2):
        imported = google.from_wire_request({"contents": [], "generationConfig": dict(config)})
        assert imported.settings.max_output_tokens == 64
        assert imported.settings.temperature == 0.5
        assert imported.params == {"generationConfig": {"candidateCount": 2}}
        refused = google.from_wire_request({"contents": [], "generationConfig": dict(bad)})
        assert refused.settings.temperature is None
        assert refused.params == {"generationConfig": {"temperature": -3.0}}


def test_settings_sent_again_write_the_same_body_and_losses() -> None:
    """Settings written before give the same generationConfig and losses, per model, in a body of
    their own (its thinkingConfig and stop sequences are new objects), and still refuse a
    generationConfig key the caller also passed."""
    settings = RequestSettings(temperature=0.2, stop_sequences=("END",), end_user_id="u-1",
                               reasoning={"effort": "high"}, output_format={"type": "json_object"})
    for model in ("gemini-2.5-flash", "gemini-3-pro-preview", "gemini-2.5-flash"):
        forget()
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
