"""An offline estimate of a Converse request's input tokens (docs/accounting.md).

Converse fronts many model families; the body is counted once, text through the shared
tokenizer, with the ratio and framing of the family the model id names (Claude, Nova, Llama 3,
or the tokenizer's own count for the others). The corpus holds few Bedrock requests (28
distinct with usage, most of a few tokens): docs/accounting.md gives the measured error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from partwire.adapters._estimate import (
    Tally,
    anthropic_image_tokens,
    claude_tool_prompt,
    image_dims,
    obj,
    pdf_pages_b64,
    seq,
)
from partwire.adapters.bedrock._wire import blob_text

__all__ = ["estimate_request_tokens"]

# Per family: tokens per o200k token, the request's framing, each further message's, and the
# tool-use instructions rendered once when tools are given. Claude's ratio is the Anthropic
# estimate's and its tool prompt Anthropic's published one for the model (claude_tool_prompt);
# Nova's instructions were measured on the corpus's recorded Nova Micro requests with tools (about
# 390 tokens more than the definitions themselves).
# Llama 3 follows Meta's published chat template: <|begin_of_text|>, a header
# (<|start_header_id|>role<|end_header_id|> and a blank line: 4) and an <|eot_id|> for every
# message, the system prompt's included, and the assistant header the answer follows. From 3.1 on
# the system block is always there and opens with "Cutting Knowledge Date: December 2023" and
# "Today Date: ..." (about 17 tokens).
_LLAMA_FRAMING = 1 + 4 + 5
_LLAMA_MESSAGE = 5
_LLAMA_DATES = 17
_LLAMA_DATED = ("meta.llama3-1", "meta.llama3-2", "meta.llama3-3")
_FAMILIES = {"claude": (1.12, 7, 3, 0), "nova": (1.0, 3, 3, 390),
             "llama": (1.0, _LLAMA_FRAMING, _LLAMA_MESSAGE, 86), "other": (1.0, 7, 3, 86)}
_TOOL_EACH = 6
_TOOL_USE = 10
_TOOL_RESULT = 6
_PDF_PAGE = 1550


def estimate_request_tokens(body: Mapping[str, Any]) -> int:
    """Estimated input tokens of a Converse request body (``client.converse`` kwargs or JSON)."""
    model = str(body.get("modelId") or "").lower()
    family = "claude" if "anthropic." in model or "claude" in model else (
        "nova" if "amazon.nova" in model else "llama" if "meta.llama3" in model else "other")
    ratio, framing, per_message, tool_prompt = _FAMILIES[family]
    tally = Tally(framing)
    if family == "llama":
        dated = any(name in model for name in _LLAMA_DATED)
        if dated or seq(body.get("system")):
            tally.fixed += _LLAMA_MESSAGE + (_LLAMA_DATES if dated else 0)
    for block in seq(body.get("system")):
        _block(block, tally)
    for index, message in enumerate(seq(body.get("messages"))):
        tally.fixed += per_message if index else 0
        for block in seq(obj(message).get("content")):
            _block(block, tally)
    tools = seq(obj(body.get("toolConfig")).get("tools"))
    if tools:
        if family == "claude":
            choice = obj(obj(body.get("toolConfig")).get("toolChoice"))
            tool_prompt = claude_tool_prompt(model, forced="any" in choice or "tool" in choice)
        tally.fixed += tool_prompt
        for tool in tools:
            spec = obj(obj(tool).get("toolSpec"))
            if spec:
                tally.fixed += _TOOL_EACH
                tally.add_text({"name": spec.get("name"), "description": spec.get("description"),
                                "input_schema": obj(spec.get("inputSchema")).get("json")})
    return tally.total(ratio)


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
