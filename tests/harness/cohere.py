"""Cohere v2 request validity: the ``cohere`` SDK's own request types, closed to unknown keys.

The SDK's ``client.v2.chat`` takes the body's fields as keyword arguments typed by its pydantic
models (``ChatMessageV2``, ``ToolV2``, ``ResponseFormatV2``...). Those models take any extra key
without complaint (Fern's ``UncheckedBaseModel``), so every object is checked here against the
fields its model declares, by its discriminator (a message by ``role``, an item by ``type``),
and the models then check the types. The top level is checked against ``chat``'s own parameters.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter, ValidationError

__all__ = ["cohere_errors"]


@functools.cache
def _models() -> dict[str, Any]:
    import cohere
    from cohere.types import (
        assistant_message_v2content_one_item as assistant_items,
    )
    from cohere.types import (
        chat_message_v2,
        content,
        source,
        tool_content,
    )
    from cohere.v2.client import V2Client

    params = set(inspect.signature(V2Client.chat).parameters) - {"self", "request_options"}
    return {
        "top": params | {"stream"},
        "roles": {"user": chat_message_v2.UserChatMessageV2, "assistant": chat_message_v2.AssistantChatMessageV2,
                  "system": chat_message_v2.SystemChatMessageV2, "tool": chat_message_v2.ToolChatMessageV2},
        "items": {
            "user": {"text": content.TextContent, "image_url": content.ImageUrlContent},
            "assistant": {"text": assistant_items.TextAssistantMessageV2ContentOneItem,
                          "thinking": assistant_items.ThinkingAssistantMessageV2ContentOneItem},
            "system": {"text": cohere.types.TextSystemMessageV2ContentOneItem},
            "tool": {"text": tool_content.TextToolContent, "document": tool_content.DocumentToolContent},
        },
        "sources": {"tool": source.ToolSource, "document": source.DocumentSource},
        "messages": TypeAdapter(typing.List[cohere.ChatMessageV2]),  # noqa: UP006 (the SDK's own alias)
        "fields": {
            "tools": TypeAdapter(typing.List[cohere.ToolV2]),  # noqa: UP006
            "documents": TypeAdapter(typing.List[cohere.v2.V2ChatRequestDocumentsItem]),  # noqa: UP006
            "response_format": TypeAdapter(cohere.ResponseFormatV2),
            "thinking": TypeAdapter(cohere.Thinking),
            "citation_options": TypeAdapter(cohere.CitationOptions),
            "stop_sequences": TypeAdapter(list[str]),
            "tool_choice": TypeAdapter(typing.Literal["REQUIRED", "NONE"]),
        },
        "ToolV2": cohere.ToolV2, "ToolV2Function": cohere.ToolV2Function, "Document": cohere.Document,
        "ToolCallV2": cohere.ToolCallV2, "ToolCallV2Function": cohere.ToolCallV2Function,
        "Citation": cohere.Citation, "ImageUrl": cohere.ImageUrl, "Thinking": cohere.Thinking,
        "JsonObject": cohere.JsonObjectResponseFormatV2, "Text": cohere.TextResponseFormatV2,
        "CitationOptions": cohere.CitationOptions,
    }


def _fields(model: Any) -> set[str]:
    return {f.alias or name for name, f in model.model_fields.items()}


def cohere_errors(request: Mapping[str, Any], *, stream: bool = False) -> list[str]:
    """Every way ``request`` (``client.v2.chat`` keyword arguments) fails; empty when valid."""
    m = _models()
    errors: list[str] = []

    def closed(value: Any, model: Any, where: str) -> None:
        if isinstance(value, dict):
            errors.extend(f"{where}.{key}: not a field of {model.__name__}"
                          for key in sorted(set(value) - _fields(model)))

    errors.extend(f"{key}: not a parameter of client.v2.chat" for key in sorted(set(request) - m["top"]))
    if not isinstance(request.get("model"), str):
        errors.append("model: a string is required")
    if request.get("stream", stream) is not stream:
        errors.append(f"stream: must be {stream}")
    messages = request.get("messages")
    if not isinstance(messages, list):
        errors.append("messages: a list is required")
        messages = []
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in m["roles"]:
            errors.append(f"messages.{i}.role: not a Cohere role ({role!r})")
            continue
        closed(message, m["roles"][role], f"messages.{i}")
        items = message.get("content")
        for j, item in enumerate(items if isinstance(items, list) else ()):
            kind = item.get("type") if isinstance(item, dict) else None
            model = m["items"][role].get(kind)
            if model is None:
                errors.append(f"messages.{i}.content.{j}: a {role} message takes no {kind!r} item")
                continue
            closed(item, model, f"messages.{i}.content.{j}")
            if kind == "image_url":
                closed(item.get("image_url"), m["ImageUrl"], f"messages.{i}.content.{j}.image_url")
            if kind == "document":
                closed(item.get("document"), m["Document"], f"messages.{i}.content.{j}.document")
        for j, call in enumerate(message.get("tool_calls") or ()):
            closed(call, m["ToolCallV2"], f"messages.{i}.tool_calls.{j}")
            if isinstance(call, dict):
                closed(call.get("function"), m["ToolCallV2Function"], f"messages.{i}.tool_calls.{j}.function")
        for j, citation in enumerate(message.get("citations") or ()):
            closed(citation, m["Citation"], f"messages.{i}.citations.{j}")
            for k, src in enumerate(citation.get("sources") or () if isinstance(citation, dict) else ()):
                kind = src.get("type") if isinstance(src, dict) else None
                if kind in m["sources"]:
                    closed(src, m["sources"][kind], f"messages.{i}.citations.{j}.sources.{k}")
    for j, tool in enumerate(request.get("tools") or ()):
        closed(tool, m["ToolV2"], f"tools.{j}")
        if isinstance(tool, dict):
            closed(tool.get("function"), m["ToolV2Function"], f"tools.{j}.function")
    for j, document in enumerate(request.get("documents") or ()):
        closed(document, m["Document"], f"documents.{j}")
    fmt = request.get("response_format")
    if isinstance(fmt, dict):
        closed(fmt, m["JsonObject"] if fmt.get("type") == "json_object" else m["Text"], "response_format")
    closed(request.get("thinking"), m["Thinking"], "thinking")
    closed(request.get("citation_options"), m["CitationOptions"], "citation_options")

    def check(adapter: TypeAdapter[Any], value: Any, where: str) -> None:
        try:
            adapter.validate_python(value, strict=True)
        except ValidationError as exc:
            errors.extend(f"{where}.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                          for e in exc.errors(include_url=False))

    check(m["messages"], messages, "messages")
    for key, adapter in m["fields"].items():
        if key in request:
            check(adapter, request[key], key)
    for key in ("max_tokens", "seed", "k", "priority"):
        if key in request and type(request[key]) is not int:
            errors.append(f"{key}: an integer is required")
    for key in ("temperature", "p", "frequency_penalty", "presence_penalty"):
        if key in request and (type(request[key]) not in (int, float)):
            errors.append(f"{key}: a number is required")
    for key in ("strict_tools", "logprobs"):
        if key in request and type(request[key]) is not bool:
            errors.append(f"{key}: a boolean is required")
    return errors
