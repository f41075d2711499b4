"""Gemini ``generateContent`` wire shapes, tables, and the rules both directions share.

Facts from ``../shared/wire/google.md`` (the ``google-genai`` SDK source, run against it).
"""

from __future__ import annotations

import marshal
import re
import sys
from collections.abc import Mapping
from typing import Any, Literal, TypedDict

from partwire._base import ProviderData
from partwire._json import token_count
from partwire._memo import memo
from partwire.messages import StopReason
from partwire.usage import Usage

__all__ = [
    "ADMITTED",
    "API",
    "BLOCK_REASONS",
    "DATA_KEYS",
    "FINISH_REASONS",
    "ISSUER",
    "OWN_ISSUERS",
    "PLACEHOLDER_SIGNATURE",
    "RETRYABLE_STATUSES",
    "VERBATIM_KEYS",
    "WireContent",
    "WirePart",
    "WireRequest",
    "WireResponse",
    "admits_call_id",
    "camel",
    "camel_keys",
    "camel_list",
    "camel_top",
    "may_rename",
    "same_model",
    "shape",
    "stop_reason",
    "usage_from_wire",
    "wire_model_name",
]

ISSUER = "google"
"""The issuer of Gemini's ids, signatures and echo state."""
API = "google"
"""The ``api`` recorded on assistant messages."""
OWN_ISSUERS = frozenset({ISSUER})
"""The issuers the adapter accepts unless told otherwise (``accept_issuers``)."""

# Google's documented dummy signature for function calls that never had one (a history from
# another provider or model, calls injected by the application): the validator skips it.
PLACEHOLDER_SIGNATURE = "skip_thought_signature_validator"
"""What a function call gets when the model requires a signature and none is valid for it."""

# The data fields of a Part: "exactly one" of them is set. thought, thoughtSignature and the
# *Metadata hints sit beside them.
DATA_KEYS = frozenset({"text", "inlineData", "fileData", "functionCall", "functionResponse",
                       "executableCode", "codeExecutionResult", "toolCall", "toolResponse"})
"""Keys that say what a wire part is."""

# finishReason -> canonical. STOP also ends a turn of function calls (there is no tool-use
# reason); stop_reason() turns it into tool_use when the message holds calls.
FINISH_REASONS: dict[str, StopReason] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "LANGUAGE": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "IMAGE_PROHIBITED_CONTENT": "content_filter",
    "IMAGE_RECITATION": "content_filter",
    "IMAGE_OTHER": "content_filter",
    "NO_IMAGE": "content_filter",
    "MODEL_ARMOR": "content_filter",
    "JAILBREAK": "content_filter",
    "MALFORMED_FUNCTION_CALL": "error",
    "UNEXPECTED_TOOL_CALL": "error",
    "TOO_MANY_TOOL_CALLS": "error",
    "MISSING_THOUGHT_SIGNATURE": "error",
    "MALFORMED_RESPONSE": "error",
    # The per-request token limit was reached; the answer resumes with continuationToken.
    "CONTINUATION": "pause",
}
"""``finishReason`` -> normalised stop reason; anything else (``OTHER``, new values) maps to None."""

BLOCK_REASONS = frozenset({"SAFETY", "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT", "IMAGE_SAFETY",
                           "MODEL_ARMOR", "JAILBREAK", "BLOCKED_REASON_UNSPECIFIED"})
"""``promptFeedback.blockReason`` values (a blocked prompt is read as a refusal)."""

RETRYABLE_STATUSES = frozenset({"RESOURCE_EXHAUSTED", "UNAVAILABLE", "INTERNAL", "DEADLINE_EXCEEDED"})
"""``error.status`` values a retry may get past (the SDK's retry set: 408, 429, 5xx)."""

# Keys whose value is user data, not wire structure: its keys are never renamed between
# snake_case and camelCase (function arguments, tool results, labels, full JSON Schemas).
VERBATIM_KEYS = frozenset({"args", "response", "labels", "partMetadata", "part_metadata",
                           "parametersJsonSchema", "parameters_json_schema", "responseJsonSchema",
                           "response_json_schema", "example", "default", "enum", "metadataFilter",
                           "metadata_filter", "structValue", "struct_value"})
# Keys whose value maps user-chosen names to wire structure (schema properties).
_NAMED_KEYS = frozenset({"properties", "defs", "$defs"})


class WirePart(TypedDict, total=False):
    """A ``Part``: one data field (``DATA_KEYS``) plus metadata beside it."""

    text: str
    thought: bool
    thoughtSignature: str
    inlineData: dict[str, Any]
    fileData: dict[str, Any]
    functionCall: dict[str, Any]
    functionResponse: dict[str, Any]
    executableCode: dict[str, Any]
    codeExecutionResult: dict[str, Any]


class WireContent(TypedDict, total=False):
    """One entry of ``contents``: ``user`` (results included) or ``model``."""

    role: Literal["user", "model"]
    parts: list[WirePart]


class WireRequest(TypedDict, total=False):
    """The body of ``generateContent`` (the fields partwire builds; others pass through)."""

    contents: list[WireContent]
    systemInstruction: WireContent
    tools: list[dict[str, Any]]
    toolConfig: dict[str, Any]
    generationConfig: dict[str, Any]


class WireResponse(TypedDict, total=False):
    """A ``GenerateContentResponse`` (also one stream chunk, which holds a delta)."""

    candidates: list[dict[str, Any]]
    promptFeedback: dict[str, Any]
    usageMetadata: dict[str, Any]
    modelVersion: str
    responseId: str


def stop_reason(raw: Any, *, tool_calls: bool) -> StopReason | None:
    """The normalised stop reason of a ``finishReason``: STOP with calls is tool use."""
    if not isinstance(raw, str):
        return None
    mapped = FINISH_REASONS.get(raw)
    if mapped == "stop" and tool_calls:
        return "tool_use"
    return mapped


def usage_from_wire(raw: Mapping[str, Any]) -> Usage:
    """Normalised usage. ``promptTokenCount`` already includes cached tokens.

    input = promptTokenCount + toolUsePromptTokenCount; cache read = cachedContentTokenCount;
    output = candidatesTokenCount + thoughtsTokenCount (visible output excludes thoughts);
    reasoning = thoughtsTokenCount. The raw object goes to provider_data.
    """
    thoughts = token_count(raw, "thoughtsTokenCount")
    return Usage(
        input_tokens=token_count(raw, "promptTokenCount") + token_count(raw, "toolUsePromptTokenCount"),
        output_tokens=token_count(raw, "candidatesTokenCount") + thoughts,
        cache_read_tokens=token_count(raw, "cachedContentTokenCount"),
        reasoning_tokens=thoughts,
        provider_data=ProviderData(issuer=ISSUER, data=dict(raw)),
    )


def wire_model_name(model: str | None) -> str:
    """A model name without the ``google:`` prefix or the ``models/`` / publisher path."""
    if not model:
        return ""
    name = model.split(":", 1)[1] if model.startswith(f"{ISSUER}:") else model
    return name.rsplit("/", 1)[-1]


def same_model(issued_by: str | None, target: str | None) -> bool:
    """Whether a signature ``issued_by`` one model may go to ``target``.

    Unknown on either side counts as the same (a stored request does not say which model
    answered). ``gemini-2.5-flash`` and the version it resolved to
    (``gemini-2.5-flash-preview-05-20``) are one model: either name may extend the other.
    """
    a, b = wire_model_name(issued_by), wire_model_name(target)
    if not a or not b:
        return True
    return a == b or a.startswith(b + "-") or b.startswith(a + "-")


# FunctionCall.id is a free string to the API; partwire sends on only ids that look like ids
# (every provider's call ids do), never text that could be mistaken for something else.
_CALL_ID = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


# An agent resends its whole history every turn, so each id is checked once, not once per turn.
# Bounded: it is emptied when it grows past the limit.
ADMITTED: dict[str, bool] = memo({})
_ADMITTED_LIMIT = 65_536


def admits_call_id(value: str) -> bool:
    """Whether another provider's call id may be sent to Gemini as it is."""
    known = ADMITTED.get(value)
    if known is None:
        if len(ADMITTED) >= _ADMITTED_LIMIT:
            ADMITTED.clear()
        known = ADMITTED[value] = _CALL_ID.fullmatch(value) is not None
    return known


_SNAKE = re.compile(r"_([a-z0-9])")


def camel(key: str) -> str:
    """``response_mime_type`` -> ``responseMimeType``; a camelCase key is returned as is."""
    if "_" not in key or key.startswith(("_", "$")):
        return key
    # A key the walk has met has its name worked out already: the substitution calls back into
    # Python for every match, on every snake_case key of every request that asks.
    known = _KEYS.get(key)
    return known[0] if known is not None else _camel_text(key)


def _camel_text(key: str) -> str:
    return _SNAKE.sub(lambda m: m.group(1).upper(), key)


def camel_keys(value: Any) -> Any:
    """``value`` with every wire key in camelCase; user data (arguments, schemas' property
    names, tool results, labels) is left exactly as it is.

    The SDK itself sends mixed styles (``"inlineData": {"mime_type": ...}``); the API's proto
    JSON parser reads both, partwire always writes camelCase. A dict or list with nothing to
    rename is returned itself, not a copy (a camelCase body, the common case, is walked and
    returned whole): copying every node of every request cost a quarter of the import.
    """
    kind = type(value)
    if kind is dict:
        return _camel_dict(value)
    if kind is list:
        return camel_list(value)
    if isinstance(value, dict):
        return _camel_dict(value)
    if isinstance(value, list):
        return camel_list(value)
    return value


# How each key is written and walked: (camelCase name, 0 kept verbatim / 1 a map of user-chosen
# names / 2 walked). Bounded: it stops learning past the limit (keys under an unknown part are
# anything).
_KEYS: dict[Any, tuple[Any, int]] = memo({})
_KEYS_LIMIT = 4096
# Keys seen that stay as they are: walked (_WALKED), maps of names (_NAMED_KEYS) or kept
# verbatim. A dict of these alone, the common case, takes the short walk: only its dict and list
# values are looked at.
_WALKED: set[Any] = memo(set())
_AS_IS: set[Any] = memo(set())


def _key(key: Any) -> tuple[Any, int]:
    name = (key if "_" not in key or key.startswith(("_", "$")) else _camel_text(key)) \
        if isinstance(key, str) else key
    mode = 0 if key in VERBATIM_KEYS or name in VERBATIM_KEYS else 1 if name in _NAMED_KEYS else 2
    if len(_KEYS) < _KEYS_LIMIT:
        _KEYS[key] = (name, mode)
        if name == key and type(key) is str:
            _AS_IS.add(key)
            if mode == 2:
                _WALKED.add(key)
    return name, mode


def _camel_dict(value: dict[Any, Any]) -> dict[Any, Any]:
    if value.keys() <= _AS_IS:
        copied: dict[Any, Any] | None = None
        walked = _WALKED
        for key, item in value.items():
            kind = type(item)
            if key in _REMEMBERED and (kind is dict or kind is list):
                new = _camel_remembered(item)
            elif kind is dict:
                new = _camel_dict(item) if key in walked else _camel_named(item) \
                    if key in _NAMED_KEYS else item
            elif kind is list:
                new = camel_list(item) if key in walked else item
            elif kind is str or item is None or not isinstance(item, dict | list):
                continue
            elif key in walked:
                new = camel_keys(item)
            elif key in _NAMED_KEYS and isinstance(item, dict):
                new = _camel_named(item)
            else:
                continue
            if new is not item:
                if copied is None:
                    copied = dict(value)
                copied[key] = new
        return value if copied is None else copied
    out: dict[Any, Any] = {}
    changed = False
    keys = _KEYS
    for key, item in value.items():
        name, mode = keys.get(key) or _key(key)
        new = item
        if mode == 2:
            kind = type(item)
            if kind is dict or kind is list or isinstance(item, dict | list):
                new = camel_keys(item)
        elif mode == 1 and isinstance(item, dict):
            new = _camel_named(item)
        out[name] = new
        if new is not item or name != key:
            changed = True
    return out if changed else value


# The body fields a conversation sends alike with every request (its tools and their schemas,
# generationConfig, the system instruction): each value found already in camelCase is
# remembered by its marshalled bytes (exact about types and key order), so the next request
# with the same value is not walked again; marshalling is a C pass, a tenth of the walk. Bytes
# without a "_" are not even walked the first time. Only
# values the walk returns unchanged are remembered: a hit returns the value itself. Bounded.
_REMEMBERED = frozenset({"tools", "generationConfig", "systemInstruction", "toolConfig",
                         "safetySettings"})
_CAMEL_SEEN: set[bytes] = memo(set())
_CAMEL_SEEN_LIMIT = 1024


def _camel_remembered(value: dict[Any, Any] | list[Any]) -> Any:
    try:
        packed = marshal.dumps(value, 2)
    except (ValueError, RecursionError):  # not plain built-in values: walked every time
        return camel_keys(value)
    if not may_rename(packed) or packed in _CAMEL_SEEN:
        return value
    new = camel_keys(value)
    if new is value:
        if len(_CAMEL_SEEN) >= _CAMEL_SEEN_LIMIT:
            _CAMEL_SEEN.clear()
        _CAMEL_SEEN.add(packed)
    return new


def may_rename(packed: bytes) -> bool:
    """Whether a value whose marshalled bytes are ``packed`` may hold a key to rename: with no
    "_" byte anywhere, no key has one. (A key with one always shows it: the marshalled text is
    ASCII or UTF-8, where no other character holds that byte; a number or length that does only
    means a walk.)"""
    return b"_" in packed


def camel_top(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` with its own keys in camelCase, its values as they are (each is brought to
    camelCase by whatever reads it); ``value`` itself when no key needs renaming."""
    for key in value:
        if type(key) is str and "_" in key:
            return {camel(k) if type(k) is str else k: v for k, v in value.items()}
    return value


def _camel_named(value: dict[Any, Any]) -> dict[Any, Any]:
    out = {k: camel_keys(v) for k, v in value.items()}
    for k, v in value.items():
        if out[k] is not v:
            return out
    return value


def camel_list(value: list[Any]) -> list[Any]:
    """:func:`camel_keys` of a list (the list itself when nothing was renamed). A plain text part,
    the commonest item of a part list, is passed over without a walk."""
    copied: list[Any] | None = None
    for i, item in enumerate(value):
        kind = type(item)
        if kind is dict:
            if len(item) == 1 and type(item.get("text")) is str:
                continue
            new = _camel_dict(item)
        elif kind is str or not isinstance(item, dict | list):
            continue
        else:
            new = camel_keys(item)
        if new is not item:
            if copied is None:
                copied = list(value)
            copied[i] = new
    return value if copied is None else copied


# -- the body's small objects -------------------------------------------------------------------


def shape(*keys: str) -> dict[str, Any]:
    """A template for the body's small objects with ``keys``: ``d = template.copy()``, then set
    every key (in any order: ``keys`` is the order they are written in).

    On CPython the template is an instance's ``__dict__``, so its copies share one key table and
    hold only their values: 88 to 104 bytes for one to three keys where a dict literal takes 184.
    A body holds a few of these per part, and with plain dicts the request's containers alone
    weighed 0.62 of its JSON. The copies are ordinary dicts (``type(d) is dict``; adding a key
    works and only makes that one dict a plain one). Where the interpreter does not make such
    copies smaller, the template is a plain dict and copies cost what a literal does.
    """
    holder = type("_Shape", (), {})
    for _ in range(40):  # CPython trims a class's shared key table with each new instance
        instance = holder()
        for key in keys:
            setattr(instance, key, None)
    template: dict[str, Any] = instance.__dict__
    plain = dict.fromkeys(keys)
    copy = template.copy()
    if list(copy) != list(keys) or sys.getsizeof(copy) >= sys.getsizeof(plain):
        return plain
    return template
