"""An offline estimate of a Converse request's input tokens (docs/accounting.md).

Converse fronts many model families; the body is counted once, text through the shared
tokenizer, with the ratio of the family the model id names (Claude's for ``anthropic.*``,
otherwise the tokenizer's own count) and the per-message framing Claude's count shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from partwire.adapters._estimate._media import anthropic_image_tokens, image_dims, pdf_pages_b64
from partwire.adapters._estimate._text import Tally, obj, seq
from partwire.adapters.bedrock._wire import blob_text

__all__ = ["estimate_request_tokens"]

_CLAUDE_RATIO = 1.12  # as the Anthropic estimate: Claude tokens per o200k token
_OTHER_RATIO = 1.0
_REQUEST = 7
_MESSAGE = 3
_TOOLS = 346  # Claude's tool-use system prompt; other families render tools more briefly
_TOOL_EACH = 6
_TOOL_USE = 10
_TOOL_RESULT = 6
_PDF_PAGE = 1550


def estimate_request_tokens(body: Mapping[str, Any]) -> int:
    """Estimated input tokens of a Converse request body (``client.converse`` kwargs or JSON)."""
    model = str(body.get("modelId") or "").lower()
    claude = "anthropic." in model or "claude" in model
    tally = Tally(_REQUEST)
    for block in seq(body.get("system")):
        _block(block, tally)
    for index, message in enumerate(seq(body.get("messages"))):
        tally.fixed += _MESSAGE if index else 0
        for block in seq(obj(message).get("content")):
            _block(block, tally)
    tools = seq(obj(body.get("toolConfig")).get("tools"))
    if tools:
        tally.fixed += _TOOLS if claude else _TOOLS // 4
        for tool in tools:
            spec = obj(obj(tool).get("toolSpec"))
            if spec:
                tally.fixed += _TOOL_EACH
                tally.add_text({"name": spec.get("name"), "description": spec.get("description"),
                                "input_schema": obj(spec.get("inputSchema")).get("json")})
    return tally.total(_CLAUDE_RATIO if claude else _OTHER_RATIO)


def _block(block: Any, tally: Tally) -> None:
    if not isinstance(block, dict):
        return
    for kind, member in block.items():
        if kind == "text":
            tally.add_text(member)
        elif kind in ("image", "document"):
            source = obj(obj(member).get("source"))
            data = source.get("bytes")
            text = blob_text(data) if isinstance(data, bytes | bytearray | str) else None
            if kind == "image":
                tally.fixed += anthropic_image_tokens(*image_dims(text))
            elif "text" in source:
                tally.add_text(source["text"])
            else:
                tally.fixed += _PDF_PAGE * pdf_pages_b64(text)
        elif kind == "toolUse":
            tally.fixed += _TOOL_USE
            tally.add_text(obj(member).get("name"))
            tally.add_text(obj(member).get("input"))
        elif kind == "toolResult":
            tally.fixed += _TOOL_RESULT
            for item in seq(obj(member).get("content")):
                if isinstance(item, dict):
                    if "text" in item:
                        tally.add_text(item["text"])
                    elif "json" in item:
                        tally.add_text(item["json"])
                    else:
                        _block(item, tally)
        elif kind == "reasoningContent":
            tally.add_text(obj(obj(member).get("reasoningText")).get("text"))
        elif kind == "guardContent":
            tally.add_text(obj(obj(member).get("text")).get("text"))
        elif kind == "citationsContent":
            for item in seq(obj(member).get("content")):
                tally.add_text(obj(item).get("text"))
        # cachePoint and unknown members carry no tokens of their own
