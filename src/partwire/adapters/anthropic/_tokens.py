"""An offline estimate of a request's input tokens (no tokenizer, no network)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["estimate_request_tokens"]

# Rough figures, documented in docs/adapters/anthropic.md: text and JSON average about four
# characters per token; an image costs about width*height/750 tokens, at most ~1,600 once the
# API downsizes it; a PDF page costs 1,500-3,000 tokens (text plus the page image).
_CHARS_PER_TOKEN = 4
_IMAGE_TOKENS = 1600
_PDF_PAGE_TOKENS = 1500
_PDF_BYTES_PER_PAGE = 60_000
_MESSAGE_OVERHEAD = 4
# The API adds a tool-use system prompt of a few hundred tokens when tools are offered.
_TOOLS_OVERHEAD = 350


def estimate_request_tokens(request: dict[str, Any]) -> int:
    """Estimated input tokens of a Messages request body."""
    chars = 0
    fixed = 0
    system = request.get("system")
    if isinstance(system, str):
        chars += len(system)
    elif isinstance(system, list):
        for block in system:
            chars, fixed = _block(block, chars, fixed)
    for message in request.get("messages", ()):
        fixed += _MESSAGE_OVERHEAD
        content = message.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):
            for block in content:
                chars, fixed = _block(block, chars, fixed)
    tools = request.get("tools")
    if tools:
        fixed += _TOOLS_OVERHEAD
        chars += len(json.dumps(tools, ensure_ascii=False))
    return fixed + -(-chars // _CHARS_PER_TOKEN)


def _block(block: Any, chars: int, fixed: int) -> tuple[int, int]:
    if not isinstance(block, dict):
        return chars + len(json.dumps(block, ensure_ascii=False)), fixed
    kind = block.get("type")
    if kind == "text":
        return chars + len(block.get("text", "")), fixed
    if kind == "image":
        return chars, fixed + _IMAGE_TOKENS
    if kind == "document":
        source = block.get("source") or {}
        if source.get("type") == "text":
            return chars + len(source.get("data", "")), fixed
        size = len(source.get("data", "")) * 3 // 4 if source.get("type") == "base64" else 0
        pages = max(1, -(-size // _PDF_BYTES_PER_PAGE))
        return chars, fixed + pages * _PDF_PAGE_TOKENS
    if kind == "tool_result":
        content = block.get("content")
        if isinstance(content, str):
            return chars + len(content), fixed
        for inner in content or ():
            chars, fixed = _block(inner, chars, fixed)
        return chars, fixed
    if kind == "tool_use":
        return chars + len(block.get("name", "")) + len(json.dumps(block.get("input"),
                                                                    ensure_ascii=False)), fixed
    if kind == "thinking":
        return chars + len(block.get("thinking", "")), fixed
    # Other blocks (server tool results, redacted thinking): their JSON text, as a proxy.
    return chars + len(json.dumps(block, ensure_ascii=False)), fixed
