"""Tools cross APIs canonically: importers make every tool canonical and re-export it exactly;
encoders map what their API has, report the rest, and never copy another API's tool dict."""

from __future__ import annotations

from typing import Any

import pytest

from partwire import (
    CacheHint,
    LossError,
    ServerToolDefinition,
    ToolDefinition,
    UserLocation,
    UserMessage,
)
from partwire.adapters import ADAPTER_NAMES, get_adapter

HISTORY = [UserMessage("q")]
ANTHROPIC_STRICT: dict[str, Any] = {"name": "find", "description": "Find.", "strict": True, "defer_loading": True,
                    "allowed_callers": ["direct"], "eager_input_streaming": True,
                    "cache_control": {"type": "ephemeral", "ttl": "1h"},
                    "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}
CHAT_STRICT: dict[str, Any] = {"type": "function", "function": {
    "name": "find", "description": "Find.", "strict": True,
    "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"],
                   "additionalProperties": False}}}
# One native tool dict of each API's shape.
NATIVE: dict[str, dict[str, Any]] = {
    "anthropic": {"type": "bash_20250124", "name": "bash"},
    "openai_chat": {"type": "custom", "custom": {"name": "grammar"}},
    "openai_responses": {"type": "apply_patch"},
    "google": {"googleMaps": {}},
    "bedrock": {"systemTool": {"name": "some_system_tool"}},
    # Ollama's only tool is Chat Completions' function tool, so its native dict is one too.
    "ollama": {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}},
    "cohere": {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}},
}
# Cohere's and Ollama's tool dicts are Chat Completions' function tools, word for word: Chat
# takes them too.
_SAME_SHAPE = {("cohere", "openai_chat"), ("ollama", "openai_chat"), ("ollama", "cohere"), ("cohere", "ollama")}


def _body(name: str, tools: list[Any]) -> dict[str, Any]:
    adapter = get_adapter(name)
    return adapter.to_wire(HISTORY, model=f"{adapter.CAPABILITIES.issuer}:m", tools=tools).request


def test_an_anthropic_tool_with_every_flag_imports_typed_and_re_exports_exactly() -> None:
    """strict, defer_loading, allowed_callers and cache_control become typed fields; a flag
    with no canonical field (eager_input_streaming) rides in provider_data; the body comes back."""
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "q"}],
            "tools": [ANTHROPIC_STRICT]}
    adapter = get_adapter("anthropic")
    imported = adapter.from_wire_request(body)
    (tool,) = imported.tools
    assert isinstance(tool, ToolDefinition)
    assert (tool.strict, tool.defer_loading, tool.allowed_callers, tool.cache) == (
        True, True, ("direct",), CacheHint(ttl="1h"))
    assert tool.provider_data is not None
    assert tool.provider_data.issuer == "anthropic"
    assert adapter.to_wire(imported.history, **imported.to_wire_kwargs()).request == body


def test_a_flag_only_its_api_knows_is_reported_elsewhere() -> None:
    """Sent to OpenAI, the Anthropic-only eager_input_streaming is a loss, never a body key."""
    tool = get_adapter("anthropic").from_wire_request(
        {"model": "m", "max_tokens": 5, "messages": [], "tools": [ANTHROPIC_STRICT]}).tools[0]
    projection = get_adapter("openai_chat").to_wire(HISTORY, model="gpt-5", tools=[tool])
    assert "eager_input_streaming" not in str(projection.request)
    assert {x.path for x in projection.losses} >= {"request.tools[0].provider_data",
                                                   "request.tools[0].defer_loading",
                                                   "request.tools[0].cache"}


def test_a_strict_openai_tool_reaches_anthropic_in_anthropic_shape() -> None:
    """The issue's case: a strict Chat tool converted to Anthropic is an Anthropic custom tool,
    with no loss saying the history lacks definitions."""
    imported = get_adapter("openai_chat").from_wire_request(
        {"model": "gpt-5", "messages": [{"role": "user", "content": "q"}], "tools": [CHAT_STRICT]})
    projection = get_adapter("anthropic").to_wire(imported.history, model="claude-sonnet-4-6",
                                                  tools=imported.tools)
    assert projection.request["tools"] == [{"name": "find", "description": "Find.", "strict": True,
                                            "input_schema": CHAT_STRICT["function"]["parameters"]}]
    assert projection.losses == ()


@pytest.mark.parametrize("source", ADAPTER_NAMES)
@pytest.mark.parametrize("target", ADAPTER_NAMES)
def test_a_native_dict_goes_only_to_the_api_whose_shape_it_has(source: str, target: str) -> None:
    """A native tool dict is sent as it is to its own API and reported (dropped) by any other;
    strict mode refuses it there."""
    native = NATIVE[source]
    adapter = get_adapter(target)
    model = f"{adapter.CAPABILITIES.issuer}:m"
    projection = adapter.to_wire(HISTORY, model=model, tools=[native])
    found = list(projection.request.get("tools", projection.request.get("toolConfig", {}).get("tools", [])))
    if source == target or (source, target) in _SAME_SHAPE:
        assert found == [native]
        assert projection.losses == ()
    else:
        assert found == []
        assert [(x.path, x.action) for x in projection.losses] == [("request.tools[0]", "dropped")]
        with pytest.raises(LossError):
            adapter.to_wire(HISTORY, model=model, tools=[native], strict=True)


def test_chat_web_search_options_is_a_web_search_tool_both_ways() -> None:
    """web_search_options reads as a web_search server tool and is written back there; a web
    search from Chat reaches Responses as its web_search tool, location included."""
    body = {"model": "gpt-4o-search-preview", "messages": [{"role": "user", "content": "q"}],
            "web_search_options": {"search_context_size": "low", "user_location": {
                "type": "approximate", "approximate": {"city": "Paris", "country": "FR"}}}}
    chat = get_adapter("openai_chat")
    imported = chat.from_wire_request(body)
    (search,) = imported.tools
    assert isinstance(search, ServerToolDefinition)
    assert (search.kind, search.user_location) == ("web_search", UserLocation(city="Paris", country="FR"))
    assert chat.to_wire(imported.history, **imported.to_wire_kwargs()).request == body
    projection = get_adapter("openai_responses").to_wire(HISTORY, model="gpt-5.5", tools=[search])
    assert projection.request["tools"] == [{"type": "web_search", "user_location": {
        "type": "approximate", "city": "Paris", "country": "FR"}}]
    assert [x.path for x in projection.losses] == ["request.tools[0].provider_data"]


def test_gemini_openapi_parameters_import_as_json_schema_and_re_export_exactly() -> None:
    """A declaration in Gemini's OpenAPI dialect becomes a JSON-Schema definition that other APIs
    take, and goes back to Gemini as it came."""
    declaration = {"name": "get", "description": "Get.", "parameters": {
        "type": "OBJECT", "properties": {"city": {"type": "STRING", "nullable": True}}, "required": ["city"]}}
    body = {"contents": [{"role": "user", "parts": [{"text": "q"}]}],
            "tools": [{"functionDeclarations": [declaration]}, {"googleSearch": {}}]}
    google = get_adapter("google")
    imported = google.from_wire_request(body)
    tool, search = imported.tools
    assert isinstance(tool, ToolDefinition)
    assert tool.input_schema == {"type": "object", "properties": {"city": {"type": ["string", "null"]}},
                                 "required": ["city"]}
    assert isinstance(search, ServerToolDefinition)
    assert search.kind == "web_search"
    assert google.to_wire(imported.history, model="gemini-2.5-pro", **{
        k: v for k, v in imported.to_wire_kwargs().items() if k != "model"}).request == body
    assert _body("anthropic", list(imported.tools))["tools"] == [
        {"name": "get", "description": "Get.", "input_schema": tool.input_schema},
        {"type": "web_search_20250305", "name": "web_search"}]


def test_a_foreign_schema_loses_only_what_geminis_subset_lacks() -> None:
    """An imported schema outside the portable subset goes to Gemini without the keywords its
    JSON-Schema subset lacks, each a rewritten loss; Anthropic takes it as it is."""
    schema = {"type": "object", "$schema": "https://json-schema.org/draft/2020-12/schema",
              "properties": {"n": {"type": "integer", "minimum": 0, "exclusiveMaximum": 9},
                             "k": {"const": "x"}}}
    tool = ToolDefinition(name="t", input_schema=schema, side_effects="none", portable_schema=False)
    projection = get_adapter("google").to_wire(HISTORY, model="gemini-2.5-pro", tools=[tool])
    sent = projection.request["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"]
    assert sent == {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0},
                                                     "k": {"enum": ["x"]}}}
    assert sorted(x.reason.split(":")[0] for x in projection.losses) == [
        "#/$schema", "#/properties/k/const", "#/properties/n/exclusiveMaximum"]
    assert _body("anthropic", [tool])["tools"][0]["input_schema"] == schema
