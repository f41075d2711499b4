"""Ollama native chat adapter benchmarks, each a ratio to a baseline measured in the same run.

- ``ollama.to_wire.<n>``: ``to_wire`` over an ``n``-message agent history as an Ollama session
  holds it (calls without provider ids, reasoning unsigned), divided by a plain dict -> dict
  loop that builds the same ``messages`` from the same history already dumped to dicts (roles,
  ``thinking``, ``content``, bare base64 ``images``, calls with parsed arguments, results by
  ``tool_name``): the least work any converter must do. Target <= 1.5x.
- ``ollama.stream.per_event``: folding a stream of about 10,000 lines (thinking, text, then
  whole calls), read from its raw NDJSON bytes, into the final message through ``stream()``,
  divided by what the ``ollama`` package does before a caller sees anything: parsing each line
  and building its ``ChatResponse`` (the package has no accumulator of its own; a caller folds
  the fragments by hand). Target <= 0.5x.

Run with ``python -m tests.benchmarks ollama`` (or this module).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from partwire import AssistantMessage, ThinkingPart, ToolCallPart
from partwire._base import replace
from partwire.adapters import ollama
from partwire.history import EVENT_ADAPTER, HistoryEvent
from partwire.streaming import MessageCompleteEvent
from tests.benchmarks._runner import Figure, Timed, quiet_losses
from tests.benchmarks.agent_history import agent_history

__all__ = ["FIGURES"]

MODEL = "qwen3:8b"


def ollama_session(history: list[HistoryEvent]) -> list[HistoryEvent]:
    """The history as an Ollama session holds it: no call ids from a provider, no signatures."""
    out: list[HistoryEvent] = []
    for event in history:
        if isinstance(event, AssistantMessage):
            parts: list[Any] = []
            for p in event.parts:
                if isinstance(p, ThinkingPart):
                    p = ThinkingPart(text=p.text)
                elif isinstance(p, ToolCallPart):
                    p = replace(p, provider_ids={})
                parts.append(p)
            event = event.model_copy(update={"parts": tuple(parts), "model": f"ollama:{MODEL}",
                                             "provider": "ollama", "api": "ollama"})
        out.append(event)
    return out


def _plain_to_wire(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The baseline: the same body from dumped dicts, with nothing but the mapping itself."""
    names: dict[str, str] = {}
    messages: list[dict[str, Any]] = []
    for event in events:
        if event["type"] != "message":
            continue
        role = event["role"]
        if role == "tool":
            messages.append({"role": "tool", "content": event["output_text"],
                             "tool_name": event["tool_name"] or names[event["call_id"]]})
            continue
        message: dict[str, Any] = {"role": role}
        texts: list[str] = []
        images: list[str] = []
        calls: list[dict[str, Any]] = []
        for part in event["parts"]:
            kind = part["type"]
            if kind == "text":
                texts.append(part["text"])
            elif kind == "thinking":
                message["thinking"] = part["text"]
            elif kind == "tool_call":
                names[part["id"]] = part["name"]
                calls.append({"function": {"name": part["name"],
                                           "arguments": json.loads(part["arguments_json"])}})
            elif kind == "image":
                images.append(part["source"]["data"])
        message["content"] = "".join(texts)
        if images:
            message["images"] = images
        if calls:
            message["tool_calls"] = calls
        messages.append(message)
    return {"model": MODEL, "messages": messages}


def _to_wire(n: int) -> Timed:
    history = ollama_session(agent_history(n))
    dumped = [EVENT_ADAPTER.dump_python(e, mode="json") for e in history]
    with quiet_losses():
        mine = ollama.to_wire(history, model=MODEL).request
    assert mine == _plain_to_wire(dumped), "the baseline must build the same body"

    def ours() -> object:
        with quiet_losses():
            return ollama.to_wire(history, model=MODEL)

    return Timed(ours, lambda: _plain_to_wire(dumped), calls=max(1, 20_000 // n))


def _stream_lines(n_lines: int) -> bytes:
    """An Ollama stream: reasoning fragments, text fragments, then whole calls, ``n_lines`` in all."""
    words = ["the", "build", "fails", "because", "module", "parser", "imports", "a", "renamed", "symbol"]
    head = {"model": MODEL, "created_at": "2026-03-14T09:04:30.021913447Z"}
    lines: list[dict[str, Any]] = []
    for k in range(n_lines - 1):
        if k < n_lines // 3:
            fields: dict[str, Any] = {"content": "", "thinking": words[k % len(words)] + " "}
        elif k % 50:
            fields = {"content": words[k % len(words)] + " "}
        else:
            fields = {"content": "", "tool_calls": [{"function": {"name": "read_file", "arguments": {
                "path": f"src/pkg/module_{k}.py", "query": " ".join(words), "limit": k}}}]}
        lines.append({**head, "message": {"role": "assistant", **fields}, "done": False})
    lines.append({**head, "message": {"role": "assistant", "content": ""}, "done_reason": "stop",
                  "done": True, "total_duration": 9_000_000_000, "load_duration": 48_213_667,
                  "prompt_eval_count": 1200, "prompt_eval_duration": 338_120_583,
                  "eval_count": n_lines, "eval_duration": 8_450_606_271})
    return b"".join(json.dumps(line, separators=(",", ":")).encode() + b"\n" for line in lines)


def _stream(n_lines: int) -> Timed:
    from ollama import ChatResponse

    raw = _stream_lines(n_lines)
    chunks = [raw[i:i + 1024] for i in range(0, len(raw), 1024)]

    def ours() -> object:
        final = None
        for event in ollama.stream(chunks):
            if isinstance(event, MessageCompleteEvent):
                final = event.message
        return final

    def sdk() -> list[Any]:
        # What ollama.Client.chat(stream=True) does per line: httpx's iter_lines, json.loads and
        # ChatResponse(**part) (its error check aside).
        return [ChatResponse(**json.loads(line)) for line in b"".join(chunks).decode().splitlines()]

    assert len(sdk()) == n_lines, "the package must read every line"
    return Timed(ours, sdk, calls=3)


PLAIN = "a plain dict loop building the same body"
FIGURES = [
    *(Figure(f"ollama.to_wire.{n}", "x", PLAIN, 1.5, timed=functools.partial(_to_wire, n))
      for n in (1000, 10000)),
    Figure("ollama.stream.per_event", "x", "the ollama package parsing each line to a ChatResponse", 0.5,
           timed=lambda: _stream(10_000)),
]
