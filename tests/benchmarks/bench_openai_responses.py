"""Responses adapter benchmarks, each a ratio to a baseline measured in the same run.

- ``openai_responses.to_wire.<n>``: ``to_wire`` over an ``n``-event agent history, divided by a
  plain dict -> dict loop that builds the same request from the same history already dumped to
  dicts (instructions, one item per message, reasoning items with their blob, message items with
  their ids, function calls, one ``function_call_output`` per result, call-id mapping, data URLs
  for images): the least work any converter must do. Target <= 1.5x. The history is
  ``agent_history(n)`` as a stateless Responses session holds it: reasoning with OpenAI's
  ``rs_`` ids and encrypted content, text tied to its ``msg_`` item, call ids issued by OpenAI.
- ``openai_responses.to_wire.<n>.from_anthropic``: the agent history as it is (thoughts signed by
  Anthropic) sent to Responses, a lossy conversion (every thought is a ``Loss``), against the
  same loop without reasoning items and item ids (it sends Anthropic's call ids, which Responses
  admits, as ``to_wire`` does). Target <= 2x.
- ``openai_responses.stream.<n>``: folding a stream of ``n`` text, reasoning-summary and
  function-argument deltas (event dicts, as ``json.loads`` gives them) into the final message
  through ``stream()``, which runs the shared accumulator, divided by the SDK's own
  ``ResponseStreamState`` over the same events pre-built as SDK event objects (its cheapest
  input). Target <= 0.1x.

Run with ``python -m tests.benchmarks openai_responses``.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from partwire import AssistantMessage, Opaque, ProviderData, TextPart, ThinkingPart, ToolCallPart
from partwire._base import replace
from partwire.adapters import openai_responses
from partwire.history import EVENT_ADAPTER, HistoryEvent
from partwire.streaming import MessageCompleteEvent
from tests.benchmarks._runner import Figure, Timed
from tests.benchmarks.agent_history import agent_history

__all__ = ["FIGURES"]

TARGETS = {"to_wire": 1.5, "lossy": 2.0, "stream": 0.1}


def responses_session(history: list[HistoryEvent]) -> list[HistoryEvent]:
    """The history as a stateless Responses session holds it (what the decoder gives)."""
    out: list[HistoryEvent] = []
    for n, event in enumerate(history):
        if isinstance(event, AssistantMessage):
            item = {"id": f"msg_{n:048x}", "status": "completed"}
            parts: list[Any] = []
            for k, p in enumerate(event.parts):
                if isinstance(p, ToolCallPart):
                    parts.append(replace(
                        p, provider_ids={"openai": "call_" + p.provider_ids["anthropic"][6:]},
                        provider_data=ProviderData(issuer="openai", data={
                            "item": {"id": f"fc_{n:040x}{k:08x}", "status": "completed"}})))
                elif isinstance(p, ThinkingPart):
                    assert p.signature is not None
                    parts.append(ThinkingPart(text=p.text, id=f"rs_{n:048x}",
                                              signature=Opaque(value=p.signature.value, issuer="openai")))
                elif isinstance(p, TextPart):
                    parts.append(TextPart(text=p.text, provider_data=ProviderData(
                        issuer="openai", data={"item": item, "extras": {"logprobs": []}})))
                else:
                    parts.append(p)
            event = event.model_copy(update={
                "parts": tuple(parts), "model": "openai:gpt-5.5", "provider": "openai",
                "api": "openai_responses", "provider_data": ProviderData(
                    issuer="openai", data={"response": {"store": False}})})
        out.append(event)
    return out


def _plain_to_wire(events: list[dict[str, Any]], model: str) -> dict[str, Any]:
    """The baseline: the same request from dumped dicts, with nothing but the mapping itself."""
    ids: dict[str, str] = {}
    for event in events:
        if event.get("role") == "assistant":
            for part in event["parts"]:
                if part["type"] == "tool_call":
                    ids[part["id"]] = part["provider_ids"].get("openai", part["id"])
    instructions: list[str] = []
    items: list[dict[str, Any]] = []
    for event in events:
        if event["type"] != "message":
            continue
        role = event["role"]
        if role == "system" and not items:
            instructions.append("".join(p["text"] for p in event["parts"]))
        elif role == "tool":
            items.append({"type": "function_call_output",
                          "call_id": ids.get(event["call_id"], event["call_id"]),
                          "output": event["output_text"]})
        elif role == "assistant":
            for part in event["parts"]:
                kind = part["type"]
                if kind == "thinking":
                    items.append({"id": part["id"], "type": "reasoning",
                                  "encrypted_content": part["signature"]["value"],
                                  "summary": [{"type": "summary_text", "text": part["text"]}]})
                elif kind == "text":
                    item = part["provider_data"]["data"]["item"]
                    items.append({"id": item["id"], "type": "message", "status": item["status"],
                                  "content": [{"type": "output_text", "annotations": [],
                                               "logprobs": [], "text": part["text"]}],
                                  "role": "assistant"})
                elif kind == "tool_call":
                    item = part["provider_data"]["data"]["item"]
                    items.append({"id": item["id"], "type": "function_call", "status": item["status"],
                                  "arguments": part["arguments_json"], "call_id": ids[part["id"]],
                                  "name": part["name"]})
        else:
            parts = event["parts"]
            if len(parts) == 1 and parts[0]["type"] == "text":
                items.append({"role": role, "content": parts[0]["text"]})
                continue
            content: list[dict[str, Any]] = []
            for part in parts:
                if part["type"] == "text":
                    content.append({"type": "input_text", "text": part["text"]})
                elif part["type"] == "image":
                    content.append({"type": "input_image", "detail": "auto", "image_url":
                                    f"data:{part['media_type']};base64,{part['source']['data']}"})
            items.append({"role": role, "content": content})
    body: dict[str, Any] = {"model": model}
    if instructions:
        body["instructions"] = "\n\n".join(instructions)
    body["input"] = items
    body["store"] = False
    body["include"] = ["reasoning.encrypted_content"]
    return body


def _to_wire(n: int) -> Timed:
    history = responses_session(agent_history(n))
    dumped = [EVENT_ADAPTER.dump_python(e, mode="json") for e in history]
    return Timed(lambda: openai_responses.to_wire(history, model="gpt-5.5"),
                 lambda: _plain_to_wire(dumped, "gpt-5.5"),
                 calls=max(1, 20_000 // n))


def _plain_foreign_to_wire(events: list[dict[str, Any]], model: str) -> dict[str, Any]:
    """The baseline for a history from another provider: the same mapping as :func:`_plain_to_wire`
    without reasoning (another issuer's is never sent) and without item ids (it has none)."""
    ids: dict[str, str] = {}  # canonical id -> the provider id sent (Responses admits 1..64 chars)
    instructions: list[str] = []
    items: list[dict[str, Any]] = []
    for event in events:
        if event["type"] != "message":
            continue
        role = event["role"]
        if role == "system" and not items:
            instructions.append("".join(p["text"] for p in event["parts"]))
        elif role == "tool":
            call_id = event["call_id"]
            items.append({"type": "function_call_output", "call_id": ids.get(call_id, call_id),
                          "output": event["output_text"]})
        elif role == "assistant":
            for part in event["parts"]:
                kind = part["type"]
                if kind == "text":
                    items.append({"role": "assistant", "content": part["text"]})
                elif kind == "tool_call":
                    wire_id = part["id"]
                    for value in part["provider_ids"].values():
                        if 0 < len(value) <= 64:
                            wire_id = value
                            break
                    ids[part["id"]] = wire_id
                    items.append({"type": "function_call", "arguments": part["arguments_json"],
                                  "call_id": wire_id, "name": part["name"]})
        else:
            parts = event["parts"]
            if len(parts) == 1 and parts[0]["type"] == "text":
                items.append({"role": role, "content": parts[0]["text"]})
                continue
            content: list[dict[str, Any]] = []
            for part in parts:
                if part["type"] == "text":
                    content.append({"type": "input_text", "text": part["text"]})
                elif part["type"] == "image":
                    content.append({"type": "input_image", "detail": "auto", "image_url":
                                    f"data:{part['media_type']};base64,{part['source']['data']}"})
            items.append({"role": role, "content": content})
    body: dict[str, Any] = {"model": model}
    if instructions:
        body["instructions"] = "\n\n".join(instructions)
    body["input"] = items
    body["store"] = False
    body["include"] = ["reasoning.encrypted_content"]
    return body


def _lossy(n: int) -> Timed:
    """``to_wire`` of the Anthropic-shaped history (every thought a loss) against the foreign loop."""
    history = agent_history(n)
    dumped = [EVENT_ADAPTER.dump_python(e, mode="json") for e in history]
    assert openai_responses.to_wire(history, model="gpt-5.5").losses, "the history must be lossy"
    return Timed(lambda: openai_responses.to_wire(history, model="gpt-5.5"),
                 lambda: _plain_foreign_to_wire(dumped, "gpt-5.5"),
                 calls=max(1, 20_000 // n))


_WORDS = ["the", "build", "fails", "because", "module", "parser", "imports", "a", "renamed", "symbol"]


def stream_events(n_deltas: int) -> list[dict[str, Any]]:
    """A Responses stream of ``n_deltas`` deltas: a reasoning summary, text, then function calls.

    A tenth of the deltas are reasoning summary, half are text, the rest arguments of calls
    of 20 fragments each; every item is framed by its added/done events as the API sends them.
    """
    events: list[dict[str, Any]] = []

    def add(event: dict[str, Any]) -> None:
        events.append({**event, "sequence_number": len(events)})

    base = {"id": "resp_bench", "object": "response", "created_at": 1767225620, "model": "gpt-5.5",
            "status": "in_progress", "output": [], "usage": None}
    add({"type": "response.created", "response": base})
    add({"type": "response.in_progress", "response": base})
    output: list[dict[str, Any]] = []
    summary = " ".join(_WORDS[k % len(_WORDS)] for k in range(n_deltas // 10)) + " "
    reasoning = {"id": "rs_bench", "type": "reasoning", "encrypted_content": "gAAAA" + "x" * 400,
                 "summary": [{"type": "summary_text", "text": summary}]}
    add({"type": "response.output_item.added", "output_index": 0,
         "item": {"id": "rs_bench", "type": "reasoning", "summary": []}})
    add({"type": "response.reasoning_summary_part.added", "item_id": "rs_bench", "output_index": 0,
         "summary_index": 0, "part": {"type": "summary_text", "text": ""}})
    for k in range(n_deltas // 10):
        add({"type": "response.reasoning_summary_text.delta", "item_id": "rs_bench", "output_index": 0,
             "summary_index": 0, "delta": _WORDS[k % len(_WORDS)] + " ", "obfuscation": "ab"})
    add({"type": "response.output_item.done", "output_index": 0, "item": reasoning})
    output.append(reasoning)
    text = "".join(_WORDS[k % len(_WORDS)] + " " for k in range(n_deltas // 2))
    message = {"id": "msg_bench", "type": "message", "status": "completed", "role": "assistant",
               "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": text}]}
    add({"type": "response.output_item.added", "output_index": 1,
         "item": {**message, "status": "in_progress", "content": []}})
    add({"type": "response.content_part.added", "item_id": "msg_bench", "output_index": 1,
         "content_index": 0, "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}})
    for k in range(n_deltas // 2):
        add({"type": "response.output_text.delta", "item_id": "msg_bench", "output_index": 1,
             "content_index": 0, "delta": _WORDS[k % len(_WORDS)] + " ", "logprobs": [], "obfuscation": "ab"})
    add({"type": "response.output_text.done", "item_id": "msg_bench", "output_index": 1,
         "content_index": 0, "text": text, "logprobs": []})
    add({"type": "response.output_item.done", "output_index": 1, "item": message})
    output.append(message)
    deltas, index = n_deltas // 10 + n_deltas // 2, 2
    while deltas < n_deltas:
        arguments = json.dumps({"path": f"src/pkg/module_{index}.py", "query": " ".join(_WORDS), "limit": index})
        step = -(-len(arguments) // 20)
        call = {"id": f"fc_bench{index}", "type": "function_call", "status": "completed",
                "arguments": arguments, "call_id": f"call_Bench{index:019d}", "name": "read_file"}
        add({"type": "response.output_item.added", "output_index": index,
             "item": {**call, "status": "in_progress", "arguments": ""}})
        for k in range(20):
            add({"type": "response.function_call_arguments.delta", "item_id": call["id"],
                 "output_index": index, "delta": arguments[k * step:(k + 1) * step], "obfuscation": "ab"})
        add({"type": "response.function_call_arguments.done", "item_id": call["id"],
             "output_index": index, "arguments": arguments})
        add({"type": "response.output_item.done", "output_index": index, "item": call})
        output.append(call)
        deltas += 20
        index += 1
    add({"type": "response.completed", "response": {
        **base, "status": "completed", "output": output,
        "usage": {"input_tokens": 1200, "input_tokens_details": {"cached_tokens": 800, "cache_write_tokens": 0},
                  "output_tokens": 5000, "output_tokens_details": {"reasoning_tokens": 400},
                  "total_tokens": 6200}}})
    return events


def _stream(n_deltas: int) -> Timed:
    from openai import omit
    from openai._models import construct_type_unchecked
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent

    events = stream_events(n_deltas)
    sdk_events: list[Any] = [construct_type_unchecked(type_=ResponseStreamEvent, value=e)  # type: ignore[arg-type]
                             for e in events]

    def ours() -> object:
        final = None
        for event in openai_responses.stream(events):
            if isinstance(event, MessageCompleteEvent):
                final = event.message
        return final

    def sdk() -> object:
        state: ResponseStreamState[Any] = ResponseStreamState(input_tools=omit, text_format=omit)
        for event in sdk_events:
            state.handle_event(event)
        return state._completed_response

    return Timed(ours, sdk, calls=max(1, 2_000 // n_deltas), rounds=2)


PLAIN = "a plain dict loop building the same request"
FIGURES = [
    *(figure for n in (1000, 10000) for figure in (
        Figure(f"openai_responses.to_wire.{n}", "x", PLAIN, TARGETS["to_wire"],
               timed=functools.partial(_to_wire, n)),
        Figure(f"openai_responses.to_wire.{n}.from_anthropic", "x", PLAIN + " (no reasoning items)",
               TARGETS["lossy"], timed=functools.partial(_lossy, n)))),
    *(Figure(f"openai_responses.stream.{n}", "x", "openai SDK ResponseStreamState",
             TARGETS["stream"], timed=functools.partial(_stream, n), digits=4) for n in (1_000, 10_000)),
]
