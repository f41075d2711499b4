"""Tool definitions and tool choice for Gemini, with the schema-dialect rewrites reported.

Canonical definitions become ``functionDeclarations``, gathered into one ``Tool`` (as the SDK
does) at the place of the first of them; native dicts pass through: a dict with a ``name`` is a
``FunctionDeclaration`` and joins the others, any other dict is a whole ``Tool``
(``googleSearch``, ``codeExecution``, ...). The schema goes as ``parametersJsonSchema`` (full JSON
Schema; the canonical subset fits it as it is) or, with ``schema_dialect="openapi"``, as
``parameters`` in Gemini's OpenAPI dialect, every rewrite reported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from partwire.adapters._common import SHAPE_ERRORS, Losses, ToolChoice, ToolSpec
from partwire.errors import SchemaError
from partwire.tools import ToolDefinition

__all__ = [
    "IMPORTED_SIDE_EFFECTS",
    "SchemaDialect",
    "openapi_schema",
    "tool_choice_from_wire",
    "tool_choice_to_wire",
    "tools_from_wire",
    "tools_to_wire",
]

SchemaDialect = Literal["json_schema", "openapi"]
"""How a tool's input schema is sent: ``parametersJsonSchema`` or ``parameters`` (OpenAPI)."""

IMPORTED_SIDE_EFFECTS = "execute"
"""Side effects cannot be read off the wire; an imported tool is assumed to do the most a tool may."""

_CHOICES = {"auto": "AUTO", "required": "ANY", "any": "ANY", "none": "NONE"}
_MODES = {"AUTO": "auto", "ANY": "required", "NONE": "none"}


def openapi_schema(schema: Any, path: str, changes: list[str], *, vertex: bool) -> Any:
    """A JSON Schema (the canonical subset) in Gemini's OpenAPI ``Schema`` dialect.

    Types go upper-case; a type list with ``null`` becomes one type plus ``nullable``; enum values
    become strings (the dialect takes string enums only); ``additionalProperties`` is dropped for
    the Gemini API (only Vertex takes it). Every change of meaning is appended to ``changes``.
    """
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        where = f"{path}/{key}"
        if key == "type":
            types = value if isinstance(value, list) else [value]
            real = [t for t in types if t != "null"]
            if len(real) > 1:
                changes.append(f"{where}: a union of types {real} is not expressible; "
                               f"kept {real[0]}")
            if real:
                out["type"] = str(real[0]).upper()
            if "null" in types:
                out["nullable"] = True
                if not real:
                    out["type"] = "NULL"
        elif key == "properties" and isinstance(value, Mapping):
            out["properties"] = {name: openapi_schema(sub, f"{where}/{name}", changes, vertex=vertex)
                                 for name, sub in value.items()}
        elif key == "items":
            out["items"] = openapi_schema(value, where, changes, vertex=vertex)
        elif key == "enum" and isinstance(value, list):
            strings = [v if isinstance(v, str) else str(v) for v in value if v is not None]
            if strings != value:
                changes.append(f"{where}: enum values sent as strings (the dialect takes only strings)")
            if None in value:
                out["nullable"] = True
            out["enum"] = strings
        elif key == "additionalProperties":
            if vertex:
                out[key] = value
            else:
                changes.append(f"{where}: dropped (the Gemini API takes it only on Vertex AI)")
        else:
            out[key] = value
    return out


def tools_to_wire(tools: Sequence[ToolSpec], losses: Losses, *, dialect: SchemaDialect,
                  vertex: bool) -> list[dict[str, Any]]:
    """The ``tools`` list: one ``functionDeclarations`` Tool, and the native Tools in order."""
    out: list[dict[str, Any]] = []
    declarations: list[dict[str, Any]] | None = None
    for i, tool in enumerate(tools):
        if isinstance(tool, ToolDefinition) or (isinstance(tool, Mapping) and "name" in tool):
            if declarations is None:
                declarations = []
                out.append({"functionDeclarations": declarations})
            declarations.append(_declaration(tool, f"tools[{i}]", losses, dialect=dialect,
                                             vertex=vertex))
        elif isinstance(tool, Mapping):
            out.append(dict(tool))
        else:
            raise TypeError(f"tools[{i}]: expected a ToolDefinition or a dict, got "
                            f"{type(tool).__name__}")
    return out


def _declaration(tool: ToolDefinition | Mapping[str, Any], path: str, losses: Losses, *,
                 dialect: SchemaDialect, vertex: bool) -> dict[str, Any]:
    if not isinstance(tool, ToolDefinition):
        return dict(tool)
    out: dict[str, Any] = {"name": tool.name, "description": tool.description}
    if dialect == "json_schema":
        out["parametersJsonSchema"] = tool.input_schema
        return out
    changes: list[str] = []
    properties = tool.input_schema.get("properties")
    if properties:
        # An OBJECT with no properties is refused ("properties: should be non-empty").
        out["parameters"] = openapi_schema(tool.input_schema, "#", changes, vertex=vertex)
    for change in changes:
        losses.add(f"{path}.parameters", "tool", "rewritten", f"OpenAPI schema dialect: {change}")
    return out


def tool_choice_to_wire(choice: ToolChoice | None) -> dict[str, Any] | None:
    """``toolConfig``: auto / required / none, one tool's name, or a native ``toolConfig``."""
    if choice is None:
        return None
    if isinstance(choice, Mapping):
        return dict(choice)
    mode = _CHOICES.get(choice)
    if mode is not None:
        return {"functionCallingConfig": {"mode": mode}}
    return {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [choice]}}


def tool_choice_from_wire(config: Any) -> ToolChoice | None:
    """The canonical tool choice of a ``toolConfig`` when it says exactly that, else the dict."""
    if not isinstance(config, dict):
        return None
    calling = config.get("functionCallingConfig")
    if set(config) == {"functionCallingConfig"} and isinstance(calling, dict):
        mode = calling.get("mode")
        if set(calling) == {"mode"} and mode in _MODES:
            return _MODES[mode]
        names = calling.get("allowedFunctionNames")
        if set(calling) == {"mode", "allowedFunctionNames"} and mode == "ANY" \
                and isinstance(names, list) and len(names) == 1 and isinstance(names[0], str) \
                and names[0] not in _CHOICES:
            return names[0]
    return config


def tools_from_wire(tools: Any) -> tuple[ToolSpec, ...]:
    """Canonical definitions where a declaration is exactly one; native dicts otherwise.

    Re-encoding gives the list back: declarations are taken out of their Tool only when there
    is one ``functionDeclarations`` Tool and it holds nothing else.
    """
    if not isinstance(tools, list):
        return ()
    holders = [t for t in tools if isinstance(t, dict) and "functionDeclarations" in t]
    if len(holders) != 1 or set(holders[0]) != {"functionDeclarations"} \
            or not isinstance(holders[0]["functionDeclarations"], list) \
            or not holders[0]["functionDeclarations"] \
            or not all(isinstance(d, dict) and "name" in d for d in holders[0]["functionDeclarations"]):
        return tuple(tools)
    out: list[ToolSpec] = []
    for tool in tools:
        if tool is holders[0]:
            out.extend(_declaration_from_wire(d) for d in tool["functionDeclarations"])
        else:
            out.append(tool)
    return tuple(out)


def _declaration_from_wire(declaration: dict[str, Any]) -> ToolSpec:
    if set(declaration) != {"name", "description", "parametersJsonSchema"}:
        return declaration
    try:
        definition = ToolDefinition(
            name=declaration["name"], description=declaration["description"],
            input_schema=declaration["parametersJsonSchema"], side_effects=IMPORTED_SIDE_EFFECTS)
    except (*SHAPE_ERRORS, SchemaError):
        return declaration
    again = {"name": definition.name, "description": definition.description,
             "parametersJsonSchema": definition.input_schema}
    return definition if again == declaration else declaration
