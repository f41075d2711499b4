"""Tool definitions and tool choice for Chat Completions, with OpenAI's strict-mode schema rewrite."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from partwire.adapters._common import Losses, ToolChoice, ToolSpec
from partwire.errors import SchemaError
from partwire.tools import ToolDefinition

__all__ = ["IMPORTED_SIDE_EFFECTS", "strict_schema", "tool_choice_to_wire", "tool_from_wire",
           "tool_to_wire"]

IMPORTED_SIDE_EFFECTS = "execute"
"""Side effects cannot be read off the wire; an imported tool is assumed to do the most a tool may."""


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
    """A tool definition as the API takes it; native dicts pass through unchanged.

    A definition with ``strict=True`` gets its schema rewritten for strict mode; every rewrite
    is reported (the model sees the same tool, stated the way strict mode requires).
    """
    if not isinstance(tool, ToolDefinition):
        return dict(tool)
    parameters: Mapping[str, Any] = tool.input_schema
    if tool.strict:
        parameters, changes = strict_schema(tool.input_schema)
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
    """A ToolDefinition when the wire tool is exactly one (re-encoding gives it back); else the dict."""
    if not isinstance(tool, dict):
        return {"invalid": tool}
    function = tool.get("function")
    if tool.get("type") != "function" or set(tool) != {"type", "function"} or not isinstance(
            function, dict) or not set(function) <= {"name", "description", "parameters", "strict"}:
        return tool
    try:
        definition = ToolDefinition(
            name=function["name"], description=function["description"],
            input_schema=function["parameters"], side_effects=IMPORTED_SIDE_EFFECTS,
            strict=function.get("strict"),
        )
    except (KeyError, TypeError, ValueError, ValidationError, SchemaError):
        return tool
    return definition if tool_to_wire(definition, "tools", None) == tool else tool
