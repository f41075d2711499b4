"""Tool definitions and ``tool_choice``: canonical -> Anthropic wire and back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from partwire.adapters._common import SHAPE_ERRORS, ToolChoice, ToolSpec, import_tool
from partwire.adapters.anthropic._wire import API
from partwire.errors import SchemaError
from partwire.tools import ToolDefinition

__all__ = ["IMPORTED_SIDE_EFFECTS", "tool_choice_to_wire", "tool_from_wire", "tool_to_wire"]

# Tool-definition keys a ToolDefinition holds; a wire tool with any other key stays a dict.
_TOOL_FIELDS = frozenset({"name", "description", "input_schema", "strict"})
IMPORTED_SIDE_EFFECTS = "execute"
"""Side effects cannot be read off the wire; an imported tool is assumed to do the most a tool may."""


def tool_to_wire(tool: ToolSpec) -> dict[str, Any]:
    """A tool definition as the API takes it; native dicts pass through unchanged."""
    if isinstance(tool, ToolDefinition):
        out: dict[str, Any] = {"name": tool.name, "description": tool.description,
                               "input_schema": tool.input_schema}
        if tool.strict is not None:
            out["strict"] = tool.strict
        return out
    return dict(tool)


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
    """A ToolDefinition when the wire tool is exactly one (re-encoding gives it back); else the dict.

    A tool read before (the same JSON) gives the same definition without a second validation.
    """
    if not isinstance(tool, dict) or not set(tool) <= _TOOL_FIELDS:
        return tool if isinstance(tool, dict) else {"invalid": tool}
    return import_tool(API, tool, _definition, tool.get("input_schema"))


def _definition(tool: dict[str, Any]) -> ToolSpec:
    try:
        definition = ToolDefinition(
            name=tool["name"], description=tool["description"], input_schema=tool["input_schema"],
            side_effects=IMPORTED_SIDE_EFFECTS, strict=tool.get("strict"),
        )
    except (*SHAPE_ERRORS, SchemaError):
        return tool
    again: dict[str, Any] = {"name": definition.name, "description": definition.description,
                             "input_schema": definition.input_schema}
    if definition.strict is not None:
        again["strict"] = definition.strict
    return definition if again == tool else tool
