"""Tool definitions across APIs: reading a wire tool into a canonical definition once per kind,
the overlay that writes it back byte for byte, and the losses of what another API cannot take."""

from __future__ import annotations

import marshal
import typing
from collections.abc import Callable, Collection, Mapping
from typing import Any, TypeVar

from partwire._base import NOT_JSON, ProviderData, build, json_copy, provider_data, with_field
from partwire._json import KEY_VERSION, SHAPE_ERRORS, same_json
from partwire._memo import memo
from partwire.adapters._losses import LossCollector
from partwire.adapters.requests import ToolSpec
from partwire.errors import SchemaError
from partwire.tools import (
    CacheHint,
    ServerToolDefinition,
    SideEffects,
    ToolDefinition,
    check_schema,
    portable_copy,
    valid_tool_name,
)

__all__ = [
    "OMIT",
    "all_canonical",
    "apply_overlay",
    "callers_to_wire",
    "definition_from_wire",
    "flag_losses",
    "foreign_tool_loss",
    "import_tool",
    "imported_definition",
    "keep_wire_schema",
    "location_fields",
    "overlay_for",
    "schema_or_none",
    "server_kind_loss",
    "server_setting_losses",
    "tool_overlay",
    "with_overlay",
]




# (api, the wire tool's key) -> the definition read from it, or None when it stays a dict. A
# gateway reads the same tools with every request of a session (the recorded corpus sends 107
# Chat tools of 21 kinds, 209 Anthropic tools of 46): each kind is validated once.
_IMPORTED: dict[tuple[str, bytes], ToolDefinition | ServerToolDefinition | None] = memo({})
_IMPORTED_MAX = 256


def all_canonical(tools: tuple[ToolSpec, ...]) -> bool:
    """Whether every tool is a :class:`ToolDefinition` or a :class:`ServerToolDefinition` (none
    stayed a dict). By exact class first: an isinstance() on a pydantic class that misses goes
    through ABCMeta's check, and a reader asks it of every tool of every request it remembers."""
    for tool in tools:
        kind = type(tool)
        if kind is not ToolDefinition and kind is not ServerToolDefinition and not isinstance(
                tool, ToolDefinition | ServerToolDefinition):
            return False
    return True


def import_tool(api: str, tool: dict[str, Any], read: Callable[[dict[str, Any]], ToolSpec],
                schema: Any = None) -> ToolSpec:
    """``read(tool)``, remembered by the tool's value, so a tool seen before is not validated
    again. ``read`` must be a pure function of the tool's JSON (the readers of ``tool_from_wire``
    are). ``schema`` is the tool's own input schema on the wire (``None`` for a server tool).

    A remembered definition is given again only while its schema still equals ``schema``: a
    body that shared it and was changed in place does not change what later imports read. A
    tool that stays a dict is returned as the caller's own object, never another request's.
    """
    try:
        key = (api, marshal.dumps(tool, KEY_VERSION))
    except (ValueError, RecursionError):  # not plain built-in values: read (and refused) as is
        return read(tool)
    if key in _IMPORTED:
        found = _IMPORTED[key]
        if found is None:
            return tool
        if schema is None or (type(found) is not ToolDefinition and not isinstance(found, ToolDefinition)) \
                or found.input_schema == schema:
            return found
    spec = read(tool)
    if len(_IMPORTED) >= _IMPORTED_MAX:
        del _IMPORTED[next(iter(_IMPORTED))]  # the oldest kind
    _IMPORTED[key] = spec if type(spec) is ToolDefinition or isinstance(
        spec, ToolDefinition | ServerToolDefinition) else None
    return spec



ToolT = TypeVar("ToolT", ToolDefinition, ServerToolDefinition)
# The key in a tool overlay that names the wire keys the typed fields write but the source left
# out ("$" cannot begin a tool field of any of the APIs).
OMIT = "$omit"
_FLAG_NAMES = ("strict", "defer_loading", "allowed_callers", "input_examples", "cache")


_ABSENT: Any = object()


def tool_overlay(wire: Mapping[str, Any], again: Mapping[str, Any]) -> dict[str, Any] | None:
    """What turns ``again`` (the wire form a tool's typed fields give) into ``wire`` (the tool as
    the API wrote it): the keys to set, and under :data:`OMIT` the keys to leave out. ``None``
    when the typed fields say it all."""
    # Loops rather than comprehensions (each a call of its own here): every tool first read asks.
    overlay: dict[str, Any] = {}
    for k, v in wire.items():
        a = again.get(k, _ABSENT)
        if a is not v and (a is _ABSENT or not same_json(a, v)):
            overlay[k] = v
    omit: list[str] = []
    for k in again:
        if k not in wire:
            omit.append(k)
    if omit:
        overlay[OMIT] = omit
    return overlay or None


def keep_wire_schema(again: dict[str, Any], key: str, wire: Any, copy: Any) -> None:
    """Put ``wire`` (a tool's schema as the wire gave it) in ``again[key]`` when that holds
    ``copy`` unchanged (itself, or a shallow copy of it), where ``copy`` is
    :func:`schema_or_none`'s own copy of ``wire``: the same JSON, of the same types in the same
    order. :func:`tool_overlay` then finds the two the same by identity, where comparing them
    took a deep comparison and two marshallings of the schema on every tool first read."""
    made = again.get(key)
    if made is copy or (type(made) is dict and type(copy) is dict and len(made) == len(copy)
                        and all(made.get(k, _ABSENT) is v for k, v in copy.items())):
        again[key] = wire


def apply_overlay(out: dict[str, Any], overlay: Mapping[str, Any] | None) -> dict[str, Any]:
    """``out`` with a tool overlay applied (see :func:`tool_overlay`)."""
    if overlay:
        for key, value in overlay.items():
            if key != OMIT:
                out[key] = value
        for key in overlay.get(OMIT, ()):
            out.pop(key, None)
    return out


def with_overlay(tool: ToolT, api: str, issuer: str, overlay: dict[str, Any] | None,
                 own: Any = None) -> ToolT:
    """``tool`` carrying ``overlay`` as its issuer-tagged provider data (``{api: overlay}``).
    ``own``: a value of the overlay that is already partwire's own plain copy (a wire schema
    copied while it was converted), kept as it is where every other value is copied."""
    if overlay is None:
        return tool
    if own is not None:
        data: dict[str, Any] = {}
        for key, value in overlay.items():
            made = value if value is own else json_copy(value)
            if made is NOT_JSON:
                break
            data[key] = made
        else:
            return with_field(tool, "provider_data", provider_data(issuer, {api: data}, copied=True))
    return with_field(tool, "provider_data", provider_data(issuer, {api: overlay}))


_SIDE_EFFECTS = frozenset(typing.get_args(SideEffects))


def _plain_flags(flags: Mapping[str, Any]) -> bool:
    """Whether every flag is one :func:`imported_definition` takes without validation: unset, or
    ``strict`` / ``defer_loading`` a bool, ``allowed_callers`` a tuple of strings, ``cache`` a
    :class:`CacheHint` (validation keeps a model instance as it is; an example is validated). A
    loop of plain tests: every tool first read asks."""
    for key, value in flags.items():
        if value is None:
            if key not in _FLAG_NAMES:
                return False
        elif key == "strict" or key == "defer_loading":
            if type(value) is not bool:
                return False
        elif key == "cache":
            if type(value) is not CacheHint:
                return False
        elif key != "allowed_callers" or type(value) is not tuple or not all(
                type(c) is str for c in value):
            return False
    return True


def imported_definition(name: Any, description: Any, schema: dict[str, Any], portable: bool,
                        side_effects: str, *, own: bool = False, **flags: Any) -> ToolDefinition:
    """``ToolDefinition(name=name, description=description, input_schema=schema,
    side_effects=side_effects, portable_schema=portable, **flags)``, where ``schema``,
    ``portable`` and ``own`` are what :func:`schema_or_none` gave (the schema already checked
    when portable, and already copied when ``own``).

    A tool read from a request body is plain JSON: its schema is copied as validation would copy
    it (:func:`~partwire._base.json_copy`, unless it is ``own`` copy already) and not checked a
    second time, the name checked by the same rule; the instance equals and dumps like the
    validated one. Anything else (a value of another type, a flag to convert) goes through the
    constructor, which raises as usual.
    """
    if (type(name) is str and type(description) is str and type(schema) is dict
            and type(portable) is bool and valid_tool_name(name)
            and side_effects in _SIDE_EFFECTS
            and (not flags or _plain_flags(flags))):
        copied = schema if own else json_copy(schema)
        if copied is not NOT_JSON:
            return build(ToolDefinition, {"name": name, "description": description, "input_schema": copied,
                                          "side_effects": side_effects, "portable_schema": portable,
                                          **flags})
    return ToolDefinition(name=name, description=description, input_schema=schema,
                          side_effects=side_effects, portable_schema=portable, **flags)


def definition_from_wire(wire: dict[str, Any], name: Any, description: Any, parameters: Any,
                         side_effects: str, again: Callable[[ToolDefinition], dict[str, Any]],
                         api: str, issuer: str, *, wire_key: str | tuple[str, ...] | None = None,
                         fresh: Any = None, **flags: Any) -> ToolSpec:
    """The function tool ``wire`` (its ``name``, ``description``, ``parameters`` schema and typed
    ``flags`` as read from it) as a :class:`ToolDefinition` carrying the overlay that turns
    ``again(definition)``, its re-encoding, back into ``wire``; ``wire`` itself when its schema
    or fields make no definition. A description that is not a string reads as empty.

    ``wire_key`` names the field of ``wire`` that ``parameters`` is, as the wire gave it (not a
    conversion of it), or the path of keys to it (``("function", "parameters")``): the
    re-encoding then holds that very object (:func:`keep_wire_schema`), so the overlay is found
    by identity.

    ``fresh``: ``parameters`` was converted from a wire schema (Gemini's OpenAPI dialect), and
    both it and ``fresh``, the copy of that wire schema in ``wire``, are partwire's own plain
    copies made by the conversion: the schema is checked and not copied again, nor is ``fresh``
    in the overlay that gives the wire schema back."""
    schema, portable, own = schema_or_none(parameters, fresh=fresh is not None)
    if schema is None:
        return wire
    try:
        definition = imported_definition(name, description if isinstance(description, str) else "",
                                         schema, portable, side_effects, own=own, **flags)
    except (*SHAPE_ERRORS, SchemaError):
        return wire
    encoded = again(definition)
    if own and wire_key is not None:
        holder: Any = encoded
        *outer, field = (wire_key,) if isinstance(wire_key, str) else wire_key
        for key in outer:
            holder = holder.get(key) if type(holder) is dict else None
        if type(holder) is dict:
            keep_wire_schema(holder, field, parameters, schema)
    return with_overlay(definition, api, issuer, tool_overlay(wire, encoded), fresh)


def overlay_for(tool: ToolDefinition | ServerToolDefinition, api: str, issuers: Collection[str],
                path: str, losses: LossCollector | None) -> Mapping[str, Any] | None:
    """The overlay ``tool`` holds for ``api`` when its issuer is accepted; any other provider
    data it holds is reported as dropped at ``<path>.provider_data``."""
    pd = tool.provider_data
    if pd is None:
        return None
    data = pd.data if isinstance(pd.data, dict) else None
    mine = data.get(api) if data is not None and pd.issuer in issuers else None
    if isinstance(mine, dict) and len(data or {}) == 1:
        return mine
    if losses is not None and pd.data:
        losses.add(f"{path}.provider_data", _tool_kind(tool), "dropped", _foreign_reason(pd))
    return mine if isinstance(mine, dict) else None


# id(provider data) -> (the provider data, why it is not sent): a conversation sends the same
# tools, each with the same echo state, with every request, and the reason names its fields
# sorted. The entry holds the provider data, so its id is not reused while remembered. Bounded.
_REASONS: dict[int, tuple[ProviderData, str]] = memo({})
_REASONS_LIMIT = 256


def _foreign_reason(pd: ProviderData) -> str:
    found = _REASONS.get(id(pd))
    if found is not None and found[0] is pd:
        return found[1]
    data = pd.data if isinstance(pd.data, dict) else {}
    what = ", ".join(sorted(k for v in data.values() if isinstance(v, dict) for k in v
                            if k != OMIT)) or "its settings"
    reason = f"{pd.issuer}'s own fields of this tool ({what}) are sent only to the API that wrote them"
    if len(_REASONS) >= _REASONS_LIMIT:
        _REASONS.clear()
    _REASONS[id(pd)] = (pd, reason)
    return reason


def _tool_kind(tool: ToolDefinition | ServerToolDefinition) -> str:
    # The exact class first: an isinstance() that misses goes through ABCMeta's check.
    return "tool" if type(tool) is ToolDefinition or isinstance(tool, ToolDefinition) else "server_tool"


def flag_losses(tool: ToolDefinition, path: str, losses: LossCollector | None, api: str,
                supported: Collection[str]) -> None:
    """Report each provider flag of ``tool`` that is set and that ``api`` has no field for."""
    if losses is None:
        return
    fields = tool.__dict__
    for name in _FLAG_NAMES:
        if name in supported:
            continue
        value = fields[name]
        if value is None or value is False or value == () or (name == "allowed_callers" and value == ("direct",)):
            continue
        losses.add(f"{path}.{name}", "tool", "dropped", f"{api} tool definitions have no {name}")


def callers_to_wire(callers: tuple[str, ...], accepted: Callable[[str], bool], path: str,
                    losses: LossCollector | None, api: str) -> list[str]:
    """The allowed callers ``api`` knows, each other one reported as dropped."""
    kept = [c for c in callers if accepted(c)]
    if losses is not None and len(kept) != len(callers):
        dropped = [c for c in callers if not accepted(c)]
        losses.add(f"{path}.allowed_callers", "tool", "dropped",
                   f"{api} has no caller {', '.join(map(repr, dropped))}")
    return kept


def server_setting_losses(tool: ServerToolDefinition, path: str, losses: LossCollector | None, api: str,
                          supported: Collection[str]) -> None:
    """Report each typed setting of a server tool that is set and that ``api`` cannot send."""
    if losses is None:
        return
    for name in ("allowed_domains", "blocked_domains", "max_uses", "user_location", "url", "cache"):
        if name not in supported and getattr(tool, name) is not None:
            losses.add(f"{path}.{name}", "server_tool", "dropped",
                       f"{api}'s {tool.kind} tool has no {name}")


def server_kind_loss(tool: ServerToolDefinition, path: str, losses: LossCollector | None, api: str,
                     why: str = "") -> None:
    """Report a server tool ``api`` cannot send at all."""
    if losses is not None:
        losses.add(path, "server_tool", "dropped",
                   why or f"{api} has no provider-run {tool.kind.replace('_', ' ')} tool")


def foreign_tool_loss(path: str, losses: LossCollector | None, api: str) -> None:
    """Report a native tool dict that is not in ``api``'s shape: never copied into its body."""
    if losses is not None:
        losses.add(path, "tool", "dropped",
                   f"a native tool dict not in {api}'s shape is sent only to the API it was "
                   "written for (pass a ToolDefinition or a ServerToolDefinition to convert it)")


def location_fields(location: Any) -> dict[str, str]:
    """The fields of a :class:`~partwire.tools.UserLocation` that are set, by wire name."""
    return {k: v for k in ("city", "region", "country", "timezone")
            if (v := getattr(location, k)) is not None}


def schema_or_none(schema: Any, *, fresh: bool = False) -> tuple[dict[str, Any] | None, bool, bool]:
    """An imported input schema, whether it is within the portable subset, and whether it is a
    copy of our own; ``None`` when it is not a JSON object at all.

    A schema of plain JSON is checked and copied in one walk, within the subset or not
    (:func:`~partwire.tools.portable_copy`): :func:`imported_definition` keeps that copy
    (``own``) instead of copying it again. Any other comes back as given. A ``fresh`` schema
    already is our own plain copy: it is checked only, and comes back itself."""
    if type(schema) is not dict:
        return None, False, False
    if fresh:
        try:
            check_schema(schema)
        except SchemaError:
            return schema, False, True
        return schema, True, True
    copied, problem = portable_copy(schema)
    if copied is NOT_JSON:
        return schema, problem is None, False
    return copied, problem is None, True
