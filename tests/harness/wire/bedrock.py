"""The Bedrock Converse half of the shared wire laws: responses, ConverseStream events (and their
event stream bytes), and its view of a part."""

from __future__ import annotations

import base64
import json
from typing import Any

from hypothesis import strategies as st

from partwire import (
    AssistantMessage,
    Opaque,
    Part,
    RedactedThinkingPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    UserMessage,
)
from partwire._json import json_text
from partwire.adapters import bedrock
from partwire.adapters.bedrock._decode import OWN_REASONING
from partwire.adapters.bedrock._wire import STOP_REASONS
from partwire.history import HistoryEvent
from tests.harness.eventstream import encode_events
from tests.harness.laws import JSON_VALUES, WireLaws, object_arguments_view, split_text

__all__ = ["LAWS"]

MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

_text = st.text(min_size=1, max_size=20)
_sig = st.binary(min_size=8, max_size=40).map(lambda b: base64.b64encode(b).decode())
_call_ids = st.from_regex(r"tooluse_[A-Za-z0-9_-]{22}", fullmatch=True)
_names = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_-]{0,15}", fullmatch=True)


@st.composite
def echoable(draw: st.DrawFn) -> AssistantMessage:
    """An assistant message as the Converse decoder gives it: signed, unsigned and redacted
    reasoning, text, tool calls (arguments as partwire writes an object's JSON)."""
    parts: list[Part] = []
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["signed", "unsigned", "redacted"]))
        if kind == "signed":
            parts.append(ThinkingPart(text=draw(st.text(max_size=20)),
                                      signature=Opaque(value=draw(_sig), issuer="bedrock")))
        elif kind == "unsigned":
            parts.append(ThinkingPart(text=draw(_text), provider_data=OWN_REASONING))
        else:
            parts.append(RedactedThinkingPart(data=Opaque(value=draw(_sig), issuer="bedrock")))
    parts += [TextPart(text=draw(_text)) for _ in range(draw(st.integers(0, 2)))]
    for _ in range(draw(st.integers(0 if parts else 1, 3))):
        args = draw(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4))
        parts.append(ToolCallPart(id="tu_x", name=draw(_names), arguments_json=json_text(args),
                                  provider_ids={"bedrock": draw(_call_ids)}))
    raw = draw(st.sampled_from(sorted(STOP_REASONS)))
    return AssistantMessage(parts=tuple(parts), provider="bedrock", api="bedrock",
                            stop_reason=STOP_REASONS[raw], stop_reason_raw=raw)


def _content(message: AssistantMessage) -> list[dict[str, Any]]:
    projection = bedrock.to_wire([UserMessage("q"), message], model=MODEL)
    assert projection.losses == (), projection.losses
    content: list[dict[str, Any]] = projection.request["messages"][1]["content"]
    return content


def _response_for(message: AssistantMessage, variant: str = "") -> dict[str, Any]:
    """The response body Converse sends for ``message``: its content as ``to_wire`` writes it."""
    return {"output": {"message": {"role": "assistant", "content": _content(message)}},
            "stopReason": message.stop_reason_raw}


@st.composite
def streamed(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A response body and the ConverseStream events that carry the same message, cut anywhere."""
    message = draw(echoable())
    body = _response_for(message)
    events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    for index, block in enumerate(body["output"]["message"]["content"]):
        def delta(value: dict[str, Any], index: int = index) -> dict[str, Any]:
            return {"contentBlockDelta": {"contentBlockIndex": index, "delta": value}}
        if "text" in block:
            events += [delta({"text": piece}) for piece in split_text(draw, block["text"])]
        elif "toolUse" in block:
            use = block["toolUse"]
            events.append({"contentBlockStart": {"contentBlockIndex": index, "start": {
                "toolUse": {"toolUseId": use["toolUseId"], "name": use["name"]}}}})
            events += [delta({"toolUse": {"input": piece}})
                       for piece in split_text(draw, json_text(use["input"]))]
        else:
            reasoning = block["reasoningContent"]
            if "redactedContent" in reasoning:
                events.append(delta({"reasoningContent": {"redactedContent": reasoning["redactedContent"]}}))
            else:
                text = reasoning["reasoningText"]
                events += [delta({"reasoningContent": {"text": piece}})
                           for piece in split_text(draw, text["text"])]
                if "signature" in text:
                    events.append(delta({"reasoningContent": {"signature": text["signature"]}}))
        events.append({"contentBlockStop": {"contentBlockIndex": index}})
    events.append({"messageStop": {"stopReason": body["stopReason"]}})
    return body, events


def _sse(events: list[Any]) -> bytes:
    """The events as the event stream bytes ConverseStream sends (binary fields as base64)."""
    return encode_events(json.loads(json.dumps(events, default=lambda b: base64.b64encode(b).decode())))


def _view(part: Part, event: HistoryEvent) -> dict[str, Any] | None:
    """A part as the model is told it by Converse: arguments as an object, no detail hint or
    file name (a document's one name is its title)."""
    data = object_arguments_view(part, event)
    if data is None:
        return None
    for name in ("filename", "detail"):
        data.pop(name, None)
    return data


LAWS = WireLaws(
    messages=lambda variant: echoable(),
    response_for=_response_for,
    streams=lambda variant: streamed(),
    model=MODEL,
    sse=_sse,
    view=_view,
    foreign_issuers=frozenset({"bedrock"}),
)
"""The Bedrock Converse wire laws."""
