"""Request validity: a request body must validate, strictly, against the provider SDK's own types.

The SDKs type request bodies as ``TypedDict``s whose lists are ``Iterable``. Out of the box a
pydantic ``TypeAdapter`` over them is too lenient to be a check: ``Iterable`` fields validate
lazily (items are only checked when someone iterates), and unknown keys pass. So the validator is
built from the SDK type's core schema with two changes: every ``Iterable`` is validated eagerly as
a list, and every ``TypedDict`` (and response model admitted in a request union) forbids keys it
does not declare. Validation runs in strict mode
on the JSON form of the body (what goes on the wire), so ``"1"`` is no ``int`` and a tuple is a
list.

To cover another adapter, add its SDK request types to :data:`SDK_REQUEST_TYPES`.
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter
from pydantic_core import SchemaValidator, ValidationError

__all__ = ["DIALECT_VALIDATORS", "SDK_REQUEST_TYPES", "assert_valid_request", "request_errors",
           "strict_validator"]

SDK_REQUEST_TYPES: dict[str, tuple[str, str, str]] = {
    "anthropic": (
        "anthropic.types.message_create_params",
        "MessageCreateParamsNonStreaming",
        "MessageCreateParamsStreaming",
    ),
    "openai_chat": (
        "openai.types.chat.completion_create_params",
        "CompletionCreateParamsNonStreaming",
        "CompletionCreateParamsStreaming",
    ),
    "openai_responses": (
        "openai.types.responses.response_create_params",
        "ResponseCreateParamsNonStreaming",
        "ResponseCreateParamsStreaming",
    ),
    # google-genai has no TypedDict of the body: _google_errors checks contents against its
    # Content model and every other field against GenerateContentConfig (the stream's body is
    # the same; the stream flag is in the URL).
    "google": ("google.genai.types", "GenerateContentConfig", "GenerateContentConfig"),
    # boto3 has no request types: botocore's validator over the service model's ConverseRequest
    # and ConverseStreamRequest shapes (request_errors dispatches to it).
    "bedrock": ("botocore.validate", "ParamValidator", "ParamValidator"),
    # The ollama package's pydantic models, closed to keys they do not declare (_ollama_errors).
    "ollama": ("ollama._types", "ChatRequest", "ChatRequest"),
    # The cohere SDK's models take unknown keys: tests/harness/cohere.py closes them.
    "cohere": ("cohere.v2.client", "V2Client", "V2Client"),
}
"""Per adapter: the SDK module, its non-streaming request type and its streaming request type."""

# What a list schema takes over from the generator (Iterable) schema it replaces.
_LIST_KEYS = frozenset({"items_schema", "min_length", "max_length", "ref", "metadata", "serialization"})


def _tighten(node: Any) -> Any:
    """The core schema with Iterables made eager lists and every object closed to unknown keys.

    Request unions also admit the SDK's response models, so that a response block can be sent
    back as is; a dict shaped like one is as valid as the model, but only without extra keys.
    """
    if isinstance(node, list):
        return [_tighten(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _tighten(value) for key, value in node.items()}
    if out.get("type") == "generator":
        out = {key: value for key, value in out.items() if key in _LIST_KEYS}
        out["type"] = "list"
    elif out.get("type") in ("typed-dict", "model-fields"):
        out["extra_behavior"] = "forbid"
    elif out.get("type") == "model":
        out["config"] = {**out.get("config", {}), "extra_fields_behavior": "forbid"}
    return out


@functools.cache
def strict_validator(api: str, *, stream: bool = False) -> SchemaValidator:
    """The strict validator of ``api``'s request body type (streaming or not)."""
    module_name, plain, streaming = SDK_REQUEST_TYPES[api]
    request_type = getattr(importlib.import_module(module_name), streaming if stream else plain)
    schema = copy.deepcopy(TypeAdapter(request_type).core_schema)
    return SchemaValidator(_tighten(schema))


def _google_errors(body: Mapping[str, Any]) -> list[str]:
    """Every way a Gemini body fails the SDK's strict pydantic types (``extra="forbid"``).

    google-genai has no TypedDict of the REST body: its ``Content`` types hold ``contents`` and
    ``systemInstruction``, and ``GenerateContentConfig`` holds every other field, with
    ``generationConfig`` spread flat in it, as the SDK builds the body from them.
    """
    from google.genai import types

    top = {"systemInstruction": "system_instruction", "tools": "tools", "toolConfig": "tool_config",
           "safetySettings": "safety_settings", "cachedContent": "cached_content",
           "labels": "labels", "serviceTier": "service_tier", "store": "store"}
    errors: list[str] = []

    def check(model: Any, value: Any, where: str) -> None:
        try:
            model.model_validate(value)
        except ValidationError as exc:
            errors.extend(f"{where}.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                          for e in exc.errors(include_url=False))

    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        errors.append("contents: must be a non-empty list")
    else:
        for i, content in enumerate(contents):
            check(types.Content, content, f"contents.{i}")
            if isinstance(content, dict) and content.get("role") not in ("user", "model"):
                errors.append(f"contents.{i}.role: must be 'user' or 'model'")
    config: dict[str, Any] = {}
    for key, value in body.items():
        if key == "contents":
            continue
        if key == "generationConfig" and isinstance(value, dict):
            config.update(value)
        elif key in top:
            config[top[key]] = value
        else:
            errors.append(f"{key}: not a field of the generateContent body")
    check(types.GenerateContentConfig, config, "config")
    return errors


def _mistral_errors(body: Mapping[str, Any], *, stream: bool) -> list[str]:
    """Every way a Mistral chat body fails the ``mistralai`` SDK's own request model.

    The SDK's models are pydantic models that take unknown keys and unknown content chunks
    (kept as ``UnknownContentChunk``) without complaint, so unknown keys, at the top, on messages
    and on chunks, and unknown chunk types are refused here; the model validates the rest.
    """
    from mistralai.client import models

    request_type = models.ChatCompletionStreamRequest if stream else models.ChatCompletionRequest
    errors: list[str] = []

    def fields(model: Any) -> set[str]:
        return {f.alias or name for name, f in model.model_fields.items()}

    def closed(value: Any, model: Any, where: str) -> None:
        if isinstance(value, dict):
            errors.extend(f"{where}.{key}: not a field of {model.__name__}"
                          for key in sorted(set(value) - fields(model)))

    closed(body, request_type, "body")
    roles = {"system": models.SystemMessage, "user": models.UserMessage,
             "assistant": models.AssistantMessage, "tool": models.ToolMessage}
    chunks = {"text": models.TextChunk, "image_url": models.ImageURLChunk,
              "document_url": models.DocumentURLChunk, "reference": models.ReferenceChunk,
              "file": models.FileChunk, "thinking": models.ThinkChunk,
              "input_audio": models.AudioChunk}
    for i, message in enumerate(body.get("messages") or ()):
        if not isinstance(message, dict) or message.get("role") not in roles:
            continue  # the model says what is wrong with it
        closed(message, roles[message["role"]], f"messages.{i}")
        content = message.get("content")
        for j, chunk in enumerate(content if isinstance(content, list) else ()):
            kind = chunk.get("type") if isinstance(chunk, dict) else None
            if kind not in chunks:
                errors.append(f"messages.{i}.content.{j}: not a chunk type Mistral takes ({kind!r})")
            else:
                closed(chunk, chunks[kind], f"messages.{i}.content.{j}")
    try:
        request_type.model_validate(body)
    except ValidationError as exc:
        errors.extend(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                      for e in exc.errors(include_url=False))
    return errors


def _ollama_errors(body: Mapping[str, Any], *, stream: bool) -> list[str]:
    """Every way an Ollama chat body fails the ``ollama`` package's own request models.

    Its models take unknown keys without complaint (and ``options`` as any mapping), so keys
    beyond the declared ones are refused here, at the top, on messages, on tool calls, on tools
    and in ``options``; the models validate the rest, images through the package's own ``Image``
    (a base64 text it accepts as is).
    """
    from ollama import _types as types

    errors: list[str] = []

    def closed(value: Any, model: Any, where: str) -> None:
        if isinstance(value, dict):
            names = {f.alias or name for name, f in model.model_fields.items()}
            errors.extend(f"{where}.{key}: not a field of {model.__name__}"
                          for key in sorted(set(value) - names))

    closed(body, types.ChatRequest, "body")
    if stream is not (body.get("stream") is True):
        errors.append(f"stream: {'a streamed' if stream else 'a whole'} request says {body.get('stream')!r}")
    closed(body.get("options"), types.Options, "options")
    messages = body.get("messages")
    for i, message in enumerate(messages if isinstance(messages, list) else ()):
        closed(message, types.Message, f"messages.{i}")
        if not isinstance(message, dict):
            continue
        if message.get("role") not in ("system", "user", "assistant", "tool"):
            errors.append(f"messages.{i}.role: not a role Ollama takes ({message.get('role')!r})")
        for j, call in enumerate(message.get("tool_calls") or ()):
            closed(call, types.Message.ToolCall, f"messages.{i}.tool_calls.{j}")
            if isinstance(call, dict):
                closed(call.get("function"), types.Message.ToolCall.Function,
                       f"messages.{i}.tool_calls.{j}.function")
        for j, image in enumerate(message.get("images") or ()):
            try:
                types.Image(value=image).model_dump()
            except (ValueError, TypeError) as exc:
                errors.append(f"messages.{i}.images.{j}: {exc}")
    tools = body.get("tools")
    for i, tool in enumerate(tools if isinstance(tools, list) else ()):
        closed(tool, types.Tool, f"tools.{i}")
        if isinstance(tool, dict):
            closed(tool.get("function"), types.Tool.Function, f"tools.{i}.function")
    wire = {**body, "messages": [
        {**m, "images": [types.Image(value=x) for x in m["images"]]}
        if isinstance(m, dict) and isinstance(m.get("images"), list) and not errors else m
        for m in (messages if isinstance(messages, list) else ())]} if isinstance(messages, list) else body
    try:
        types.ChatRequest.model_validate(wire)
    except ValidationError as exc:
        errors.extend(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                      for e in exc.errors(include_url=False))
    return errors


DIALECT_VALIDATORS: dict[str, str] = {"mistral": "openai_chat:mistral"}
"""Chat dialects whose own SDK types a request (the ``api`` name :func:`request_errors` takes)."""


def request_errors(api: str, request: Mapping[str, Any], *, stream: bool = False) -> list[str]:
    """Every way ``request`` fails ``api``'s SDK request type; empty when it is valid."""
    if api == "bedrock":
        # boto3 has no typed request: botocore's own parameter validator checks the keyword
        # arguments (bytes and all), plus the rules it leaves out (tests/harness/bedrock.py).
        from tests.harness.bedrock import converse_errors

        return converse_errors(request, stream=stream)
    if api == "cohere":
        from tests.harness.cohere import cohere_errors

        return cohere_errors(json.loads(json.dumps(request)), stream=stream)
    wire = json.loads(json.dumps(request))
    if api == "google":
        return _google_errors(wire)
    if api == "openai_chat:mistral":
        return _mistral_errors(wire, stream=stream)
    if api == "ollama":
        return _ollama_errors(wire, stream=stream)
    try:
        strict_validator(api, stream=stream).validate_python(wire, strict=True)
    except ValidationError as exc:
        return [
            f"{'.'.join(str(p) for p in error['loc'])}: {error['msg']}"
            for error in exc.errors(include_url=False)
        ]
    return []


def assert_valid_request(api: str, request: Mapping[str, Any], *, stream: bool = False) -> None:
    """Fail when ``request`` is not a valid ``api`` request body by the SDK's own types."""
    errors = request_errors(api, request, stream=stream)
    # A union reports an error per member it tried; the deepest ones name the offending field.
    deepest = sorted(errors, key=lambda e: e.split(":", 1)[0].count("."), reverse=True)
    assert not errors, f"invalid {api} request ({len(errors)} errors, deepest first):\n" + "\n".join(
        deepest[:12]
    )
