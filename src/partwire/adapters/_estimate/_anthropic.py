"""Anthropic Messages request bodies, counted the way Claude counts them."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from partwire.adapters._estimate._guess import guess_pages, note_server_tool
from partwire.adapters._estimate._media import (
    anthropic_image_tokens,
    image_tokens,
    pdf_info_b64,
    pdf_text_tokens,
)
from partwire.adapters._estimate._text import Tally, model_name, obj

__all__ = [
    "estimate_anthropic_body",
]


# Claude's tokenizer makes about this many tokens per o200k token (fitted).
_CLAUDE_RATIO = 1.12
_A_REQUEST = 7  # "\n\nHuman: ... \n\nAssistant:" framing of the first turn
_A_MESSAGE = 3  # each further turn
_A_SYSTEM = 3
# The tool-use system prompt: Anthropic publishes 346 tokens (tool_choice auto or none) and 313
# (any or a named tool) for Claude 4.0/4.1; the 4.5 generation measures larger (fitted).
# Each definition then adds its own rendering.
_A_TOOLS_AUTO = 346
_A_TOOLS_ANY = 313
_A_TOOLS_AUTO_45 = 550
_A_TOOLS_ANY_45 = 630
# Claude 3 (published in the same table): (auto or none, any or tool).
_A_TOOLS_CLAUDE_3 = {"opus": (530, 281), "sonnet": (159, 235), "haiku": (264, 340)}
_CLAUDE_3 = re.compile(r"claude-3-(opus|sonnet|haiku)")
_A_THINKING = 28  # the extended-thinking instructions, when thinking is on
_A_TOOL_EACH = 6
_A_TOOL_USE = 10
_A_TOOL_RESULT = 6
_A_SERVER_TOOL = 250  # a server tool's definition (web search: about 250 tokens)
# A PDF page is shown as its extracted text plus an image of the page (Anthropic's PDF support
# page); the image of a page measured about 1,550 tokens on the corpus's one-page PDF, and the
# text layer is counted from the PDF's own content streams.
_A_PDF_PAGE = 1550
# A PDF by URL or file id: published, 1,500 to 3,000 tokens a page, at most 100 pages a request
# (600 with a 1M-token context): the bounds of one whose pages are not known.
_A_PDF_PAGE_LOW = 1500
_A_PDF_PAGE_HIGH = 3000
_A_PDF_PAGES = 100
_IMAGE_RULE = ("anthropic",)
_A_STRUCTURED = 95  # structured-output instructions around the schema, shown indented


def estimate_anthropic_body(body: Mapping[str, Any]) -> int:
    """Estimated input tokens of a Messages API request body, as Claude would count them."""
    tally = Tally(_A_REQUEST)
    system = body.get("system")
    if system:
        tally.fixed += _A_SYSTEM
        _anthropic_content(system, tally)
    messages = body.get("messages")
    messages = messages if isinstance(messages, list) else []
    # The API strips the thinking of finished turns; only an assistant turn whose tool results
    # are being sent back (the last two messages) keeps it.
    live_turn = len(messages) - 2 if _ends_in_tool_result(messages) else -1
    # After a compaction block the API ignores everything before it: the summary stands for it.
    # Counting goes on in one pass; a compaction block takes the tally back to this point.
    start = (tally.text, tally.fixed)
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            tally.add_text(message)
            continue
        tally.fixed += _A_MESSAGE if index else 0
        content = message.get("content")
        keep = index == live_turn
        if not isinstance(content, list):
            _anthropic_content(content, tally, keep_thinking=keep)
            continue
        for block in content:
            if type(block) is dict and block.get("type") == "compaction" \
                    and block.get("content") is not None:
                tally.text, tally.fixed = start
            _anthropic_block(block, tally, keep)
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive"):
        tally.fixed += _A_THINKING
    tools = body.get("tools")
    if isinstance(tools, list) and tools:
        choice = body.get("tool_choice")
        forced = (choice.get("type") if isinstance(choice, dict) else None) in ("any", "tool")
        tally.fixed += claude_tool_prompt(model_name(body), forced=forced)
        for index, tool in enumerate(tools):
            if not isinstance(tool, dict):
                continue
            if tool.get("type") not in (None, "custom"):
                tally.fixed += _A_SERVER_TOOL
                note_server_tool(index, str(tool.get("type")), _A_SERVER_TOOL)
                continue
            tally.fixed += _A_TOOL_EACH
            tally.add_text({k: tool.get(k) for k in ("name", "description", "input_schema")})
    for key in ("output_format", "output_config"):
        value = body.get(key)
        schema = value.get("schema") if isinstance(value, dict) else None
        if key == "output_config" and isinstance(value, dict):
            fmt = value.get("format")
            schema = fmt.get("schema") if isinstance(fmt, dict) else None
        if schema is not None:
            tally.fixed += _A_STRUCTURED
            tally.add_text(json.dumps(schema, ensure_ascii=False, indent=2))
    return tally.total(_CLAUDE_RATIO)


_CLAUDE_VERSION = re.compile(r"claude-(?:(?:opus|sonnet|haiku)-)?(\d+)(?:[-.](\d)(?!\d))?")


def claude_tool_prompt(model: str, *, forced: bool) -> int:
    """The tokens of Claude's tool-use system prompt for ``model`` (an API or Bedrock id)."""
    claude_3 = _CLAUDE_3.search(model)
    if claude_3:
        auto, any_tool = _A_TOOLS_CLAUDE_3[claude_3.group(1)]
    elif _claude_generation(model) >= (4, 5):
        auto, any_tool = _A_TOOLS_AUTO_45, _A_TOOLS_ANY_45
    else:
        auto, any_tool = _A_TOOLS_AUTO, _A_TOOLS_ANY
    return any_tool if forced else auto


def _claude_generation(model: str) -> tuple[int, int]:
    """``(major, minor)`` of a Claude model id; (4, 5) for an unknown or placeholder id."""
    match = _CLAUDE_VERSION.search(model)
    if not match:
        return (4, 5)
    return int(match.group(1)), int(match.group(2) or 0)


def source_key(source: Mapping[str, Any]) -> str | None:
    """The URL or file id a media source names (what a hint is keyed by), if any."""
    for key in ("url", "file_id"):
        value = source.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _ends_in_tool_result(messages: list[Any]) -> bool:
    last = messages[-1] if messages else None
    content = last.get("content") if isinstance(last, dict) else None
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def _anthropic_content(content: Any, tally: Tally, *, keep_thinking: bool = True) -> None:
    if isinstance(content, str):
        tally.add_text(content)
        return
    for block in content if isinstance(content, list) else (content,):
        _anthropic_block(block, tally, keep_thinking)


def _anthropic_block(block: Any, tally: Tally, keep_thinking: bool) -> None:
    if not isinstance(block, dict):
        tally.add_text(block)
        return
    kind = block.get("type")
    if kind == "text":
        tally.add_text(block.get("text"))
    elif kind == "image":
        source = obj(block.get("source"))
        data = source.get("data") if source.get("type") == "base64" else None
        tally.fixed += image_tokens(data, source_key(source), anthropic_image_tokens, _IMAGE_RULE)
    elif kind == "document":
        source = obj(block.get("source"))
        if source.get("type") == "text":
            tally.add_text(source.get("data"))
        elif source.get("type") == "content":
            _anthropic_content(source.get("content"), tally)
        else:
            data = source.get("data") if source.get("type") == "base64" else None
            if data is None:
                # A PDF by URL or file id: its bytes are not in the body; one page, no text.
                tally.fixed += guess_pages(source_key(source), _A_PDF_PAGE, _A_PDF_PAGE_LOW,
                                           _A_PDF_PAGE_HIGH, _A_PDF_PAGES)
            else:
                pages, chars = pdf_info_b64(data)
                tally.fixed += _A_PDF_PAGE * pages
                tally.text += pdf_text_tokens(chars)
        tally.add_text(block.get("title"))
        tally.add_text(block.get("context"))
    elif kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
        tally.fixed += _A_TOOL_USE
        tally.add_text(block.get("name"))
        tally.add_text(block.get("input"))
    elif kind == "tool_result":
        tally.fixed += _A_TOOL_RESULT
        _anthropic_content(block.get("content"), tally)
    elif kind == "thinking":
        if keep_thinking:
            tally.add_text(block.get("thinking"))
    elif kind == "compaction":
        tally.add_text(block.get("content"))
    elif kind == "redacted_thinking":
        pass  # encrypted; what it stands for is not countable, and old turns are stripped anyway
    elif isinstance(kind, str) and kind.endswith("_tool_result"):
        tally.fixed += _A_TOOL_RESULT
        content = block.get("content")
        # Search results arrive encrypted; their titles and URLs are what can be counted.
        if isinstance(content, list):
            for item in content:
                if isinstance(item, dict):
                    tally.add_text(item.get("title"))
                    tally.add_text(item.get("url"))
        else:
            tally.add_text(content)
    else:
        tally.add_text({k: v for k, v in block.items() if k != "cache_control"})
