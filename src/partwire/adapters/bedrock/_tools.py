"""Tool definitions and tool choice: canonical -> Converse ``toolConfig`` and back."""

from __future__ import annotations

from typing import Any

from partwire.adapters._common import SHAPE_ERRORS, ToolChoice, ToolSpec, import_tool
from partwire.adapters.bedrock._wire import API
from partwire.errors import SchemaError
from partwire.tools import ToolDefinition

__all__ = ["IMPORTED_SIDE_EFFECTS", "tool_choice_from_wire", "tool_from_wire", "tool_to_wire"]

IMPORTED_SIDE_EFFECTS = "execute"
"""Side effects cannot be read off the wire; an imported tool is assumed to do the most a tool may."""
_SPEC_KEYS = frozenset({"name", "description", "inputSchema", "strict"})


def tool_to_wire(tool: ToolSpec) -> dict[str, Any]:
    """A definition as a ``toolSpec`` tool; a native dict (``systemTool``, ``cachePoint``) as is."""
    if isinstance(tool, ToolDefinition):
        spec: dict[str, Any] = {"name": tool.name}
        if tool.description:  # NonEmptyString: an empty description is left out
            spec["description"] = tool.description
        spec["inputSchema"] = {"json": tool.input_schema}
        if tool.strict is not None:
            spec["strict"] = tool.strict
        return {"toolSpec": spec}
    return dict(tool)


def tool_choice_from_wire(choice: Any) -> ToolChoice | None:
    """A ``toolChoice`` as the canonical string when it is one, else the dict itself."""
    if choice == {"auto": {}}:
        return "auto"
    if choice == {"any": {}}:
        return "required"
    if isinstance(choice, dict) and set(choice) == {"tool"} and isinstance(choice["tool"], dict) \
            and set(choice["tool"]) == {"name"} and isinstance(choice["tool"]["name"], str) \
            and choice["tool"]["name"] not in ("auto", "required", "any", "none"):
        name: str = choice["tool"]["name"]
        return name
    return choice if isinstance(choice, dict) else None


def tool_from_wire(tool: Any) -> ToolSpec:
    """A ToolDefinition when the wire tool is exactly one (re-encoding gives it back); else the dict."""
    if not isinstance(tool, dict) or set(tool) != {"toolSpec"} or not isinstance(tool["toolSpec"], dict) \
            or not set(tool["toolSpec"]) <= _SPEC_KEYS:
        return tool if isinstance(tool, dict) else {"invalid": tool}
    schema = tool["toolSpec"].get("inputSchema")
    return import_tool(API, tool, _definition, schema.get("json") if isinstance(schema, dict) else None)


def _definition(tool: dict[str, Any]) -> ToolSpec:
    spec = tool["toolSpec"]
    try:
        schema = spec["inputSchema"]
        if set(schema) != {"json"}:
            return tool
        definition = ToolDefinition(
            name=spec["name"], description=spec.get("description", ""), input_schema=schema["json"],
            side_effects=IMPORTED_SIDE_EFFECTS, strict=spec.get("strict"),
        )
    except (*SHAPE_ERRORS, SchemaError):
        return tool
    return definition if tool_to_wire(definition) == tool else tool
