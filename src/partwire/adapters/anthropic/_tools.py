"""Tool definitions and ``tool_choice``: canonical -> Anthropic wire and back.

A custom tool is a :class:`ToolDefinition`, with ``strict``, ``defer_loading``,
``allowed_callers``, ``input_examples`` and ``cache_control`` as its typed fields; Anthropic's
server tools (``web_search_*``, ``web_fetch_*``, ``code_execution_*``, ``tool_search_tool_*``,
``computer_toolset_*``) are :class:`ServerToolDefinition`. What the typed fields do not say (a
tool version, ``eager_input_streaming``, a key the source spelled its own way) is the tool's
overlay for this API in its provider data, so re-encoding gives the wire tool back exactly.
The Anthropic-defined client tools (``bash_*``, ``text_editor_*``, ``memory_*``,
``browser_toolset_*``) have no canonical kind: they stay native dicts, sent to Anthropic only.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from partwire._base import build
from partwire._json import SHAPE_ERRORS
from partwire.adapters import _tool_import
from partwire.adapters._losses import LossCollector
from partwire.adapters.anthropic._wire import API, ISSUER
from partwire.adapters.requests import ToolChoice, ToolSpec
from partwire.errors import SchemaError
from partwire.tools import CacheHint, ServerToolDefinition, ToolDefinition, UserLocation

__all__ = ["IMPORTED_SIDE_EFFECTS", "is_wire_tool", "tool_choice_to_wire", "tool_from_wire",
           "tool_to_wire"]

IMPORTED_SIDE_EFFECTS = "execute"
"""Side effects cannot be read off the wire; an imported tool is assumed to do the most a tool may."""

_FLAGS = frozenset({"strict", "defer_loading", "allowed_callers", "input_examples", "cache"})
# Server tools by the kind they are, and the version sent when a tool arrives from another API.
_SERVER_TYPES = re.compile(
    r"^(?:(web_search|web_fetch|code_execution|computer_toolset)_\d{8}"
    r"|(tool_search)_tool_(?:bm25|regex)(?:_\d{8})?)$")
_KIND_OF = {"web_search": "web_search", "web_fetch": "web_fetch", "code_execution": "code_execution",
            "computer_toolset": "computer_use", "tool_search": "tool_search"}
_DEFAULTS: dict[str, dict[str, str]] = {
    "web_search": {"type": "web_search_20250305", "name": "web_search"},
    "web_fetch": {"type": "web_fetch_20250910", "name": "web_fetch"},
    "code_execution": {"type": "code_execution_20250825", "name": "code_execution"},
    "tool_search": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
}
# Which typed settings each kind takes here.
_SETTINGS: dict[str, frozenset[str]] = {
    "web_search": frozenset({"allowed_domains", "blocked_domains", "max_uses", "user_location", "cache"}),
    "web_fetch": frozenset({"allowed_domains", "blocked_domains", "max_uses", "cache"}),
}
# Anthropic-defined client tools (and beta types) that are Anthropic's shape but no canonical kind.
_OTHER_TYPES = re.compile(r"^(?:bash|text_editor|memory|browser_toolset|computer)_\d{8}$")


def _caller(value: str) -> bool:
    return value == "direct" or value.startswith("code_execution_")


def is_wire_tool(tool: Mapping[str, Any]) -> bool:
    """Whether a native dict has the shape of an Anthropic tool (custom, server or Anthropic-defined)."""
    kind = tool.get("type")
    if kind is None or kind == "custom":
        return isinstance(tool.get("name"), str) and isinstance(tool.get("input_schema"), Mapping)
    return isinstance(kind, str) and bool(_SERVER_TYPES.match(kind) or _OTHER_TYPES.match(kind))


def tool_to_wire(tool: ToolSpec, i: int, losses: LossCollector | None,
                 issuers: Collection[str] = (ISSUER,)) -> dict[str, Any] | None:
    """A tool as the API takes it, or ``None`` (with a loss) when it has no Anthropic form."""
    path = f"request.tools[{i}]"
    if type(tool) is ToolDefinition or isinstance(tool, ToolDefinition):
        out = _function_to_wire(tool, path, losses)
        if tool.__dict__["provider_data"] is None:  # no overlay to apply, nothing to report
            return out
        overlay = _tool_import.overlay_for(tool, API, issuers, path, losses)
        return _tool_import.apply_overlay(out, overlay)
    if isinstance(tool, ServerToolDefinition):
        return _server_to_wire(tool, path, losses, issuers)
    if is_wire_tool(tool):
        return dict(tool)
    _tool_import.foreign_tool_loss(path, losses, "Anthropic")
    return None


def _function_to_wire(tool: ToolDefinition, path: str, losses: LossCollector | None) -> dict[str, Any]:
    fields = tool.__dict__  # read from the dict: every request sends its tools
    out: dict[str, Any] = {"name": fields["name"]}
    if fields["description"]:
        out["description"] = fields["description"]
    schema = fields["input_schema"]
    if schema.get("type") != "object":
        # The API requires an object schema at the top; a foreign schema without one says the same.
        schema = {**schema, "type": "object"}
        if losses is not None:
            losses.add(f"{path}.input_schema", "tool", "rewritten",
                       "Anthropic requires type 'object' at the top of an input schema")
    out["input_schema"] = schema
    if fields["strict"] is not None:
        out["strict"] = fields["strict"]
    if fields["defer_loading"] is not None:
        out["defer_loading"] = fields["defer_loading"]
    if fields["allowed_callers"] is not None:
        out["allowed_callers"] = _tool_import.callers_to_wire(fields["allowed_callers"], _caller, path, losses, "Anthropic")
    if fields["input_examples"] is not None:
        out["input_examples"] = list(fields["input_examples"])
    if fields["cache"] is not None:
        out["cache_control"] = _cache_to_wire(fields["cache"])
    _tool_import.flag_losses(tool, path, losses, "Anthropic", _FLAGS)
    return out


def _cache_to_wire(cache: CacheHint) -> dict[str, Any]:
    return {"type": "ephemeral", "ttl": cache.ttl} if cache.ttl is not None else {"type": "ephemeral"}


def _server_to_wire(tool: ServerToolDefinition, path: str, losses: LossCollector | None,
                    issuers: Collection[str]) -> dict[str, Any] | None:
    overlay = _tool_import.overlay_for(tool, API, issuers, path, losses)
    default = _DEFAULTS.get(tool.kind)
    if default is None and not (overlay and "type" in overlay):
        _tool_import.server_kind_loss(tool, path, losses, "Anthropic")
        return None
    out: dict[str, Any] = dict(default or {})
    supported = _SETTINGS.get(tool.kind, frozenset({"cache"}))
    _tool_import.server_setting_losses(tool, path, losses, "Anthropic", supported)
    if "allowed_domains" in supported and tool.allowed_domains is not None:
        out["allowed_domains"] = list(tool.allowed_domains)
    if "blocked_domains" in supported and tool.blocked_domains is not None:
        if tool.allowed_domains is not None:  # the API takes one or the other
            if losses is not None:
                losses.add(f"{path}.blocked_domains", "server_tool", "dropped",
                           "Anthropic takes allowed_domains or blocked_domains, not both")
        else:
            out["blocked_domains"] = list(tool.blocked_domains)
    if "max_uses" in supported and tool.max_uses is not None:
        out["max_uses"] = tool.max_uses
    if "user_location" in supported and tool.user_location is not None:
        out["user_location"] = {"type": "approximate", **_tool_import.location_fields(tool.user_location)}
    if tool.cache is not None:
        out["cache_control"] = _cache_to_wire(tool.cache)
    return _tool_import.apply_overlay(out, overlay)


def tool_choice_to_wire(choice: ToolChoice | None, parallel_tool_calls: bool | None) -> dict[str, Any] | None:
    """``tool_choice``: ``auto``/``required``/``none``, a tool name, or a native dict as is."""
    if choice is None and parallel_tool_calls is not False:
        return None
    if isinstance(choice, Mapping):
        out = dict(choice)
    elif choice is None or choice == "auto":
        out = {"type": "auto"}
    elif choice in ("required", "any"):
        out = {"type": "any"}
    elif choice == "none":
        out = {"type": "none"}
    else:
        out = {"type": "tool", "name": choice}
    if parallel_tool_calls is False and out.get("type") != "none":
        out["disable_parallel_tool_use"] = True
    return out


def tool_from_wire(tool: Any) -> ToolSpec:
    """The canonical tool a wire tool is: a custom tool is a :class:`ToolDefinition`, a server
    tool a :class:`ServerToolDefinition`; an Anthropic-defined client tool (or a tool too broken
    to read) stays the dict. Re-encoding gives the wire tool back exactly.

    A tool read before (the same JSON) gives the same definition without a second validation.
    """
    if not isinstance(tool, dict):
        return {"invalid": tool}
    kind = tool.get("type")
    if kind is None or kind == "custom":
        return _tool_import.import_tool(API, tool, _definition, tool.get("input_schema"))
    if isinstance(kind, str) and _SERVER_TYPES.match(kind):
        return _tool_import.import_tool(API, tool, _server_definition)
    return tool


def _definition(tool: dict[str, Any]) -> ToolSpec:
    schema, portable, own = _tool_import.schema_or_none(tool.get("input_schema"))
    if schema is None:
        return tool
    try:
        definition = _tool_import.imported_definition(
            tool["name"], _str(tool.get("description")), schema, portable, IMPORTED_SIDE_EFFECTS, own=own,
            strict=_bool(tool.get("strict")), defer_loading=_bool(tool.get("defer_loading")),
            allowed_callers=_strings(tool.get("allowed_callers")),
            input_examples=_examples(tool.get("input_examples")), cache=_cache(tool.get("cache_control")),
        )
    except (*SHAPE_ERRORS, SchemaError):
        return tool
    again = _function_to_wire(definition, "", None)
    if own:
        _tool_import.keep_wire_schema(again, "input_schema", tool["input_schema"], schema)
    return _tool_import.with_overlay(definition, API, ISSUER, _tool_import.tool_overlay(tool, again))


def _server_definition(tool: dict[str, Any]) -> ToolSpec:
    match = _SERVER_TYPES.match(tool["type"])
    assert match is not None
    kind = _KIND_OF[match.group(1) or match.group(2)]
    location = tool.get("user_location")
    try:
        definition = ServerToolDefinition(
            kind=kind, issuer=ISSUER, name=_str(tool.get("name")) or None,
            allowed_domains=_strings(tool.get("allowed_domains")),
            blocked_domains=_strings(tool.get("blocked_domains")),
            max_uses=tool.get("max_uses") if type(tool.get("max_uses")) is int else None,
            user_location=UserLocation(**{k: v for k, v in location.items() if k != "type" and
                                          isinstance(v, str)}) if isinstance(location, dict) else None,
            cache=_cache(tool.get("cache_control")),
        )
    except SHAPE_ERRORS:
        return tool
    again = _server_to_wire(definition, "", None, (ISSUER,)) or {}
    return _tool_import.with_overlay(definition, API, ISSUER, _tool_import.tool_overlay(tool, again))


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _strings(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def _examples(value: Any) -> tuple[dict[str, Any], ...] | None:
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        return tuple(value)
    return None


# The hint of a breakpoint with the default lifetime, what most tools carry: one immutable
# instance for them all (it is what CacheHint() makes), not one made per tool read.
_DEFAULT_CACHE = CacheHint()


def _cache(value: Any) -> CacheHint | None:
    if isinstance(value, dict) and value.get("type") == "ephemeral":
        ttl = value.get("ttl")
        # Made without validation: every imported tool with a breakpoint has one.
        return build(CacheHint, {"ttl": ttl}) if isinstance(ttl, str) else _DEFAULT_CACHE
    return None
