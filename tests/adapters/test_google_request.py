"""The Gemini adapter reading a request body (from_wire_request): what a request imports as, what
goes back exactly when it is written again, and what a refused request names."""

from __future__ import annotations

from typing import Any

import pytest

from partwire import (
    AssistantMessage,
    DocumentPart,
    ImagePart,
    Opaque,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolDefinition,
    ToolMessage,
    UnknownPart,
    UserMessage,
)
from partwire.adapters import WireFormatError, get_adapter, google
from partwire.adapters.google._request import _REST
from partwire.adapters.google._wire import camel_keys
from partwire.caches import clear
from partwire.parts import Base64Source, ServerToolCallPart, ServerToolResultPart, UrlSource
from tests.adapters.test_google_unit import _HI, MODEL, SIG, SIG2, response, wire
from tests.harness.validity import request_errors


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
        clear()
        a = google.from_wire_request(first)
        clear()
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

    clear()
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

    clear()
    camel = google.from_wire_request(body("inlineData", "mimeType"))
    clear()
    for _ in range(2):
        snake = google.from_wire_request(body("inline_data", "mime_type"))
        assert snake.history[0].model_dump(exclude={"id", "created_at"}) == \
            camel.history[0].model_dump(exclude={"id", "created_at"})
        assert snake.settings == camel.settings


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


def test_openapi_parameters_read_as_json_schema_and_go_back_as_they_came() -> None:
    """A declaration in Gemini's OpenAPI dialect imports as JSON Schema (types lower-case,
    ``nullable`` a null type), writes back byte for byte, and owes nothing to the body: a
    change to the body afterwards changes neither the definition nor what it writes."""
    parameters: dict[str, Any] = {"type": "OBJECT", "properties": {
        "city": {"type": "STRING", "nullable": True, "description": "where"},
        "days": {"type": "ARRAY", "items": {"type": "INTEGER", "enum": [1, 2]}},
        "unit": {"anyOf": [{"type": "STRING"}, {"type": "NUMBER", "nullable": True}]}},
        "required": ["city"]}
    body = {"contents": [{"role": "user", "parts": [{"text": "q"}]}],
            "tools": [{"functionDeclarations": [{"name": "weather", "description": "d",
                                                 "parameters": parameters}]}]}
    clear()
    imported = google.from_wire_request(body)
    (tool,) = imported.tools
    assert isinstance(tool, ToolDefinition)
    assert tool.input_schema == {"type": "object", "properties": {
        "city": {"type": ["string", "null"], "description": "where"},
        "days": {"type": "array", "items": {"type": "integer", "enum": [1, 2]}},
        "unit": {"anyOf": [{"type": "string"}, {"type": ["number", "null"]}]}},
        "required": ["city"]}
    again = google.to_wire(imported.history, **imported.to_wire_kwargs()).request
    assert again["tools"] == body["tools"]
    before = tool.model_dump()
    parameters["properties"]["days"]["items"]["enum"].append(3)
    parameters["properties"]["city"]["type"] = "INTEGER"
    assert tool.model_dump() == before
    written = google.to_wire(imported.history, **imported.to_wire_kwargs()).request
    assert written["tools"][0]["functionDeclarations"][0]["parameters"]["properties"]["city"] == \
        {"type": "STRING", "nullable": True, "description": "where"}
    assert written["tools"][0]["functionDeclarations"][0]["parameters"]["properties"]["days"][
        "items"]["enum"] == [1, 2]


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


def test_a_generation_config_met_again_reads_as_the_first_time_whatever_its_keys() -> None:
    """A generationConfig with a key that is not a string (a dict handed in, not JSON) keeps it in
    params the second time as the first, not an error."""
    clear()
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
