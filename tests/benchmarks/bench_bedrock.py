"""Bedrock Converse adapter benchmarks, each a ratio to a baseline measured in the same run.

- ``bedrock.to_wire.<n>``: ``to_wire`` over an ``n``-message agent history as a Bedrock session
  holds it (Converse's call ids, reasoning signed by Bedrock), divided by a plain dict -> dict
  loop that builds the same ``system`` and ``messages`` from the same history already dumped to
  dicts (system hoisting, roles, one user turn per batch of tool results, reasoning with its
  signature, ``toolUse`` with parsed arguments, images decoded to the bytes boto3 takes): the
  least work any converter must do. Target <= 1.5x.
- ``bedrock.stream.per_event``: folding a ConverseStream of about 10,000 deltas (text and tool
  arguments), read from its raw ``application/vnd.amazon.eventstream`` bytes, into the final
  message through ``stream()`` (partwire's own frame decoder, then the shared accumulator),
  divided by what boto3 does before a caller sees anything: botocore's ``EventStream`` decoding
  and parsing the same bytes into event dicts. Target <= 0.5x.

Run with ``python -m tests.benchmarks bedrock`` (or this module).
"""

from __future__ import annotations

import base64
import functools
import json
from typing import Any

from partwire import AssistantMessage, ThinkingPart, ToolCallPart
from partwire._base import replace
from partwire.adapters import bedrock
from partwire.history import EVENT_ADAPTER, HistoryEvent
from partwire.parts import Opaque
from partwire.streaming import MessageCompleteEvent
from tests.benchmarks._runner import Figure, Timed
from tests.benchmarks.agent_history import agent_history
from tests.harness.eventstream import encode_events

__all__ = ["FIGURES"]

MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
SIGNATURE = "EqQCCkgIBhABGAIqQLmq3K9tXw1pYzB4vN2cR8dF6gH0jK5lM7nP9qS1uT3vW5xY7zA9bC1dE3fG5hI7jK9l"


def bedrock_session(history: list[HistoryEvent]) -> list[HistoryEvent]:
    """The history as a Bedrock session holds it: Converse's call ids, Bedrock's signatures."""
    out: list[HistoryEvent] = []
    for event in history:
        if isinstance(event, AssistantMessage):
            parts: list[Any] = []
            for p in event.parts:
                if isinstance(p, ThinkingPart):
                    p = replace(p, signature=Opaque(value=SIGNATURE, issuer="bedrock"))
                elif isinstance(p, ToolCallPart):
                    p = replace(p, provider_ids={"bedrock": "tooluse_" + p.provider_ids["anthropic"][6:28]})
                parts.append(p)
            event = event.model_copy(update={"parts": tuple(parts), "model": f"bedrock:{MODEL}",
                                             "provider": "bedrock", "api": "bedrock"})
        out.append(event)
    return out


def _plain_to_wire(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The baseline: the same body from dumped dicts, with nothing but the mapping itself."""
    ids: dict[str, str] = {}
    system: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None
    for event in events:
        if event["type"] != "message":
            continue
        role = event["role"]
        if role == "tool":
            member: dict[str, Any] = {"toolUseId": ids[event["call_id"]],
                                      "content": [{"text": event["output_text"]}]}
            if event["status"] != "success":
                member["status"] = "error"
            if results is None:
                results = []
                messages.append({"role": "user", "content": results})
            results.append({"toolResult": member})
            continue
        results = None
        blocks: list[dict[str, Any]] = []
        for part in event["parts"]:
            kind = part["type"]
            if kind == "text":
                blocks.append({"text": part["text"]})
            elif kind == "thinking":
                blocks.append({"reasoningContent": {"reasoningText": {
                    "text": part["text"], "signature": part["signature"]["value"]}}})
            elif kind == "tool_call":
                wire_id = part["provider_ids"]["bedrock"]
                ids[part["id"]] = wire_id
                blocks.append({"toolUse": {"toolUseId": wire_id, "name": part["name"],
                                           "input": json.loads(part["arguments_json"])}})
            elif kind == "image":
                blocks.append({"image": {"format": part["media_type"].split("/")[1], "source": {
                    "bytes": base64.b64decode(part["source"]["data"])}}})
        if role == "system":
            system.extend(blocks)
        else:
            messages.append({"role": role, "content": blocks})
    return {"modelId": MODEL, "messages": messages, "system": system}


def _to_wire(n: int) -> Timed:
    history = bedrock_session(agent_history(n))
    dumped = [EVENT_ADAPTER.dump_python(e, mode="json") for e in history]
    mine = bedrock.to_wire(history, model=MODEL).request
    plain = _plain_to_wire(dumped)
    assert mine["messages"] == plain["messages"], "the baseline must build the same body"
    assert mine["system"] == plain["system"]
    return Timed(lambda: bedrock.to_wire(history, model=MODEL),
                 lambda: _plain_to_wire(dumped), calls=max(1, 20_000 // n))


def _stream_items(n_deltas: int) -> list[dict[str, Any]]:
    """A ConverseStream of text blocks and tool calls, 20 deltas each, ``n_deltas`` in all."""
    words = ["the", "build", "fails", "because", "module", "parser", "imports", "a", "renamed", "symbol"]
    items: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    index = 0
    deltas = 0
    while deltas < n_deltas:
        if index % 2 == 0:
            for k in range(20):
                items.append({"contentBlockDelta": {"contentBlockIndex": index,
                                                    "delta": {"text": words[k % len(words)] + " "}}})
        else:
            items.append({"contentBlockStart": {"contentBlockIndex": index, "start": {"toolUse": {
                "toolUseId": f"tooluse_Bench{index:017d}", "name": "read_file"}}}})
            arguments = json.dumps({"path": f"src/pkg/module_{index}.py",
                                    "query": " ".join(words[:12]), "limit": index})
            step = -(-len(arguments) // 20)
            for k in range(20):
                items.append({"contentBlockDelta": {"contentBlockIndex": index, "delta": {
                    "toolUse": {"input": arguments[k * step:(k + 1) * step]}}}})
        items.append({"contentBlockStop": {"contentBlockIndex": index}})
        deltas += 20
        index += 1
    items.append({"messageStop": {"stopReason": "tool_use"}})
    items.append({"metadata": {"usage": {"inputTokens": 1200, "outputTokens": 5000,
                                         "totalTokens": 6200}, "metrics": {"latencyMs": 9000}}})
    return items


class _Raw:
    """What botocore's EventStream reads: a body whose ``stream()`` yields chunks."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    def stream(self) -> Any:
        return iter(self.chunks)

    def close(self) -> None:
        pass


def _stream(n_deltas: int) -> Timed:
    import botocore.session
    from botocore.eventstream import EventStream
    from botocore.parsers import EventStreamJSONParser

    items = _stream_items(n_deltas)
    raw = encode_events(items)
    chunks = [raw[i:i + 1024] for i in range(0, len(raw), 1024)]
    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    shape = model.operation_model("ConverseStream").output_shape.members["stream"]

    def ours() -> object:
        final = None
        for event in bedrock.stream(chunks):
            if isinstance(event, MessageCompleteEvent):
                final = event.message
        return final

    def boto() -> list[Any]:
        return list(EventStream(_Raw(chunks), shape, EventStreamJSONParser(), "ConverseStream"))

    assert len(boto()) == len(items), "botocore must read every event"
    return Timed(ours, boto, calls=3)


PLAIN = "a plain dict loop building the same body"
FIGURES = [
    *(Figure(f"bedrock.to_wire.{n}", "x", PLAIN, 1.5, timed=functools.partial(_to_wire, n))
      for n in (1000, 10000)),
    Figure("bedrock.stream.per_event", "x", "botocore EventStream parsing", 0.5,
           timed=lambda: _stream(10_000)),
]
