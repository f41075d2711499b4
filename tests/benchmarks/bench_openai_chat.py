"""Chat Completions adapter benchmarks, each a ratio to a baseline measured in the same run.

- ``openai_chat.to_wire.<n>``: ``to_wire`` over an ``n``-message agent history, divided by a
  plain dict -> dict loop that builds the same request from the same history already dumped to
  dicts (role mapping, one tool message per result, call-id mapping, data URLs for images,
  reasoning left out): the least work any converter must do. Target <= 1.5x. The history is
  ``agent_history(n)`` as an OpenAI session holds it: its call ids issued by OpenAI and no
  reasoning parts (OpenAI's Chat API returns none), as the Anthropic benchmark sends an
  Anthropic session to Anthropic.
- ``openai_chat.to_wire.<n>.from_anthropic``: the same against ``agent_history(n)`` as it is,
  a cross-provider conversion in which every thinking part is a loss (each a ``Loss`` object),
  against the same plain loop. Target <= 2x. In both,
  losses are recorded as usual and their *logging* is off (it would time the logging handler).
- ``openai_chat.stream.<n>``: folding a stream of ``n`` text and tool-argument deltas (chunk
  dicts, as ``json.loads`` gives them) into the final message through ``stream()``, which runs
  the shared accumulator, divided by the SDK's own ``ChatCompletionStreamState`` over the same
  chunks pre-built as ``ChatCompletionChunk`` objects (the SDK's cheapest input). Target <= 0.02x.

Run with ``python -m tests.benchmarks.bench_openai_chat`` or ``python -m tests.benchmarks``.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from partwire import AssistantMessage, ThinkingPart, ToolCallPart
from partwire._base import replace
from partwire.adapters import openai_chat
from partwire.history import EVENT_ADAPTER, HistoryEvent
from partwire.streaming import MessageCompleteEvent
from tests.benchmarks._runner import Figure, Timed
from tests.benchmarks.agent_history import agent_history

__all__ = ["FIGURES"]

TARGETS = {"to_wire": 1.5, "lossy": 2.0, "stream": 0.02}


def _plain_to_wire(events: list[dict[str, Any]], model: str) -> dict[str, Any]:
    """The baseline: the same request from dumped dicts, with nothing but the mapping itself."""
    ids: dict[str, str] = {}
    for event in events:
        if event.get("role") == "assistant":
            for part in event["parts"]:
                if part["type"] == "tool_call":
                    ids[part["id"]] = part["provider_ids"].get("openai", part["id"])
    messages: list[dict[str, Any]] = []
    for event in events:
        if event["type"] != "message":
            continue
        role = event["role"]
        if role == "tool":
            messages.append({"role": "tool", "tool_call_id": ids.get(event["call_id"], event["call_id"]),
                             "content": event["output_text"]})
            continue
        if role == "assistant":
            text = "".join(p["text"] for p in event["parts"] if p["type"] == "text")
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            calls = [{"id": ids[p["id"]], "type": "function",
                      "function": {"name": p["name"], "arguments": p["arguments_json"]}}
                     for p in event["parts"] if p["type"] == "tool_call"]
            if calls:
                message["tool_calls"] = calls
            messages.append(message)
            continue
        parts = event["parts"]
        if len(parts) == 1 and parts[0]["type"] == "text":
            messages.append({"role": role, "content": parts[0]["text"]})
            continue
        content: list[dict[str, Any]] = []
        for part in parts:
            if part["type"] == "text":
                content.append({"type": "text", "text": part["text"]})
            elif part["type"] == "image":
                content.append({"type": "image_url", "image_url": {
                    "url": f"data:{part['media_type']};base64,{part['source']['data']}"}})
        messages.append({"role": role, "content": content})
    return {"model": model, "messages": messages}


def openai_session(history: list[HistoryEvent]) -> list[HistoryEvent]:
    """The history as an OpenAI session holds it: call ids by OpenAI, no reasoning parts."""
    out: list[HistoryEvent] = []
    for event in history:
        if isinstance(event, AssistantMessage):
            parts = tuple(
                replace(p, provider_ids={"openai": "call_" + p.provider_ids["anthropic"][6:]})
                if isinstance(p, ToolCallPart) else p
                for p in event.parts if not isinstance(p, ThinkingPart))
            event = event.model_copy(update={"parts": parts, "model": "openai:gpt-5.5",
                                             "provider": "openai", "api": "openai_chat"})
        out.append(event)
    return out


def _to_wire(n: int, *, native: bool = True) -> Timed:
    history: list[HistoryEvent] = agent_history(n)
    if native:
        history = openai_session(history)
    dumped = [EVENT_ADAPTER.dump_python(e, mode="json") for e in history]
    return Timed(lambda: openai_chat.to_wire(history, model="gpt-5.5"),
                 lambda: _plain_to_wire(dumped, "gpt-5.5"),
                 calls=max(1, 20_000 // n), detail={"events": len(history)})


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-BenchAbcdefghijklmnopqrstuvw", "object": "chat.completion.chunk",
            "created": 1767225600, "model": "gpt-5.5-2026-04-23", "service_tier": "default",
            "system_fingerprint": None,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            "usage": None, "obfuscation": "abc"}


def stream_chunks(n_deltas: int) -> list[dict[str, Any]]:
    """A stream of text runs and tool calls, 20 deltas each, ``n_deltas`` deltas in all.

    Chat Completions carries one text and then the tool calls, so the text comes first and the
    calls (by index) after it.
    """
    words = ["the", "build", "fails", "because", "module", "parser", "imports", "a", "renamed", "symbol"]
    chunks = [_chunk({"role": "assistant", "content": "", "refusal": None})]
    texts = n_deltas // 2
    for k in range(texts):
        chunks.append(_chunk({"content": words[k % len(words)] + " "}))
    deltas, index = texts, 0
    while deltas < n_deltas:
        arguments = json.dumps({"path": f"src/pkg/module_{index}.py",
                                "query": " ".join(words[:12]), "limit": index})
        step = -(-len(arguments) // 19)
        chunks.append(_chunk({"tool_calls": [{"index": index, "id": f"call_Bench{index:019d}",
                                              "type": "function",
                                              "function": {"name": "read_file", "arguments": ""}}]}))
        for k in range(19):
            chunks.append(_chunk({"tool_calls": [{"index": index, "function": {
                "arguments": arguments[k * step:(k + 1) * step]}}]}))
        deltas += 20
        index += 1
    chunks.append(_chunk({}, "tool_calls"))
    usage = _chunk({})
    usage["choices"] = []
    usage["usage"] = {"prompt_tokens": 1200, "completion_tokens": 5000, "total_tokens": 6200,
                      "prompt_tokens_details": {"cached_tokens": 800},
                      "completion_tokens_details": {"reasoning_tokens": 0}}
    chunks.append(usage)
    return chunks


def _stream(n_deltas: int) -> Timed:
    from openai._models import construct_type
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    chunks = stream_chunks(n_deltas)
    sdk_chunks = [construct_type(type_=ChatCompletionChunk, value=c) for c in chunks]

    def ours() -> object:
        final = None
        for event in openai_chat.stream(chunks):
            if isinstance(event, MessageCompleteEvent):
                final = event.message
        return final

    def sdk() -> object:
        state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
        for chunk in sdk_chunks:
            state.handle_chunk(chunk)  # type: ignore[arg-type]
        return state.current_completion_snapshot

    # The SDK's state is two orders of magnitude slower than ours and its rounds are most of the
    # figure's time: two rounds a run (six in all; five before the runner), the SDK once a round
    # and ours many times (one call of ours is short enough for one interruption to double it).
    return Timed(ours, sdk, calls=max(1, 20_000 // n_deltas), peer_calls=1, rounds=2,
                 detail={"chunks": len(chunks)})


PLAIN = "a plain dict loop building the same request"
FIGURES = [
    *(figure for n in (1000, 10000) for figure in (
        Figure(f"openai_chat.to_wire.{n}", "x", PLAIN, TARGETS["to_wire"],
               timed=functools.partial(_to_wire, n)),
        Figure(f"openai_chat.to_wire.{n}.from_anthropic", "x", PLAIN, TARGETS["lossy"],
               timed=functools.partial(_to_wire, n, native=False)))),
    *(Figure(f"openai_chat.stream.{n}", "x", "openai SDK ChatCompletionStreamState",
             TARGETS["stream"], timed=functools.partial(_stream, n), digits=4) for n in (1_000, 10_000)),
]
