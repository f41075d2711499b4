"""An offline estimate of a Chat Completions request's input tokens (no tokenizer, no network)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["estimate_request_tokens"]

# Rough figures, documented in docs/adapters/openai_chat.md: text and JSON average about four
# characters per token; every message costs about 4 tokens of framing (OpenAI's cookbook counts
# 3 plus the role); an image costs 85 tokens at detail "low" and about 765 otherwise (a
# 1024x1024 image in 512-px tiles); a PDF page about 1,500; audio about 10 tokens a second.
_CHARS_PER_TOKEN = 4
_MESSAGE_OVERHEAD = 4
_IMAGE_TOKENS = 765
_IMAGE_LOW_TOKENS = 85
_PDF_PAGE_TOKENS = 1500
_PDF_BYTES_PER_PAGE = 60_000
_AUDIO_BYTES_PER_SECOND = 16_000
_AUDIO_TOKENS_PER_SECOND = 10
# Tool definitions are rendered into a system preamble: their JSON text plus some framing.
_TOOLS_OVERHEAD = 20


def estimate_request_tokens(request: dict[str, Any]) -> int:
    """Estimated input tokens of a Chat Completions request body."""
    chars = 0
    fixed = 3  # the reply is primed with a few tokens
    for message in request.get("messages", ()):
        fixed += _MESSAGE_OVERHEAD
        content = message.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):
            for part in content:
                chars, fixed = _part(part, chars, fixed)
        for call in message.get("tool_calls") or ():
            function = call.get("function") or call.get("custom") or {}
            chars += len(str(function.get("name", ""))) + len(
                str(function.get("arguments", function.get("input", ""))))
        for key in ("reasoning_content", "reasoning", "refusal"):
            value = message.get(key)
            if isinstance(value, str):
                chars += len(value)
    tools = request.get("tools")
    if tools:
        fixed += _TOOLS_OVERHEAD
        chars += len(json.dumps(tools, ensure_ascii=False))
    return fixed + -(-chars // _CHARS_PER_TOKEN)


def _part(part: Any, chars: int, fixed: int) -> tuple[int, int]:
    if not isinstance(part, dict):
        return chars + len(json.dumps(part, ensure_ascii=False)), fixed
    kind = part.get("type")
    if kind == "text":
        return chars + len(str(part.get("text", ""))), fixed
    if kind == "refusal":
        return chars + len(str(part.get("refusal", ""))), fixed
    if kind == "image_url":
        low = (part.get("image_url") or {}).get("detail") == "low"
        return chars, fixed + (_IMAGE_LOW_TOKENS if low else _IMAGE_TOKENS)
    if kind == "file":
        data = str((part.get("file") or {}).get("file_data", ""))
        pages = max(1, -(-(len(data) * 3 // 4) // _PDF_BYTES_PER_PAGE))
        return chars, fixed + pages * _PDF_PAGE_TOKENS
    if kind == "input_audio":
        size = len(str((part.get("input_audio") or {}).get("data", ""))) * 3 // 4
        seconds = max(1, size // _AUDIO_BYTES_PER_SECOND)
        return chars, fixed + seconds * _AUDIO_TOKENS_PER_SECOND
    return chars + len(json.dumps(part, ensure_ascii=False)), fixed
