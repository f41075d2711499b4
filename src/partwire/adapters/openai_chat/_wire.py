"""Chat Completions wire shapes, tables, and the rules both directions share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Required, TypedDict

from partwire._base import ProviderData
from partwire._json import token_count
from partwire._media import data_url, parse_data_url
from partwire.messages import StopReason
from partwire.usage import Usage

__all__ = [
    "API",
    "AUDIO_FORMATS",
    "AUDIO_MEDIA_TYPES",
    "DOCUMENT_MEDIA_TYPES",
    "FINISH_REASONS",
    "IMAGE_MEDIA_TYPES",
    "ISSUER",
    "RETRYABLE_ERRORS",
    "WireMessage",
    "WirePart",
    "WireRequest",
    "WireResponse",
    "WireToolCall",
    "WireUsage",
    "admits_call_id",
    "data_url",
    "parse_data_url",
    "stop_reason",
    "usage_from_wire",
]

ISSUER = "openai"
"""The issuer of OpenAI's own ids and echo state (dialects have their own, see ``_dialects``)."""
API = "openai_chat"


def admits_call_id(call_id: str) -> bool:
    """Whether a call id fits Chat Completions: about 40 characters at most. Another provider's
    id that fits is sent as it is (a trip through Chat and back keeps it); a longer one is mapped."""
    return 0 < len(call_id) <= 40
"""The ``api`` recorded on assistant messages."""

# Every finish_reason of SDK 3.54, plus what OpenAI-compatible servers are known to send
# ([memory], see docs/adapters/openai_chat.md). A server error or an upstream abort is "error":
# "aborted" means a user interrupt, and only a local interrupt sets it.
FINISH_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "content_filter",
    # OpenAI-compatible servers:
    "eos": "stop",
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_length": "length",
    "tool_use": "tool_use",
    "safety": "content_filter",
    "recitation": "content_filter",
    "refusal": "refusal",
    "error": "error",
    "abort": "error",
    "insufficient_system_resource": "error",
}

IMAGE_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""Image types the API takes (by URL or as a data URL)."""
DOCUMENT_MEDIA_TYPES = frozenset({"application/pdf"})
"""Documents a ``file`` part takes inline; text documents go as text."""
AUDIO_FORMATS: dict[str, str] = {
    "audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav",
    "audio/mpeg": "mp3", "audio/mp3": "mp3",
}
"""Media type -> ``input_audio.format``: the API takes WAV and MP3 only."""
AUDIO_MEDIA_TYPES: dict[str, str] = {"wav": "audio/wav", "mp3": "audio/mpeg"}
"""``input_audio.format`` -> media type."""

# Error codes and types worth retrying as they are (the SDK retries 408, 409, 429 and >= 500).
RETRYABLE_ERRORS = frozenset({"server_error", "rate_limit_exceeded", "overloaded_error",
                              "rate_limit_error", "service_unavailable", "timeout",
                              "api_error", "internal_error"})

WirePart = dict[str, Any]
"""A content part (``text``, ``image_url``, ``input_audio``, ``file``, ``refusal``)."""


class WireToolCall(TypedDict):
    """One entry of an assistant message's ``tool_calls`` (the function form)."""

    id: str
    type: Literal["function"]
    function: dict[str, str]


class WireMessage(TypedDict, total=False):
    """One entry of ``messages``; which keys appear depends on ``role``."""

    role: Required[Literal["system", "developer", "user", "assistant", "tool", "function"]]
    content: str | list[WirePart] | None
    name: str
    refusal: str | None
    tool_calls: list[dict[str, Any]]
    tool_call_id: str
    audio: dict[str, Any] | None


class WireRequest(TypedDict, total=False):
    """The body of ``POST /chat/completions`` (the fields partwire builds; others pass through)."""

    model: Required[str]
    messages: Required[list[WireMessage]]
    tools: list[dict[str, Any]]
    tool_choice: str | dict[str, Any]
    parallel_tool_calls: bool
    max_completion_tokens: int


class WireUsage(TypedDict, total=False):
    """``usage``: ``prompt_tokens`` includes cached tokens; every detail is optional."""

    prompt_tokens: Required[int]
    completion_tokens: Required[int]
    total_tokens: int
    prompt_tokens_details: dict[str, int | None] | None
    completion_tokens_details: dict[str, int | None] | None


class WireResponse(TypedDict, total=False):
    """A non-streamed response (``object: "chat.completion"``)."""

    id: Required[str]
    object: str
    created: int
    model: Required[str]
    choices: Required[list[dict[str, Any]]]
    usage: WireUsage | None


def stop_reason(raw: Any, *, tool_calls: bool, refusal: bool) -> StopReason | None:
    """Normalised stop reason of a ``finish_reason``, given what the message holds.

    A forced tool choice ends with ``stop`` although the model called a tool, and a refusal
    ends with ``stop`` too; canonically those are ``tool_use`` and ``refusal``. An unknown
    value maps to ``None`` (the raw value stays in ``stop_reason_raw``).
    """
    if not isinstance(raw, str):
        return None
    mapped = FINISH_REASONS.get(raw)
    if mapped == "stop":
        if tool_calls:
            return "tool_use"
        if refusal:
            return "refusal"
    return mapped


def usage_from_wire(raw: Mapping[str, Any], issuer: str) -> Usage:
    """Normalised usage: Chat's ``prompt_tokens`` already includes the cached tokens.

    input = prompt_tokens; cache read = ``prompt_tokens_details.cached_tokens`` (DeepSeek:
    ``prompt_cache_hit_tokens``); cache write = ``prompt_tokens_details.cache_write_tokens``;
    output = completion_tokens (reasoning included); reasoning =
    ``completion_tokens_details.reasoning_tokens``. The raw object goes to provider_data.
    """
    details = raw.get("prompt_tokens_details")
    cache_read = token_count(details, "cached_tokens") or token_count(raw, "prompt_cache_hit_tokens")
    return Usage(
        input_tokens=token_count(raw, "prompt_tokens"),
        output_tokens=token_count(raw, "completion_tokens"),
        cache_read_tokens=cache_read,
        cache_write_tokens=token_count(details, "cache_write_tokens"),
        reasoning_tokens=token_count(raw.get("completion_tokens_details"), "reasoning_tokens"),
        provider_data=ProviderData(issuer=issuer, data=dict(raw)),
    )


# The data URLs every adapter shares (partwire._media): re-exported, the names this module had.

