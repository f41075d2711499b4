"""OpenAI's strict mode, shared by the Chat Completions and Responses adapters: a tool's input
schema rewritten so that every object closes and every property is required."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from partwire._memo import memo
from partwire.tools import ToolDefinition

__all__ = ["strict_parameters", "strict_schema"]



# id(definition) -> (definition, its strict parameters, the rewrites): an agent sends the same
# definitions with every turn. The entry holds the definition, so its id is not reused.
_STRICT: dict[int, tuple[ToolDefinition, dict[str, Any], list[str]]] = memo({})
_STRICT_MAX = 256


def strict_parameters(tool: ToolDefinition) -> tuple[dict[str, Any], list[str]]:
    """:func:`strict_schema` of ``tool.input_schema``, worked out once per definition.

    The parameters are shared like ``input_schema`` itself (a definition is immutable): copy
    them before changing a request body's schema in place.
    """
    found = _STRICT.get(id(tool))
    if found is not None and found[0] is tool:
        return found[1], found[2]
    parameters, changes = strict_schema(tool.input_schema)
    if len(_STRICT) >= _STRICT_MAX:
        del _STRICT[next(iter(_STRICT))]
    _STRICT[id(tool)] = (tool, parameters, changes)
    return parameters, changes



def strict_schema(schema: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A schema rewritten for OpenAI strict mode, and what was rewritten (JSON pointers).

    Strict mode wants ``additionalProperties: false`` on every object and every property
    required; an optional property becomes required and nullable, which says the same thing.
    A schema already in that form comes back itself (not a copy), with nothing reported.
    """
    changes: list[str] = []
    return _strict_node(schema, "#", changes), changes


def _strict_node(node: Any, path: str, changes: list[str]) -> Any:
    # A node already in strict form comes back itself, as the definitions an API sent strict
    # usually are: a copy is made only at a node with something to rewrite.
    # A schema read from JSON is made of plain dicts: the exact type answers first, where
    # isinstance() against the Mapping ABC goes through ABCMeta's check for every node.
    if type(node) is not dict and not isinstance(node, Mapping):
        return node
    out: dict[str, Any] | None = None
    properties: Mapping[str, Any] | None = node.get("properties")
    if properties is not None and type(properties) is not dict and not isinstance(properties, Mapping):
        properties = None
    if properties is not None:
        given = node.get("required")
        required = given if type(given) is list else list(given or [])
        new_props: dict[str, Any] | None = None if type(properties) is dict else dict(properties)
        for name, sub in properties.items():
            child = _strict_node(sub, f"{path}/properties/{name}", changes)
            if name not in required:
                if required is given:
                    required = list(given)
                required.append(name)
                child = _nullable(child)
                changes.append(f"{path}/properties/{name}: made required and nullable")
            if child is not sub and new_props is None:
                new_props = dict(properties)
            if new_props is not None:
                new_props[name] = child
        if new_props is not None or required is not given:
            out = dict(node)
            out["properties"] = properties if new_props is None else new_props
            out["required"] = required
    if "items" in node:
        items = _strict_node(node["items"], f"{path}/items", changes)
        if items is not node["items"]:
            out = dict(node) if out is None else out
            out["items"] = items
    is_object = node.get("type") == "object" or properties is not None
    if is_object and node.get("additionalProperties") is not False:
        out = dict(node) if out is None else out
        out["additionalProperties"] = False
        changes.append(f"{path}: additionalProperties set to false")
    if out is None:
        return node if type(node) is dict else dict(node)
    return out


def _nullable(schema: Any) -> Any:
    if type(schema) is not dict and not isinstance(schema, Mapping):
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
