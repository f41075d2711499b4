"""History -> the GenAI span attributes (``gen_ai.input.messages`` and the rest), with losses."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, assert_never

from partwire import messages as _messages
from partwire import parts as _parts
from partwire.errors import LossError
from partwire.history import HistoryEvent
from partwire.projection import Loss, LossAction, log_losses
from partwire.tools import ToolDefinition

from ._common import (
    ADAPTER,
    FINISH_REASONS,
    INPUT_MESSAGES,
    OPERATION,
    OUTPUT_MESSAGES,
    PROVIDER,
    PROVIDER_OF_ISSUER,
    SYSTEM_INSTRUCTIONS,
    TOOL_DEFINITIONS,
)

__all__ = ["GenAIAttributes", "encode"]

# Part types the conventions define; an unknown part whose raw type collides with one of them
# would be read back as that part, so it is not written as a generic part.
_OTEL_TYPES = frozenset({"text", "tool_call", "tool_call_response", "server_tool_call",
                         "server_tool_call_response", "blob", "file", "uri", "reasoning"})
# Message fields the conventions have no place for, by message class (ids and times never are:
# a span has its own, and import makes new ones).
_COMMON = ("parent_id", "metadata", "provider_data")
_EXTRAS: dict[type, tuple[str, ...]] = {
    _messages.SystemMessage: _COMMON, _messages.DeveloperMessage: _COMMON,
    _messages.UserMessage: _COMMON,
    _messages.ToolMessage: (*_COMMON, "started_at", "finished_at", "truncated", "full_output_ref",
                            "ui_extra", "side_effects"),
    _messages.AssistantMessage: (*_COMMON, "status", "stop_reason", "stop_reason_raw", "model",
                                 "provider", "api", "response_id", "usage", "routing"),
}
# What the span attributes carry of the answer (the output message).
_CARRIED_BY_SPAN = frozenset({"stop_reason", "model", "provider", "response_id", "usage"})


@dataclass(frozen=True, slots=True)
class GenAIAttributes:
    """A model call as the GenAI semantic conventions record it, and what they could not hold."""

    attributes: dict[str, Any]
    """Attribute name -> JSON value (structured: lists and objects, not JSON text)."""
    losses: tuple[Loss, ...] = ()
    """Everything the conventions cannot hold, in history order."""

    @property
    def lossless(self) -> bool:
        """Whether nothing was lost."""
        return not self.losses


def encode(history: Sequence[HistoryEvent], tools: Sequence[Any], provider: str | None,
           strict: bool) -> GenAIAttributes:
    """The attributes of ``history`` as one model call (see :func:`partwire.otel.to_attributes`)."""
    enc = _Encoder()
    attrs: dict[str, Any] = {OPERATION: "chat"}
    events = list(history)
    # The call's answer: the last message, when the model gave it (events after it are no input).
    last = next((i for i in range(len(events) - 1, -1, -1) if _is_message(events[i])), None)
    output_at = last if last is not None and isinstance(events[last], _messages.AssistantMessage) else None
    first_message = next((i for i, e in enumerate(events) if _is_message(e)), None)
    inputs: list[dict[str, Any]] = []
    for i, event in enumerate(events):
        if i == output_at:
            continue
        if i == first_message and isinstance(event, _messages.SystemMessage):
            parts = enc.parts(event.parts, f"history[{i}]", event.id)
            enc.extras(event, i, ())
            attrs[SYSTEM_INSTRUCTIONS] = parts
            continue
        if not _is_message(event):
            enc.add(f"history[{i}]", event.type, "dropped",
                    f"{event.type} events are not messages, and the conventions record messages only",
                    event.id)
            continue
        message = enc.message(event, i)
        if message is not None:
            inputs.append(message)
    attrs[INPUT_MESSAGES] = inputs
    answer = events[output_at] if output_at is not None else None
    if isinstance(answer, _messages.AssistantMessage):
        assert output_at is not None
        out = enc.message(answer, output_at, output=True)
        out = out or {"role": "assistant", "parts": []}
        out["finish_reason"] = FINISH_REASONS.get(answer.stop_reason or "", "unknown")
        attrs[OUTPUT_MESSAGES] = [out]
        attrs.update(_response_attributes(answer))
    issuer = provider or _last_provider(events)
    if issuer:
        attrs[PROVIDER] = PROVIDER_OF_ISSUER.get(issuer, issuer)
    if tools:
        attrs[TOOL_DEFINITIONS] = enc.tools(tools)
    found = tuple(enc.losses)
    if found and strict:
        raise LossError(found, ADAPTER)
    log_losses(found)
    return GenAIAttributes(attributes=attrs, losses=found)


def _is_message(event: HistoryEvent) -> bool:
    return isinstance(event, _messages.SystemMessage | _messages.DeveloperMessage | _messages.UserMessage | _messages.AssistantMessage | _messages.ToolMessage)


def _last_provider(events: list[HistoryEvent]) -> str | None:
    for event in reversed(events):
        if isinstance(event, _messages.AssistantMessage) and event.provider:
            return event.provider
    return None


def _response_attributes(answer: _messages.AssistantMessage) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if answer.model:
        name = answer.model.partition(":")[2] or answer.model
        out["gen_ai.request.model"] = name
        out["gen_ai.response.model"] = name
    if answer.response_id:
        out["gen_ai.response.id"] = answer.response_id
    if answer.stop_reason:
        out["gen_ai.response.finish_reasons"] = [FINISH_REASONS[answer.stop_reason]]
    usage = answer.usage
    if usage is not None:
        out["gen_ai.usage.input_tokens"] = usage.input_tokens
        out["gen_ai.usage.output_tokens"] = usage.output_tokens
        if usage.cache_read_tokens:
            out["gen_ai.usage.cache_read.input_tokens"] = usage.cache_read_tokens
        if usage.cache_write_tokens:
            out["gen_ai.usage.cache_creation.input_tokens"] = usage.cache_write_tokens
        if usage.reasoning_tokens:
            out["gen_ai.usage.reasoning.output_tokens"] = usage.reasoning_tokens
    return out


class _Encoder:
    def __init__(self) -> None:
        self.losses: list[Loss] = []

    def add(self, path: str, part_type: str, action: LossAction, reason: str,
            message_id: str | None = None) -> None:
        self.losses.append(Loss(path, part_type, action, reason, ADAPTER, message_id))

    def extras(self, message: Any, i: int, carried: Any) -> None:
        """One loss naming the message's fields the conventions cannot hold, if it has any."""
        names = []
        for name in _EXTRAS[type(message)]:
            if name in carried:
                continue
            value = getattr(message, name)
            default = type(message).model_fields[name].get_default(call_default_factory=True)
            if value != default or (name == "provider_data" and value is not None):
                names.append(name)
        if isinstance(message, _messages.AssistantMessage) and message.usage is not None and "usage" in carried:
            usage = message.usage
            names += [f"usage.{n}" for n in ("cost", "pricing_version", "latency_ms", "provider_data")
                      if getattr(usage, n) is not None]
        if names:
            self.add(f"history[{i}]", f"{message.role}_message", "dropped",
                     f"the GenAI conventions have no place for {', '.join(names)}", message.id)

    def message(self, event: Any, i: int, *, output: bool = False) -> dict[str, Any] | None:
        path = f"history[{i}]"
        if isinstance(event, _messages.ToolMessage):
            parts = [self.tool_response(event, path)]
            parts += self.parts(event.parts, path, event.id)
            self.extras(event, i, ())
            return {"role": "tool", "parts": parts}
        parts = self.parts(event.parts, path, event.id)
        self.extras(event, i, _CARRIED_BY_SPAN if output else ())
        if not parts and event.parts and not output:
            self.add(path, f"{event.role}_message", "dropped", "every part of it was dropped", event.id)
            return None
        return {"role": event.role, "parts": parts}

    def tool_response(self, event: _messages.ToolMessage, path: str) -> dict[str, Any]:
        response: Any = event.output_text
        if event.data is not None:
            if event.output_text:
                self.add(f"{path}.data", "tool_message", "dropped",
                         "a tool_call_response holds one response: the output text is kept, the "
                         "structured data is not", event.id)
            else:
                response = event.data
        if event.status != "success":
            self.add(f"{path}.status", "tool_message", "dropped",
                     f"the conventions have no tool status: {event.status!r} is not recorded", event.id)
        return {"type": "tool_call_response", "id": event.call_id, "response": response}

    def parts(self, parts: Sequence[_parts.Part], path: str, message_id: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for j, part in enumerate(parts):
            where = f"{path}.parts[{j}]"
            encoded = self.part(part, where, message_id)
            if encoded is not None:
                out.append(encoded)
                if part.provider_data is not None:
                    self.add(where, part.type, "dropped",
                             f"echo state for {part.provider_data.issuer} has no place in the conventions",
                             message_id)
        return out

    def part(self, part: _parts.Part, path: str, message_id: str) -> dict[str, Any] | None:
        match part:
            case _parts.TextPart():
                if part.citations:
                    self.add(path, "text", "dropped", "the conventions have no citations", message_id)
                return {"type": "text", "content": part.text}
            case _parts.ImagePart():
                if part.detail is not None:
                    self.add(path, "image", "dropped", f"the conventions have no image detail ({part.detail})",
                             message_id)
                return self.media(part, "image", path, message_id)
            case _parts.AudioPart():
                return self.media(part, "audio", path, message_id)
            case _parts.DocumentPart():
                named = [n for n in ("title", "filename") if getattr(part, n) is not None]
                if named:
                    self.add(path, "document", "dropped",
                             f"the conventions have no document {' or '.join(named)}", message_id)
                return self.media(part, "document", path, message_id)
            case _parts.ThinkingPart():
                if part.signature is not None or part.id is not None:
                    what = "signature" if part.signature is not None else "item id"
                    self.add(path, "thinking", "dropped",
                             f"the reasoning {what} (verifiable by {self._issuer(part)} only) has no "
                             f"place in the conventions", message_id)
                return {"type": "reasoning", "content": part.text}
            case _parts.RedactedThinkingPart():
                self.add(path, "redacted_thinking", "dropped",
                         "encrypted reasoning has no place in the conventions", message_id)
                return None
            case _parts.ToolCallPart():
                if part.provider_ids:
                    self.add(path, "tool_call", "dropped",
                             f"the id(s) {', '.join(sorted(part.provider_ids))} gave the call are not "
                             f"recorded, only its canonical id", message_id)
                return {"type": "tool_call", "id": part.id, "name": part.name,
                        "arguments": self.arguments(part, path, message_id)}
            case _parts.ServerToolCallPart():
                return {"type": "server_tool_call", "id": part.id, "name": part.name,
                        "server_tool_call": _generic(part.name, part.input, "input")}
            case _parts.ServerToolResultPart():
                return {"type": "server_tool_call_response", "id": part.call_id,
                        "server_tool_call_response": _generic(part.name, part.output, "output")}
            case _parts.RefusalPart():
                return {"type": "refusal", "content": part.text}
            case _parts.UnknownPart():
                raw = part.raw
                if isinstance(raw, dict) and isinstance(raw.get("type"), str) and raw["type"] not in _OTEL_TYPES:
                    return dict(raw)
                self.add(path, "unknown", "dropped",
                         "an unknown part without a type of its own cannot be a generic part", message_id)
                return None
            case _:
                assert_never(part)

    def arguments(self, part: _parts.ToolCallPart, path: str, message_id: str) -> Any:
        try:
            value = json.loads(part.arguments_json) if part.arguments_json.strip() else {}
        except json.JSONDecodeError:
            return part.arguments_json  # malformed arguments are kept as the text they are
        if json.dumps(value, ensure_ascii=False, separators=(",", ":")) != part.arguments_json:
            self.add(path, "tool_call", "rewritten",
                     "the arguments are recorded as a JSON value, not as the exact text the model wrote",
                     message_id)
        return value

    def media(self, part: _parts.ImagePart | _parts.AudioPart | _parts.DocumentPart, modality: str,
              path: str, message_id: str) -> dict[str, Any] | None:
        source = part.source
        head: dict[str, Any] = {"modality": modality}
        if part.media_type is not None:
            head["mime_type"] = part.media_type
        match source:
            case _parts.Base64Source():
                return {"type": "blob", **head, "content": source.data}
            case _parts.UrlSource():
                return {"type": "uri", **head, "uri": source.url}
            case _parts.ProviderFileSource():
                return {"type": "file", **head, "file_id": source.file_id}
            case _parts.TextSource():
                head.setdefault("mime_type", "text/plain")
                return {"type": "blob", **head,
                        "content": base64.b64encode(source.text.encode()).decode("ascii")}
            case _parts.FileRefSource():
                self.add(path, part.type, "downgraded",
                         "a workspace file is recorded as a uri of its path; its size and hash are not",
                         message_id)
                return {"type": "uri", **head, "uri": source.path}
            case _:
                assert_never(source)

    def tools(self, tools: Sequence[Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for k, tool in enumerate(tools):
            if isinstance(tool, ToolDefinition):
                out.append({"type": "function", "name": tool.name, "description": tool.description,
                            "parameters": tool.input_schema})
                self.add(f"request.tools[{k}]", "tool_definition", "dropped",
                         "the conventions have no side_effects, requires_workspace or strict")
            elif isinstance(tool.get("type"), str) and isinstance(tool.get("name"), str):
                out.append(dict(tool))
            else:
                self.add(f"request.tools[{k}]", "tool_definition", "dropped",
                         "a tool without a type and a name is not a tool definition of the conventions")
        return out

    @staticmethod
    def _issuer(part: _parts.ThinkingPart) -> str:
        if part.signature is not None:
            return part.signature.issuer
        return part.provider_data.issuer if part.provider_data is not None else "its issuer"


def _generic(name: str, value: Any, key: str) -> dict[str, Any]:
    """A generic server tool call or response: its type, and the provider's own fields."""
    if isinstance(value, dict) and "type" not in value and key not in value:
        return {"type": name, **value}
    return {"type": name, key: value}
