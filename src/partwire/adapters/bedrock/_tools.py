"""Tool definitions and tool choice: canonical -> Converse ``toolConfig`` and back.

``toolConfig.tools`` is a list of unions: ``toolSpec`` (a function tool), ``systemTool`` (a tool
the model runs itself, by name: Nova's ``nova_grounding`` web search) and ``cachePoint`` (a cache
breakpoint after the tools before it). A :class:`ToolDefinition`'s ``cache`` is the cache point
after it; the flags Converse has no field for are reported at ``request.tools[i].<field>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from partwire._json import SHAPE_ERRORS
from partwire.adapters._losses import LossCollector
from partwire.adapters._tool_import import import_tool
from partwire.adapters.bedrock._wire import API, ISSUER
from partwire.adapters.requests import ToolChoice, ToolSpec
from partwire.errors import SchemaError
from partwire.tools import CacheHint, ServerToolDefinition, ToolDefinition

__all__ = ["IMPORTED_SIDE_EFFECTS", "tool_choice_from_wire", "tools_from_wire", "tools_to_wire"]

IMPORTED_SIDE_EFFECTS = "execute"
"""Side effects cannot be read off the wire; an imported tool is assumed to do the most a tool may."""
_SPEC_KEYS = frozenset({"name", "description", "inputSchema", "strict"})
# Converse's system tools partwire knows a kind for; any other name stays a native dict.
_SYSTEM_TOOLS = {"nova_grounding": "web_search"}
_SYSTEM_NAMES = {kind: name for name, kind in _SYSTEM_TOOLS.items()}
# The members of Converse's Tool union: a native dict is sent as it is only in this shape.
_NATIVE_KEYS = frozenset({"toolSpec", "systemTool", "cachePoint"})


def tools_to_wire(tools: Sequence[ToolSpec], losses: LossCollector) -> list[dict[str, Any]]:
    """``toolConfig.tools`` for ``tools``; what Converse cannot hold is reported."""
    out: list[dict[str, Any]] = []
    for k, tool in enumerate(tools):
        if isinstance(tool, ToolDefinition):
            out.append(_spec_to_wire(tool, k, losses))
            if tool.cache is not None:
                point = {"type": "default"}
                if tool.cache.ttl is not None:
                    point["ttl"] = tool.cache.ttl
                out.append({"cachePoint": point})
        elif isinstance(tool, ServerToolDefinition):
            wire = _server_to_wire(tool, k, losses)
            if wire is not None:
                out.append(wire)
        elif len(tool) == 1 and next(iter(tool)) in _NATIVE_KEYS:
            out.append(dict(tool))
        else:  # another API's native tool: never copied into a Converse body
            losses.add(f"request.tools[{k}]", "tool", "dropped",
                       f"a native tool of another API's shape ({sorted(tool)[:3]}) has no Converse form; "
                       "Converse tools are toolSpec, systemTool or cachePoint")
    return out


def _spec_to_wire(tool: ToolDefinition, k: int, losses: LossCollector) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": tool.name}
    if tool.description:  # NonEmptyString: an empty description is left out
        spec["description"] = tool.description
    spec["inputSchema"] = {"json": tool.input_schema}
    if tool.strict is not None:
        spec["strict"] = tool.strict
    for name in ("defer_loading", "allowed_callers", "input_examples"):
        if getattr(tool, name) is not None:
            losses.add(f"request.tools[{k}].{name}", "tool", "dropped",
                       f"Converse tool specifications have no {name}")
    pd = tool.provider_data
    if pd is not None:
        if pd.issuer == ISSUER and isinstance(pd.data, dict):
            spec = {**pd.data, **spec}
        else:
            # The tool goes out; only its echo state for another API stays behind.
            losses.add(f"request.tools[{k}].provider_data", "tool", "dropped",
                       f"provider data from {pd.issuer} is not sent to Bedrock")
    return {"toolSpec": spec}


def _server_to_wire(tool: ServerToolDefinition, k: int, losses: LossCollector) -> dict[str, Any] | None:
    name = tool.name if tool.issuer == ISSUER else _SYSTEM_NAMES.get(tool.kind)
    if name is None:
        losses.add(f"request.tools[{k}]", "server_tool", "dropped",
                   f"Converse has no {tool.kind} system tool (its system tools are the model's own, "
                   "by name)")
        return None
    for field in ("allowed_domains", "blocked_domains", "max_uses", "user_location", "url", "cache"):
        if getattr(tool, field) is not None:
            losses.add(f"request.tools[{k}].{field}", "server_tool", "dropped",
                       f"a Converse system tool takes only its name, not {field}")
    if tool.provider_data is not None and tool.provider_data.issuer != ISSUER:
        losses.add(f"request.tools[{k}]", "server_tool", "dropped",
                   f"provider data from {tool.provider_data.issuer} is not sent to Bedrock")
    return {"systemTool": {"name": name}}


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


def tools_from_wire(tools: list[Any]) -> tuple[ToolSpec, ...]:
    """``toolConfig.tools`` read back: definitions (a cache point after one is its ``cache``),
    system tools partwire knows, native dicts for the rest; re-encoding gives the list back."""
    out: list[ToolSpec] = []
    for tool in tools:
        if isinstance(tool, dict) and set(tool) == {"cachePoint"} and out \
                and isinstance(out[-1], ToolDefinition) and out[-1].cache is None:
            cache = _cache_from_wire(tool["cachePoint"])
            if cache is not None:
                out[-1] = out[-1].model_copy(update={"cache": cache})
                continue
        out.append(_tool_from_wire(tool))
    return tuple(out)


def _cache_from_wire(point: Any) -> CacheHint | None:
    if not isinstance(point, dict) or point.get("type") != "default" or not set(point) <= {"type", "ttl"}:
        return None
    ttl = point.get("ttl")
    return CacheHint(ttl=ttl) if ttl is None or isinstance(ttl, str) else None


def _tool_from_wire(tool: Any) -> ToolSpec:
    if not isinstance(tool, dict):
        return {"invalid": tool}
    system = tool.get("systemTool")
    if set(tool) == {"systemTool"} and isinstance(system, dict) and set(system) == {"name"} \
            and system["name"] in _SYSTEM_TOOLS:
        return ServerToolDefinition(kind=_SYSTEM_TOOLS[system["name"]], issuer=ISSUER,
                                    name=system["name"])
    if set(tool) != {"toolSpec"} or not isinstance(tool["toolSpec"], dict) \
            or not set(tool["toolSpec"]) <= _SPEC_KEYS:
        return tool
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
            side_effects=IMPORTED_SIDE_EFFECTS, strict=spec.get("strict"), portable_schema=False,
        )
    except (*SHAPE_ERRORS, SchemaError):
        return tool
    again = _spec_to_wire(definition, 0, LossCollector(API))
    return definition if again == tool else tool
