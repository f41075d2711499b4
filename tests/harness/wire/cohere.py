"""The Cohere v2 half of the shared wire laws: responses, v2 stream events (and their SSE bytes),
and its view of a part."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from partwire import (
    AssistantMessage,
    Part,
    ProviderData,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    UserMessage,
)
from partwire.adapters import cohere
from partwire.adapters.cohere._wire import FINISH_REASONS
from partwire.history import HistoryEvent
from tests.harness.laws import ARGUMENT_TEXTS, NAMES, WireLaws, default_view, split_text

__all__ = ["LAWS"]

MODEL = "command-a-03-2025"
_PLAN = ProviderData(issuer="cohere", data={"field": "tool_plan"})
_text = st.text(min_size=1, max_size=20)
_call_ids = st.from_regex(r"[a-z_]{1,10}_[a-z0-9]{12}", fullmatch=True)


@st.composite
def echoable(draw: st.DrawFn) -> AssistantMessage:
    """An assistant message as the v2 decoder gives it: thinking and text content, a tool plan,
    tool calls (arguments as the model wrote them)."""
    parts: list[Part] = [ThinkingPart(text=draw(_text)) for _ in range(draw(st.integers(0, 1)))]
    parts += [TextPart(text=draw(_text)) for _ in range(draw(st.integers(0, 2)))]
    calls = draw(st.integers(0 if parts else 1, 3))
    if calls and draw(st.booleans()):
        parts.append(TextPart(text=draw(_text), provider_data=_PLAN))
    parts += [ToolCallPart(id="tu_x", name=draw(NAMES), arguments_json=draw(ARGUMENT_TEXTS),
                           provider_ids={"cohere": draw(_call_ids)}) for _ in range(calls)]
    raw = draw(st.sampled_from(sorted(FINISH_REASONS)))
    return AssistantMessage(parts=tuple(parts), provider="cohere", api="cohere",
                            response_id=draw(st.uuids()).hex, stop_reason=FINISH_REASONS[raw],
                            stop_reason_raw=raw)


def _response_for(message: AssistantMessage, variant: str = "") -> dict[str, Any]:
    """The response body Cohere sends for ``message``: its wire message as ``to_wire`` writes it,
    content always as a list (as responses give it)."""
    projection = cohere.to_wire([UserMessage("q"), message], model=MODEL)
    assert projection.losses == (), projection.losses
    wire: dict[str, Any] = dict(projection.request["messages"][1])
    if isinstance(wire.get("content"), str):
        wire["content"] = [{"type": "text", "text": wire["content"]}]
    return {"id": message.response_id, "message": wire, "finish_reason": message.stop_reason_raw}


@st.composite
def streamed(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A response body and the v2 stream events that carry the same message, cut anywhere."""
    body = _response_for(draw(echoable()))
    message = body["message"]
    events: list[dict[str, Any]] = [{"id": body["id"], "type": "message-start", "delta": {"message": {
        "role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}}}]
    for index, item in enumerate(message.get("content") or ()):
        kind = item["type"]
        events.append({"type": "content-start", "index": index,
                       "delta": {"message": {"content": {"type": kind, kind: ""}}}})
        events += [{"type": "content-delta", "index": index,
                    "delta": {"message": {"content": {kind: piece}}}} for piece in split_text(draw, item[kind])]
        events.append({"type": "content-end", "index": index})
    events += [{"type": "tool-plan-delta", "delta": {"message": {"tool_plan": piece}}}
               for piece in split_text(draw, message.get("tool_plan", ""))]
    for index, call in enumerate(message.get("tool_calls") or ()):
        function = call["function"]
        events.append({"type": "tool-call-start", "index": index, "delta": {"message": {"tool_calls": {
            "id": call["id"], "type": "function", "function": {"name": function["name"], "arguments": ""}}}}})
        events += [{"type": "tool-call-delta", "index": index,
                    "delta": {"message": {"tool_calls": {"function": {"arguments": piece}}}}}
                   for piece in split_text(draw, function["arguments"])]
        events.append({"type": "tool-call-end", "index": index})
    events.append({"type": "message-end", "delta": {"finish_reason": body["finish_reason"]}})
    return body, events


def _sse(events: list[Any]) -> bytes:
    """The events as the SSE bytes ``/v2/chat`` sends (``event:`` and ``data:`` lines, then
    ``[DONE]``)."""
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'))}\n\n" for e in events)
    return (text + "data: [DONE]\n\n").encode()


def _view(part: Part, event: HistoryEvent) -> dict[str, Any] | None:
    """A part as Cohere tells the model: no image media type or detail hint beyond its own, no
    document file name (its one name is its title)."""
    data = default_view(part, event)
    if data is not None and data.get("type") == "document":
        data.pop("filename", None)
    return data


LAWS = WireLaws(
    messages=lambda variant: echoable(),
    response_for=_response_for,
    streams=lambda variant: streamed(),
    model=MODEL,
    sse=_sse,
    view=_view,
    foreign_issuers=frozenset({"cohere"}),
)
"""The Cohere v2 wire laws."""
