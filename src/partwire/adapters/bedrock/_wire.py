"""Bedrock Converse wire shapes, tables, and the rules both directions share.

Source of the shapes: botocore's service model of ``bedrock-runtime`` (API version 2023-09-30,
as shipped in botocore 1.44), read offline, and the recorded traffic of ``shared/corpus/bedrock``.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any, Literal, Required, TypedDict

from partwire._base import ProviderData
from partwire._json import token_count
from partwire.messages import StopReason
from partwire.usage import Usage

__all__ = [
    "API",
    "AUDIO_FORMATS",
    "DOCUMENT_FORMATS",
    "IMAGE_FORMATS",
    "ISSUER",
    "RETRYABLE_ERRORS",
    "STOP_REASONS",
    "STREAM_ERRORS",
    "VIDEO_FORMATS",
    "Blobs",
    "WireBlock",
    "WireMessage",
    "WireRequest",
    "WireResponse",
    "admits_call_id",
    "admits_tool_name",
    "blob_out",
    "blob_text",
    "tool_name_for",
    "usage_from_wire",
]

ISSUER = "bedrock"
"""The issuer of every opaque value and echo state Converse hands out (Claude on Bedrock
included: its signatures are Bedrock's to verify, not Anthropic's API's)."""
API = "bedrock"
"""The ``api`` recorded on assistant messages."""

Blobs = Literal["bytes", "base64"]
"""How binary fields go out: ``bytes`` for boto3's keyword arguments (botocore base64-encodes
them itself), ``base64`` text for the HTTP body written as JSON."""

# ToolUseId and ToolName in the service model (min 1, max 64).
_CALL_ID = re.compile(r"[a-zA-Z0-9_.:-]{1,64}")
_TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_NAME_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def admits_call_id(call_id: str) -> bool:
    """Whether a call id fits Converse's ``toolUseId`` rule (``[a-zA-Z0-9_.:-]{1,64}``)."""
    return _CALL_ID.fullmatch(call_id) is not None


def admits_tool_name(name: str) -> bool:
    """Whether a tool name fits Converse's ``ToolName`` rule (``[a-zA-Z0-9_-]{1,64}``)."""
    return _TOOL_NAME.fullmatch(name) is not None


def tool_name_for(name: str) -> str:
    """The name sent for a tool whose own name Converse refuses: every other character an
    underscore, cut to 64 (the same rewrite for a definition and for its calls, so they match)."""
    return (_NAME_CHARS.sub("_", name) or "_")[:64]


# StopReason's enum in the service model.
STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_use",
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
    "malformed_model_output": "error",
    "malformed_tool_use": "error",
}

# Media: Converse names a format, not a media type.
IMAGE_FORMATS: dict[str, str] = {"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif",
                                 "webp": "image/webp"}
DOCUMENT_FORMATS: dict[str, str] = {
    "pdf": "application/pdf", "csv": "text/csv", "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xls": "application/vnd.ms-excel",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "html": "text/html", "txt": "text/plain", "md": "text/markdown",
}
AUDIO_FORMATS: dict[str, str] = {
    "mp3": "audio/mpeg", "opus": "audio/opus", "wav": "audio/wav", "aac": "audio/aac",
    "flac": "audio/flac", "mp4": "audio/mp4", "ogg": "audio/ogg", "mkv": "audio/x-matroska",
    "mka": "audio/x-matroska", "x-aac": "audio/x-aac", "m4a": "audio/m4a", "mpeg": "audio/mpeg",
    "mpga": "audio/mpga", "pcm": "audio/pcm", "webm": "audio/webm",
}
VIDEO_FORMATS = frozenset({"mkv", "mov", "mp4", "webm", "flv", "mpeg", "mpg", "wmv", "three_gp"})
"""Video formats (canonical form has no video part: a video block is kept as it came)."""

# The exception events of ConverseStream, and the ones worth retrying as they are.
STREAM_ERRORS = frozenset({"internalServerException", "modelStreamErrorException",
                           "validationException", "throttlingException",
                           "serviceUnavailableException"})
# A model stream error says "retry your request" (the model failed mid-answer, often overloaded).
RETRYABLE_ERRORS = frozenset({"internalServerException", "throttlingException",
                              "serviceUnavailableException", "modelStreamErrorException",
                              "ThrottlingException",
                              "InternalServerException", "ServiceUnavailableException",
                              "ModelNotReadyException"})

WireBlock = dict[str, Any]
"""A content block: a union with exactly one member key (``text``, ``image``, ``toolUse``...)."""


class WireMessage(TypedDict):
    """One entry of ``messages``."""

    role: Literal["user", "assistant"]
    content: list[WireBlock]


class WireRequest(TypedDict, total=False):
    """The keyword arguments of ``client.converse`` (the fields partwire builds; others pass)."""

    modelId: Required[str]
    messages: Required[list[WireMessage]]
    system: list[WireBlock]
    inferenceConfig: dict[str, Any]
    toolConfig: dict[str, Any]


class WireResponse(TypedDict, total=False):
    """A Converse response body."""

    output: Required[dict[str, Any]]
    stopReason: Required[str]
    usage: Required[dict[str, Any]]
    metrics: Required[dict[str, Any]]
    additionalModelResponseFields: Any
    trace: dict[str, Any]


def blob_text(value: Any) -> str:
    """A binary field as base64 text: the HTTP body has it so, boto3 gives ``bytes``."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, str):
        return value
    raise TypeError(f"a binary field is {type(value).__name__}, not bytes or base64 text")


def blob_out(text: str, blobs: Blobs) -> bytes | str:
    """Base64 text as the request wants it: decoded for boto3, as it is for a JSON body."""
    return base64.b64decode(text) if blobs == "bytes" else text


def usage_from_wire(raw: Mapping[str, Any]) -> Usage:
    """Normalised usage: Converse's ``inputTokens`` excludes both cache buckets (``totalTokens``
    is input + output + cache read + cache write); canonical input includes them. Converse
    reports no reasoning count. The raw object goes to provider_data."""
    cache_read = token_count(raw, "cacheReadInputTokens")
    cache_write = token_count(raw, "cacheWriteInputTokens")
    return Usage(
        input_tokens=token_count(raw, "inputTokens") + cache_read + cache_write,
        output_tokens=token_count(raw, "outputTokens"),
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        provider_data=ProviderData(issuer=ISSUER, data=dict(raw)),
    )
