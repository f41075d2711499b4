"""Ollama wire -> canonical: response bodies, and the fields of one wire message as parts.

A wire message is not a list of blocks but a few fields, read in one order: ``thinking``,
``content``, ``images``, ``tool_calls``. What a message or a response carries beyond them goes
to the message's ``provider_data`` (issued by ``ollama``): ``message`` for a wire message's
other keys (re-sent), ``response`` for a response's (never sent back). Calls get ids made from
where they stand and what they say (``_wire.call_id``): reading a body twice gives the same ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from partwire._base import ProviderData
from partwire._json import json_text, load_json
from partwire._media import sniff_media_type
from partwire.adapters._formats import refuse_foreign_response
from partwire.adapters._provenance import shared_provider_data
from partwire.adapters._reading import text_part
from partwire.adapters.ollama._wire import API, ISSUER, call_id, stop_reason, usage_from_wire
from partwire.errors import ProviderError, WireFormatError
from partwire.messages import AssistantMessage
from partwire.parts import Base64Source, ImagePart, Part, ThinkingPart, ToolCallPart

if TYPE_CHECKING:
    from partwire.adapters.ollama import Options

__all__ = ["MESSAGE_FIELDS", "error_from_wire", "from_wire", "image_from_wire", "message_parts",
           "pd_of", "tool_call_from_wire"]

MESSAGE_FIELDS = frozenset({"role", "content", "thinking", "images", "tool_calls"})
"""The keys of a wire message that become parts (``tool_name`` is the tool message's own)."""
# The keys of a response with a canonical home (usage and stop reason); the rest is kept.
_RESPONSE_FIELDS = frozenset({"model", "message", "done", "done_reason", "prompt_eval_count",
                              "eval_count", "total_duration", "load_duration",
                              "prompt_eval_duration", "eval_duration"})


def pd_of(marks: dict[str, Any]) -> ProviderData | None:
    """Ollama's provider data holding ``marks``; ``None`` when there are none."""
    return shared_provider_data(ISSUER, marks) if marks else None


def image_from_wire(data: Any) -> ImagePart:
    """One entry of ``images``: base64 text, its media type read from its first bytes."""
    if not isinstance(data, str):
        raise WireFormatError(API, "message", f"an image is {type(data).__name__}, not base64 text")
    return ImagePart(source=Base64Source(data=data), media_type=sniff_media_type(data))


def tool_call_from_wire(call: Any, scope: str, position: str) -> ToolCallPart:
    """One entry of ``tool_calls``, with the id its place and content give it; keys beyond
    ``function.name`` and ``function.arguments`` (a server's ``index``) ride in its provider data."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise WireFormatError(API, "message", "a tool call has no function name")
    name, arguments = function["name"], function.get("arguments", {})
    marks: dict[str, Any] = {}
    outer = {k: v for k, v in call.items() if k != "function"}
    if outer:
        marks["call"] = outer
    inner = {k: v for k, v in function.items() if k not in ("name", "arguments")}
    if inner:
        marks["function"] = inner
    if "arguments" not in function:
        marks["arguments"] = "absent"
    # Arguments are a JSON object on the wire; a string (some clients send one) is kept as it is.
    text = arguments if isinstance(arguments, str) else json_text(arguments)
    if isinstance(arguments, str):
        marks["arguments"] = "text"
    return ToolCallPart(id=call_id(scope, position, name, arguments), name=name,
                        arguments_json=text, provider_data=pd_of(marks))


def message_parts(message: Mapping[str, Any], scope: str, position: str, *,
                  empty_text: bool = False) -> list[Part]:
    """The parts of one wire message's fields, in the adapter's order: thinking, text, images,
    tool calls. An empty ``thinking`` makes no part, nor an empty ``content`` unless
    ``empty_text`` (a request's message keeps the text it was written with, even ``""``; a
    response's empty content says nothing)."""
    parts: list[Part] = []
    thinking = message.get("thinking")
    if isinstance(thinking, str) and thinking:
        parts.append(ThinkingPart(text=thinking))
    content = message.get("content")
    if isinstance(content, str) and (content or empty_text):
        parts.append(text_part(content))
    images = message.get("images")
    if isinstance(images, list):
        parts.extend(image_from_wire(image) for image in images)
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        parts.extend(tool_call_from_wire(call, scope, f"{position}.{k}") for k, call in enumerate(calls))
    return parts


def error_from_wire(body: Mapping[str, Any]) -> ProviderError:
    """Ollama's error body (``{"error": "model 'x' not found"}``) as a :class:`ProviderError`."""
    message = body.get("error")
    text = message if isinstance(message, str) else json_text(message)
    return ProviderError(API, None, text, body=dict(body))


def from_wire(response: Any, options: Options) -> AssistantMessage:
    """One response body (``stream: false``) as an assistant message; an error body raises
    :class:`ProviderError`."""
    body = load_json(response, API, "response")
    message = body.get("message")
    if not isinstance(message, dict):
        if isinstance(body.get("error"), str):  # Ollama's error is text; the others' an object
            raise error_from_wire(body)
        refuse_foreign_response(body, API, API)
        raise WireFormatError(API, "response", "it has no message object", "message")
    if "done" not in body:  # every Ollama answer says whether it is done; Cohere's has a message too
        refuse_foreign_response(body, API, API)
    created = body.get("created_at")
    parts = message_parts(message, created if isinstance(created, str) else "", "0")
    return response_message(body, message, parts)


def response_message(body: Mapping[str, Any], message: Mapping[str, Any],
                     parts: list[Part]) -> AssistantMessage:
    """The assistant message of a final response (whole, or a stream's last line) over
    ``parts`` (what the message said, or what the stream folded)."""
    raw = body.get("done_reason")
    marks: dict[str, Any] = {}
    top = {k: v for k, v in body.items() if k not in _RESPONSE_FIELDS and v is not None}
    if top:
        marks["response"] = top
    reply = {k: v for k, v in message.items() if k not in MESSAGE_FIELDS and v is not None}
    if reply:
        marks["reply"] = reply
    model = body.get("model")
    done = body.get("done")
    return AssistantMessage(
        parts=tuple(parts),
        status="complete" if done is not False else "partial",
        stop_reason=stop_reason(raw, tool_calls=any(type(p) is ToolCallPart for p in parts)),
        stop_reason_raw=raw if isinstance(raw, str) else None,
        model=f"{ISSUER}:{model}" if isinstance(model, str) and model else None,
        provider=ISSUER,
        api=API,
        usage=usage_from_wire(body),
        provider_data=pd_of(marks),
    )
