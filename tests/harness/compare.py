"""Ways of looking at an assistant message that the scenario and parity checks compare.

``stored_form`` is the message as a history line, the form golden files pin. ``neutral`` keeps what a provider-neutral scenario says about an answer (kinds of parts, their
text, tool names and arguments, stop reason) and drops what only one provider can say (ids,
opaque values, usage). ``comparable`` keeps everything that came from the response and only
renames what the local id and clock sources made up (the message id and time, canonical tool-call
ids), which differ between two decodings of the same response.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, assert_never

from partwire import (
    AssistantMessage,
    AudioPart,
    DocumentPart,
    ImagePart,
    Part,
    RedactedThinkingPart,
    RefusalPart,
    ServerToolCallPart,
    ServerToolResultPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    UnknownPart,
)
from partwire._base import replace
from partwire.history import EVENT_ADAPTER

__all__ = ["comparable", "neutral", "neutral_part", "stored_form"]

_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


def stored_form(message: AssistantMessage) -> Any:
    """The message as the JSON of the history line it is stored as (what golden files hold)."""
    return json.loads(EVENT_ADAPTER.dump_json(message))


def neutral_part(part: Part) -> dict[str, Any]:
    """What any provider could say about ``part``: its kind and content, not its echo state."""
    match part:
        case TextPart():
            return {"type": "text", "text": part.text}
        case RefusalPart():
            return {"type": "refusal", "text": part.text}
        case ThinkingPart():
            return {"type": "thinking", "text": part.text, "signed": part.signature is not None}
        case RedactedThinkingPart():
            return {"type": "redacted_thinking"}
        case ToolCallPart():
            return {"type": "tool_call", "name": part.name, "arguments": part.arguments}
        case ImagePart() | DocumentPart() | AudioPart():
            return {"type": part.type, "media_type": part.media_type, "source": part.source.type}
        case ServerToolCallPart():
            return {"type": part.type, "name": part.name, "input": part.input}
        case ServerToolResultPart():
            return {"type": part.type, "name": part.name}
        case UnknownPart():
            return {"type": part.type, "original_type": part.original_type}
        case _:
            assert_never(part)


def neutral(message: AssistantMessage) -> dict[str, Any]:
    """The provider-neutral view of an answer: status, stop reason and neutral parts.

    A refusal is recognised by its stop reason. Whether the provider puts the words that come
    with it in a refusal part (OpenAI's ``refusal`` field) or in plain text (Anthropic's
    ``stop_reason: "refusal"`` with text blocks) is its own business, so under that stop reason
    text and refusal parts look the same.
    """
    parts = [neutral_part(p) for p in message.parts]
    if message.stop_reason == "refusal":
        parts = [{**p, "type": "refusal"} if p["type"] == "text" else p for p in parts]
    return {"status": message.status, "stop_reason": message.stop_reason, "parts": parts}


def comparable(message: AssistantMessage) -> AssistantMessage:
    """``message`` with its locally made-up identity (id, time, canonical call ids) renamed.

    Two decodings of one response (streamed and not) make their own ids and timestamps; those are
    not part of the response, so parity compares messages with them replaced by stable names.
    """
    parts = tuple(
        replace(p, id=f"tu_{n}") if isinstance(p, ToolCallPart) else p
        for n, p in enumerate(message.parts)
    )
    return replace(message, id="message", created_at=_EPOCH, parts=parts)
