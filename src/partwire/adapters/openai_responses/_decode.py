"""Responses wire -> canonical: a response object becomes one ``AssistantMessage``.

The ordered ``output`` items become parts in the same order. Each part keeps, in its
``provider_data`` (issuer ``openai``), the keys of its item that have no canonical home under
``item`` (``id``, ``status``, ``phase``, ``namespace``, ...), so the encoder rebuilds the item
exactly; parts of one ``message`` item share its ``item.id``. Reasoning keeps its ``rs_`` id
and ``encrypted_content`` (as an :class:`~partwire.parts.Opaque` of OpenAI). Provider-run
items (web search, code interpreter, MCP, compaction, ...) are kept whole as server tool parts;
a type partwire does not know is kept whole as an unknown part.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeVar

from partwire._base import NOT_JSON, build, json_copy
from partwire._json import load_json, usage_object
from partwire.adapters._formats import refuse_foreign_response
from partwire.adapters.openai_responses._parts import marks_pd, output_part_from_wire
from partwire.adapters.openai_responses._wire import (
    API,
    CALL_ITEMS,
    ISSUER,
    RESULT_ITEMS,
    RETRYABLE_ERRORS,
    stop_reason,
    usage_from_wire,
)
from partwire.errors import ProviderError, WireFormatError
from partwire.ids import new_tool_call_id
from partwire.messages import AssistantMessage
from partwire.parts import (
    Opaque,
    Part,
    ServerToolCallPart,
    ServerToolResultPart,
    ThinkingPart,
    ToolCallPart,
    UnknownPart,
)

__all__ = [
    "REQUEST_ECHOES",
    "error_from_wire",
    "error_retryable",
    "from_wire",
    "item_parts",
    "reasoning_from_wire",
    "response_marks",
]

# Response keys with a canonical home (or folded into stop_reason_raw).
_RESPONSE_FIELDS = frozenset({"id", "object", "model", "output", "usage", "status", "output_text"})
# Response keys that only repeat the request (its settings, instructions and tools): the request
# has them, and a stored message would otherwise carry every tool definition again.
REQUEST_ECHOES = frozenset({
    "instructions", "tools", "tool_choice", "parallel_tool_calls", "temperature", "top_p",
    "top_logprobs", "reasoning", "text", "truncation", "max_output_tokens", "max_tool_calls",
    "metadata", "user", "safety_identifier", "prompt_cache_key", "prompt_cache_retention",
    "prompt", "prompt_cache_options", "moderation", "context_management", "image",
    "access_programs", "background_options",
})
_TIMES = ("created_at", "completed_at")
_SEPARATOR = "\n\n"
"""What joins the entries of a reasoning summary into one thinking text."""


def _extras(obj: Mapping[str, Any], used: frozenset[str] | set[str]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in used}


def from_wire(response: Any, options: object = None) -> AssistantMessage:
    """One response object as an assistant message; an error body raises :class:`ProviderError`
    (no option changes how a response reads)."""
    body = load_json(response, API, "response")
    if "output" not in body and isinstance(body.get("error"), dict):
        raise error_from_wire(body)
    output = body.get("output")
    if not isinstance(output, list):
        refuse_foreign_response(body, "openai_responses", API)
        raise WireFormatError(API, "response", "it has no output list")
    parts: list[Part] = []
    for i, item in enumerate(output):
        if not isinstance(item, dict):
            raise WireFormatError(API, "response", f"output[{i}] is not an object")
        parts.extend(item_parts(item))
    return message_from_response(body, parts)


def message_from_response(body: Mapping[str, Any], parts: list[Part]) -> AssistantMessage:
    """The assistant message of a response object whose output items are ``parts``."""
    output = [item for item in body.get("output") or () if isinstance(item, dict)]
    reason, raw, status = stop_reason(body, output)
    usage = usage_object(body, "usage", API)
    model = body.get("model")
    response_id = body.get("id")
    marks = response_marks(body)
    return AssistantMessage(
        parts=tuple(parts),
        status=status,
        stop_reason=reason,
        stop_reason_raw=raw,
        model=f"{ISSUER}:{model}" if isinstance(model, str) and model else None,
        provider=ISSUER,
        api=API,
        response_id=response_id if isinstance(response_id, str) else None,
        usage=usage_from_wire(usage) if usage is not None else None,
        provider_data=marks_pd({"response": marks}) if marks else None,
    )


def response_marks(body: Mapping[str, Any]) -> dict[str, Any]:
    """What a response says beyond its message: times, tier, ``store``, errors, transformations.

    The API sends its times as whole seconds and the SDK types them as floats; a whole float is
    kept as the integer the wire had, so an SDK object and its JSON decode alike.
    """
    marks = {k: v for k, v in body.items()
             if k not in _RESPONSE_FIELDS and k not in REQUEST_ECHOES and v is not None}
    for key in _TIMES:
        value = marks.get(key)
        if isinstance(value, float) and value.is_integer():
            marks[key] = int(value)
    return marks


def item_parts(item: Mapping[str, Any]) -> list[Part]:
    """The parts of one output item (a ``message`` item gives one part per content part)."""
    kind = item.get("type")
    if kind == "message":
        content = item.get("content")
        if isinstance(content, list) and content and item.get("role", "assistant") == "assistant":
            extras = _extras(item, {"type", "role", "content"})
            return [output_part_from_wire(c, extras) for c in content]
    elif kind == "reasoning":
        part = reasoning_from_wire(item)
        if part is not None:
            return [part]
    elif kind == "function_call":
        if isinstance(item.get("name"), str) and isinstance(item.get("call_id"), str) and isinstance(
                item.get("arguments"), str):
            return [_call(item, item["arguments"], _FUNCTION_CALL_KEYS, {})]
    elif kind == "custom_tool_call":
        if isinstance(item.get("name"), str) and isinstance(item.get("call_id"), str) and isinstance(
                item.get("input"), str):
            arguments = json.dumps({"input": item["input"]}, ensure_ascii=False)
            return [_call(item, arguments, _CUSTOM_CALL_KEYS, {"kind": "custom"})]
    elif kind in CALL_ITEMS:
        ident = item.get("id") or item.get("call_id")
        return [_server_part(ServerToolCallPart, "id", ident if isinstance(ident, str) else "", kind,
                             "input", item)]
    elif kind in RESULT_ITEMS or kind in ("function_call_output", "custom_tool_call_output"):
        # Tool outputs in a response were made on the server (programmatic tool calling).
        ident = item.get("call_id") or item.get("id")
        return [_server_part(ServerToolResultPart, "call_id", ident if isinstance(ident, str) else "",
                             kind, "output", item)]
    return [UnknownPart(original_type=kind if isinstance(kind, str) else None, raw=dict(item),
                        issuer=ISSUER)]


ServerPartT = TypeVar("ServerPartT", ServerToolCallPart, ServerToolResultPart)


def _server_part(cls: type[ServerPartT], id_field: str, ident: str, kind: str, key: str,
                 item: Mapping[str, Any]) -> ServerPartT:
    """A provider-run item as a server tool call or result holding the whole item under ``key``.
    An item read from JSON is copied as validation of the JSON field would copy it, and the
    part built; anything else is validated."""
    copied = json_copy(item) if type(ident) is str and type(kind) is str else NOT_JSON
    if copied is not NOT_JSON and type(copied) is dict:
        return build(cls, {id_field: ident, "name": kind, key: copied, "issuer": ISSUER})
    return cls(**{id_field: ident, "name": kind, key: dict(item), "issuer": ISSUER})


# The keys of a call item that its part holds in fields of its own.
_FUNCTION_CALL_KEYS = frozenset({"type", "call_id", "name", "arguments"})
_CUSTOM_CALL_KEYS = frozenset({"type", "call_id", "name", "input"})


def _call(item: Mapping[str, Any], arguments: str, used: frozenset[str], marks: dict[str, Any]) -> ToolCallPart:
    extras = _extras(item, used)
    if extras:
        marks = {**marks, "item": extras}
    fields = {"id": new_tool_call_id(), "name": item["name"], "arguments_json": arguments,
              "provider_ids": {ISSUER: item["call_id"]}, "provider_data": marks_pd(marks)}
    if type(fields["name"]) is str and type(arguments) is str and type(item["call_id"]) is str:
        return build(ToolCallPart, fields)  # texts read from JSON: nothing left to validate
    return ToolCallPart(**fields)


def reasoning_from_wire(item: Mapping[str, Any]) -> ThinkingPart | None:
    """A ``reasoning`` item as one thinking part: summaries joined, encrypted content signed.

    The text is the summary entries joined by a blank line; ``summary`` in the echo state records
    their lengths, so the encoder splits them again. ``None`` when
    the item does not have the reasoning shape (it is then kept whole as an unknown part).
    """
    summary = item.get("summary", [])
    if not isinstance(summary, list) or not all(
            isinstance(s, dict) and s.get("type") == "summary_text" and set(s) == {"type", "text"}
            and isinstance(s["text"], str) for s in summary):
        return None
    encrypted = item.get("encrypted_content")
    ident = item.get("id")
    used = {"type", "summary"}
    if isinstance(encrypted, str):
        used.add("encrypted_content")
    if isinstance(ident, str):
        used.add("id")
    marks: dict[str, Any] = {}
    extras = _extras(item, used)
    if extras:
        marks["item"] = extras
    # The lengths of the summary entries, so the encoder splits the text again. Always there:
    # it also marks the part as OpenAI's when there is no encrypted content to say so.
    marks["summary"] = [len(s["text"]) for s in summary] if "summary" in item else None
    # Texts read from JSON (exact str, or validated as any other value): made without validation.
    signature = None
    if type(encrypted) is str:
        signature = build(Opaque, {"value": encrypted, "issuer": ISSUER})
    elif isinstance(encrypted, str):
        signature = Opaque(value=encrypted, issuer=ISSUER)
    fields = {"text": _SEPARATOR.join(s["text"] for s in summary), "signature": signature,
              "id": ident if isinstance(ident, str) else None, "provider_data": marks_pd(marks)}
    if type(fields["text"]) is str and (fields["id"] is None or type(fields["id"]) is str):
        return build(ThinkingPart, fields)
    return ThinkingPart(**fields)


def summary_to_wire(text: str, layout: Any) -> list[dict[str, str]]:
    """The ``summary`` entries of a thinking text, cut as its echo state recorded them."""
    if isinstance(layout, list) and all(isinstance(n, int) and n >= 0 for n in layout) and (
            sum(layout) + len(_SEPARATOR) * max(len(layout) - 1, 0) == len(text)):
        out: list[dict[str, str]] = []
        pos = 0
        for n in layout:
            out.append({"type": "summary_text", "text": text[pos:pos + n]})
            pos += n + len(_SEPARATOR)
        if _SEPARATOR.join(s["text"] for s in out) == text:
            return out
    return [{"type": "summary_text", "text": text}] if text else []


def error_from_wire(body: Mapping[str, Any], status: int | None = None) -> ProviderError:
    """The error an error body (``{"error": {"message", "type", "param", "code"}}``) stands for."""
    error = body.get("error")
    error = error if isinstance(error, dict) else {}
    code = error.get("code")
    kind = error.get("type")
    name = code if isinstance(code, str) and code else kind if isinstance(kind, str) else None
    return ProviderError(ISSUER, name, str(error.get("message", "")), status=status, body=dict(body))


def error_retryable(code: str | None, status: int | None = None) -> bool:
    """Whether a call that failed this way may succeed if simply retried."""
    return code in RETRYABLE_ERRORS or (status is not None and (status == 429 or status >= 500))
