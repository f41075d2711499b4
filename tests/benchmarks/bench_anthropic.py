"""Anthropic adapter benchmarks, each a ratio to a baseline measured in the same run.

- ``anthropic.to_wire.<n>``: ``to_wire`` over an ``n``-message agent history, divided by a plain
  dict -> dict loop that builds the same request from the same history already dumped to dicts
  (system hoisting, role mapping, tool-result grouping, id mapping, argument parsing): the least
  work any converter must do. Target <= 1.5x.
- ``anthropic.to_wire.<n>.from_google``: the same history as a Gemini session holds it (thoughts
  signed by Google, Gemini's call ids) sent to Anthropic, a lossy conversion (every thought is a
  ``Loss``), against the same loop without the thinking blocks. Target <= 2x.
- ``anthropic.stream.per_event``: folding 10,000 pre-parsed text and tool-argument deltas (JSON
  dicts, as ``json.loads`` gives them) into the final message through ``stream()``, which runs
  the shared accumulator, divided by the SDK's own ``accumulate_event`` over the same events
  pre-built as SDK objects (the SDK's cheapest input). Target <= 0.5x.

Run with ``python -m tests.benchmarks anthropic``.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from partwire.adapters import anthropic
from partwire.history import EVENT_ADAPTER, HistoryEvent
from partwire.streaming import MessageCompleteEvent
from tests.benchmarks._runner import Figure, Timed
from tests.benchmarks.agent_history import agent_history
from tests.harness.laws import tools_called

__all__ = ["FIGURES"]


def _plain_to_wire(events: list[dict[str, Any]], model: str) -> dict[str, Any]:
    """The baseline: the same request from dumped dicts, with nothing but the mapping itself."""
    ids: dict[str, str] = {}
    for event in events:
        if event.get("role") == "assistant":
            for part in event["parts"]:
                if part["type"] == "tool_call":
                    ids[part["id"]] = part["provider_ids"].get("anthropic", part["id"])
    system: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = []
    last_tool = False
    for event in events:
        if event["type"] != "message":
            continue
        role = event["role"]
        if role == "system":
            system.extend({"type": "text", "text": p["text"]} for p in event["parts"])
            continue
        if role == "tool":
            block: dict[str, Any] = {"type": "tool_result",
                                     "tool_use_id": ids.get(event["call_id"], event["call_id"]),
                                     "content": event["output_text"]}
            if event["status"] != "success":
                block["is_error"] = True
            if last_tool:
                messages[-1]["content"].append(block)
            else:
                messages.append({"role": "user", "content": [block]})
            last_tool = True
            continue
        last_tool = False
        blocks: list[dict[str, Any]] = []
        for part in event["parts"]:
            kind = part["type"]
            if kind == "text":
                blocks.append({"type": "text", "text": part["text"]})
            elif kind == "thinking":
                blocks.append({"type": "thinking", "thinking": part["text"],
                               "signature": part["signature"]["value"]})
            elif kind == "tool_call":
                blocks.append({"type": "tool_use", "id": ids[part["id"]], "name": part["name"],
                               "input": json.loads(part["arguments_json"])})
            elif kind == "image":
                blocks.append({"type": "image", "source": {
                    "type": "base64", "media_type": part["media_type"],
                    "data": part["source"]["data"]}})
        messages.append({"role": role, "content": blocks})
    return {"model": model, "max_tokens": 4096, "system": system, "messages": messages}


def _to_wire(n: int) -> Timed:
    history: list[HistoryEvent] = agent_history(n)
    dumped = [EVENT_ADAPTER.dump_python(e, mode="json") for e in history]
    tools = tools_called(history)  # an agent sends its tools (Anthropic refuses calls without them)
    return Timed(lambda: anthropic.to_wire(history, model="claude-sonnet-4-6", tools=tools),
                 lambda: _plain_to_wire(dumped, "claude-sonnet-4-6"),
                 calls=max(1, 20_000 // n), detail={"events": len(history)})


def _plain_foreign_to_wire(events: list[dict[str, Any]], model: str) -> dict[str, Any]:
    """The baseline for a history from another provider: :func:`_plain_to_wire` without the
    thinking blocks (another issuer's reasoning is never sent), ids as the history holds them."""
    return _plain_to_wire([
        {**e, "parts": [p for p in e["parts"] if p["type"] != "thinking"]} if e.get("role") == "assistant" else e
        for e in events], model)


def _lossy(n: int) -> Timed:
    """``to_wire`` of a Gemini session (every thought a loss) against the plain foreign loop."""
    from tests.benchmarks.bench_google import google_session

    history = google_session(agent_history(n))
    dumped = [EVENT_ADAPTER.dump_python(e, mode="json") for e in history]
    tools = tools_called(history)
    assert anthropic.to_wire(history, model="claude-sonnet-4-6", tools=tools).losses, \
        "the history must be lossy"
    return Timed(lambda: anthropic.to_wire(history, model="claude-sonnet-4-6", tools=tools),
                 lambda: _plain_foreign_to_wire(dumped, "claude-sonnet-4-6"),
                 calls=max(1, 20_000 // n), detail={"events": len(history)})


def _stream_events(n_deltas: int) -> list[dict[str, Any]]:
    """A stream of text blocks and tool calls, 20 deltas each, ``n_deltas`` deltas in all."""
    words = ["the", "build", "fails", "because", "module", "parser", "imports", "a", "renamed", "symbol"]
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {
        "id": "msg_01BenchAbcdefghijklmnopq", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-6", "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 1200, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 800, "output_tokens": 1}}}]
    index = 0
    deltas = 0
    while deltas < n_deltas:
        if index % 2 == 0:
            events.append({"type": "content_block_start", "index": index,
                           "content_block": {"type": "text", "text": ""}})
            for k in range(20):
                events.append({"type": "content_block_delta", "index": index,
                               "delta": {"type": "text_delta", "text": words[k % len(words)] + " "}})
        else:
            events.append({"type": "content_block_start", "index": index, "content_block": {
                "type": "tool_use", "id": f"toolu_01Bench{index:017d}", "name": "read_file",
                "input": {}}})
            arguments = json.dumps({"path": f"src/pkg/module_{index}.py",
                                    "query": " ".join(words[:12]), "limit": index})
            step = -(-len(arguments) // 20)
            for k in range(20):
                events.append({"type": "content_block_delta", "index": index, "delta": {
                    "type": "input_json_delta", "partial_json": arguments[k * step:(k + 1) * step]}})
        events.append({"type": "content_block_stop", "index": index})
        deltas += 20
        index += 1
    events.append({"type": "message_delta", "delta": {"stop_reason": "tool_use",
                                                      "stop_sequence": None},
                   "usage": {"output_tokens": 5000}})
    events.append({"type": "message_stop"})
    return events


def _stream(n_deltas: int) -> Timed:
    from anthropic._models import construct_type
    from anthropic.lib.streaming._messages import accumulate_event
    from anthropic.types import RawMessageStreamEvent

    events = _stream_events(n_deltas)
    sdk_events: list[Any] = [construct_type(type_=RawMessageStreamEvent, value=e) for e in events]

    def ours() -> object:
        final = None
        for event in anthropic.stream(events):
            if isinstance(event, MessageCompleteEvent):
                final = event.message
        return final

    def sdk() -> object:
        snapshot = None
        bufs: dict[int, bytes] = {}
        for event in sdk_events:
            snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=bufs)
        return snapshot

    return Timed(ours, sdk, calls=3, detail={"events": len(events)})


PLAIN = "a plain dict loop building the same request"
FIGURES = [
    *(figure for n in (1000, 10000) for figure in (
        Figure(f"anthropic.to_wire.{n}", "x", PLAIN, 1.5, timed=functools.partial(_to_wire, n)),
        Figure(f"anthropic.to_wire.{n}.from_google", "x", PLAIN + " (no thinking)", 2.0,
               timed=functools.partial(_lossy, n)))),
    Figure("anthropic.stream.per_event", "x", "anthropic SDK accumulate_event", 0.5,
           timed=lambda: _stream(10_000)),
]
