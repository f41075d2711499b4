"""Tool definitions for Cohere v2: function tools only.

A tool is ``{"type": "function", "function": {"name", "description", "parameters"}}``, read as a
:class:`ToolDefinition` and written back exactly (what the typed fields do not say rides in the
definition's overlay). Cohere has no provider-run tools and no per-tool flags: ``strict`` is the
request's ``strict_tools`` (``_settings``), and a server tool is reported, never sent.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from partwire.adapters import _tool_import
from partwire.adapters._losses import LossCollector
from partwire.adapters.cohere._wire import API, ISSUER
from partwire.adapters.requests import ToolSpec
from partwire.tools import ServerToolDefinition, ToolDefinition

__all__ = ["IMPORTED_SIDE_EFFECTS", "is_wire_tool", "tool_from_wire", "tools_to_wire"]

IMPORTED_SIDE_EFFECTS = "execute"
"""Side effects cannot be read off the wire; an imported tool is assumed to do the most a tool may."""

_FLAGS = frozenset({"strict"})  # sent as the request's strict_tools


def is_wire_tool(tool: Any) -> bool:
    """Whether a native dict has the shape of a Cohere tool."""
    if not isinstance(tool, dict) or tool.get("type") != "function" or set(tool) != {"type", "function"}:
        return False
    function = tool["function"]
    return isinstance(function, dict) and isinstance(function.get("name"), str) \
        and "parameters" in function


def tools_to_wire(tools: Sequence[ToolSpec], losses: LossCollector | None,
                  issuers: Collection[str]) -> tuple[list[dict[str, Any]], bool | None]:
    """The ``tools`` list, and ``strict_tools`` (``None`` when no tool says)."""
    out: list[dict[str, Any]] = []
    strict: bool | None = None
    for i, tool in enumerate(tools):
        path = f"request.tools[{i}]"
        if isinstance(tool, ToolDefinition):
            wire = _function_to_wire(tool, path, losses)
            out.append(_tool_import.apply_overlay(
                wire, _tool_import.overlay_for(tool, API, issuers, path, losses)))
            if tool.strict is not None:
                if strict is not None and strict != tool.strict and losses is not None:
                    losses.add(f"{path}.strict", "tool", "rewritten",
                               "Cohere's strict_tools is one switch for every tool; the first "
                               "tool's is sent")
                elif strict is None:
                    strict = tool.strict
        elif isinstance(tool, ServerToolDefinition):
            _tool_import.server_kind_loss(tool, path, losses, "Cohere")
        elif is_wire_tool(tool):
            out.append(dict(tool))
        else:
            _tool_import.foreign_tool_loss(path, losses, "Cohere")
    return out, strict


def _function_to_wire(tool: ToolDefinition, path: str, losses: LossCollector | None) -> dict[str, Any]:
    function: dict[str, Any] = {"name": tool.name}
    if tool.description:
        function["description"] = tool.description
    function["parameters"] = tool.input_schema
    _tool_import.flag_losses(tool, path, losses, "Cohere", _FLAGS)
    return {"type": "function", "function": function}


def tool_from_wire(tool: Any) -> ToolSpec:
    """A function tool as a :class:`ToolDefinition` (re-encoding gives it back exactly); any
    other shape stays the dict.

    A tool read before (the same JSON) gives the same definition without a second validation.
    """
    if not isinstance(tool, dict):
        return {"invalid": tool}
    function = tool.get("function")
    if tool.get("type") != "function" or not isinstance(function, dict):
        return tool
    return _tool_import.import_tool(API, tool, _definition, function.get("parameters"))


def _definition(tool: dict[str, Any]) -> ToolSpec:
    function = tool["function"]
    return _tool_import.definition_from_wire(
        tool, function["name"], function.get("description"), function.get("parameters"),
        IMPORTED_SIDE_EFFECTS, lambda definition: _function_to_wire(definition, "", None), API, ISSUER)
