"""Ollama's native chat API (``POST /api/chat``): the wire shapes, and the rules every other
module of the adapter reads (stop reasons, usage, the ids a call is given on the way in).

The shapes follow the ``ollama`` package's pydantic types (``ChatRequest``, ``Message``,
``ChatResponse``); the adapter never imports it. See ``docs/adapters/ollama.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Required, TypedDict

from partwire._base import ProviderData
from partwire._json import json_text
from partwire.ids import TOOL_CALL_PREFIX, derive_id
from partwire.messages import StopReason
from partwire.usage import Usage

__all__ = [
    "API",
    "DURATIONS",
    "IMAGE_MEDIA_TYPES",
    "ISSUER",
    "WireMessage",
    "WireRequest",
    "WireResponse",
    "WireToolCall",
    "admits_call_id",
    "call_id",
    "stop_reason",
    "usage_from_wire",
]

API = "ollama"
"""The adapter's name, in errors and losses."""
ISSUER = "ollama"
"""Whose provider data the adapter reads and writes."""

IMAGE_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})
"""What a vision model behind Ollama decodes (the server hands the bytes to the model's
projector, which reads these formats)."""

# Ollama says why a generation ended in ``done_reason``: ``stop`` and ``length`` as OpenAI does,
# ``load`` / ``unload`` for the empty requests that load or unload a model. A call ends with
# ``stop``: the message's tool calls make it ``tool_use``.
_DONE_REASONS: dict[str, StopReason] = {"stop": "stop", "length": "length", "load": "stop",
                                        "unload": "stop"}

DURATIONS = ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration")
"""The timings a response reports, in nanoseconds (kept in the usage's provider data)."""
_COUNTS = ("prompt_eval_count", "eval_count")


class WireToolCall(TypedDict, total=False):
    """One entry of ``tool_calls``: a function and its arguments as a JSON object, no id."""

    function: Required[dict[str, Any]]


class WireMessage(TypedDict, total=False):
    """One entry of ``messages`` (``ollama.Message``)."""

    role: Required[Literal["system", "user", "assistant", "tool"]]
    content: str
    thinking: str
    images: list[str]
    tool_calls: list[WireToolCall]
    tool_name: str


class WireRequest(TypedDict, total=False):
    """The body of ``POST /api/chat`` (``ollama.ChatRequest``); other fields pass through."""

    model: Required[str]
    messages: Required[list[WireMessage]]
    tools: list[dict[str, Any]]
    format: str | dict[str, Any]
    options: dict[str, Any]
    think: bool | str
    keep_alive: float | str | None
    stream: bool


class WireResponse(TypedDict, total=False):
    """A whole response, or one line of a stream (``ollama.ChatResponse``)."""

    model: str
    created_at: str
    message: Required[WireMessage]
    done: bool
    done_reason: str
    total_duration: int
    load_duration: int
    prompt_eval_count: int
    prompt_eval_duration: int
    eval_count: int
    eval_duration: int


def stop_reason(raw: Any, *, tool_calls: bool) -> StopReason | None:
    """The normalised stop reason of a ``done_reason``; ``None`` for a value it does not know
    (the raw value stays in ``stop_reason_raw``)."""
    if not isinstance(raw, str):
        return None
    mapped = _DONE_REASONS.get(raw)
    return "tool_use" if mapped == "stop" and tool_calls else mapped


def usage_from_wire(body: Mapping[str, Any]) -> Usage | None:
    """Usage from a final response: input ``prompt_eval_count``, output ``eval_count`` (Ollama
    reports no cache or reasoning counts; a prompt served from its cache counts only what was
    evaluated). The counts and the durations go to the usage's provider data, and
    ``total_duration`` (nanoseconds) is the latency. ``None`` when the body has none of them."""
    raw = {key: body[key] for key in (*_COUNTS, *DURATIONS) if key in body}
    if not raw:
        return None
    total = raw.get("total_duration")
    return Usage(
        input_tokens=_count(raw.get("prompt_eval_count")),
        output_tokens=_count(raw.get("eval_count")),
        latency_ms=total // 1_000_000 if type(total) is int and total >= 0 else None,
        provider_data=ProviderData(issuer=ISSUER, data=raw),
    )


def _count(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0


def admits_call_id(call_id: str) -> bool:
    """Whether Ollama's id rules admit ``call_id``: never, its calls carry no id."""
    return False


def call_id(scope: str, position: str, name: str, arguments: Any) -> str:
    """The canonical id a call read from the wire is given: derived from where it stands and
    what it says, so reading the same body twice gives the same ids (Ollama's calls have none).
    ``scope`` tells responses apart (their ``created_at``); requests use ``""``."""
    text = arguments if isinstance(arguments, str) else json_text(arguments)
    return derive_id("ollama", scope, position, name, text, prefix=TOOL_CALL_PREFIX)
