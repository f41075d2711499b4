"""Tool definitions and ``tool_choice`` for the Responses API, with OpenAI's strict-mode rewrite.

Function tools are flat here (``{"type": "function", "name", "parameters", "strict"}``, no
``function`` wrapper), and ``parameters`` and ``strict`` are required keys; ``defer_loading`` and
``allowed_callers`` are typed fields of the :class:`ToolDefinition`. Built-in tools are
:class:`ServerToolDefinition`: ``web_search`` (and its ``web_search_preview`` forms),
``code_interpreter``, ``file_search``, ``computer`` (and ``computer_use_preview``), ``mcp``,
``tool_search`` and ``image_generation``. What the typed fields do not say is the tool's overlay
for this API in its provider data, so re-encoding gives the wire tool back exactly. ``custom``,
``namespace``, ``shell``, ``local_shell``, ``apply_patch`` and ``programmatic_tool_calling`` have
no canonical kind and stay native dicts, sent to Responses only.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from partwire._json import SHAPE_ERRORS
from partwire.adapters import _tool_import
from partwire.adapters._losses import LossCollector
from partwire.adapters._openai_schema import strict_parameters
from partwire.adapters.openai_responses._wire import API, ISSUER
from partwire.adapters.requests import ToolChoice, ToolSpec
from partwire.tools import ServerToolDefinition, ToolDefinition, UserLocation

__all__ = ["IMPORTED_SIDE_EFFECTS", "is_wire_tool", "tool_choice_to_wire", "tool_from_wire",
           "tool_to_wire"]

# Side effects cannot be read off the wire; assume the most a tool may do.
IMPORTED_SIDE_EFFECTS = "execute"
_FLAGS = frozenset({"strict", "defer_loading", "allowed_callers"})
# Built-in tool types by canonical kind (the first is what a tool from another API becomes).
_KIND_OF = {
    "web_search": "web_search", "web_search_2025_08_26": "web_search",
    "web_search_preview": "web_search", "web_search_preview_2025_03_11": "web_search",
    "code_interpreter": "code_execution", "file_search": "file_search",
    "computer": "computer_use", "computer_use_preview": "computer_use", "mcp": "mcp",
    "tool_search": "tool_search", "image_generation": "image_generation",
}
_DEFAULTS: dict[str, dict[str, Any]] = {
    "web_search": {"type": "web_search"},
    # The container is required; "auto" makes one for the request.
    "code_execution": {"type": "code_interpreter", "container": {"type": "auto"}},
    "computer_use": {"type": "computer"},
    "mcp": {"type": "mcp"},
    "tool_search": {"type": "tool_search"},
    "image_generation": {"type": "image_generation"},
}
# The keys of the flat function and custom tools (Chat's nest theirs; Anthropic's have a schema).
_FLAT_KEYS = {
    "function": frozenset({"type", "name", "description", "parameters", "strict", "defer_loading",
                           "allowed_callers", "output_schema", "async"}),
    "custom": frozenset({"type", "name", "description", "format", "defer_loading", "allowed_callers"}),
}
_OTHER_TYPES = frozenset({"custom", "namespace", "shell", "local_shell", "apply_patch",
                          "programmatic_tool_calling"})
_SETTINGS: dict[str, frozenset[str]] = {
    "web_search": frozenset({"allowed_domains", "user_location"}),
    "mcp": frozenset({"url"}),
}


def _caller(value: str) -> bool:
    return value in ("direct", "programmatic")


def is_wire_tool(tool: Mapping[str, Any]) -> bool:
    """Whether a native dict has the shape of a Responses tool (function, custom or built-in)."""
    kind = tool.get("type")
    if kind in ("function", "custom"):
        return isinstance(tool.get("name"), str) and set(tool) <= _FLAT_KEYS[kind]
    return kind in _KIND_OF or kind in _OTHER_TYPES


def tool_to_wire(tool: ToolSpec, i: int, losses: LossCollector | None,
                 issuers: Collection[str] = (ISSUER,)) -> dict[str, Any] | None:
    """A tool as the API takes it, or ``None`` (with a loss) when it has no Responses form."""
    path = f"request.tools[{i}]"
    if type(tool) is ToolDefinition or isinstance(tool, ToolDefinition):
        if tool.__dict__["provider_data"] is None:  # no overlay to apply, nothing to report
            return _function_to_wire(tool, path, losses)
        overlay = _tool_import.overlay_for(tool, API, issuers, path, losses)
        # The source's own parameters (a strict-mode schema as it wrote it) replace the rewrite.
        own = overlay is not None and "parameters" in overlay
        return _tool_import.apply_overlay(_function_to_wire(tool, path, losses, rewrites=not own), overlay)
    if isinstance(tool, ServerToolDefinition):
        return _server_to_wire(tool, path, losses, issuers)
    if is_wire_tool(tool):
        return dict(tool)
    _tool_import.foreign_tool_loss(path, losses, "Responses")
    return None


def _function_to_wire(tool: ToolDefinition, path: str, losses: LossCollector | None, *,
                      rewrites: bool = True) -> dict[str, Any]:
    """``strict`` is always sent: the API treats a function tool without it as strict, which
    rejects any schema with an optional property. ``strict=True`` rewrites the schema for strict
    mode and reports every rewrite; ``None`` sends ``false``."""
    fields = tool.__dict__  # read from the dict: every request sends its tools
    parameters: Mapping[str, Any] = fields["input_schema"]
    if fields["strict"]:
        parameters, changes = strict_parameters(tool)
        if losses is not None and rewrites:
            for change in changes:
                losses.add(f"{path}.parameters", "tool", "rewritten", f"strict mode: {change}")
    out: dict[str, Any] = {"type": "function", "name": fields["name"]}
    if fields["description"]:
        out["description"] = fields["description"]
    out["parameters"] = dict(parameters)
    out["strict"] = bool(fields["strict"])
    if fields["defer_loading"] is not None:
        out["defer_loading"] = fields["defer_loading"]
    if fields["allowed_callers"] is not None:
        out["allowed_callers"] = _tool_import.callers_to_wire(fields["allowed_callers"], _caller, path, losses, "Responses")
    _tool_import.flag_losses(tool, path, losses, "Responses", _FLAGS)
    return out


def _server_to_wire(tool: ServerToolDefinition, path: str, losses: LossCollector | None,
                    issuers: Collection[str]) -> dict[str, Any] | None:
    overlay = _tool_import.overlay_for(tool, API, issuers, path, losses)
    default = _DEFAULTS.get(tool.kind)
    if default is None and not (overlay and "type" in overlay):
        _tool_import.server_kind_loss(tool, path, losses, "Responses")
        return None
    if tool.kind == "mcp" and not tool.name and not (overlay and "server_label" in overlay):
        _tool_import.server_kind_loss(tool, path, losses, "Responses",
                                      "a Responses MCP tool needs the server's label (name)")
        return None
    out: dict[str, Any] = dict(default or {})
    _tool_import.server_setting_losses(tool, path, losses, "Responses",
                                       _SETTINGS.get(tool.kind, frozenset()))
    if tool.kind == "web_search":
        if tool.allowed_domains is not None:
            out["filters"] = {"allowed_domains": list(tool.allowed_domains)}
        if tool.user_location is not None:
            out["user_location"] = {"type": "approximate", **_tool_import.location_fields(tool.user_location)}
    elif tool.kind == "mcp":
        if tool.name:
            out["server_label"] = tool.name
        if tool.url is not None:
            out["server_url"] = tool.url
    return _tool_import.apply_overlay(out, overlay)


def tool_from_wire(tool: Any) -> ToolSpec:
    """The canonical tool a wire tool is: a function tool is a :class:`ToolDefinition`, a
    built-in one a :class:`ServerToolDefinition`; any other (or a tool too broken to read) stays
    the dict. Re-encoding gives the wire tool back exactly."""
    if not isinstance(tool, dict):
        return {"invalid": tool}
    kind = tool.get("type")
    if kind == "function":
        return _tool_import.import_tool(API, tool, _definition, tool.get("parameters"))
    if isinstance(kind, str) and kind in _KIND_OF:
        return _tool_import.import_tool(API, tool, _server_definition)
    return tool


def _definition(tool: dict[str, Any]) -> ToolSpec:
    parameters = tool.get("parameters")
    strict, callers, defer = tool.get("strict"), tool.get("allowed_callers"), tool.get("defer_loading")
    return _tool_import.definition_from_wire(
        tool, tool["name"], tool.get("description"),
        {"type": "object", "properties": {}} if parameters is None else parameters,
        IMPORTED_SIDE_EFFECTS, lambda definition: _function_to_wire(definition, "", None), API, ISSUER,
        wire_key=None if parameters is None else "parameters", strict=strict if isinstance(strict, bool) else None,
        defer_loading=defer if isinstance(defer, bool) else None,
        allowed_callers=tuple(callers) if isinstance(callers, list) and all(
            isinstance(c, str) for c in callers) else None)


def _server_definition(tool: dict[str, Any]) -> ToolSpec:
    kind = _KIND_OF[tool["type"]]
    filters = tool.get("filters")
    allowed = filters.get("allowed_domains") if isinstance(filters, dict) else None
    location = tool.get("user_location")
    label, url = tool.get("server_label"), tool.get("server_url")
    try:
        definition = ServerToolDefinition(
            kind=kind, issuer=ISSUER,
            name=label if kind == "mcp" and isinstance(label, str) else None,
            url=url if kind == "mcp" and isinstance(url, str) else None,
            allowed_domains=tuple(allowed) if kind == "web_search" and isinstance(allowed, list)
            and all(isinstance(d, str) for d in allowed) else None,
            user_location=UserLocation(**{k: v for k, v in location.items() if isinstance(v, str) and
                                          k in ("city", "region", "country", "timezone")})
            if kind == "web_search" and isinstance(location, dict) else None,
        )
    except SHAPE_ERRORS:
        return tool
    again = _server_to_wire(definition, "", None, (ISSUER,)) or {}
    return _tool_import.with_overlay(definition, API, ISSUER, _tool_import.tool_overlay(tool, again))


def tool_choice_to_wire(choice: ToolChoice | None) -> str | dict[str, Any] | None:
    """``tool_choice``: ``auto``/``required``/``none``, a function's name, or a native dict as is."""
    if choice is None or (isinstance(choice, str) and choice in ("auto", "required", "none")):
        return choice
    if isinstance(choice, Mapping):
        return dict(choice)
    if choice == "any":
        return "required"
    return {"type": "function", "name": choice}
