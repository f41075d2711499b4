"""Cohere v2 Chat adapter benchmarks, each a ratio to a baseline measured in the same run.

- ``cohere.to_wire.<n>``: ``to_wire`` over an ``n``-message agent history as a Cohere session
  holds it (Cohere's call ids, unsigned reasoning), divided by a plain dict -> dict loop that
  builds the same ``messages`` from the same history already dumped to dicts (roles, content as
  a string or a list of items, reasoning as thinking items, images as data URLs, ``tool_calls``,
  one ``tool`` message per result): the least work any converter must do. Target <= 1.5x.
- ``cohere.stream.per_event``: folding a v2 stream of about 10,000 deltas (text and tool
  arguments), read from its raw SSE bytes, into the final message through ``stream()``, divided
  by what the ``cohere`` SDK does before a caller sees anything: its own SSE reader
  (``EventSource.iter_sse``) and its parsing of each event into a ``V2ChatStreamResponse``. The
  SDK has no accumulator; partwire's side folds the message as well. Target <= 0.5x.

Run with ``python -m tests.benchmarks cohere`` (or this module).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from partwire import AssistantMessage, ThinkingPart, ToolCallPart
from partwire._base import replace
from partwire.adapters import cohere
from partwire.history import EVENT_ADAPTER, HistoryEvent
from partwire.streaming import MessageCompleteEvent
from tests.benchmarks._runner import Figure, Timed
from tests.benchmarks.agent_history import agent_history

__all__ = ["FIGURES"]

MODEL = "command-a-03-2025"


def cohere_session(history: list[HistoryEvent]) -> list[HistoryEvent]:
    """The history as a Cohere session holds it: Cohere's call ids, reasoning with no signature,
    tool results that succeeded (Cohere carries no status, and a loss is not what is timed)."""
    out: list[HistoryEvent] = []
    for event in history:
        if isinstance(event, AssistantMessage):
            parts: list[Any] = []
            for p in event.parts:
                if isinstance(p, ThinkingPart):
                    p = replace(p, signature=None)
                elif isinstance(p, ToolCallPart):
                    p = replace(p, provider_ids={"cohere": f"{p.name}_{p.provider_ids['anthropic'][6:18]}"})
                parts.append(p)
            event = event.model_copy(update={"parts": tuple(parts), "model": f"cohere:{MODEL}",
                                             "provider": "cohere", "api": "cohere"})
        elif event.type == "message" and getattr(event, "role", "") == "tool" and event.status != "success":  # type: ignore[union-attr]
            event = event.model_copy(update={"status": "success"})
        out.append(event)
    return out


def _content(items: list[dict[str, Any]]) -> Any:
    if len(items) == 1 and items[0]["type"] == "text":
        return items[0]["text"]
    return items


def _plain_to_wire(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The baseline: the same body from dumped dicts, with nothing but the mapping itself."""
    ids: dict[str, str] = {}
    messages: list[dict[str, Any]] = []
    for event in events:
        if event["type"] != "message":
            continue
        role = event["role"]
        if role == "tool":
            messages.append({"role": "tool", "tool_call_id": ids[event["call_id"]],
                             "content": event["output_text"]})
            continue
        items: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        for part in event["parts"]:
            kind = part["type"]
            if kind == "text":
                items.append({"type": "text", "text": part["text"]})
            elif kind == "thinking":
                items.append({"type": "thinking", "thinking": part["text"]})
            elif kind == "image":
                items.append({"type": "image_url", "image_url": {
                    "url": f"data:{part['media_type']};base64,{part['source']['data']}"}})
            elif kind == "tool_call":
                wire_id = part["provider_ids"]["cohere"]
                ids[part["id"]] = wire_id
                calls.append({"id": wire_id, "type": "function",
                              "function": {"name": part["name"], "arguments": part["arguments_json"]}})
        message: dict[str, Any] = {"role": role}
        if items:
            message["content"] = _content(items)
        if calls:
            message["tool_calls"] = calls
        messages.append(message)
    return {"model": MODEL, "messages": messages}


def _to_wire(n: int) -> Timed:
    history = cohere_session(agent_history(n))
    dumped = [EVENT_ADAPTER.dump_python(e, mode="json") for e in history]
    projection = cohere.to_wire(history, model=MODEL)
    assert projection.losses == (), projection.losses[:3]
    assert projection.request == _plain_to_wire(dumped), "the baseline must build the same body"
    return Timed(lambda: cohere.to_wire(history, model=MODEL),
                 lambda: _plain_to_wire(dumped), calls=max(1, 20_000 // n))


def _stream_events(n_deltas: int) -> list[dict[str, Any]]:
    """A v2 stream of text items and tool calls, 20 deltas each, ``n_deltas`` in all."""
    words = ["the", "build", "fails", "because", "module", "parser", "imports", "a", "renamed", "symbol"]
    events: list[dict[str, Any]] = [{"id": "6cd6ce61-bb3b-46f6-907e-fcfab45e51b6", "type": "message-start",
                                     "delta": {"message": {"role": "assistant", "content": [], "tool_plan": "",
                                                           "tool_calls": [], "citations": []}}}]
    block = deltas = 0
    while deltas < n_deltas:
        if block % 2 == 0:
            index = block // 2
            events.append({"type": "content-start", "index": index,
                           "delta": {"message": {"content": {"type": "text", "text": ""}}}})
            events += [{"type": "content-delta", "index": index,
                        "delta": {"message": {"content": {"text": words[k % len(words)] + " "}}}}
                       for k in range(20)]
            events.append({"type": "content-end", "index": index})
        else:
            index = block // 2
            events.append({"type": "tool-call-start", "index": index, "delta": {"message": {"tool_calls": {
                "id": f"read_file_{index:012d}", "type": "function",
                "function": {"name": "read_file", "arguments": ""}}}}})
            arguments = json.dumps({"path": f"src/pkg/module_{index}.py", "query": " ".join(words), "limit": index})
            step = -(-len(arguments) // 20)
            events += [{"type": "tool-call-delta", "index": index, "delta": {"message": {"tool_calls": {
                "function": {"arguments": arguments[k * step:(k + 1) * step]}}}}} for k in range(20)]
            events.append({"type": "tool-call-end", "index": index})
        deltas += 20
        block += 1
    events.append({"type": "message-end", "delta": {"finish_reason": "TOOL_CALL", "usage": {
        "billed_units": {"input_tokens": 1200, "output_tokens": 5000},
        "tokens": {"input_tokens": 1900, "output_tokens": 5040}}}})
    return events


def _stream(n_deltas: int) -> Timed:
    import httpx
    from cohere import V2ChatStreamResponse
    from cohere.core.http_sse._api import EventSource
    from cohere.core.pydantic_utilities import parse_sse_obj

    events = _stream_events(n_deltas)
    raw = "".join(f"event: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'))}\n\n" for e in events)
    raw += "data: [DONE]\n\n"
    chunks = [raw.encode()[i:i + 1024] for i in range(0, len(raw.encode()), 1024)]

    def ours() -> object:
        final = None
        for event in cohere.stream(chunks):
            if isinstance(event, MessageCompleteEvent):
                final = event.message
        return final

    def sdk() -> list[Any]:
        # What client.v2.chat_stream does with the response body: its SSE reader, then each
        # event parsed into the SDK's model (raw_client.py), [DONE] skipped.
        model: Any = V2ChatStreamResponse  # a union the SDK's parser takes as a type
        response = httpx.Response(200, headers={"content-type": "text/event-stream"},
                                  stream=httpx.ByteStream(b"".join(chunks)))
        return [parse_sse_obj(sse, model) for sse in EventSource(response).iter_sse()
                if sse.data and sse.data != "[DONE]"]

    assert len(sdk()) == len(events), "the SDK must read every event"
    message = ours()
    assert isinstance(message, AssistantMessage)
    assert message.status == "complete"
    return Timed(ours, sdk, calls=3, detail={"events": len(events)})


PLAIN = "a plain dict loop building the same body"
FIGURES = [
    *(Figure(f"cohere.to_wire.{n}", "x", PLAIN, 1.5, timed=functools.partial(_to_wire, n))
      for n in (1000, 10000)),
    Figure("cohere.stream.per_event", "x", "the cohere SDK's SSE reading and event parsing", 0.5,
           timed=lambda: _stream(10_000)),
]
