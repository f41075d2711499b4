"""Tool definitions: the portable schema subset, names, and argument checks."""

from __future__ import annotations

import marshal
import typing
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from partwire import SchemaError, ToolCallPart
from partwire._base import NOT_JSON, json_copy
from partwire.tools import (
    SERVER_TOOL_KINDS,
    CacheHint,
    ServerToolDefinition,
    ServerToolKind,
    ToolDefinition,
    UserLocation,
    check_arguments,
    check_schema,
    portable_copy,
)

READ_FILE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Workspace-relative path."},
        "lines": {"type": "array", "items": {"type": "integer"}},
        "mode": {"type": "string", "enum": ["text", "bytes"]},
        "since": {"type": ["string", "null"], "format": "date-time"},
    },
    "required": ["path"],
    "additionalProperties": False,
}


def tool(schema: dict[str, Any]) -> ToolDefinition:
    return ToolDefinition(name="read_file", description="Read a file.", input_schema=schema, side_effects="read")


def test_portable_schema_is_accepted() -> None:
    """A schema inside the subset constructs a tool definition."""
    assert tool(READ_FILE).input_schema == READ_FILE


@pytest.mark.parametrize(
    ("schema", "keyword", "path"),
    [
        ({"type": "object", "properties": {"p": {"anyOf": [{"type": "string"}]}}}, "anyOf", "#/properties/p/anyOf"),
        ({"type": "object", "properties": {"p": {"$ref": "#/$defs/x"}}}, "$ref", "#/properties/p/$ref"),
        ({"type": "object", "additionalProperties": {"type": "string"}}, "additionalProperties", "#/additionalProperties"),
        ({"type": "object", "patternProperties": {}}, "patternProperties", "#/patternProperties"),
        ({"type": "object", "properties": {"a": {"type": "array", "items": {"not": {}}}}}, "not", "#/properties/a/items/not"),
        ({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}}, "minimum", "#/properties/n/minimum"),
        ({"type": "object", "properties": {"s": {"type": "string", "format": "regex"}}}, "format", "#/properties/s/format"),
        ({"type": "object", "required": ["ghost"]}, "required", "#/required"),
        ({"type": "object", "properties": {"t": {"type": "tuple"}}}, "type", "#/properties/t/type"),
        ({"type": "string"}, "type", "#"),
    ],
)
def test_schema_violation_names_keyword_and_path(schema: dict[str, Any], keyword: str, path: str) -> None:
    """A construct outside the subset fails at construction, naming the keyword and its JSON path."""
    with pytest.raises(SchemaError) as info:
        tool(schema)
    assert info.value.keyword == keyword
    assert info.value.path == path
    assert info.value.tool == "read_file"
    assert keyword in str(info.value)
    assert path in str(info.value)


def test_check_schema_is_usable_alone() -> None:
    """check_schema can vet a schema before any tool is built."""
    check_schema(READ_FILE)
    with pytest.raises(SchemaError):
        check_schema({"type": "object", "properties": {"x": {"oneOf": []}}}, tool="t")


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "dots.not.ok"])
def test_tool_names_follow_the_common_provider_rule(name: str) -> None:
    """Names outside [A-Za-z0-9_-]{1,64} are refused."""
    with pytest.raises(ValidationError, match="tool name"):
        ToolDefinition(name=name, description="d", input_schema={"type": "object"}, side_effects="none")


def test_side_effects_must_be_declared() -> None:
    """Every tool declares its side effects; a missing or unknown value is refused."""
    with pytest.raises(ValidationError):
        ToolDefinition(name="x", description="d", input_schema={"type": "object"})  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        ToolDefinition(name="x", description="d", input_schema={"type": "object"}, side_effects="explode")


def test_arguments_that_conform_have_no_problems() -> None:
    """Conforming arguments give an empty problem list, from a call, text or a dict."""
    t = tool(READ_FILE)
    args = {"path": "a.py", "lines": [1, 2], "mode": "text", "since": None}
    assert check_arguments(args, t) == []
    assert check_arguments(ToolCallPart.create("read_file", args), t) == []
    assert check_arguments('{"path": "a.py"}', t) == []


def test_argument_problems_are_each_named_with_their_path() -> None:
    """Every way arguments fail is reported with a JSON pointer into them."""
    t = tool(READ_FILE)
    problems = check_arguments({"lines": [1, "two"], "mode": "csv", "extra": 1, "since": 3}, t)
    found = {(p.path, p.message.split(" ")[0]) for p in problems}
    assert ("#/path", "required") in found
    assert ("#/lines/1", "expected") in found
    assert ("#/mode", "'csv'") in found
    assert ("#/extra", "property") in found
    assert ("#/since", "expected") in found


def test_malformed_arguments_are_one_problem() -> None:
    """Truncated JSON from the model is reported, not raised."""
    problems = check_arguments('{"path": "a', tool(READ_FILE))
    assert len(problems) == 1
    assert "not valid JSON" in problems[0].message


def test_a_schema_outside_the_subset_is_kept_when_marked_not_portable() -> None:
    """``portable_schema=False`` (what importers set) keeps a schema the subset refuses, as given;
    the same schema without the flag still fails at construction."""
    schema: dict[str, Any] = {"type": "object", "$defs": {"a": {"type": "string"}},
                              "properties": {"p": {"$ref": "#/$defs/a"}}}
    with pytest.raises(SchemaError):
        tool(schema)
    kept = ToolDefinition(name="read_file", input_schema=schema, side_effects="read",
                          portable_schema=False)
    assert kept.input_schema == schema
    assert kept.description == ""


def test_provider_flags_are_typed_fields() -> None:
    """Strict mode, deferred loading, allowed callers, input examples and cache hints are typed
    (a bad value is refused), and survive a dump and a load."""
    flagged = ToolDefinition(
        name="find", description="Find.", input_schema={"type": "object"}, side_effects="read",
        strict=True, defer_loading=True, allowed_callers=("direct",),
        input_examples=({"q": "x"},), cache=CacheHint(ttl="1h"))
    assert ToolDefinition.model_validate_json(flagged.model_dump_json()) == flagged
    with pytest.raises(ValidationError):
        ToolDefinition(name="find", input_schema={"type": "object"}, side_effects="read",
                       defer_loading="soon")


def test_server_tools_have_a_known_kind_and_typed_settings() -> None:
    """A provider-run tool names one of the known kinds; its settings are typed and round-trip."""
    search = ServerToolDefinition(kind="web_search", allowed_domains=("example.com",), max_uses=3,
                                  user_location=UserLocation(city="Paris", country="FR"))
    assert ServerToolDefinition.model_validate_json(search.model_dump_json()) == search
    assert set(SERVER_TOOL_KINDS) == set(typing.get_args(ServerToolKind))
    with pytest.raises(ValidationError):
        ServerToolDefinition(kind="teleport")


class _Text(str):
    pass


class _Count(int):
    pass


# Schemas mostly inside the subset, now and then with a value of a built-in type's subclass, a
# tuple, a key that is not a string or a mapping that is not a dict.
_ODD = st.sampled_from([_Text("x"), _Count(1), ("a",), {1: "x"}, MappingProxyType({"type": "string"})])
_LEAF = st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", ["string", "null"], "tuple"])}, optional={
    "description": st.one_of(st.text(max_size=3), _ODD), "enum": st.one_of(st.lists(st.integers(), min_size=1, max_size=2), _ODD),
    "format": st.sampled_from(["date", "regex"]), "title": st.just("T"), "minimum": st.integers()})


def _object(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"type": st.just("object")}, optional={
        "properties": st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
        "required": st.sampled_from([["a"], ("a",), []]),
        "additionalProperties": st.sampled_from([False, True, _Count(0)]),
        "items": inner, "$defs": st.dictionaries(st.just("d"), inner, max_size=1)})


_NODE = st.recursive(_LEAF | _ODD, _object, max_leaves=6)


@settings(max_examples=400, deadline=None)
@given(_object(_NODE))
def test_a_portable_copy_is_the_check_and_the_copy_in_one_walk(schema: Any) -> None:
    """``portable_copy`` finds a plain JSON schema outside the subset where the tool definition
    refuses it (the same keyword and path), and otherwise gives exactly the copy validation
    makes (the same types throughout, nothing shared), or ``NOT_JSON`` when ``json_copy`` does."""
    try:
        validated = ToolDefinition(name="t", input_schema=schema, side_effects="none")
    except (SchemaError, ValidationError, TypeError) as exc:
        refused: Exception | None = exc
    else:
        refused = None
    copied, problem = portable_copy(schema)
    if problem is not None:
        if isinstance(refused, SchemaError):
            assert (problem.keyword, problem.path) == (refused.keyword, refused.path)
        else:  # validation converts a value that is not JSON (a tuple) before its check
            assert json_copy(schema) is NOT_JSON
        return
    expected = json_copy(schema)
    if expected is NOT_JSON:
        assert copied is NOT_JSON
        return
    assert refused is None
    assert marshal.dumps(copied, 2) == marshal.dumps(expected, 2) == marshal.dumps(schema, 2)  # types too
    assert copied == validated.input_schema
    assert copied is not schema
    assert all(copied[k] is not v for k, v in schema.items() if isinstance(v, dict | list))


@settings(max_examples=400, deadline=None)
@given(_object(_NODE))
def test_a_portable_copy_copies_a_schema_outside_the_subset_too(schema: Any) -> None:
    """``portable_copy`` gives exactly ``json_copy`` of any schema (``NOT_JSON`` where that does),
    within the subset or not, beside the error ``check_schema`` raises for it (the same keyword,
    path and message), or ``None`` where it raises none."""
    copied, problem = portable_copy(schema)
    raised: SchemaError | None = None
    try:
        check_schema(schema)
    except SchemaError as exc:
        raised = exc
    if raised is None:
        assert problem is None
    else:
        assert problem is not None
        assert (problem.keyword, problem.path, str(problem)) == (raised.keyword, raised.path, str(raised))
    expected = json_copy(schema)
    if expected is NOT_JSON:
        assert copied is NOT_JSON
        return
    assert marshal.dumps(copied, 2) == marshal.dumps(expected, 2)  # types too
    assert copied is not schema
    assert all(copied[k] is not v for k, v in schema.items() if isinstance(v, dict | list))
