"""Google Gemini adapter benchmarks, each a ratio to a baseline measured in the same run.

- ``google.to_wire.<n>``: ``to_wire`` over an ``n``-message agent history as a Gemini session
  holds it (call ids issued by Gemini, thoughts signed by the model, the first call of each turn
  signed), divided by a plain dict -> dict loop that builds the same ``contents`` from the same
  history already dumped to dicts (roles, thought parts with their signatures, ``functionCall``
  with parsed arguments, one ``user`` content per batch of results, ``inlineData`` images): the
  least work any converter must do. Target <= 1.5x.
- ``google.to_wire.<n>.from_anthropic``: the agent history as it is (thoughts signed by
  Anthropic, Anthropic's call ids) sent to Gemini, a lossy conversion (every thought is a
  ``Loss``), against the same loop without thoughts and with canonical ids. Target <= 2x.
- ``google.stream.<n>``: folding a stream of ``n`` chunks (text deltas, thoughts, whole function
  calls; dicts as ``json.loads`` gives them) into the final message through ``stream()``, per
  chunk, divided by the SDK's own parsing of the same chunks
  (``GenerateContentResponse._from_response`` after its mldev converter, what
  ``generate_content_stream`` does with each chunk). Target <= 0.5x.

Run with ``python -m tests.benchmarks google`` (or this module).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from partwire import AssistantMessage, ProviderData, ThinkingPart, ToolCallPart
from partwire._base import replace
from partwire.adapters import google
from partwire.history import EVENT_ADAPTER, HistoryEvent
from partwire.parts import Opaque
from partwire.streaming import MessageCompleteEvent
from tests.benchmarks._runner import Figure, Timed
from tests.benchmarks.agent_history import agent_history

__all__ = ["FIGURES"]

TARGETS = {"to_wire": 1.5, "lossy": 2.0, "stream": 0.5}
MODEL = "gemini-3-flash-preview"
SIGNATURE = "CtwCAdHtim+7Zc0u3Vq1/lzZ0x7tTq5E3mEo8N2rN3pJm4cWfO0yF/s//g=="


def google_session(history: list[HistoryEvent]) -> list[HistoryEvent]:
    """The history as a Gemini session holds it: Gemini's call ids, thoughts and signatures."""
    out: list[HistoryEvent] = []
    for event in history:
        if isinstance(event, AssistantMessage):
            parts: list[Any] = []
            first = True
            for p in event.parts:
                if isinstance(p, ThinkingPart):
                    p = replace(p, signature=Opaque(value=SIGNATURE, issuer="google", model=MODEL))
                elif isinstance(p, ToolCallPart):
                    data = {"thoughtSignature": SIGNATURE, "model": MODEL} if first else None
                    first = False
                    p = replace(p, provider_ids={"google": p.provider_ids["anthropic"][6:18]},
                                provider_data=ProviderData(issuer="google", data=data) if data else None)
                parts.append(p)
            event = event.model_copy(update={"parts": tuple(parts), "model": f"google:{MODEL}",
                                             "provider": "google", "api": "google"})
        out.append(event)
    return out


def _plain_to_wire(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The baseline: the same body from dumped dicts, with nothing but the mapping itself."""
    ids: dict[str, str] = {}
    system: list[dict[str, Any]] = []
    contents: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None
    for event in events:
        if event["type"] != "message":
            continue
        role = event["role"]
        if role == "tool":
            if results is None:
                results = []
                contents.append({"role": "user", "parts": results})
            results.append({"functionResponse": {"id": ids[event["call_id"]], "name": event["tool_name"],
                            "response": {"output" if event["status"] == "success" else "error":
                                         event["output_text"]}}})
            continue
        results = None
        parts: list[dict[str, Any]] = []
        for part in event["parts"]:
            kind = part["type"]
            if kind == "text":
                parts.append({"text": part["text"]})
            elif kind == "thinking":
                parts.append({"text": part["text"], "thought": True,
                              "thoughtSignature": part["signature"]["value"]})
            elif kind == "tool_call":
                wire_id = part["provider_ids"]["google"]
                ids[part["id"]] = wire_id
                wire: dict[str, Any] = {"functionCall": {"id": wire_id, "name": part["name"],
                                                         "args": json.loads(part["arguments_json"])}}
                if part["provider_data"] is not None:
                    wire["thoughtSignature"] = part["provider_data"]["data"]["thoughtSignature"]
                parts.append(wire)
            elif kind == "image":
                parts.append({"inlineData": {"mimeType": part["media_type"],
                                             "data": part["source"]["data"]}})
        if role == "system":
            system.extend(parts)
        else:
            contents.append({"role": "model" if role == "assistant" else "user", "parts": parts})
    body: dict[str, Any] = {"contents": contents}
    if system:
        body["systemInstruction"] = {"parts": system}
    return body


def _to_wire(n: int) -> Timed:
    history = google_session(agent_history(n))
    dumped = [EVENT_ADAPTER.dump_python(e, mode="json") for e in history]
    mine = google.to_wire(history, model=MODEL).request
    assert mine["contents"] == _plain_to_wire(dumped)["contents"], "the baseline must build the same body"
    return Timed(lambda: google.to_wire(history, model=MODEL),
                 lambda: _plain_to_wire(dumped), calls=max(1, 20_000 // n))


def _plain_foreign_to_wire(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The baseline for a history from another provider: the same mapping as :func:`_plain_to_wire`
    without thoughts (another issuer's reasoning is never sent) and with the canonical call ids."""
    ids: dict[str, str] = {}
    system: list[dict[str, Any]] = []
    contents: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None
    for event in events:
        if event["type"] != "message":
            continue
        role = event["role"]
        if role == "tool":
            if results is None:
                results = []
                contents.append({"role": "user", "parts": results})
            results.append({"functionResponse": {"id": ids.get(event["call_id"], event["call_id"]),
                                                 "name": event["tool_name"],
                                                 "response": {"output" if event["status"] == "success"
                                                              else "error": event["output_text"]}}})
            continue
        results = None
        parts: list[dict[str, Any]] = []
        for part in event["parts"]:
            kind = part["type"]
            if kind == "text":
                parts.append({"text": part["text"]})
            elif kind == "tool_call":
                ids[part["id"]] = part["id"]
                parts.append({"functionCall": {"id": part["id"], "name": part["name"],
                                               "args": json.loads(part["arguments_json"])}})
            elif kind == "image":
                parts.append({"inlineData": {"mimeType": part["media_type"],
                                             "data": part["source"]["data"]}})
        if role == "system":
            system.extend(parts)
        elif parts:
            contents.append({"role": "model" if role == "assistant" else "user", "parts": parts})
    body: dict[str, Any] = {"contents": contents}
    if system:
        body["systemInstruction"] = {"parts": system}
    return body


def _lossy(n: int) -> Timed:
    """``to_wire`` of the Anthropic-shaped history (every thought a loss) against the foreign loop."""
    history = agent_history(n)
    dumped = [EVENT_ADAPTER.dump_python(e, mode="json") for e in history]
    assert google.to_wire(history, model=MODEL).losses, "the history must be lossy"
    return Timed(lambda: google.to_wire(history, model=MODEL),
                 lambda: _plain_foreign_to_wire(dumped), calls=max(1, 20_000 // n))


def stream_chunks(n: int) -> list[dict[str, Any]]:
    """``n`` chunks as Gemini streams them: thoughts, then text deltas and whole function calls."""
    words = ["the", "build", "fails", "because", "module", "parser", "imports", "a", "renamed", "symbol"]
    head = {"modelVersion": MODEL, "responseId": "cC1iaPqHFsmUz7IPlJ6p-AU"}
    usage = {"promptTokenCount": 1200, "totalTokenCount": 1200,
             "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 1200}]}

    def chunk(part: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        cand: dict[str, Any] = {"content": {"parts": [part], "role": "model"}, "index": 0}
        if finish:
            cand["finishReason"] = finish
        return {"candidates": [cand], "usageMetadata": usage, **head}

    chunks = [chunk({"text": f"Thinking about {words[k % 10]} ", "thought": True}) for k in range(n // 10)]
    k = 0
    while len(chunks) < n - 1:
        if k % 20 == 19:
            chunks.append(chunk({"functionCall": {"id": f"c{k:07d}", "name": "read_file", "args": {
                "path": f"src/pkg/module_{k}.py", "limit": k}}, "thoughtSignature": SIGNATURE}))
        else:
            chunks.append(chunk({"text": words[k % 10] + " "}))
        k += 1
    chunks.append(chunk({"text": "", "thoughtSignature": SIGNATURE}, "STOP"))
    return chunks


def _stream(n: int) -> Timed:
    from google.genai import models, types

    chunks = stream_chunks(n)

    def ours() -> object:
        final = None
        for event in google.stream(chunks):
            if isinstance(event, MessageCompleteEvent):
                final = event.message
        return final

    def sdk() -> object:
        last = None
        for chunk in chunks:
            converted = models._GenerateContentResponse_from_mldev(chunk)
            last = types.GenerateContentResponse._from_response(response=converted, kwargs={})
        return last

    return Timed(ours, sdk, calls=max(1, 2_000 // n), rounds=2)


PLAIN = "a plain dict loop building the same request"
FIGURES = [
    *(figure for n in (1000, 10000) for figure in (
        Figure(f"google.to_wire.{n}", "x", PLAIN, TARGETS["to_wire"], timed=functools.partial(_to_wire, n)),
        Figure(f"google.to_wire.{n}.from_anthropic", "x", PLAIN + " (no thoughts)", TARGETS["lossy"],
               timed=functools.partial(_lossy, n)))),
    *(Figure(f"google.stream.{n}", "x", "google-genai's response parsing", TARGETS["stream"],
             timed=functools.partial(_stream, n)) for n in (1_000, 10_000)),
]
