"""The Ollama native chat half of the shared wire laws: responses, NDJSON streams (and their
bytes), and its view of a part."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from partwire import AssistantMessage, Part, TextPart, ThinkingPart, ToolCallPart, UserMessage
from partwire._json import json_text
from partwire.adapters import ollama
from partwire.adapters.ollama._wire import stop_reason
from partwire.history import HistoryEvent
from tests.harness.laws import JSON_VALUES, NAMES, WireLaws, object_arguments_view, split_text

__all__ = ["LAWS"]

MODEL = "qwen3:8b"
_text = st.text(min_size=1, max_size=20)


@st.composite
def echoable(draw: st.DrawFn) -> AssistantMessage:
    """An assistant message as the Ollama decoder gives it: at most one reasoning text and one
    text (a message has one field for each), then tool calls (arguments as partwire writes an
    object's JSON), and a ``done_reason``."""
    parts: list[Part] = []
    if draw(st.booleans()):
        parts.append(ThinkingPart(text=draw(_text)))
    if draw(st.booleans()):
        parts.append(TextPart(text=draw(_text)))
    for _ in range(draw(st.integers(0 if parts else 1, 3))):
        args = draw(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4))
        parts.append(ToolCallPart(id="tu_x", name=draw(NAMES), arguments_json=json_text(args)))
    raw = draw(st.sampled_from(["stop", "length"]))
    calls = any(isinstance(p, ToolCallPart) for p in parts)
    return AssistantMessage(parts=tuple(parts), provider="ollama", api="ollama",
                            model=f"ollama:{MODEL}", stop_reason=stop_reason(raw, tool_calls=calls),
                            stop_reason_raw=raw)


def _wire_message(message: AssistantMessage) -> dict[str, Any]:
    projection = ollama.to_wire([UserMessage("q"), message], model=MODEL)
    assert projection.losses == (), projection.losses
    wire: dict[str, Any] = projection.request["messages"][1]
    return wire


def _response_for(message: AssistantMessage, variant: str = "") -> dict[str, Any]:
    """The response body Ollama sends for ``message``: its message as ``to_wire`` writes it."""
    return {"model": MODEL, "message": _wire_message(message), "done": True,
            "done_reason": message.stop_reason_raw}


@st.composite
def streamed(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A response body and the stream lines that carry the same message: reasoning and text in
    fragments cut anywhere, the calls whole in one line, then the last line."""
    body = _response_for(draw(echoable()))
    message = body["message"]
    lines: list[dict[str, Any]] = []

    def line(fields: dict[str, Any]) -> dict[str, Any]:
        return {"model": MODEL, "message": {"role": "assistant", "content": "", **fields}, "done": False}

    lines += [line({"thinking": piece}) for piece in split_text(draw, message.get("thinking", ""))]
    lines += [line({"content": piece}) for piece in split_text(draw, message["content"])]
    if "tool_calls" in message:
        lines.append(line({"tool_calls": message["tool_calls"]}))
    lines.append({"model": MODEL, "message": {"role": "assistant", "content": ""}, "done": True,
                  "done_reason": body["done_reason"]})
    return body, lines


def _ndjson(lines: list[Any]) -> bytes:
    """The lines as the NDJSON body Ollama sends."""
    return b"".join(json.dumps(line, ensure_ascii=False).encode() + b"\n" for line in lines)


def _view(part: Part, event: HistoryEvent) -> dict[str, Any] | None:
    """A part as the model is told it by Ollama: arguments as an object, no detail hint."""
    data = object_arguments_view(part, event)
    if data is not None:
        data.pop("detail", None)
    return data


LAWS = WireLaws(
    messages=lambda variant: echoable(),
    response_for=_response_for,
    streams=lambda variant: streamed(),
    model=MODEL,
    sse=_ndjson,
    view=_view,
    foreign_issuers=frozenset({"ollama"}),
)
"""The Ollama native chat wire laws."""
