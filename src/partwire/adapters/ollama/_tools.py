"""Tool definitions for Ollama's chat: ``{"type": "function", "function": {name, description,
parameters}}``, the shape Chat Completions uses, without its ``strict`` flag.

Ollama runs no tools itself: a server tool, or a native dict in another API's shape, is a loss.
Ollama has no tool choice either (``_settings``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from partwire.adapters import _tool_import
from partwire.adapters._losses import LossCollector
from partwire.adapters.ollama._wire import API, ISSUER
from partwire.adapters.requests import ToolSpec
from partwire.tools import ServerToolDefinition, ToolDefinition

__all__ = ["IMPORTED_SIDE_EFFECTS", "is_wire_tool", "tool_from_wire", "tools_to_wire"]

IMPORTED_SIDE_EFFECTS = "execute"
"""Side effects cannot be read off the wire; an imported tool is assumed to do the most a tool may."""
_WIRE = "Ollama"


def is_wire_tool(tool: Mapping[str, Any]) -> bool:
    """Whether a native dict has the shape of an Ollama tool (a function)."""
    function = tool.get("function")
    return tool.get("type", "function") == "function" and set(tool) <= {"type", "function"} \
        and isinstance(function, Mapping) and isinstance(function.get("name"), str)


def tools_to_wire(tools: Sequence[ToolSpec], losses: LossCollector | None,
                  issuers: Collection[str]) -> list[dict[str, Any]]:
    """The ``tools`` list; what Ollama cannot take is reported at ``request.tools[i]``."""
    out: list[dict[str, Any]] = []
    for i, tool in enumerate(tools):
        path = f"request.tools[{i}]"
        if isinstance(tool, ToolDefinition):
            overlay = _tool_import.overlay_for(tool, API, issuers, path, losses)
            _tool_import.flag_losses(tool, path, losses, _WIRE, ())
            out.append(_tool_import.apply_overlay(_function_to_wire(tool), overlay))
        elif isinstance(tool, ServerToolDefinition):
            _tool_import.server_kind_loss(tool, path, losses, _WIRE,
                                          "Ollama runs no provider-side tools; "
                                          f"the {tool.kind.replace('_', ' ')} tool is not sent")
        elif is_wire_tool(tool):
            out.append(dict(tool))
        else:
            _tool_import.foreign_tool_loss(path, losses, _WIRE)
    return out


def _function_to_wire(tool: ToolDefinition) -> dict[str, Any]:
    function: dict[str, Any] = {"name": tool.name}
    if tool.description:
        function["description"] = tool.description
    function["parameters"] = tool.input_schema
    return {"type": "function", "function": function}


def tool_from_wire(tool: Any) -> ToolSpec:
    """A function tool as a :class:`ToolDefinition` (re-encoding gives it back exactly); any
    other entry stays the dict it was."""
    if not isinstance(tool, dict):
        return {"invalid": tool}
    function = tool.get("function")
    if tool.get("type", "function") != "function" or not isinstance(function, dict):
        return tool
    return _tool_import.import_tool(API, tool, _definition, function.get("parameters"))


def _definition(tool: dict[str, Any]) -> ToolSpec:
    function = tool["function"]
    return _tool_import.definition_from_wire(
        tool, function["name"], function.get("description"),
        function.get("parameters", {"type": "object", "properties": {}}), IMPORTED_SIDE_EFFECTS,
        _function_to_wire, API, ISSUER)
