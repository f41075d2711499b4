"""An offline estimate of a Converse request's input tokens (docs/accounting.md).

Converse fronts many model families; the body is counted once, text through the shared
tokenizer, with the ratio and framing of the family the model id names (Claude, Nova, Llama 3,
or the tokenizer's own count for the others). The corpus holds few Bedrock requests (28
distinct with usage, most of a few tokens): docs/accounting.md gives the measured error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from partwire.adapters._estimate import (
    Tally,
    anthropic_image_tokens,
    b64_bytes,
    b64_size,
    claude_tool_prompt,
    image_tokens,
    media_seconds_tokens,
    note_unknown,
    obj,
    pdf_info_b64,
    pdf_text_tokens,
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
# Mistral publishes its chat template (mistral-common): <s>, [INST] and [/INST] around each
# user turn, and the tools as one JSON list of OpenAI-style function objects between
# [AVAILABLE_TOOLS] and [/AVAILABLE_TOOLS]: no instructions beyond the definitions themselves.
# Nova's request framing was fitted on the fitted part of the corpus (a bare question is billed
# as its text alone); Amazon publishes no template for Nova or Titan. Titan's was fitted on its
# two recorded requests with a trustworthy body: two user questions of 7 tokens each billed 17
# (consecutive user turns are one prompt: no framing per message), a grounded question 28.
_FAMILIES = {"claude": (1.12, 7, 3, 0), "nova": (1.0, 0, 3, 393), "titan": (1.0, 3, 0, 86),
             "llama": (1.0, _LLAMA_FRAMING, _LLAMA_MESSAGE, 86), "mistral": (1.0, 3, 2, 2),
             "other": (1.0, 7, 3, 86)}
# Nova and Titan bill a number digit by digit, where o200k takes digits three at a time: "What
# is 4200 + 42?" is billed 12 on Nova Micro against o200k's 9, and a Nova Lite request holding
# "1234561666" twice is billed 12 more than o200k counts (measured on the recorded requests;
# Amazon publishes neither tokenizer). Each run of n digits adds n - ceil(n / 3) tokens.
_DIGIT_BY_DIGIT = frozenset({"nova", "titan"})
_DIGITS = re.compile(r"\d+")
# Values that are not text the model reads (media bytes, locations, ids of cache points).
_NOT_TEXT = frozenset({"bytes", "s3Location", "cachePoint", "toolUseId", "format"})
_TOOL_EACH = 6
_TOOL_USE = 10
_TOOL_RESULT = 6
# Documents. Converse reads a document's text and gives the model that ("Converse Document
# Chat"), for every family; only Claude with citations enabled on the document is shown each
# page as an image as well ("Claude PDF Chat"): Anthropic's PDF support page, Amazon Bedrock
# section (about 1,000 tokens for a 3-page PDF without citations, 7,000 with). A document
# block adds its name and format around the text (a few tokens).
_PDF_PAGE = 1550
_DOCUMENT = 6
_TEXT_FORMATS = frozenset({"txt", "md", "csv", "html"})
# Word and Excel files are zip or OLE containers whose text cannot be read without parsing them:
# counted as one token per 6 bytes (compressed text) and reported as a guess up to a token a byte.
_OFFICE_BYTES_PER_TOKEN = 6
# Video (Nova): no per-second rule was found published for Converse; a clip is counted at
# Gemini's published rate (a frame a second plus its audio) and always reported as a guess.
_VIDEO_SECOND = 263.0
_VIDEO_LIMIT = 3600.0
_IMAGE_RULE = ("anthropic",)


def estimate_request_tokens(body: Mapping[str, Any]) -> int:
    """Estimated input tokens of a Converse request body (``client.converse`` kwargs or JSON)."""
    model = str(body.get("modelId") or "").lower()
    family = "claude" if "anthropic." in model or "claude" in model else (
        "nova" if "amazon.nova" in model else "titan" if "amazon.titan" in model
        else "llama" if "meta.llama3" in model else "mistral" if "mistral." in model else "other")
    ratio, framing, per_message, tool_prompt = _FAMILIES[family]
    tally = Tally(framing)
    visual = family == "claude"
    if family == "llama":
        dated = any(name in model for name in _LLAMA_DATED)
        if dated or seq(body.get("system")):
            tally.fixed += _LLAMA_MESSAGE + (_LLAMA_DATES if dated else 0)
    for block in seq(body.get("system")):
        _block(block, tally, visual)
    for index, message in enumerate(seq(body.get("messages"))):
        tally.fixed += per_message if index else 0
        for block in seq(obj(message).get("content")):
            _block(block, tally, visual)
    tools = seq(obj(body.get("toolConfig")).get("tools"))
    if tools:
        if family == "claude":
            choice = obj(obj(body.get("toolConfig")).get("toolChoice"))
            tool_prompt = claude_tool_prompt(model, forced="any" in choice or "tool" in choice)
        tally.fixed += tool_prompt
        specs = [spec for tool in tools if (spec := obj(obj(tool).get("toolSpec")))]
        if family == "mistral":
            tally.add_text([{"type": "function", "function": {
                "name": spec.get("name"), "description": spec.get("description"),
                "parameters": obj(spec.get("inputSchema")).get("json")}} for spec in specs])
        else:
            for spec in specs:
                tally.fixed += _TOOL_EACH
                tally.add_text({"name": spec.get("name"), "description": spec.get("description"),
                                "input_schema": obj(spec.get("inputSchema")).get("json")})
    if family in _DIGIT_BY_DIGIT:
        tally.fixed += _digit_tokens((body.get("system"), body.get("messages"), tools))
    return tally.total(ratio)


def _digit_tokens(value: Any) -> int:
    """The tokens a digit-by-digit tokenizer adds over o200k for the numbers in ``value``'s text
    (strings, and numbers in JSON such as tool inputs)."""
    extra = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            for run in _DIGITS.findall(item):
                extra += len(run) - -(-len(run) // 3)
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int | float):
            stack.append(str(item))
        elif isinstance(item, dict):
            stack.extend(v for k, v in item.items() if k not in _NOT_TEXT)
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return extra


def _block(block: Any, tally: Tally, visual: bool) -> None:
    """One content block; ``visual``: a Claude model, which may see a PDF's pages."""
    if not isinstance(block, dict):
        return
    for kind, member in block.items():
        if kind == "text":
            tally.add_text(member)
        elif kind in ("image", "document", "video"):
            _media(kind, obj(member), tally, visual)
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
                        _block(item, tally, visual)
        elif kind == "reasoningContent":
            tally.add_text(obj(obj(member).get("reasoningText")).get("text"))
        elif kind == "guardContent":
            tally.add_text(obj(obj(member).get("text")).get("text"))
        elif kind == "citationsContent":
            for item in seq(obj(member).get("content")):
                tally.add_text(obj(item).get("text"))
        # cachePoint and unknown members carry no tokens of their own


def _media(kind: str, member: Mapping[str, Any], tally: Tally, visual: bool) -> None:
    source = obj(member.get("source"))
    data = source.get("bytes")
    payload = blob_text(data) if isinstance(data, bytes | bytearray | str) and data else None
    s3 = obj(source.get("s3Location")).get("uri")
    key = s3 if isinstance(s3, str) else None
    if kind == "image":
        tally.fixed += image_tokens(payload, key, anthropic_image_tokens, _IMAGE_RULE)
    elif kind == "video":
        tokens = media_seconds_tokens(payload, key, video=True, per_second=_VIDEO_SECOND,
                                      limit=_VIDEO_LIMIT)
        if payload is not None:
            note_unknown(payload, "video", tokens, 0, _VIDEO_SECOND * _VIDEO_LIMIT,
                         "Gemini's rate of 263 tokens a second (Converse publishes none)")
        tally.fixed += tokens
    else:
        _document(member, source, payload, key, tally, visual)


def _document(member: Mapping[str, Any], source: Mapping[str, Any], payload: str | None,
              key: str | None, tally: Tally, visual: bool) -> None:
    tally.fixed += _DOCUMENT
    tally.add_text(member.get("name"))
    fmt = str(member.get("format") or "").lower()
    if "text" in source:
        tally.add_text(source["text"])
    elif isinstance(source.get("content"), list):
        for item in source["content"]:
            tally.add_text(obj(item).get("text"))
    elif payload is None:
        # By S3 location: nothing of it is in the request.
        note_unknown(key, "document", 0, 0, 100 * (_PDF_PAGE + 1000),
                     "nothing (a document by S3 location: its text is not in the request)")
    elif fmt in _TEXT_FORMATS:
        tally.add_text(b64_bytes(payload).decode("utf-8", "replace"))
    elif fmt == "pdf" or (not fmt and payload.startswith("JVBER")):
        pages, chars = pdf_info_b64(payload)
        tally.text += pdf_text_tokens(chars)
        cited = obj(member.get("citations")).get("enabled") is True
        if visual and cited:
            tally.fixed += _PDF_PAGE * pages
    else:
        size = b64_size(payload)
        tokens = size / _OFFICE_BYTES_PER_TOKEN
        note_unknown(payload, "document", tokens, 0, size,
                     f"{fmt or 'a'} file of {size:,} bytes at {_OFFICE_BYTES_PER_TOKEN} bytes a token")
        tally.fixed += tokens
