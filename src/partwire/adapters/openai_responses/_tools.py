"""Tool definitions and ``tool_choice`` for the Responses API, with OpenAI's strict-mode rewrite.

Function tools are flat here (``{"type": "function", "name", "parameters", "strict"}``, no
``function`` wrapper), and ``parameters`` and ``strict`` are required keys. Built-in tools
(``web_search``, ``file_search``, ``code_interpreter``, ``mcp``, ...) are native dicts passed
through unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from partwire.adapters._common import Losses, ToolChoice, ToolSpec
from partwire.errors import SchemaError
from partwire.tools import ToolDefinition

__all__ = ["IMPORTED_SIDE_EFFECTS", "strict_schema", "tool_choice_to_wire", "tool_from_wire",
           "tool_to_wire"]

# Side effects cannot be read off the wire; assume the most a tool may do.
IMPORTED_SIDE_EFFECTS = "execute"
_FUNCTION_KEYS = frozenset({"type", "name", "description", "parameters", "strict"})


def strict_schema(schema: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A schema rewritten for OpenAI strict mode, and what was rewritten (JSON pointers).

    Strict mode wants ``additionalProperties: false`` on every object and every property
    required; an optional property becomes required and nullable, which says the same thing.
    A schema already in that form comes back unchanged, with nothing reported.
    """
    changes: list[str] = []
    return _strict_node(schema, "#", changes), changes


def _strict_node(node: Any, path: str, changes: list[str]) -> Any:
    if not isinstance(node, Mapping):
        return node
    out = dict(node)
    properties = out.get("properties")
    if isinstance(properties, Mapping):
        required = list(out.get("required") or [])
        new_props: dict[str, Any] = {}
        for name, sub in properties.items():
            child = _strict_node(sub, f"{path}/properties/{name}", changes)
            if name not in required:
                required.append(name)
                child = _nullable(child)
                changes.append(f"{path}/properties/{name}: made required and nullable")
            new_props[name] = child
        out["properties"] = new_props
        out["required"] = required
    if "items" in out:
        out["items"] = _strict_node(out["items"], f"{path}/items", changes)
    is_object = out.get("type") == "object" or isinstance(properties, Mapping)
    if is_object and out.get("additionalProperties") is not False:
        out["additionalProperties"] = False
        changes.append(f"{path}: additionalProperties set to false")
    return out


def _nullable(schema: Any) -> Any:
    if not isinstance(schema, Mapping):
        return schema
    out = dict(schema)
    kind = out.get("type")
    if isinstance(kind, str) and kind != "null":
        out["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        out["type"] = [*kind, "null"]
    enum = out.get("enum")
    if isinstance(enum, list) and None not in enum:
        out["enum"] = [*enum, None]
    return out


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
    except (KeyError, TypeError, ValueError, ValidationError, SchemaError):
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
