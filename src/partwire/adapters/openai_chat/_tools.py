"""Tool definitions and tool choice for Chat Completions, with OpenAI's strict-mode schema rewrite."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from partwire.adapters._common import (
    SHAPE_ERRORS,
    Losses,
    ToolChoice,
    ToolSpec,
    import_tool,
    strict_parameters,
)
from partwire.adapters.openai_chat._wire import API
from partwire.errors import SchemaError
from partwire.tools import ToolDefinition

__all__ = ["IMPORTED_SIDE_EFFECTS", "tool_choice_to_wire", "tool_from_wire",
           "tool_to_wire"]

IMPORTED_SIDE_EFFECTS = "execute"
"""Side effects cannot be read off the wire; an imported tool is assumed to do the most a tool may."""


def tool_to_wire(tool: ToolSpec, path: str, losses: Losses | None) -> dict[str, Any]:
    """A tool definition as the API takes it; native dicts pass through unchanged.

    A definition with ``strict=True`` gets its schema rewritten for strict mode; every rewrite
    is reported (the model sees the same tool, stated the way strict mode requires).
    """
    if not isinstance(tool, ToolDefinition):
        return dict(tool)
    parameters: Mapping[str, Any] = tool.input_schema
    if tool.strict:
        parameters, changes = strict_parameters(tool)
        if losses is not None:
            for change in changes:
                losses.add(f"{path}.function.parameters", "tool", "rewritten",
                           f"strict mode: {change}")
    function: dict[str, Any] = {"name": tool.name, "description": tool.description,
                                "parameters": parameters}
    if tool.strict is not None:
        function["strict"] = tool.strict
    return {"type": "function", "function": function}


def tool_choice_to_wire(choice: ToolChoice | None) -> str | dict[str, Any] | None:
    """``tool_choice``: ``auto``/``required``/``none``, a tool name, or a native dict as is."""
    if choice is None or (isinstance(choice, str) and choice in ("auto", "required", "none")):
        return choice
    if isinstance(choice, Mapping):
        return dict(choice)
    if choice == "any":
        return "required"
    return {"type": "function", "function": {"name": choice}}


def tool_from_wire(tool: Any) -> ToolSpec:
    """A ToolDefinition when the wire tool is exactly one (re-encoding gives it back); else the dict.

    A tool read before (the same JSON) gives the same definition without a second validation.
    """
    if not isinstance(tool, dict):
        return {"invalid": tool}
    function = tool.get("function")
    if tool.get("type") != "function" or set(tool) != {"type", "function"} or not isinstance(
            function, dict) or not set(function) <= {"name", "description", "parameters", "strict"}:
        return tool
    return import_tool(API, tool, _definition, function.get("parameters"))


def _definition(tool: dict[str, Any]) -> ToolSpec:
    function = tool["function"]
    try:
        definition = ToolDefinition(
            name=function["name"], description=function["description"],
            input_schema=function["parameters"], side_effects=IMPORTED_SIDE_EFFECTS,
            strict=function.get("strict"),
        )
    except (*SHAPE_ERRORS, SchemaError):
        return tool
    return definition if tool_to_wire(definition, "tools", None) == tool else tool
