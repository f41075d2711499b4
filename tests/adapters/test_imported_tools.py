"""Tool definitions read from request bodies are made without a second validation pass
(``imported_definition``, ``with_overlay``): each must be the instance validation makes."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from partwire._base import NOT_JSON, ProviderData, json_copy, provider_data
from partwire._json import same_json
from partwire.adapters import get_adapter
from partwire.adapters._tool_import import imported_definition
from partwire.caches import clear
from partwire.tools import ToolDefinition
from tests.benchmarks.bench_babel import APIS, requests


def _validated(tool: ToolDefinition) -> ToolDefinition:
    """The same definition through the constructor, given the same fields."""
    fields = {name: getattr(tool, name) for name in tool.model_fields_set}
    pd = fields.get("provider_data")
    if pd is not None:
        fields["provider_data"] = ProviderData(issuer=pd.issuer, data=copy.deepcopy(pd.data))
    fields["input_schema"] = copy.deepcopy(fields["input_schema"])
    return ToolDefinition(**fields)


def _same_instance(made: ToolDefinition, validated: ToolDefinition) -> None:
    assert made == validated
    assert made.model_fields_set == validated.model_fields_set
    assert made.model_dump() == validated.model_dump()
    assert made.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True)
    assert made.model_dump_json() == validated.model_dump_json()
    assert made.provider_data == validated.provider_data
    assert made.__pydantic_extra__ == validated.__pydantic_extra__


@pytest.mark.parametrize("api", list(APIS))
def test_every_corpus_tool_equals_its_validated_form(api: str) -> None:
    adapter = get_adapter(api)
    seen = 0
    for body in requests(api):
        clear()  # a first meeting with every tool: made, not remembered
        for tool in adapter.from_wire_request(body).tools:
            if isinstance(tool, ToolDefinition):
                _same_instance(tool, _validated(tool))
                seen += 1
    assert seen > 0


def test_a_definition_shares_nothing_with_the_body() -> None:
    """The schema (and the overlay) are copies: changing the body afterwards changes nothing."""
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "tools": [{"functionDeclarations": [{
                "name": "look", "description": "Look.", "behavior": "BLOCKING",
                "parametersJsonSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}]}
    clear()
    (tool,) = get_adapter("google").from_wire_request(body).tools
    assert isinstance(tool, ToolDefinition)
    before = tool.model_dump()
    declaration = body["tools"][0]["functionDeclarations"][0]  # type: ignore[index]
    declaration["parametersJsonSchema"]["properties"]["q"]["type"] = "integer"
    declaration["behavior"] = "NON_BLOCKING"
    assert tool.model_dump() == before
    assert tool.provider_data is not None
    assert tool.provider_data.data == {"google": {"behavior": "BLOCKING"}}


def test_json_copy_copies_plain_json_and_refuses_the_rest() -> None:
    value: dict[str, Any] = {"a": [1, 2.5, {"b": None, "c": True}], "d": "x"}
    copied = json_copy(value)
    assert copied == value
    assert copied is not value
    assert copied["a"] is not value["a"]
    assert copied["a"][2] is not value["a"][2]
    for bad in ({"a": (1, 2)}, {1: "x"}, {"a": {1, 2}}, [object()], {"a": b"x"}):
        assert json_copy(bad) is NOT_JSON


def test_imported_definition_refuses_what_the_constructor_refuses() -> None:
    schema = {"type": "object", "properties": {}}
    with pytest.raises(ValidationError, match="tool name"):
        imported_definition("bad name", "", schema, True, "execute")
    with pytest.raises(ValidationError):
        imported_definition("ok", "", schema, True, "execute", strict=[1])
    # A value that is not plain JSON goes through validation, which refuses it as usual.
    with pytest.raises(ValidationError, match="not a valid JSON value"):
        imported_definition("ok", "", {"type": "object", "required": ()}, False, "execute")


def test_same_json_tells_types_apart_at_any_depth() -> None:
    assert same_json({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "x"}]})
    assert same_json({"a": 1, "b": 2}, {"b": 2, "a": 1})  # key order is not a difference
    assert not same_json({"a": [1]}, {"a": [True]})
    assert not same_json({"a": [1]}, {"a": [1.0]})
    assert not same_json({"a": 1, "b": [2]}, {"b": [2.0], "a": 1})  # walked: keys reordered
    assert not same_json([{"a": 1}], [{"a": 2}])


def test_provider_data_is_the_validated_instance() -> None:
    data: dict[str, Any] = {"item": {"id": "x", "n": [1, 2.5, None, True]}, "typed": True}
    made = provider_data("openai", data)
    validated = ProviderData(issuer="openai", data=copy.deepcopy(data))
    assert made == validated
    assert made.model_dump_json() == validated.model_dump_json()
    assert made.model_fields_set == validated.model_fields_set
    data["item"]["n"].append(3)  # the caller's dict is not the instance's
    assert made.data == validated.data
    with pytest.raises(ValidationError, match="not a valid JSON value"):
        provider_data("openai", {"a": (1, 2)})


def test_same_json_takes_a_shared_value_as_the_same_and_still_tells_types_apart() -> None:
    """Two objects holding the very same nested value are the same JSON; a scalar beside it is
    compared by type and value, and a key one lacks is a difference, whatever it holds."""
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    assert same_json({"name": "f", "parameters": schema, "strict": True},
                     {"strict": True, "parameters": schema, "name": "f"})
    assert not same_json({"parameters": schema, "strict": 1}, {"parameters": schema, "strict": True})
    assert not same_json({"parameters": schema, "n": 1.0}, {"parameters": schema, "n": 1})
    assert not same_json({"parameters": schema, "a": None}, {"parameters": schema, "b": None})
    assert not same_json({"k": schema}, {"z": schema})
    assert not same_json({"k": {"z": 1}}, {"z": 1})


def test_a_chat_tool_definition_shares_nothing_with_the_body() -> None:
    """A Chat function tool read from a body holds its own copy of the schema (within the subset
    or not) and no overlay for it: changing the body afterwards changes neither the definition
    nor what ``to_wire`` writes back."""
    for extra in ({}, {"minimum": 0}):
        parameters: dict[str, Any] = {"type": "object", "properties": {"q": {"type": "integer", **extra}}}
        body: dict[str, Any] = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}],
                "tools": [{"type": "function", "function": {"name": "look", "parameters": parameters}}]}
        expected = copy.deepcopy(body)
        clear()
        imported = get_adapter("openai_chat").from_wire_request(body)
        (tool,) = imported.tools
        assert isinstance(tool, ToolDefinition)
        assert tool.provider_data is None
        parameters["properties"]["q"]["type"] = "string"
        assert tool.input_schema == expected["tools"][0]["function"]["parameters"]
        assert get_adapter("openai_chat").to_wire(imported.history, **imported.to_wire_kwargs()).request == expected
