"""Responses API wire shapes, tables, and the rules both directions share.

Facts from ``../shared/wire/openai.md`` part B (read from the ``openai`` 3.54 SDK source).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, Required, TypedDict

from partwire._base import ProviderData
from partwire._json import token_count
from partwire._media import data_url, parse_data_url
from partwire.messages import AssistantStatus, StopReason
from partwire.usage import Usage

__all__ = [
    "API",
    "CALL_ID_MAX",
    "CALL_ITEMS",
    "DOCUMENT_MEDIA_TYPES",
    "IMAGE_MEDIA_TYPES",
    "INCLUDE_REASONING",
    "ISSUER",
    "RESULT_ITEMS",
    "RETRYABLE_ERRORS",
    "SERVER_ITEMS",
    "ContinuationMode",
    "WireItem",
    "WireRequest",
    "WireResponse",
    "WireUsage",
    "admits_call_id",
    "data_url",
    "item_in_order",
    "parse_data_url",
    "stop_reason",
    "usage_from_wire",
]

ISSUER = "openai"
"""The issuer of every id, opaque value and echo state this API hands out."""
API = "openai_responses"
"""The ``api`` recorded on assistant messages."""

CALL_ID_MAX = 64
"""The longest ``call_id`` the API takes (``string_above_max_length`` above it)."""


def admits_call_id(call_id: str) -> bool:
    """Whether another provider's call id may be sent as a ``call_id`` as it is: any string of
    1 to 64 characters.

    The SDK types say only ``str``, and ``../shared/wire/openai.md`` gives no rule for ``call_id``
    (its id constraints are [memory]). The API's own 400s, quoted in gateways' issue threads,
    reject a ``call_id`` for its length alone: ``string_above_max_length`` ("maximum length
    64") and ``empty_string`` ("minimum length 1"), while those gateways forward Anthropic
    ``toolu_`` ids, Codex ``exec-<uuid>`` ids and ids with dots and hyphens unchanged (see
    docs/adapters/openai_responses.md). The item ``id`` (``fc_...``) is another field, with a
    prefix check: a foreign one is never sent.
    """
    return 0 < len(call_id) <= CALL_ID_MAX


ContinuationMode = Literal["stateless", "chained", "none"]
"""How a conversation continues (see ``Options.continuation`` and ``_request``)."""

INCLUDE_REASONING = "reasoning.encrypted_content"
"""The ``include`` entry that makes a ``store: false`` response carry its encrypted reasoning."""

IMAGE_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""Image types ``input_image`` takes by URL or as a data URL."""
TEXT_FILE = "text/plain"
"""The text type ``input_file`` takes inline: the API answered 200 to it, and its own 400
message names it among the valid file types. Other text types go as ``input_text``."""
DOCUMENT_MEDIA_TYPES = frozenset({"application/pdf", TEXT_FILE})
"""Documents ``input_file`` takes inline."""

# Output and input items the provider runs or makes itself (SDK 3.54's ResponseOutputItem and
# ResponseInputItemParam unions). They have no canonical content: each is kept whole, echoed to
# OpenAI only. Calls (and the state the server makes) become server_tool_call parts, outputs
# server_tool_result parts. Anything else is new to partwire and becomes an unknown part.
CALL_ITEMS = frozenset({
    "web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call",
    "computer_call", "local_shell_call", "shell_call", "apply_patch_call", "mcp_call",
    "mcp_list_tools", "mcp_approval_request", "tool_search_call", "additional_tools",
    "compaction", "program", "configuration_update",
})
RESULT_ITEMS = frozenset({
    "computer_call_output", "local_shell_call_output", "shell_call_output",
    "apply_patch_call_output", "mcp_approval_response", "tool_search_output", "program_output",
})
SERVER_ITEMS = CALL_ITEMS | RESULT_ITEMS
"""Every provider-run item type partwire knows by name."""

# Error codes worth retrying as they are (the SDK retries 408, 409, 429 and >= 500).
RETRYABLE_ERRORS = frozenset({"server_error", "rate_limit_exceeded", "vector_store_timeout",
                              "overloaded_error", "service_unavailable", "timeout"})

# incomplete_details.reason -> stop reason. "steered" is a WebSocket steer: the turn paused.
_INCOMPLETE: dict[str, StopReason] = {
    "max_output_tokens": "length",
    "max_messages": "length",
    "content_filter": "content_filter",
    "steered": "pause",
}


class WireItem(TypedDict, total=False):
    """One input or output item (``message``, ``reasoning``, ``function_call``, ...)."""

    type: str
    id: str
    role: str
    status: str
    content: str | list[dict[str, Any]]
    call_id: str
    name: str
    arguments: str
    output: str | list[dict[str, Any]]
    summary: list[dict[str, Any]]
    encrypted_content: str | None


class WireRequest(TypedDict, total=False):
    """The body of ``POST /responses`` (the fields partwire builds; others pass through)."""

    model: Required[str]
    instructions: str
    input: Required[str | list[WireItem]]
    previous_response_id: str
    tools: list[dict[str, Any]]
    tool_choice: str | dict[str, Any]
    parallel_tool_calls: bool
    max_output_tokens: int
    store: bool
    include: list[str]


class WireUsage(TypedDict, total=False):
    """``usage``: ``input_tokens`` includes the cached tokens; every detail may be missing."""

    input_tokens: Required[int]
    output_tokens: Required[int]
    total_tokens: int
    input_tokens_details: dict[str, Any]
    output_tokens_details: dict[str, Any]


class WireResponse(TypedDict, total=False):
    """A response object (``object: "response"``)."""

    id: Required[str]
    object: str
    created_at: float
    status: str
    model: str
    output: Required[list[WireItem]]
    usage: WireUsage | None
    error: dict[str, Any] | None
    incomplete_details: dict[str, Any] | None


def stop_reason(response: Mapping[str, Any], output: Iterable[Mapping[str, Any]]
                ) -> tuple[StopReason | None, str | None, AssistantStatus]:
    """Normalised stop reason, raw value and message status of a response.

    There is no ``finish_reason``: ``status`` says it, with ``incomplete_details.reason`` or
    ``error.code`` beside it. The raw value is ``status`` alone, or ``status:reason``
    (``incomplete:max_output_tokens``, ``failed:server_error``). A completed response with a
    function or custom tool call stopped for the tool; one with a refusal refused.
    """
    status = response.get("status")
    if status == "completed" or (status is None and response.get("output") is not None):
        kinds = [item.get("type") for item in output]
        if "function_call" in kinds or "custom_tool_call" in kinds:
            reason: StopReason = "tool_use"
        elif any(isinstance(c, Mapping) and c.get("type") == "refusal"
                 for item in output if item.get("type") == "message"
                 for c in (item.get("content") or ())):
            reason = "refusal"
        else:
            reason = "stop"
        return reason, status if isinstance(status, str) else None, "complete"
    if status == "incomplete":
        details = response.get("incomplete_details")
        why = details.get("reason") if isinstance(details, Mapping) else None
        raw = f"incomplete:{why}" if isinstance(why, str) else "incomplete"
        return _INCOMPLETE.get(why) if isinstance(why, str) else "length", raw, "complete"
    if status == "failed":
        error = response.get("error")
        code = error.get("code") if isinstance(error, Mapping) else None
        return "error", f"failed:{code}" if isinstance(code, str) else "failed", "error"
    if status == "cancelled":
        # A background response someone cancelled: the user's interrupt, made on the server.
        return "aborted", "cancelled", "aborted"
    return None, status if isinstance(status, str) else None, "partial"


def usage_from_wire(raw: Mapping[str, Any]) -> Usage:
    """Normalised usage: Responses' ``input_tokens`` already includes the cached tokens.

    input = ``input_tokens``; cache read = ``input_tokens_details.cached_tokens``; cache write =
    ``input_tokens_details.cache_write_tokens``; output = ``output_tokens`` (reasoning
    included); reasoning = ``output_tokens_details.reasoning_tokens``. Every detail is optional
    (older and third-party servers send only ``cached_tokens``). The raw object goes to
    provider_data.
    """
    details = raw.get("input_tokens_details")
    return Usage(
        input_tokens=token_count(raw, "input_tokens"),
        output_tokens=token_count(raw, "output_tokens"),
        cache_read_tokens=token_count(details, "cached_tokens"),
        cache_write_tokens=token_count(details, "cache_write_tokens"),
        reasoning_tokens=token_count(raw.get("output_tokens_details"), "reasoning_tokens"),
        provider_data=ProviderData(issuer=ISSUER, data=dict(raw)),
    )


_HEAD = ("id", "type", "status")


def item_in_order(item: Mapping[str, Any]) -> dict[str, Any]:
    """``item`` with its keys in the order the API writes them: id, type, status, the rest sorted.

    Items are rebuilt from canonical fields, so the order they came in is gone (the SDK's own
    objects do not keep it either); the API's order makes a rebuilt output item byte-equal to
    the one the API sent.
    """
    out = {k: item[k] for k in _HEAD if k in item}
    for key in sorted(item):
        if key not in out:
            out[key] = item[key]
    return out


# The data URLs every adapter shares (partwire._media): re-exported, the names this module had.

