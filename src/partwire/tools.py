"""Tool definitions, the portable JSON-Schema subset they must stay within, and argument checks.

Two kinds of tool cross providers: a :class:`ToolDefinition` (a function the application runs)
and a :class:`ServerToolDefinition` (a tool the provider runs: web search, code execution, ...).
Every tool an adapter's ``from_wire_request`` reads becomes one of them; the provider flags that
have a meaning elsewhere are typed fields, the rest issuer-tagged ``provider_data``.

The subset is the canonical format spec's (seed 004 §5.4): what Anthropic, OpenAI and Gemini all
accept reliably. A schema outside it fails at construction, naming the keyword and its JSON
pointer, instead of failing at the provider on the first call. An importer that reads a schema
the source API accepted outside the subset keeps it as it is with ``portable_schema=False``
(nothing is checked, nothing is rewritten until an adapter must); see ``docs/conversion.md``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import JsonValue, field_validator, model_validator

from partwire._base import _SCALARS, NOT_JSON, CanonicalModel, ProviderData, json_copy
from partwire.errors import SchemaError
from partwire.parts import ToolCallPart

__all__ = [
    "ALLOWED_FORMATS",
    "ALLOWED_KEYWORDS",
    "SERVER_TOOL_KINDS",
    "ArgumentProblem",
    "CacheHint",
    "ServerToolDefinition",
    "ServerToolKind",
    "SideEffects",
    "ToolDefinition",
    "UserLocation",
    "check_arguments",
    "check_schema",
]

SideEffects = Literal["none", "read", "write", "execute", "network"]
"""What running the tool may do: drives confirmation prompts, routing and tracing."""

JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "null", "object", "array"})
ALLOWED_KEYWORDS = frozenset(
    {"type", "properties", "required", "items", "enum", "description", "title", "format",
     "additionalProperties"}
)
"""Keywords a tool input schema may use."""
ALLOWED_FORMATS = frozenset(
    {"date-time", "date", "time", "duration", "email", "hostname", "ipv4", "ipv6", "uri", "uuid"}
)
"""The "basic format annotations" of the subset."""
# Named so the error can say why, not just "not allowed".
_REFUSED = {
    "$ref": "references are not portable (Gemini and OpenAI strict mode differ); inline the schema",
    "$defs": "definitions only serve $ref, which is not portable",
    "definitions": "definitions only serve $ref, which is not portable",
    "oneOf": "union keywords are not portable; use a single type or an enum",
    "anyOf": "union keywords are not portable; use a single type or an enum",
    "allOf": "union keywords are not portable; merge the schemas",
    "not": "negation is not portable",
    "if": "conditionals are not portable",
    "then": "conditionals are not portable",
    "else": "conditionals are not portable",
    "patternProperties": "pattern properties are not portable",
}
# Anthropic and OpenAI both limit tool names to this alphabet and length; Gemini is stricter
# only about the first character, which we do not enforce here.
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def valid_tool_name(name: str) -> bool:
    """Whether ``name`` passes :class:`ToolDefinition`'s rule for tool names."""
    return _NAME.match(name) is not None


def check_schema(schema: Mapping[str, Any], *, tool: str = "?") -> None:
    """Raise :class:`SchemaError` at the first construct outside the portable subset."""
    if schema.get("type") != "object":
        raise SchemaError(tool, "#", "type", "a tool's input schema must have type 'object'")
    _check_node(schema, "#", tool, copy=False)


def portable_copy(schema: Mapping[str, Any], *, tool: str = "?") -> tuple[Any, SchemaError | None]:
    """:func:`check_schema` and :func:`~partwire._base.json_copy` of ``schema`` in one walk: the
    copy validation would make (:data:`~partwire._base.NOT_JSON` when the schema is not plain
    JSON of exact built-in types), and the :class:`SchemaError` the check raises, or ``None``
    when the schema is within the subset.

    An importer checks and copies every tool schema it reads, and keeps one outside the subset
    as it is (``portable_schema=False``), copied: one walk gives it the verdict and the copy."""
    problems: list[SchemaError] = []
    if schema.get("type") != "object":
        problems.append(SchemaError(tool, "#", "type", "a tool's input schema must have type 'object'"))
    copied = _check_node(schema, "#", tool, problems=problems)
    return copied, problems[0] if problems else None


def _refuse(problems: list[SchemaError] | None, tool: str, path: str, keyword: str, reason: str) -> None:
    # Raise, or, in a walk that goes on (portable_copy), keep the first problem met: the one
    # the check raises.
    if problems is None:
        raise SchemaError(tool, path, keyword, reason)
    if not problems:
        problems.append(SchemaError(tool, path, keyword, reason))


def _check_node(node: Any, path: str, tool: str, copy: bool = True,
                problems: list[SchemaError] | None = None) -> Any:
    # Tool lists are read on every imported request: the paths for messages are made only when
    # a check fails or a node is entered, and plain dicts skip the ABC check. The copy is built
    # as the walk goes, and given up (NOT_JSON) at the first value that is not plain JSON; the
    # check goes on to the end, so it raises where it would have raised without the copy.
    # Without ``copy`` (a schema already partwire's own) it only checks. With ``problems`` a
    # failed rule is noted there instead of raised, and from then on the walk only copies (the
    # refused value and every schema below not yet entered, as plain JSON): it ends with the
    # whole copy, as a check that raised and a json_copy after it would.
    out: dict[str, Any] | None = {} if copy else None
    if type(node) is not dict:
        if not isinstance(node, Mapping):
            _refuse(problems, tool, path, "(schema)", f"a schema must be an object, got {type(node).__name__}")
            return json_copy(node) if copy else NOT_JSON
        out = None
    for key, value in node.items():
        copied = value
        if key not in ALLOWED_KEYWORDS:
            _refuse(problems, tool, f"{path}/{key}", key,
                    _REFUSED.get(key, "not in the portable JSON-Schema subset"))
            copied = _unchecked(value, copy)
        elif key == "type":
            if type(value) is not str:
                types = value if isinstance(value, list) else [value]
                bad = [t for t in types if not isinstance(t, str) or t not in JSON_TYPES]
                if bad or not types:
                    _refuse(problems, tool, f"{path}/{key}", key, f"unknown JSON type {bad or value!r}")
                copied = _unchecked(value, copy)
            elif value not in JSON_TYPES:
                _refuse(problems, tool, f"{path}/{key}", key, f"unknown JSON type {[value]!r}")
        elif key == "properties":
            if type(value) is not dict and not isinstance(value, Mapping):
                _refuse(problems, tool, f"{path}/{key}", key, "must map property names to schemas")
                copied = _unchecked(value, copy)
            else:
                properties: dict[str, Any] | None = {} if copy and type(value) is dict else None
                for name, sub in value.items():
                    inner = _unchecked(sub, copy) if problems else _check_node(
                        sub, f"{path}/{key}/{name}", tool, copy, problems)
                    if properties is not None:
                        if inner is NOT_JSON or type(name) is not str:
                            properties = None
                        else:
                            properties[name] = inner
                copied = NOT_JSON if properties is None else properties
        elif key == "required":
            # Loops, not all() over a generator and a comprehension: each is a call of its own,
            # and most schemas have a required list.
            names = node.get("properties", {})
            strings = isinstance(value, list)
            if strings:
                for v in value:
                    if not isinstance(v, str):
                        strings = False
                        break
            if not strings:
                _refuse(problems, tool, f"{path}/{key}", key, "must be a list of property names")
            else:
                missing = []
                for v in value:
                    if v not in names:
                        missing.append(v)
                if missing:
                    _refuse(problems, tool, f"{path}/{key}", key, f"names properties that are not defined: {missing}")
            copied = _unchecked(value, copy)
        elif key == "items":
            if isinstance(value, list):
                _refuse(problems, tool, f"{path}/{key}", key, "tuple validation (a list of schemas) is not portable")
                copied = _unchecked(value, copy)
            else:
                copied = _unchecked(value, copy) if problems else _check_node(
                    value, f"{path}/{key}", tool, copy, problems)
        elif key == "additionalProperties":
            if not isinstance(value, bool):
                _refuse(problems, tool, f"{path}/{key}", key, "only true or false is portable, not a schema")
                copied = _unchecked(value, copy)
        elif key == "enum":
            if not isinstance(value, list) or not value:
                _refuse(problems, tool, f"{path}/{key}", key, "must be a non-empty list")
            copied = _unchecked(value, copy)
        elif key == "format":
            if not isinstance(value, str) or value not in ALLOWED_FORMATS:
                _refuse(problems, tool, f"{path}/{key}", key, f"format {value!r} is not a basic format annotation")
                copied = _unchecked(value, copy)
        elif key in ("description", "title") and not isinstance(value, str):
            _refuse(problems, tool, f"{path}/{key}", key, "must be a string")
            copied = _unchecked(value, copy)
        if out is not None:
            if copied is NOT_JSON or type(key) is not str or (copied is value and type(value) not in _SCALARS):
                out = None
            else:
                out[key] = copied
    return NOT_JSON if out is None else out


def _unchecked(value: Any, copy: bool) -> Any:
    """``value`` as the copy keeps it: a plain JSON copy (``NOT_JSON`` for anything else)."""
    return json_copy(value) if copy else value


class CacheHint(CanonicalModel):
    """A prompt-cache breakpoint: the request up to and including this item may be cached.

    Anthropic's ``cache_control`` (``{"type": "ephemeral", "ttl": ...}``); APIs that cache on
    their own without breakpoints report it as dropped.
    """

    ttl: str | None = None
    """How long the entry lives, as the provider spells it (``"5m"``, ``"1h"``); ``None`` for
    the provider's default."""


class ToolDefinition(CanonicalModel):
    """A tool the application offers the model and runs itself (a function tool)."""

    name: str
    """Canonical name: letters, digits, ``_`` and ``-``, at most 64 characters."""
    description: str = ""
    """What the tool does, for the model; empty when the definition gives none (then omitted)."""
    input_schema: dict[str, JsonValue]
    """JSON Schema of the arguments, within the portable subset (checked at construction)
    unless ``portable_schema`` is false."""
    side_effects: SideEffects
    """What running it may do; every tool declares it."""
    requires_workspace: bool = True
    """Whether it needs a workspace to run in."""
    strict: bool | None = None
    """Ask providers that support it to constrain arguments to the schema exactly."""
    portable_schema: bool = True
    """Whether ``input_schema`` is held to the portable subset. An importer sets ``False`` for a
    schema the source API accepted outside it: the schema is kept as it is, unchecked, and each
    adapter sends it in its own dialect (rewriting or dropping what that dialect refuses, with a
    loss)."""
    defer_loading: bool | None = None
    """Leave the definition out of the prompt until a tool search surfaces it (Anthropic's and
    Responses' ``defer_loading``)."""
    allowed_callers: tuple[str, ...] | None = None
    """Who may call it, in the source API's words (Anthropic: ``direct``,
    ``code_execution_20250825``, ...; Responses: ``direct``, ``programmatic``)."""
    input_examples: tuple[dict[str, JsonValue], ...] | None = None
    """Example arguments shown to the model (Anthropic's ``input_examples``)."""
    cache: CacheHint | None = None
    """A prompt-cache breakpoint on this definition."""
    provider_data: ProviderData | None = None
    """Flags of one API with no meaning elsewhere (``eager_input_streaming``, ``output_schema``,
    ...), under their wire names: sent back to that issuer only, reported elsewhere."""

    @field_validator("name")
    @classmethod
    def _valid_name(cls, name: str) -> str:
        if not valid_tool_name(name):
            raise ValueError(
                f"tool name {name!r} must be 1-64 letters, digits, '_' or '-' (the providers' common rule)"
            )
        return name

    @model_validator(mode="after")
    def _portable_schema(self) -> ToolDefinition:
        if self.portable_schema:
            check_schema(self.input_schema, tool=self.name)
        return self


ServerToolKind = Literal[
    "web_search", "web_fetch", "code_execution", "file_search", "computer_use", "mcp",
    "tool_search", "image_generation",
]
"""What a provider-run tool does. ``web_fetch`` is Gemini's URL context too; ``mcp`` is a
remote MCP server the provider calls."""

SERVER_TOOL_KINDS: tuple[str, ...] = (
    "web_search", "web_fetch", "code_execution", "file_search", "computer_use", "mcp",
    "tool_search", "image_generation",
)
"""Every :data:`ServerToolKind`, in order."""


class UserLocation(CanonicalModel):
    """An approximate user location that localises web search results."""

    city: str | None = None
    """Free-text city (``San Francisco``)."""
    region: str | None = None
    """Free-text region (``California``)."""
    country: str | None = None
    """Two-letter ISO 3166-1 country code (``US``)."""
    timezone: str | None = None
    """IANA time zone (``America/Los_Angeles``)."""


class ServerToolDefinition(CanonicalModel):
    """A tool the provider runs itself (web search, code execution, an MCP server, ...).

    Its results come back as ``server_tool_call`` / ``server_tool_result`` parts. Each adapter
    sends the kinds its API has, with the settings it can express, and reports the rest: a
    kind the target lacks at ``request.tools[i]``, a setting at ``request.tools[i].<field>``.
    """

    kind: ServerToolKind
    """What the tool does."""
    issuer: str | None = None
    """The API it was read from (``anthropic``, ``openai``, ``google``); ``None`` when the
    application made it. ``provider_data`` goes back to this issuer only."""
    name: str | None = None
    """The name the API gives it, where it has one (Anthropic's ``web_search``; an MCP server's
    name or label)."""
    allowed_domains: tuple[str, ...] | None = None
    """Web search and fetch: only these domains (subdomains included)."""
    blocked_domains: tuple[str, ...] | None = None
    """Web search and fetch: never these domains."""
    max_uses: int | None = None
    """Most times the model may use it in one response."""
    user_location: UserLocation | None = None
    """Web search: where the user is, to localise results."""
    url: str | None = None
    """MCP: the server's URL."""
    cache: CacheHint | None = None
    """A prompt-cache breakpoint on this definition."""
    provider_data: ProviderData | None = None
    """The issuer's own settings with no canonical field (a tool version such as
    ``web_search_20250305``, a container, a vector store), under their wire names."""


@dataclass(frozen=True, slots=True)
class ArgumentProblem:
    """One way a tool call's arguments fail their tool's schema."""

    path: str
    """JSON pointer into the arguments (``#/path``)."""
    message: str
    """What is wrong."""

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def check_arguments(
    call: ToolCallPart | str | Mapping[str, Any], definition: ToolDefinition
) -> list[ArgumentProblem]:
    """Every way ``call``'s arguments fail ``definition``'s schema; empty when they conform."""
    if isinstance(call, ToolCallPart):
        text: str | None = call.arguments_json
    elif isinstance(call, str):
        text = call
    else:
        text = None
    if text is not None:
        try:
            value: Any = json.loads(text) if text.strip() else {}
        except json.JSONDecodeError as exc:
            return [ArgumentProblem("#", f"arguments are not valid JSON: {exc}")]
    else:
        value = call
    problems: list[ArgumentProblem] = []
    _check_value(value, definition.input_schema, "#", problems)
    return problems


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _check_value(value: Any, schema: Mapping[str, Any], path: str, out: list[ArgumentProblem]) -> None:
    declared = schema.get("type")
    if declared is not None:
        allowed = set(declared if isinstance(declared, list) else [declared])
        actual = _type_of(value)
        ok = actual in allowed or (actual == "integer" and "number" in allowed) or (
            actual == "number" and "integer" in allowed and float(value).is_integer()
        )
        if not ok:
            out.append(ArgumentProblem(path, f"expected {' or '.join(sorted(allowed))}, got {actual}"))
            return
    if "enum" in schema and value not in schema["enum"]:
        out.append(ArgumentProblem(path, f"{value!r} is not one of {schema['enum']!r}"))
    if isinstance(value, Mapping):
        props: Mapping[str, Any] = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                out.append(ArgumentProblem(f"{path}/{name}", "required property is missing"))
        for name, item in value.items():
            if name in props:
                _check_value(item, props[name], f"{path}/{name}", out)
            elif schema.get("additionalProperties") is False:
                out.append(ArgumentProblem(f"{path}/{name}", "property is not allowed"))
    elif isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for i, item in enumerate(value):
            _check_value(item, schema["items"], f"{path}/{i}", out)
