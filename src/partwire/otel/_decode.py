"""The GenAI span attributes -> history: import what others recorded."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

from partwire import messages as _messages
from partwire import parts as _parts
from partwire._base import json_kind
from partwire.errors import SchemaError, WireFormatError
from partwire.history import HistoryEvent, UnknownEvent
from partwire.tools import ToolDefinition
from partwire.usage import Usage

from ._common import (
    ADAPTER,
    INPUT_MESSAGES,
    ISSUER_OF_PROVIDER,
    OUTPUT_MESSAGES,
    PROVIDER,
    STOP_REASONS,
    SYSTEM_INSTRUCTIONS,
    TOOL_DEFINITIONS,
)

__all__ = ["attributes_of", "decode", "decode_tools"]

_MEDIA: dict[str, type[_parts.ImagePart | _parts.AudioPart]] = {
    "image": _parts.ImagePart, "audio": _parts.AudioPart}
_ROLES: dict[str, type[_messages.SystemMessage | _messages.DeveloperMessage | _messages.UserMessage
                       | _messages.AssistantMessage]] = {
    "system": _messages.SystemMessage, "developer": _messages.DeveloperMessage,
    "user": _messages.UserMessage, "assistant": _messages.AssistantMessage}
_TEXTS: dict[str, type[_parts.TextPart | _parts.ThinkingPart | _parts.RefusalPart]] = {
    "text": _parts.TextPart, "reasoning": _parts.ThinkingPart, "refusal": _parts.RefusalPart}
_USAGE = {"gen_ai.usage.input_tokens": "input_tokens", "gen_ai.usage.output_tokens": "output_tokens",
          "gen_ai.usage.cache_read.input_tokens": "cache_read_tokens",
          "gen_ai.usage.cache_creation.input_tokens": "cache_write_tokens",
          "gen_ai.usage.reasoning.output_tokens": "reasoning_tokens"}


def _error(reason: str, path: str | None = None) -> WireFormatError:
    return WireFormatError(ADAPTER, "GenAI span", reason, path)


def attributes_of(data: Any) -> dict[str, Any]:
    """The attributes of a span: a mapping of them, a span as JSON (``{"attributes": {...}}``,
    the SDK's ``span.to_json()``) or OTLP JSON attributes (``[{"key":..., "value": {...}}]``)."""
    if isinstance(data, str | bytes | bytearray):
        try:
            data = json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise _error(f"invalid JSON: {exc}") from exc
    if isinstance(data, Mapping) and "attributes" in data and INPUT_MESSAGES not in data:
        data = data["attributes"]
    if isinstance(data, list):
        return {_key(entry, k): _any_value(entry.get("value"), f"attributes[{k}].value")
                for k, entry in enumerate(data)}
    if not isinstance(data, Mapping):
        raise _error(f"a JSON {json_kind(data)}, not the attributes of a span (an object)")
    return {str(k): _plain(v) for k, v in data.items()}


def _plain(value: Any) -> Any:
    """A value as plain JSON: the OpenTelemetry SDK hands back tuples and its own mappings."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _key(entry: Any, k: int) -> str:
    if not isinstance(entry, Mapping) or not isinstance(entry.get("key"), str):
        raise _error("an OTLP attribute is an object with a string key", f"attributes[{k}]")
    key: str = entry["key"]
    return key


def _any_value(value: Any, path: str) -> Any:
    """An OTLP ``AnyValue`` as plain JSON."""
    if not isinstance(value, Mapping) or len(value) != 1:
        raise _error("an OTLP value is an object with one field", path)
    ((kind, inner),) = value.items()
    if kind in ("stringValue", "boolValue", "doubleValue"):
        return inner
    if kind == "intValue":
        return int(inner)
    if kind == "arrayValue":
        return [_any_value(v, f"{path}.values[{k}]") for k, v in enumerate(inner.get("values", []))]
    if kind == "kvlistValue":
        return {e["key"]: _any_value(e.get("value"), f"{path}.{e['key']}") for e in inner.get("values", [])}
    raise _error(f"an OTLP value of kind {kind!r} is not JSON", path)


def _structured(attrs: Mapping[str, Any], name: str) -> Any:
    """An attribute's structured value; spans may hold it as JSON text."""
    value = attrs.get(name)
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise _error(f"not JSON: {exc}", name) from exc
    return value


def decode(attrs: Mapping[str, Any]) -> list[HistoryEvent]:
    """The history of one recorded model call (see :func:`partwire.otel.from_attributes`)."""
    provider = attrs.get(PROVIDER)
    issuer = ISSUER_OF_PROVIDER.get(provider, provider) if isinstance(provider, str) else None
    reader = _Reader(issuer or "unknown")
    history: list[HistoryEvent] = []
    system = _structured(attrs, SYSTEM_INSTRUCTIONS)
    if system is not None:
        parts = reader.parts(_list(system, SYSTEM_INSTRUCTIONS), SYSTEM_INSTRUCTIONS)
        history.append(_messages.SystemMessage(parts=tuple(parts)))
    inputs = _structured(attrs, INPUT_MESSAGES)
    for k, message in enumerate(_list(inputs if inputs is not None else [], INPUT_MESSAGES)):
        history.extend(reader.message(message, f"{INPUT_MESSAGES}[{k}]"))
    outputs = _structured(attrs, OUTPUT_MESSAGES)
    for k, message in enumerate(_list(outputs if outputs is not None else [], OUTPUT_MESSAGES)):
        path = f"{OUTPUT_MESSAGES}[{k}]"
        if k > 0:
            # One history holds one answer per call; the other choices are kept as they came.
            history.append(UnknownEvent(original_type="otel_output_message", raw=message,
                                        problem=f"choice {k} of the call: a history holds the first"))
            continue
        events = reader.message(message, path)
        answer = events[-1] if events else None
        if isinstance(answer, _messages.AssistantMessage):
            events[-1] = _with_response(answer, message, attrs, issuer)
        history.extend(events)
    return history


def decode_tools(attrs: Mapping[str, Any]) -> tuple[ToolDefinition | dict[str, Any], ...]:
    """The tool definitions a span recorded."""
    value = _structured(attrs, TOOL_DEFINITIONS)
    out: list[ToolDefinition | dict[str, Any]] = []
    for k, tool in enumerate(_list(value if value is not None else [], TOOL_DEFINITIONS)):
        if not isinstance(tool, Mapping):
            raise _error("a tool definition is an object", f"{TOOL_DEFINITIONS}[{k}]")
        if tool.get("type") == "function" and isinstance(tool.get("name"), str):
            try:
                # The conventions do not say what a tool may do: assume the most it can.
                out.append(ToolDefinition(
                    name=tool["name"], description=tool.get("description") or "",
                    input_schema=tool.get("parameters") or {"type": "object", "properties": {}},
                    side_effects="execute"))
                continue
            except (SchemaError, ValueError):
                pass  # a schema outside the portable subset stays the dict it was
        out.append(dict(tool))
    return tuple(out)


def _list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise _error(f"a JSON {json_kind(value)}, not an array", path)
    return value


def _with_response(answer: _messages.AssistantMessage, message: Mapping[str, Any], attrs: Mapping[str, Any],
                   issuer: str | None) -> _messages.AssistantMessage:
    changes: dict[str, Any] = {}
    finish = message.get("finish_reason")
    if isinstance(finish, str):
        changes["stop_reason"] = STOP_REASONS.get(finish)
        changes["stop_reason_raw"] = None if finish in STOP_REASONS or finish == "unknown" else finish
    model = attrs.get("gen_ai.response.model") or attrs.get("gen_ai.request.model")
    if isinstance(model, str) and model:
        changes["model"] = f"{issuer}:{model}" if issuer else model
    if issuer:
        changes["provider"] = issuer
    response_id = attrs.get("gen_ai.response.id")
    if isinstance(response_id, str):
        changes["response_id"] = response_id
    counts = {field: attrs[name] for name, field in _USAGE.items() if isinstance(attrs.get(name), int)}
    if counts:
        changes["usage"] = Usage(**counts)
    return _messages.AssistantMessage.model_validate({**answer.model_dump(), **changes})


class _Reader:
    def __init__(self, issuer: str) -> None:
        self.issuer = issuer
        self.calls: dict[str, str] = {}  # call id -> tool name

    def message(self, message: Any, path: str) -> list[HistoryEvent]:
        if not isinstance(message, Mapping):
            raise _error(f"a message is an object, not a JSON {json_kind(message)}", path)
        role, raw_parts = message.get("role"), message.get("parts")
        if not isinstance(role, str):
            raise _error("a message has a string role", f"{path}.role")
        parts_list = _list(raw_parts, f"{path}.parts")
        if role not in _ROLES and role != "tool":
            return [UnknownEvent(original_type=role, raw=dict(message),
                                 problem=f"role {role!r} is none of system, developer, user, assistant, tool")]
        out: list[HistoryEvent] = []
        responses = [k for k, p in enumerate(parts_list)
                     if isinstance(p, Mapping) and p.get("type") == "tool_call_response"]
        if role != "assistant" and responses:
            # Each response, with the parts after it up to the next, is one tool message; the
            # parts before the first are a message of the message's own role.
            head = parts_list[:responses[0]]
            if head and role != "tool":
                out.append(self._plain(role, head, path))
            elif head:
                out.append(UnknownEvent(original_type="tool", raw={"role": role, "parts": head},
                                        problem="parts of a tool message before its first tool_call_response"))
            for n, k in enumerate(responses):
                end = responses[n + 1] if n + 1 < len(responses) else len(parts_list)
                out.append(self._tool(parts_list[k], parts_list[k + 1:end], f"{path}.parts[{k}]"))
            return out
        if role == "tool":
            return [UnknownEvent(original_type="tool", raw=dict(message),
                                 problem="a tool message without a tool_call_response part")]
        return [self._plain(role, parts_list, path)]

    def _plain(self, role: str, raw_parts: list[Any], path: str) -> HistoryEvent:
        parts = self.parts(raw_parts, f"{path}.parts")
        message: HistoryEvent = _ROLES[role](parts=tuple(parts))
        return message

    def _tool(self, response: Mapping[str, Any], rest: list[Any], path: str) -> _messages.ToolMessage:
        call_id = response.get("id")
        call_id = call_id if isinstance(call_id, str) else ""
        value = response.get("response")
        text, data = (value, None) if isinstance(value, str) else ("", value)
        return _messages.ToolMessage(call_id=call_id, tool_name=self.calls.get(call_id, ""), output_text=text,
                                     data=data, parts=tuple(self.parts(rest, path)))

    def parts(self, raw_parts: list[Any], path: str) -> list[_parts.Part]:
        return [self.part(p, f"{path}[{k}]") for k, p in enumerate(raw_parts)]

    def part(self, raw: Any, path: str) -> _parts.Part:
        if not isinstance(raw, Mapping) or not isinstance(raw.get("type"), str):
            raise _error("a part is an object with a string type", path)
        kind = raw["type"]
        try:
            return self._part(kind, raw)
        except (KeyError, TypeError, ValueError) as exc:
            raise _error(f"a {kind} part of the wrong shape: {exc}", path) from exc

    def _part(self, kind: str, raw: Mapping[str, Any]) -> _parts.Part:
        if kind in ("text", "reasoning", "refusal") and isinstance(raw.get("content"), str):
            text: _parts.Part = _TEXTS[kind](text=raw["content"])
            return text
        if kind == "tool_call" and isinstance(raw.get("name"), str):
            call_id = raw["id"] if isinstance(raw.get("id"), str) else ""
            self.calls[call_id] = raw["name"]
            arguments = raw.get("arguments")
            arguments_json = arguments if isinstance(arguments, str) else json.dumps(
                {} if arguments is None else arguments, ensure_ascii=False, separators=(",", ":"))
            return _parts.ToolCallPart(id=call_id, name=raw["name"], arguments_json=arguments_json)
        if kind == "server_tool_call" and isinstance(raw.get("server_tool_call"), Mapping):
            body = raw["server_tool_call"]
            return _parts.ServerToolCallPart(id=str(raw.get("id") or ""), name=str(raw.get("name") or body["type"]),
                                             input=_generic_value(body, "input"), issuer=self.issuer)
        if kind == "server_tool_call_response" and isinstance(raw.get("server_tool_call_response"), Mapping):
            body = raw["server_tool_call_response"]
            return _parts.ServerToolResultPart(call_id=str(raw.get("id") or ""), name=str(body["type"]),
                                               output=_generic_value(body, "output"), issuer=self.issuer)
        if kind in ("blob", "uri", "file"):
            return self._media(kind, raw)
        return _parts.UnknownPart(original_type=kind, raw=dict(raw), issuer=ADAPTER)

    def _media(self, kind: str, raw: Mapping[str, Any]) -> _parts.Part:
        modality = raw.get("modality")
        media_type = raw.get("mime_type")
        if kind == "blob":
            content = raw["content"]
            if not isinstance(content, str):
                raise TypeError("content is not a string")
            if modality == "document" and isinstance(media_type, str) and media_type.startswith("text/"):
                text = _text_of(content)
                if text is not None:
                    return _parts.DocumentPart(source=_parts.TextSource(text=text), media_type=media_type)
            source: Any = _parts.Base64Source(data=content)
        elif kind == "uri":
            source = _parts.UrlSource(url=raw["uri"])
        else:
            source = _parts.ProviderFileSource(file_id=raw["file_id"], issuer=self.issuer)
        cls = _MEDIA.get(modality) if isinstance(modality, str) else None
        if cls is not None:
            media: _parts.Part = cls(source=source, media_type=media_type)
            return media
        if modality == "document":
            return _parts.DocumentPart(source=source, media_type=media_type)
        return _parts.UnknownPart(original_type=kind, raw=dict(raw), issuer=ADAPTER)


def _generic_value(body: Mapping[str, Any], key: str) -> Any:
    if set(body) == {"type", key}:
        return body[key]
    return {k: v for k, v in body.items() if k != "type"}


def _text_of(content: str) -> str | None:
    try:
        return base64.b64decode(content, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
