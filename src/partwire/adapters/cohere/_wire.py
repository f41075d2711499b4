"""Cohere v2 Chat wire shapes, tables, and the rules both directions share."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal, Required, TypedDict

from partwire._base import ProviderData
from partwire._json import token_count
from partwire.messages import StopReason
from partwire.usage import Usage

__all__ = [
    "API",
    "DOCUMENT_MEDIA_TYPES",
    "FINISH_REASONS",
    "IMAGE_MEDIA_TYPES",
    "ISSUER",
    "PLAN_INDEX",
    "RETRYABLE_STATUS",
    "TOOL_INDEX",
    "WireContent",
    "WireMessage",
    "WireRequest",
    "WireResponse",
    "WireUsage",
    "admits_call_id",
    "usage_from_wire",
]

ISSUER = "cohere"
"""The issuer of every id and echo state this API hands out."""
API = "cohere"
"""The ``api`` recorded on assistant messages."""

# Every finish_reason of the v2 API (SDK 5.x ChatFinishReason), plus v1's error words, which
# older deployments still send. A timeout is the server failing, not the output limit.
FINISH_REASONS: dict[str, StopReason] = {
    "COMPLETE": "stop",
    "STOP_SEQUENCE": "stop",
    "MAX_TOKENS": "length",
    "TOOL_CALL": "tool_use",
    "ERROR": "error",
    "TIMEOUT": "error",
    "ERROR_TOXIC": "content_filter",
    "ERROR_LIMIT": "length",
    "USER_CANCEL": "aborted",
}

IMAGE_MEDIA_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""Images the vision models take (as a URL or a data URL)."""
DOCUMENT_MEDIA_TYPES = frozenset({"text/plain", "application/json"})
"""Documents are JSON objects of text fields: plain text and JSON only, no PDF."""

# Cohere's ids look like ``get_weather_d7arjgsc96yf``; the API takes any plain token as a call id.
_CALL_ID = re.compile(r"[A-Za-z0-9_.:-]{1,256}")

# A stream numbers content items, the tool plan and tool calls separately; the canonical parts
# get one index space: content items keep theirs, the plan and the calls get these offsets.
PLAN_INDEX = 1 << 20
"""The stream index of the tool plan's text part."""
TOOL_INDEX = 1 << 21
"""The stream index of tool call 0 (call ``i`` is ``TOOL_INDEX + i``)."""

RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
"""HTTP statuses worth retrying as they are."""


def admits_call_id(call_id: str) -> bool:
    """Whether a call id fits what Cohere takes as ``tool_calls[].id`` in a request."""
    return _CALL_ID.fullmatch(call_id) is not None


WireContent = dict[str, Any]
"""One content item (``text``, ``image_url``, ``document``, ``thinking``): docs/adapters/cohere.md."""


class WireMessage(TypedDict, total=False):
    """One entry of ``messages``."""

    role: Required[Literal["system", "user", "assistant", "tool"]]
    content: str | list[WireContent] | None
    tool_plan: str
    tool_calls: list[dict[str, Any]]
    tool_call_id: str
    citations: list[dict[str, Any]]


class WireRequest(TypedDict, total=False):
    """The body of ``POST /v2/chat`` (the fields partwire builds; others pass through)."""

    model: Required[str]
    messages: Required[list[WireMessage]]
    tools: list[dict[str, Any]]
    documents: list[str | dict[str, Any]]
    tool_choice: Literal["REQUIRED", "NONE"]


class WireUsage(TypedDict, total=False):
    """``usage`` of a response: billed units and the tokens the model saw."""

    billed_units: dict[str, float]
    tokens: dict[str, float]
    cached_tokens: float


class WireResponse(TypedDict, total=False):
    """A non-streamed response."""

    id: Required[str]
    finish_reason: Required[str]
    message: Required[dict[str, Any]]
    usage: WireUsage
    logprobs: list[dict[str, Any]]


def usage_from_wire(raw: Mapping[str, Any]) -> Usage:
    """Normalised usage: the billed units, which are what Cohere charges and count the request
    as sent (``tokens`` add Cohere's own prompt template, which it does not bill); ``tokens``
    stand in when ``billed_units`` is absent.

    input = ``billed_units.input_tokens``; output = ``billed_units.output_tokens`` (reasoning
    included). ``cached_tokens`` counts the templated prompt, not the billed one, so it is no
    subset of the input and stays in the raw object (provider_data; counts as integers) with ``tokens`` and the
    other units; Cohere reports no reasoning count.
    """
    billed = raw.get("billed_units")
    counted = billed if isinstance(billed, dict) and billed else raw.get("tokens")
    return Usage(
        input_tokens=_count(counted, "input_tokens"),
        output_tokens=_count(counted, "output_tokens"),
        provider_data=ProviderData(issuer=ISSUER, data=_whole(raw)),
    )


def _whole(value: Any) -> Any:
    """``value`` with whole floats as integers: the SDK types every count as a float (``41.0``),
    the API sends integers; either reads as the same raw usage."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: _whole(v) for k, v in value.items()}
    return value


def _count(raw: Any, key: str) -> int:
    # Cohere types its counts as floats (``7.0`` in some answers): a whole float is a count.
    if isinstance(raw, Mapping):
        value = raw.get(key)
        if isinstance(value, float) and value.is_integer() and value >= 0:
            return int(value)
    return token_count(raw, key)
