"""Tool definitions and tool choice for Gemini, with the schema-dialect rewrites reported.

Canonical definitions become ``functionDeclarations``, gathered into one ``Tool`` (as the SDK
does) at the place of the first of them. The schema goes as ``parametersJsonSchema`` (full JSON
Schema; the canonical subset fits it as it is, a schema outside the subset loses the keywords
Gemini does not take, each reported) or, with ``schema_dialect="openapi"``, as ``parameters`` in
Gemini's OpenAPI dialect, every rewrite reported. Server tools are Tools of their own:
``googleSearch`` (web search), ``urlContext`` (web fetch), ``codeExecution``, ``fileSearch``,
``computerUse`` and ``mcpServers``. A native dict passes only when it has Gemini's shape: a dict
of ``FunctionDeclaration`` keys joins the declarations, a dict of ``Tool`` keys is a whole Tool.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Literal

from partwire._base import NOT_JSON, json_copy
from partwire._memo import memo
from partwire.adapters import _tool_import
from partwire.adapters._losses import LossCollector
from partwire.adapters.google._wire import API, ISSUER, camel_keys, camel_top
from partwire.adapters.requests import ToolChoice, ToolSpec
from partwire.projection import LossAction
from partwire.tools import ServerToolDefinition, ToolDefinition

__all__ = [
    "IMPORTED_SIDE_EFFECTS",
    "SchemaDialect",
    "is_wire_tool",
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
_DECLARATION_KEYS = frozenset({"name", "description", "parameters", "parametersJsonSchema",
                               "response", "responseJsonSchema", "behavior"})
_TOOL_KEYS = frozenset({"functionDeclarations", "googleSearch", "codeExecution", "urlContext",
                        "googleSearchRetrieval", "googleMaps", "computerUse", "fileSearch",
                        "mcpServers", "retrieval", "enterpriseWebSearch", "parallelAiSearch",
                        "exaAiSearch"})
# One-key Tools that are a canonical server tool, and the Tool each kind becomes.
_KIND_OF = {"googleSearch": "web_search", "urlContext": "web_fetch", "codeExecution": "code_execution",
            "fileSearch": "file_search", "computerUse": "computer_use", "mcpServers": "mcp"}
_DEFAULTS: dict[str, dict[str, Any]] = {
    "web_search": {"googleSearch": {}}, "web_fetch": {"urlContext": {}},
    "code_execution": {"codeExecution": {}},
}
# The keywords of Gemini's JSON-Schema subset (``parametersJsonSchema``; docs/adapters/google.md).
_JSON_SCHEMA_KEYWORDS = frozenset({
    "$id", "$defs", "$ref", "$anchor", "type", "format", "title", "description", "enum", "items",
    "prefixItems", "minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf", "properties",
    "additionalProperties", "required", "propertyOrdering", "minProperties", "maxProperties",
    "minLength", "maxLength", "pattern", "uniqueItems", "default",
})
_SUB_MAPS = ("properties", "$defs")
_SUB_LISTS = ("anyOf", "oneOf", "prefixItems")


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


def is_wire_tool(tool: Mapping[str, Any]) -> bool:
    """Whether a native dict has Gemini's shape: a ``FunctionDeclaration`` or a ``Tool``."""
    keys = set(tool)
    return bool(keys) and (keys <= _TOOL_KEYS or (
        "name" in keys and keys <= _DECLARATION_KEYS and isinstance(tool.get("name"), str)))


def json_schema_for_gemini(schema: Any, path: str, changes: list[str]) -> Any:
    """A JSON Schema without the keywords outside Gemini's subset; each removal is appended to
    ``changes``. A ``const`` becomes a one-value ``enum``, which says the same."""
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        where = f"{path}/{key}"
        if key in _SUB_MAPS and isinstance(value, Mapping):
            out[key] = {name: json_schema_for_gemini(sub, f"{where}/{name}", changes)
                        for name, sub in value.items()}
        elif key in _SUB_LISTS and isinstance(value, list):
            out[key] = [json_schema_for_gemini(sub, f"{where}/{n}", changes) for n, sub in enumerate(value)]
        elif key in ("items", "additionalProperties") and isinstance(value, Mapping):
            out[key] = json_schema_for_gemini(value, where, changes)
        elif key == "const" and "enum" not in schema:
            out["enum"] = [value]
            changes.append(f"{where}: sent as a one-value enum")
        elif key in _JSON_SCHEMA_KEYWORDS:
            out[key] = value
        else:
            changes.append(f"{where}: dropped (not in Gemini's JSON-Schema subset)")
    return out


def tools_to_wire(tools: Sequence[ToolSpec], losses: LossCollector | None, *, dialect: SchemaDialect,
                  vertex: bool, issuers: Collection[str] = (ISSUER,)) -> list[dict[str, Any]]:
    """The ``tools`` list: one ``functionDeclarations`` Tool, and the other Tools in order."""
    out: list[dict[str, Any]] = []
    declarations: list[dict[str, Any]] | None = None
    for i, tool in enumerate(tools):
        path = f"request.tools[{i}]"
        declaration: dict[str, Any] | None = None
        if type(tool) is ToolDefinition or isinstance(tool, ToolDefinition):
            declaration = _tool_import.apply_overlay(
                _declared(tool, path, losses, dialect=dialect, vertex=vertex),
                _tool_import.overlay_for(tool, API, issuers, path, losses))
        elif isinstance(tool, ServerToolDefinition):
            wire = _server_to_wire(tool, path, losses, issuers, vertex=vertex)
            if wire is not None:
                out.append(wire)
        elif isinstance(tool, Mapping) and is_wire_tool(tool):
            if set(tool) <= _TOOL_KEYS:
                out.append(dict(tool))
            else:
                declaration = dict(tool)
        elif isinstance(tool, Mapping):
            _tool_import.foreign_tool_loss(path, losses, "Gemini")
        else:
            raise TypeError(f"tools[{i}]: expected a ToolDefinition, a ServerToolDefinition or a "
                            f"dict, got {type(tool).__name__}")
        if declaration is not None:
            if declarations is None:
                declarations = []
                out.append({"functionDeclarations": declarations})
            declarations.append(declaration)
    return out


# (id(tool), dialect, vertex) -> (the tool, its declaration, the losses of making it as (path
# after the tool's own, part type, action, reason)): an agent sends the same definitions with
# every request, and a schema outside the portable subset is rewritten by a walk each time. The
# entry holds the tool, so its id is not reused while it is remembered. Bounded.
_Made = tuple[tuple[str, str, LossAction, str], ...]
_DECLARED: dict[tuple[int, str, bool], tuple[ToolDefinition, dict[str, Any], _Made]] = memo({})
_DECLARED_LIMIT = 256


def _declared(tool: ToolDefinition, path: str, losses: LossCollector | None, *,
              dialect: SchemaDialect, vertex: bool) -> dict[str, Any]:
    """:func:`_declaration`, remembered: a copy of the declaration (its schema shared), and its
    losses reported at ``path``."""
    key = (id(tool), dialect, vertex)
    found = _DECLARED.get(key)
    if found is None or found[0] is not tool:
        made = LossCollector(API)
        declaration = _declaration(tool, "", made, dialect=dialect, vertex=vertex)
        found = (tool, declaration,
                 tuple((loss.path, loss.part_type, loss.action, loss.reason) for loss in made.items))
        if len(_DECLARED) >= _DECLARED_LIMIT:
            _DECLARED.clear()
        _DECLARED[key] = found
    if losses is not None:
        for where, part_type, action, reason in found[2]:
            losses.add(path + where, part_type, action, reason)
    return dict(found[1])


def _declaration(tool: ToolDefinition, path: str, losses: LossCollector | None, *,
                 dialect: SchemaDialect, vertex: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"name": tool.name}
    if tool.description:
        out["description"] = tool.description
    _tool_import.flag_losses(tool, path, losses, "Gemini", ())
    changes: list[str] = []
    if dialect == "json_schema" or not tool.portable_schema:
        if dialect == "openapi" and losses is not None:
            losses.add(f"{path}.parameters", "tool", "rewritten",
                       "a schema outside the portable subset goes as parametersJsonSchema (the "
                       "OpenAPI dialect cannot hold it)")
        if tool.portable_schema:
            out["parametersJsonSchema"] = tool.input_schema
        else:
            out["parametersJsonSchema"] = json_schema_for_gemini(tool.input_schema, "#", changes)
        for change in changes:
            if losses is not None:
                losses.add(f"{path}.parametersJsonSchema", "tool", "rewritten", change)
        return out
    properties = tool.input_schema.get("properties")
    if properties:
        # An OBJECT with no properties is refused ("properties: should be non-empty").
        out["parameters"] = openapi_schema(tool.input_schema, "#", changes, vertex=vertex)
    for change in changes:
        if losses is not None:
            losses.add(f"{path}.parameters", "tool", "rewritten", f"OpenAPI schema dialect: {change}")
    return out


def _server_to_wire(tool: ServerToolDefinition, path: str, losses: LossCollector | None,
                    issuers: Collection[str], *, vertex: bool) -> dict[str, Any] | None:
    overlay = _tool_import.overlay_for(tool, API, issuers, path, losses)
    default = _DEFAULTS.get(tool.kind)
    if tool.kind == "mcp" and not vertex and (tool.url or tool.name):
        server: dict[str, Any] = {}
        if tool.name:
            server["name"] = tool.name
        if tool.url:
            server["streamableHttpTransport"] = {"url": tool.url}
        default = {"mcpServers": [server]}
    if default is None and not overlay:
        _tool_import.server_kind_loss(tool, path, losses, "Gemini" if tool.kind != "mcp" or not vertex
                                      else "Vertex AI")
        return None
    out = {key: dict(value) if isinstance(value, dict) else value for key, value in (default or {}).items()}
    supported = {"mcp": {"url"}, "web_search": {"blocked_domains"} if vertex else set()}.get(tool.kind, set())
    _tool_import.server_setting_losses(tool, path, losses, "Gemini", supported)
    if tool.kind == "web_search" and vertex and tool.blocked_domains is not None:
        out["googleSearch"]["excludeDomains"] = list(tool.blocked_domains)
    return _tool_import.apply_overlay(out, overlay)


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
    """The canonical tools of a ``tools`` list: each declaration a :class:`ToolDefinition`, each
    server Tool a :class:`ServerToolDefinition`; what has no canonical form stays the dict, in
    camelCase.

    Keys may be in any style: each tool is brought to camelCase when it is read, which happens
    once per kind of tool (:func:`import_tool`). Re-encoding gives the list back, in camelCase:
    declarations are taken out of their Tool only when there is one ``functionDeclarations`` Tool
    and it holds nothing else.
    """
    if not isinstance(tools, list):
        return ()
    named = [camel_top(t) if type(t) is dict else t for t in tools]
    holders = [t for t in named if isinstance(t, dict) and "functionDeclarations" in t]
    split = len(holders) == 1 and set(holders[0]) == {"functionDeclarations"} \
        and isinstance(holders[0]["functionDeclarations"], list) \
        and bool(holders[0]["functionDeclarations"]) \
        and all(isinstance(d, dict) and "name" in d for d in holders[0]["functionDeclarations"])
    if len(holders) > 1 or (holders and not split):
        return tuple(camel_keys(t) for t in tools)  # gathered differently from what the encoder writes: kept whole
    out: list[ToolSpec] = []
    for raw, tool in zip(tools, named, strict=True):
        if holders and tool is holders[0]:
            # Each kind read once (import_tool): a session sends the same tools every turn.
            for declaration in tool["functionDeclarations"]:
                schema = declaration.get("parametersJsonSchema",
                                         declaration.get("parameters_json_schema"))
                spec = _tool_import.import_tool(API, declaration, _read_declaration, schema)
                out.append(camel_keys(declaration) if spec is declaration else spec)
        elif isinstance(tool, dict):
            spec = _tool_import.import_tool(API, raw, _read_server)
            out.append(camel_keys(raw) if spec is raw else spec)
        else:
            out.append(_server_from_wire(tool))
    return tuple(out)


def _read_declaration(declaration: dict[str, Any]) -> ToolSpec:
    return _declaration_from_wire(camel_keys(declaration))


def _read_server(tool: dict[str, Any]) -> ToolSpec:
    return _server_from_wire(camel_keys(tool))


def _declaration_from_wire(declaration: dict[str, Any]) -> ToolSpec:
    wire, fresh = declaration, None
    if "parametersJsonSchema" in declaration:
        parameters = declaration["parametersJsonSchema"]
    elif "parameters" in declaration:
        parameters, fresh = _openapi_read(declaration["parameters"])
        if fresh is None:  # not plain JSON: converted as it is, and copied (or refused) later
            parameters = json_schema_from_openapi(declaration["parameters"])
        else:
            # The overlay gives the wire schema back: from the copy the conversion made.
            wire = {**declaration, "parameters": fresh}
    else:
        parameters = {"type": "object", "properties": {}}
    spec = _tool_import.definition_from_wire(
        wire, declaration["name"], declaration.get("description"), parameters,
        IMPORTED_SIDE_EFFECTS,
        lambda definition: _declaration(definition, "", None, dialect="json_schema", vertex=False),
        API, ISSUER, wire_key="parametersJsonSchema" if "parametersJsonSchema" in declaration else None,
        fresh=fresh)
    return declaration if spec is wire else spec  # a tool that stays a dict is the caller's own


def _server_from_wire(tool: Any) -> ToolSpec:
    if not isinstance(tool, dict) or len(tool) != 1:
        return tool if isinstance(tool, dict) else {"invalid": tool}
    (key, value), = tool.items()
    kind = _KIND_OF.get(key)
    if kind is None or not isinstance(value, dict | list):
        return tool
    name = url = None
    blocked: tuple[str, ...] | None = None
    if kind == "mcp":
        if not (isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict)):
            return tool
        server = value[0]
        transport = server.get("streamableHttpTransport")
        name = server.get("name") if isinstance(server.get("name"), str) else None
        url = transport.get("url") if isinstance(transport, dict) and isinstance(
            transport.get("url"), str) else None
    elif kind == "web_search" and isinstance(value, dict):
        excluded = value.get("excludeDomains")
        if isinstance(excluded, list) and all(isinstance(d, str) for d in excluded):
            blocked = tuple(excluded)
    definition = ServerToolDefinition(kind=kind, issuer=ISSUER, name=name, url=url,
                                      blocked_domains=blocked)
    # Read as on Vertex, which takes every setting above; what Gemini's own API lacks is reported
    # when it is sent there.
    again = _server_to_wire(definition, "", None, (ISSUER,), vertex=kind != "mcp") or {}
    return _tool_import.with_overlay(definition, API, ISSUER, _tool_import.tool_overlay(tool, again))


class _NotPlain(Exception):
    pass


def _openapi_read(schema: Any) -> tuple[Any, Any]:
    """:func:`json_schema_from_openapi` of ``schema`` and a plain copy of ``schema`` itself, made
    in one walk, neither sharing a dict or list with the wire: the definition keeps the first
    (checked, not copied again) and its overlay the second (what gives the wire schema back,
    not copied again either). Three walks of every declaration's schema on its first reading
    were one. ``(None, None)`` when ``schema`` is not plain JSON of exact built-in types."""
    try:
        return _openapi_pair(schema)
    except (_NotPlain, RecursionError):
        return None, None


def _openapi_pair(schema: Any) -> tuple[Any, Any]:
    # json_schema_from_openapi, step for step, with the copy of the original beside it.
    if type(schema) is not dict:
        copied = json_copy(schema)
        if copied is NOT_JSON or isinstance(schema, Mapping):
            raise _NotPlain
        return copied, copied  # a scalar or a list: kept as it is by the conversion
    out: dict[str, Any] = {}
    original: dict[str, Any] = {}
    nullable = schema.get("nullable") is True and isinstance(schema.get("type"), str)
    for key, value in schema.items():
        if type(key) is not str:
            raise _NotPlain
        if key == "type" and type(value) is str:
            out["type"] = value.lower()
            original[key] = value
        elif key == "nullable" and nullable and value is True:
            original[key] = value
        elif key == "properties" and type(value) is dict:
            converted: dict[str, Any] = {}
            copied_properties: dict[str, Any] = {}
            for name, sub in value.items():
                if type(name) is not str:
                    raise _NotPlain
                converted[name], copied_properties[name] = _openapi_pair(sub)
            out[key], original[key] = converted, copied_properties
        elif key == "items":
            out[key], original[key] = _openapi_pair(value)
        elif key == "anyOf" and type(value) is list:
            pairs = [_openapi_pair(sub) for sub in value]
            out[key], original[key] = [c for c, _ in pairs], [o for _, o in pairs]
        else:
            copied = json_copy(value)
            if copied is NOT_JSON:
                raise _NotPlain
            out[key] = original[key] = copied
    if nullable:
        out["type"] = [out["type"], "null"]
    return out, original


def json_schema_from_openapi(schema: Any) -> Any:
    """A schema in Gemini's OpenAPI dialect (``parameters``) as JSON Schema: types lower-case,
    ``nullable`` as a ``null`` type. Other keywords are kept as they are."""
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            out["type"] = value.lower()
        elif key == "nullable" and value is True and isinstance(schema.get("type"), str):
            continue
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {name: json_schema_from_openapi(sub) for name, sub in value.items()}
        elif key == "items":
            out[key] = json_schema_from_openapi(value)
        elif key == "anyOf" and isinstance(value, list):
            out[key] = [json_schema_from_openapi(sub) for sub in value]
        else:
            out[key] = value
    if schema.get("nullable") is True and isinstance(schema.get("type"), str):
        out["type"] = [out["type"], "null"]
    return out
