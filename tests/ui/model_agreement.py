"""Where partwire's ModelMessages and the SDK's ``convertToModelMessages`` of partwire's
UIMessages differ, on purpose; each difference is written down in docs/chat-ui.md."""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["as_the_sdk_converts", "without_carrier"]


def without_carrier(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages without partwire's own ``providerOptions.partwire`` (message ids and the fields
    a ModelMessage has no place for), which the two write in different places: partwire on
    the message and on each tool result, the SDK (copying UI provider metadata) on the parts."""
    out = copy.deepcopy(messages)
    for message in out:
        message.pop("providerOptions", None)
        for part in message["content"] if isinstance(message["content"], list) else ():
            options = part.pop("providerOptions", None) or {}
            options.pop("partwire", None)
            if options:
                part["providerOptions"] = options
    return out


def as_the_sdk_converts(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """partwire's ModelMessages with the SDK's three choices applied:

    1. an assistant message with no parts is left out (partwire keeps it: it has an id);
    2. a provider-run tool result sits right after its call (partwire keeps the canonical
       order; the SDK reads both from one UI tool part);
    3. a provider-run tool result with no call in its message, and a ``custom`` part holding a
       canonical part, are left out (partwire keeps them; the SDK drops the UI data part that
       holds them);
    4. a tool result carries its call's provider options (the SDK copies the call's provider
       metadata onto its result; partwire writes them on the call only).
    """
    out = []
    call_options: dict[str, dict[str, Any]] = {}
    for message in copy.deepcopy(messages):
        content = message["content"]
        for part in content if isinstance(content, list) else ():
            if part["type"] == "tool-call" and part.get("providerOptions"):
                call_options[part["toolCallId"]] = part["providerOptions"]
            elif part["type"] == "tool-result" and part["toolCallId"] in call_options:
                part["providerOptions"] = {**call_options[part["toolCallId"]],
                                           **part.get("providerOptions", {})}
        if message["role"] == "assistant" and isinstance(content, list):
            calls = {p["toolCallId"] for p in content if p["type"] == "tool-call"}
            results = {p["toolCallId"]: p for p in content
                       if p["type"] == "tool-result" and p["toolCallId"] in calls}
            ordered = []
            for part in content:
                if part["type"] == "custom" or (part["type"] == "tool-result"):
                    continue
                ordered.append(part)
                if part["type"] == "tool-call" and part["toolCallId"] in results:
                    ordered.append(results.pop(part["toolCallId"]))
            message["content"] = ordered
            if not ordered:
                continue
        out.append(message)
    return out
