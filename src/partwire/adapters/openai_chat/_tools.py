"""Tool definitions and tool choice for Chat Completions, with OpenAI's strict-mode schema rewrite.

A function tool is a :class:`ToolDefinition` (``strict`` is its only flag here). The one
provider-run tool Chat Completions has is web search, and it is no tool entry: it is the body's
``web_search_options`` (search models), read as a ``web_search`` :class:`ServerToolDefinition`
after the other tools and written back there. ``custom`` (grammar) tools have no canonical form
and stay native dicts, sent to Chat Completions only.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from partwire.adapters import _tool_import
from partwire.adapters._losses import LossCollector
from partwire.adapters._openai_schema import strict_parameters
from partwire.adapters.openai_chat._wire import API
from partwire.adapters.requests import ToolChoice, ToolSpec
from partwire.tools import ServerToolDefinition, ToolDefinition, UserLocation

__all__ = ["IMPORTED_SIDE_EFFECTS", "WEB_SEARCH_FIELD", "is_wire_tool", "tool_choice_to_wire",
           "tool_from_wire", "tools_to_wire", "web_search_from_wire"]

IMPORTED_SIDE_EFFECTS = "execute"
"""Side effects cannot be read off the wire; an imported tool is assumed to do the most a tool may."""

WEB_SEARCH_FIELD = "web_search_options"
"""The body field that turns on web search (OpenAI's search models)."""

_FLAGS = frozenset({"strict"})


def is_wire_tool(tool: Mapping[str, Any]) -> bool:
    """Whether a native dict has the shape of a Chat Completions tool (function or custom)."""
    kind = tool.get("type")
    if kind not in ("function", "custom") or set(tool) != {"type", kind}:
        return False
    inner = tool[kind]
    return isinstance(inner, Mapping) and isinstance(inner.get("name"), str)


def tools_to_wire(tools: Sequence[ToolSpec], losses: LossCollector | None, issuers: Collection[str],
                  issuer: str, *, web_search: bool) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The ``tools`` list, and the ``web_search_options`` of a web search tool (``None`` when
    there is none). ``web_search`` says whether the server has that field (OpenAI's own)."""
    out: list[dict[str, Any]] = []
    search: dict[str, Any] | None = None
    for i, tool in enumerate(tools):
        path = f"request.tools[{i}]"
        if isinstance(tool, ToolDefinition):
            overlay = _tool_import.overlay_for(tool, API, issuers, path, losses)
            # The source's own function object (strict-mode schema included) replaces the rewrite.
            own = overlay is not None and "function" in overlay
            out.append(_tool_import.apply_overlay(_function_to_wire(tool, path, losses, rewrites=not own), overlay))
        elif isinstance(tool, ServerToolDefinition):
            if tool.kind != "web_search" or not web_search:
                _tool_import.server_kind_loss(tool, path, losses, "Chat Completions" if web_search else
                                              f"This server ({issuer})")
            elif search is not None:
                _tool_import.server_kind_loss(tool, path, losses, "Chat Completions",
                                              "Chat Completions takes one web search (web_search_options)")
            else:
                search = _web_search_to_wire(tool, path, losses, issuers)
        elif is_wire_tool(tool):
            out.append(dict(tool))
        else:
            _tool_import.foreign_tool_loss(path, losses, "Chat Completions")
    return out, search


def _function_to_wire(tool: ToolDefinition, path: str, losses: LossCollector | None, *,
                      rewrites: bool = True) -> dict[str, Any]:
    """A definition with ``strict=True`` gets its schema rewritten for strict mode; every rewrite
    is reported (the model sees the same tool, stated the way strict mode requires)."""
    parameters: Mapping[str, Any] = tool.input_schema
    if tool.strict:
        parameters, changes = strict_parameters(tool)
        if losses is not None and rewrites:
            for change in changes:
                losses.add(f"{path}.function.parameters", "tool", "rewritten",
                           f"strict mode: {change}")
    function: dict[str, Any] = {"name": tool.name}
    if tool.description:
        function["description"] = tool.description
    function["parameters"] = parameters
    if tool.strict is not None:
        function["strict"] = tool.strict
    _tool_import.flag_losses(tool, path, losses, "Chat Completions", _FLAGS)
    return {"type": "function", "function": function}


def _web_search_to_wire(tool: ServerToolDefinition, path: str, losses: LossCollector | None,
                        issuers: Collection[str]) -> dict[str, Any]:
    _tool_import.server_setting_losses(tool, path, losses, "Chat Completions", {"user_location"})
    out: dict[str, Any] = {}
    if tool.user_location is not None:
        out["user_location"] = {"type": "approximate", "approximate": _tool_import.location_fields(tool.user_location)}
    return _tool_import.apply_overlay(out, _tool_import.overlay_for(tool, API, issuers, path, losses))


def tool_choice_to_wire(choice: ToolChoice | None) -> str | dict[str, Any] | None:
    """``tool_choice``: ``auto``/``required``/``none``, a tool name, or a native dict as is."""
    if choice is None or (isinstance(choice, str) and choice in ("auto", "required", "none")):
        return choice
    if isinstance(choice, Mapping):
        return dict(choice)
    if choice == "any":
        return "required"
    return {"type": "function", "function": {"name": choice}}


def tool_from_wire(tool: Any, issuer: str) -> ToolSpec:
    """A function tool as a :class:`ToolDefinition` (re-encoding gives it back exactly); any
    other tool (``custom``) stays the dict.

    A tool read before (the same JSON) gives the same definition without a second validation.
    """
    if not isinstance(tool, dict):
        return {"invalid": tool}
    function = tool.get("function")
    if tool.get("type") != "function" or not isinstance(function, dict):
        return tool
    return _tool_import.import_tool(f"{API}:{issuer}", tool, lambda t: _definition(t, issuer), function.get("parameters"))


def _definition(tool: dict[str, Any], issuer: str) -> ToolSpec:
    function = tool["function"]
    strict = function.get("strict")
    given = "parameters" in function
    # Strict mode rewrites a schema; the source's own form then comes back through the overlay.
    return _tool_import.definition_from_wire(
        tool, function["name"], function.get("description"),
        function["parameters"] if given else {"type": "object", "properties": {}}, IMPORTED_SIDE_EFFECTS,
        lambda definition: _function_to_wire(definition, "", None), API, issuer,
        wire_key=("function", "parameters") if given else None,
        strict=strict if isinstance(strict, bool) else None)


def web_search_from_wire(options: Any, issuer: str) -> ServerToolDefinition | None:
    """The ``web_search`` server tool that ``web_search_options`` turns on; ``None`` when it is
    not an object."""
    if not isinstance(options, dict):
        return None
    location = options.get("user_location")
    approximate = location.get("approximate") if isinstance(location, dict) else None
    found = ServerToolDefinition(
        kind="web_search", issuer=issuer,
        user_location=UserLocation(**{k: v for k, v in approximate.items() if isinstance(v, str)
                                      and k in ("city", "region", "country", "timezone")})
        if isinstance(approximate, dict) else None)
    again = _web_search_to_wire(found, "", None, ())
    return _tool_import.with_overlay(found, API, issuer, _tool_import.tool_overlay(options, again))
