"""OpenTelemetry GenAI messages: histories as GenAI span attributes, and back.

The GenAI semantic conventions (status Development) record a model call's messages on its span as
``gen_ai.system_instructions``, ``gen_ai.input.messages``, ``gen_ai.output.messages`` and
``gen_ai.tool.definitions``, each following a JSON schema. partwire implements the schemas of the
conventions' release 1.41.1 (:data:`SEMCONV_VERSION`, vendored in ``partwire/otel/schemas/``;
read them with :func:`schema`). The mapping, and what the conventions cannot hold, are in
``docs/otel.md``.

- :func:`to_attributes`: a history as one model call (its last assistant message is the output).
- :func:`projection_attributes`: the exact request a :class:`~partwire.projection.Projection`
  sends, read back through its adapter.
- :func:`from_attributes` / :func:`tools_from_attributes`: import a span recorded by others.
- :func:`record`: set the attributes on a span (the current one by default) and emit the
  ``gen_ai.client.inference.operation.details`` event; needs ``opentelemetry-api``
  (``pip install 'partwire[otel]'``), imported on call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from partwire._memo import derived
from partwire.history import HistoryEvent
from partwire.messages import AssistantMessage
from partwire.projection import Projection

from ._common import EVENT_NAME, SEMCONV_COMMIT, SEMCONV_VERSION
from ._decode import attributes_of, decode, decode_tools
from ._encode import GenAIAttributes, encode

__all__ = [
    "EVENT_NAME",
    "SCHEMAS",
    "SEMCONV_COMMIT",
    "SEMCONV_VERSION",
    "GenAIAttributes",
    "from_attributes",
    "projection_attributes",
    "record",
    "schema",
    "span_attributes",
    "to_attributes",
    "tools_from_attributes",
]

SCHEMAS: dict[str, str] = {
    "gen_ai.system_instructions": "gen-ai-system-instructions.json",
    "gen_ai.input.messages": "gen-ai-input-messages.json",
    "gen_ai.output.messages": "gen-ai-output-messages.json",
    "gen_ai.tool.definitions": "gen-ai-tool-definitions.json",
}
"""Attribute -> the file name of its JSON schema in the conventions (and in ``schemas/`` here)."""

# Request body fields -> gen_ai.request.* attributes, for every adapter's body (Gemini's sit in
# its generationConfig).
_REQUEST_FIELDS: dict[str, str] = {
    "max_tokens": "max_tokens", "max_completion_tokens": "max_tokens",
    "max_output_tokens": "max_tokens", "maxOutputTokens": "max_tokens",
    "temperature": "temperature", "top_p": "top_p", "topP": "top_p", "top_k": "top_k",
    "topK": "top_k", "stop": "stop_sequences", "stop_sequences": "stop_sequences",
    "stopSequences": "stop_sequences", "seed": "seed", "frequency_penalty": "frequency_penalty",
    "frequencyPenalty": "frequency_penalty", "presence_penalty": "presence_penalty",
    "presencePenalty": "presence_penalty", "num_predict": "max_tokens",  # Ollama's, in options
}


def to_attributes(history: Sequence[HistoryEvent], *, tools: Sequence[Any] = (),
                  provider: str | None = None, strict: bool = False) -> GenAIAttributes:
    """``history`` as the GenAI attributes of one model call, and what they cannot hold.

    A history whose last message is an assistant message is a call and its answer: that message is
    ``gen_ai.output.messages`` (with the response model, id, finish reason and usage as their own
    attributes); everything before it is the input. The first message, when it is a system
    message, is ``gen_ai.system_instructions``. ``tools`` (canonical definitions, or provider dicts
    with a ``type`` and a ``name``) become ``gen_ai.tool.definitions``. ``provider`` is an issuer
    (``anthropic``); by default, the last assistant message's provider. ``strict=True`` raises
    :class:`~partwire.errors.LossError` instead of losing anything.
    """
    return encode(history, tools, provider, strict)


def projection_attributes(projection: Projection, api: str, *, answer: AssistantMessage | None = None,
                          strict: bool = False) -> GenAIAttributes:
    """The attributes of the exact request ``projection`` sends through adapter ``api``.

    The request body is read back through that adapter's ``from_wire_request``, so the messages
    are what the provider receives (after the projection's own losses), and the body's model and
    sampling fields become ``gen_ai.request.*``. ``answer``, the response, becomes the output.
    """
    from partwire.adapters import get_adapter

    adapter = get_adapter(api)
    imported = adapter.from_wire_request(projection.request)
    history: list[HistoryEvent] = list(imported.history)
    if answer is not None:
        history.append(answer)
    result = encode(history, imported.tools, adapter.CAPABILITIES.issuer, strict)
    attrs = dict(result.attributes)
    body = projection.request
    fields = {**body, **body.get("generationConfig", {})} if isinstance(body.get("generationConfig"), dict) else body
    if isinstance(body.get("options"), dict):  # Ollama states sampling in options
        fields = {**fields, **body["options"]}
    for key, name in _REQUEST_FIELDS.items():
        value = fields.get(key)
        if value is not None:
            attrs[f"gen_ai.request.{name}"] = [value] if name == "stop_sequences" and isinstance(value, str) else value
    model = body.get("model")
    if isinstance(model, str) and model:
        attrs["gen_ai.request.model"] = model
    return GenAIAttributes(attributes=attrs, losses=result.losses)


def from_attributes(data: Any) -> list[HistoryEvent]:
    """The history a GenAI span recorded: its attributes (structured, or as JSON text as spans
    may hold them), a span's JSON (``{"attributes": {...}}``) or OTLP JSON attributes.

    System instructions become a system message, input messages the messages they are (each
    ``tool_call_response`` part a tool message), and the first output message an assistant
    message with the span's response model, id, finish reason and usage. Parts the conventions
    do not define are kept as unknown parts; further output choices as unknown events.
    """
    return decode(attributes_of(data))


def tools_from_attributes(data: Any) -> tuple[Any, ...]:
    """The tool definitions a span recorded: canonical definitions for function tools whose
    schema partwire can hold (``side_effects="execute"``: the conventions do not say), the
    recorded dict for any other."""
    return decode_tools(attributes_of(data))


def span_attributes(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """The attributes as a span can hold them: structured values as JSON text, as the
    conventions say for SDKs without structured span attributes."""
    out: dict[str, Any] = {}
    for key, value in attributes.items():
        if isinstance(value, str | bool | int | float) or (
                isinstance(value, list) and all(isinstance(v, str | bool | int | float) for v in value)):
            out[key] = value
        else:
            out[key] = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return out


def record(attributes: GenAIAttributes | Mapping[str, Any], *, span: Any = None, event: bool = True,
           logger: Any = None) -> None:
    """Set ``attributes`` on ``span`` (the current span by default) and, with ``event``, emit
    them in structured form as the ``gen_ai.client.inference.operation.details`` event on
    ``logger`` (an OpenTelemetry logs API logger; by default the global provider's ``partwire``
    logger). Needs ``opentelemetry-api``: ``pip install 'partwire[otel]'``."""
    try:
        from opentelemetry import _logs, trace
    except ImportError as exc:
        raise ImportError("partwire.otel.record needs 'opentelemetry-api': "
                          "pip install 'partwire[otel]'") from exc
    attrs = attributes.attributes if isinstance(attributes, GenAIAttributes) else dict(attributes)
    target = span if span is not None else trace.get_current_span()
    target.set_attributes(span_attributes(attrs))
    if event:
        emitter = logger if logger is not None else _logs.get_logger("partwire")
        emitter.emit(event_name=EVENT_NAME, attributes=attrs)


@derived
@cache
def _schema_text(name: str) -> str:
    return resources.files(__name__).joinpath("schemas", name).read_text(encoding="utf-8")


def schema(attribute: str) -> dict[str, Any]:
    """The conventions' JSON schema of ``attribute`` (``gen_ai.input.messages``), as vendored."""
    if attribute not in SCHEMAS:
        raise KeyError(f"no schema for {attribute!r}: the schemas are for {', '.join(SCHEMAS)}")
    value: dict[str, Any] = json.loads(_schema_text(SCHEMAS[attribute]))
    return value


