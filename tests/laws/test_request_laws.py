"""The cross-provider law (DESIGN §11.5) on whole requests: the tools around a history.

- corpus: every real request of every API converts to every other API, with its tools, tool
  choice and settings, into a body the target SDK's request type accepts, and no tool dict of one
  API's shape reaches another API's body;
- generated: function tools with every flag and provider-run tools of every kind, sent from any
  API to any other, give a valid body in which every tool and every flag either arrives (read
  back by the target's own ``from_wire_request``) or is named by a loss at ``request.tools[i]``;
- X -> Y -> X keeps every tool and flag Y carries.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from partwire import (
    CacheHint,
    ServerToolDefinition,
    ToolDefinition,
    UserLocation,
    UserMessage,
)
from partwire.adapters import ToolSpec, get_adapter
from partwire.adapters.requests import ImportedRequest
from partwire.projection import Loss
from partwire.tools import SERVER_TOOL_KINDS
from tests.harness.validity import request_errors
from tests.laws.test_corpus_laws import ADAPTERS, PAIRS, _imported
from tests.laws.test_generated_laws import LAWS

# -- the corpus -----------------------------------------------------------------------------


def _convert_kwargs(imported: ImportedRequest, target: str) -> dict[str, Any]:
    """What crosses to another API: every tool, the settings (tool choice included), the limit.
    A tool choice the canonical settings cannot hold is the source API's native dict: not sent."""
    kwargs: dict[str, Any] = {"model": f"{get_adapter(target).CAPABILITIES.issuer}:law",
                              "tools": imported.tools, "settings": imported.settings}
    if isinstance(imported.tool_choice, str) and imported.settings.tool_choice is None:
        kwargs["tool_choice"] = imported.tool_choice
    if imported.max_tokens is not None and imported.settings.max_output_tokens is None:
        kwargs["max_tokens"] = imported.max_tokens
    return kwargs


def _native_dicts(imported: ImportedRequest) -> list[str]:
    """The source's tools that stayed native dicts, as JSON text."""
    return [json.dumps(t, sort_keys=True) for t in imported.tools if not isinstance(
        t, ToolDefinition | ServerToolDefinition)]


def _body_tools(body: dict[str, Any]) -> list[str]:
    found = []
    for tool in body.get("tools") or []:
        found.append(json.dumps(tool, sort_keys=True))
        for declaration in tool.get("functionDeclarations", []) if isinstance(tool, dict) else []:
            found.append(json.dumps(declaration, sort_keys=True))
    return found


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_every_corpus_request_converts_into_a_body_the_target_sdk_accepts(source: str, target: str) -> None:
    """Every real request of ``source``, tools, tool choice and settings included, becomes a body
    ``target``'s SDK request type accepts, and no native tool dict of ``source`` is in it."""
    adapter = get_adapter(target)
    converted, invalid, copied = 0, [], []
    for file, _, imported in _imported(source):
        body = adapter.to_wire(imported.history, **_convert_kwargs(imported, target)).request
        converted += 1
        errors = request_errors(target, body)
        if errors:
            invalid.append(f"{file}: {errors[:2]}")
        natives = set(_native_dicts(imported))
        if natives & set(_body_tools(body)):
            copied.append(file)
    assert converted > 0
    assert invalid == [], f"{len(invalid)} invalid of {converted} converted bodies"
    assert copied == [], f"{len(copied)} bodies carry a native tool dict of {source}"


@pytest.mark.parametrize("source", ADAPTERS)
def test_every_tool_of_the_corpus_imports_as_a_canonical_tool(source: str) -> None:
    """The importers make every function and provider-run tool of the corpus canonical (none of
    the corpus tools is of a kind without a canonical form)."""
    natives = [(file, tool) for file, _, imported in _imported(source) for tool in imported.tools
               if not isinstance(tool, ToolDefinition | ServerToolDefinition)]
    assert natives == []


# -- generated tools ------------------------------------------------------------------------

_NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)
_PORTABLE = st.fixed_dictionaries({
    "type": st.just("object"),
    "properties": st.dictionaries(
        st.from_regex(r"[a-z]{1,6}", fullmatch=True),
        st.sampled_from([{"type": "string"}, {"type": "integer", "description": "n"},
                         {"type": ["string", "null"]}, {"type": "array", "items": {"type": "number"}},
                         {"type": "string", "enum": ["a", "b"]}]),
        max_size=3),
})
# Schemas the subset refuses but every API's JSON Schema takes in some form.
_FOREIGN = st.sampled_from([
    {"type": "object", "properties": {"p": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}},
    {"type": "object", "$defs": {"d": {"type": "string"}}, "properties": {"p": {"$ref": "#/$defs/d"}}},
    {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 9}}},
    {"type": "object", "properties": {"c": {"const": "x"}}, "additionalProperties": False},
])
_CALLERS = st.sampled_from([("direct",), ("direct", "code_execution_20250825"), ("programmatic",)])


@st.composite
def function_tools(draw: st.DrawFn) -> ToolDefinition:
    """A function tool with any of the provider flags set, its schema portable or not."""
    portable = draw(st.booleans())
    return ToolDefinition(
        name=draw(_NAMES), description=draw(st.sampled_from(["", "Does a thing."])),
        input_schema=draw(_PORTABLE if portable else _FOREIGN), side_effects="read",
        portable_schema=portable, strict=draw(st.sampled_from([None, True, False])),
        defer_loading=draw(st.sampled_from([None, True, False])),
        allowed_callers=draw(st.none() | _CALLERS),
        input_examples=draw(st.none() | st.just(({"q": "x"},))),
        cache=draw(st.none() | st.sampled_from([CacheHint(), CacheHint(ttl="1h")])),
    )


@st.composite
def server_tools(draw: st.DrawFn) -> ServerToolDefinition:
    """A provider-run tool of any kind, with the settings its kind may have."""
    kind = draw(st.sampled_from(SERVER_TOOL_KINDS))
    web = kind in ("web_search", "web_fetch")
    domains = st.none() | st.just(("example.com",))
    return ServerToolDefinition(
        kind=kind,
        name=draw(st.sampled_from(["deepwiki", None])) if kind == "mcp" else None,
        url=draw(st.sampled_from(["https://mcp.example.com/mcp", None])) if kind == "mcp" else None,
        allowed_domains=draw(domains) if web else None,
        blocked_domains=draw(domains) if web else None,
        max_uses=draw(st.none() | st.integers(1, 5)) if web else None,
        user_location=draw(st.none() | st.just(UserLocation(city="Paris", country="FR")))
        if kind == "web_search" else None,
        cache=draw(st.none() | st.just(CacheHint())),
    )


def _unique(tools: list[ToolDefinition | ServerToolDefinition]) -> list[ToolSpec]:
    seen: set[str] = set()
    out: list[ToolSpec] = []
    for tool in tools:
        key = tool.name if isinstance(tool, ToolDefinition) else f"server:{tool.kind}"
        if key not in seen:
            seen.add(key)
            out.append(tool)
    return out


REQUEST_TOOLS = st.lists(st.one_of(function_tools(), server_tools()), min_size=1, max_size=5).map(_unique)
_FLAGS = ("strict", "defer_loading", "allowed_callers", "input_examples", "cache")
_SETTINGS = ("allowed_domains", "blocked_domains", "max_uses", "user_location", "url", "cache")
_HISTORY = [UserMessage("What is new?")]


def _named(path: str, losses: Sequence[Loss]) -> bool:
    return any(loss.path == path or path.startswith(loss.path + ".") for loss in losses)


def _missing(tools: list[ToolSpec], back: tuple[ToolSpec, ...], losses: Sequence[Loss]) -> list[str]:
    """Every tool or typed setting of ``tools`` that neither came back nor is named by a loss."""
    functions = {t.name: t for t in back if isinstance(t, ToolDefinition)}
    servers: dict[str, list[ServerToolDefinition]] = {}
    for t in back:
        if isinstance(t, ServerToolDefinition):
            servers.setdefault(t.kind, []).append(t)
    missing = []
    for i, tool in enumerate(tools):
        path = f"request.tools[{i}]"
        if _named(path, losses):
            continue
        if isinstance(tool, ToolDefinition):
            found: Any = functions.get(tool.name)
            fields = (*_FLAGS, "description")
        else:
            assert isinstance(tool, ServerToolDefinition)
            found = next(iter(servers.get(tool.kind, ())), None)
            fields = _SETTINGS
        if found is None:
            missing.append(path)
            continue
        for field in fields:
            value = getattr(tool, field)
            if value in (None, False, ()) or (field == "allowed_callers" and value == ("direct",)):
                continue
            if getattr(found, field) != value and not _named(f"{path}.{field}", losses):
                missing.append(f"{path}.{field}: {value!r} came back as {getattr(found, field)!r}")
        if isinstance(tool, ToolDefinition) and not _named(f"{path}.input_schema", losses) \
                and not any(loss.path.startswith(path) for loss in losses) \
                and found.input_schema != tool.input_schema:
            missing.append(f"{path}.input_schema")
    return missing


@pytest.mark.parametrize("target", ADAPTERS)
@LAWS
@given(tools=REQUEST_TOOLS)
def test_any_tools_reach_any_api_or_a_loss_names_them(target: str, tools: list[ToolSpec]) -> None:
    """Function tools with every flag and provider-run tools of every kind give a body the
    target SDK's request type accepts; every tool and every flag set on it is read back from
    that body by the target's own importer, or named by a loss at ``request.tools[i]``."""
    adapter = get_adapter(target)
    projection = adapter.to_wire(_HISTORY, model=f"{adapter.CAPABILITIES.issuer}:law", tools=tools)
    assert request_errors(target, projection.request) == []
    back = adapter.from_wire_request(projection.request).tools
    assert _missing(tools, back, projection.losses) == []


def _kinds(tools: tuple[ToolSpec, ...] | list[ToolSpec]) -> list[str]:
    return sorted(t.name if isinstance(t, ToolDefinition) else f"server:{t.kind}"
                  for t in tools if isinstance(t, ToolDefinition | ServerToolDefinition))


@pytest.mark.parametrize(("source", "via"), PAIRS)
@LAWS
@given(tools=REQUEST_TOOLS)
def test_a_trip_through_another_api_keeps_every_tool_it_carries(
        source: str, via: str, tools: list[ToolSpec]) -> None:
    """X -> Y -> X: every tool Y carried arrives in X's body (read back by X's importer), X
    reports each it cannot take, and the body is valid."""
    home, other = get_adapter(source), get_adapter(via)
    there = other.to_wire(_HISTORY, model=f"{other.CAPABILITIES.issuer}:law", tools=tools)
    back = other.from_wire_request(there.request).tools
    carried = [t for i, t in enumerate(tools)
               if not any(loss.path == f"request.tools[{i}]" for loss in there.losses)]
    assert _kinds(back) == _kinds(carried)
    again = home.to_wire(_HISTORY, model=f"{home.CAPABILITIES.issuer}:law", tools=back)
    assert request_errors(source, again.request) == []
    arrived = home.from_wire_request(again.request).tools
    dropped = [t for i, t in enumerate(back)
               if any(loss.path == f"request.tools[{i}]" for loss in again.losses)]
    assert sorted(_kinds(arrived) + _kinds(dropped)) == _kinds(back)
