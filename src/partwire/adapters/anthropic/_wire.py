"""Anthropic Messages wire shapes, tables, and the rules both directions share."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal, NotRequired, Required, TypedDict

from partwire._base import ProviderData
from partwire._json import token_count
from partwire.messages import StopReason
from partwire.usage import Usage

__all__ = [
    "API",
    "DEFAULT_MAX_TOKENS",
    "DOCUMENT_MEDIA_TYPES",
    "IMAGE_MEDIA_TYPES",
    "ISSUER",
    "RETRYABLE_ERRORS",
    "SERVER_CALL_TYPES",
    "STOP_REASONS",
    "WireBlock",
    "WireMessage",
    "WireRequest",
    "WireResponse",
    "WireUsage",
    "admits_call_id",
    "is_server_result",
    "usage_from_wire",
]

ISSUER = "anthropic"
"""The issuer of every opaque value and echo state this API hands out."""
API = "anthropic"
"""The ``api`` recorded on assistant messages."""

DEFAULT_MAX_TOKENS = 4096
# The API's rule for a tool_use id in a request; another provider's call id that fits is sent as
# it is (a trip through Anthropic and back keeps it), one that does not is mapped.
_CALL_ID = re.compile(r"[a-zA-Z0-9_-]{1,256}")


def admits_call_id(call_id: str) -> bool:
    """Whether a call id fits Anthropic's rule for ``tool_use.id`` in a request."""
    return _CALL_ID.fullmatch(call_id) is not None
"""``max_tokens`` is required by the API; this is sent when the caller gives none."""

# Every stop_reason of SDK 2.12, plus the beta "compaction". A window overflow is a length limit
# like max_tokens; "compaction" pauses the turn like pause_turn (the caller sends it back as is).
STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_use",
    "pause_turn": "pause",
    "refusal": "refusal",
    "compaction": "pause",
}

IMAGE_MEDIA_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""The only image types the API takes inline."""
DOCUMENT_MEDIA_TYPES = frozenset({"application/pdf", "text/plain"})
"""Documents: base64 PDF, or plain text."""

# Blocks of provider-run tools. They all carry id/name/input; the MCP one adds server_name.
SERVER_CALL_TYPES = frozenset({"server_tool_use", "mcp_tool_use"})
# Result blocks that do not end in "_tool_result": compaction is server-made state (beta) that
# must be echoed verbatim, like a server tool's result, and only to Anthropic.
_OTHER_SERVER_RESULTS = frozenset({"compaction"})

# Error types worth retrying as they are (the SDK retries 408, 409, 429 and >= 500).
RETRYABLE_ERRORS = frozenset({"overloaded_error", "rate_limit_error", "api_error", "timeout_error"})


def is_server_result(block_type: str) -> bool:
    """Whether a block type is the result of a provider-run tool (or other server-made state)."""
    return (block_type.endswith("_tool_result") and block_type != "tool_result") or (
        block_type in _OTHER_SERVER_RESULTS)


WireBlock = dict[str, Any]
"""A content block; its keys depend on ``type`` (see docs/adapters/anthropic.md)."""


class WireMessage(TypedDict):
    """One entry of ``messages``."""

    role: Literal["user", "assistant", "system"]
    content: str | list[WireBlock]


class WireRequest(TypedDict, total=False):
    """The body of ``POST /v1/messages`` (the fields partwire builds; others pass through)."""

    model: Required[str]
    max_tokens: Required[int]
    messages: Required[list[WireMessage]]
    system: str | list[WireBlock]
    tools: list[dict[str, Any]]
    tool_choice: dict[str, Any]


class WireUsage(TypedDict, total=False):
    """``usage`` of a response; ``input_tokens`` excludes both cache buckets."""

    input_tokens: Required[int]
    output_tokens: Required[int]
    cache_creation_input_tokens: int | None
    cache_read_input_tokens: int | None
    output_tokens_details: dict[str, int] | None


class WireResponse(TypedDict, total=False):
    """A non-streamed response (``type: "message"``)."""

    id: Required[str]
    type: Required[Literal["message"]]
    role: Required[Literal["assistant"]]
    model: Required[str]
    content: Required[list[WireBlock]]
    stop_reason: str | None
    stop_sequence: NotRequired[str | None]
    usage: Required[WireUsage]


def usage_from_wire(raw: Mapping[str, Any]) -> Usage:
    """Normalised usage: Anthropic's ``input_tokens`` excludes the cache; canonical input includes it.

    input = input + cache read + cache write; output = output (thinking included);
    reasoning = ``output_tokens_details.thinking_tokens``. The raw object goes to provider_data;
    a count of another type counts 0 there, as in every adapter.
    """
    cache_write = token_count(raw, "cache_creation_input_tokens")
    cache_read = token_count(raw, "cache_read_input_tokens")
    return Usage(
        input_tokens=token_count(raw, "input_tokens") + cache_write + cache_read,
        output_tokens=token_count(raw, "output_tokens"),
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        reasoning_tokens=token_count(raw.get("output_tokens_details"), "thinking_tokens"),
        provider_data=ProviderData(issuer=ISSUER, data=dict(raw)),
    )
