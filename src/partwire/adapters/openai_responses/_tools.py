"""Tool definitions and ``tool_choice`` for the Responses API, with OpenAI's strict-mode rewrite.

Function tools are flat here (``{"type": "function", "name", "parameters", "strict"}``, no
``function`` wrapper), and ``parameters`` and ``strict`` are required keys. Built-in tools
(``web_search``, ``file_search``, ``code_interpreter``, ``mcp``, ...) are native dicts passed
through unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from partwire.adapters._common import SHAPE_ERRORS, Losses, ToolChoice, ToolSpec, strict_schema
from partwire.errors import SchemaError
from partwire.tools import ToolDefinition

__all__ = ["IMPORTED_SIDE_EFFECTS", "tool_choice_to_wire", "tool_from_wire",
           "tool_to_wire"]

# Side effects cannot be read off the wire; assume the most a tool may do.
IMPORTED_SIDE_EFFECTS = "execute"
_FUNCTION_KEYS = frozenset({"type", "name", "description", "parameters", "strict"})


def tool_to_wire(tool: ToolSpec, path: str, losses: Losses | None) -> dict[str, Any]:
    """A tool definition as the API takes it; native dicts (built-in tools) pass through.

    ``strict`` is always sent: the API treats a function tool without it as strict, which
    rejects any schema with an optional property. ``strict=True`` rewrites the schema for strict
    mode and reports every rewrite; ``None`` sends ``false``.
    """
    if not isinstance(tool, ToolDefinition):
        return dict(tool)
    parameters: Mapping[str, Any] = tool.input_schema
    if tool.strict:
        parameters, changes = strict_schema(tool.input_schema)
        if losses is not None:
            for change in changes:
                losses.add(f"{path}.parameters", "tool", "rewritten", f"strict mode: {change}")
    return {"type": "function", "name": tool.name, "description": tool.description,
            "parameters": dict(parameters), "strict": bool(tool.strict)}


def tool_from_wire(tool: Any) -> ToolSpec:
    """A ToolDefinition when the wire tool is exactly one (re-encoding gives it back); else the dict."""
    if not isinstance(tool, dict):
        return {"invalid": tool}
    if tool.get("type") != "function" or not set(tool) <= _FUNCTION_KEYS:
        return tool
    try:
        definition = ToolDefinition(
            name=tool["name"], description=tool["description"], input_schema=tool["parameters"],
            side_effects=IMPORTED_SIDE_EFFECTS, strict=tool.get("strict"),
        )
    except (*SHAPE_ERRORS, SchemaError):
        return tool
    return definition if tool_to_wire(definition, "tools", None) == tool else tool


def tool_choice_to_wire(choice: ToolChoice | None) -> str | dict[str, Any] | None:
    """``tool_choice``: ``auto``/``required``/``none``, a function's name, or a native dict as is."""
    if choice is None or (isinstance(choice, str) and choice in ("auto", "required", "none")):
        return choice
    if isinstance(choice, Mapping):
        return dict(choice)
    if choice == "any":
        return "required"
    return {"type": "function", "name": choice}
