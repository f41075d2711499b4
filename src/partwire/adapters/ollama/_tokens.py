"""An offline estimate of an Ollama chat request's input tokens (docs/accounting.md).

Ollama serves many model families, each with its own vocabulary and chat template, and
publishes neither in a form partwire could use offline. The body is counted as the Chat
Completions body that says the same (``o200k_base`` text counts, OpenAI's framing, images by
their size): a figure of the right order, not the model's own count.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from partwire._json import json_text
from partwire.adapters._estimate import estimate_openai_chat_body

__all__ = ["estimate_request_tokens"]


def estimate_request_tokens(request: Mapping[str, Any]) -> int:
    """Estimated input tokens of an Ollama ``/api/chat`` body."""
    messages = request.get("messages")
    chat: dict[str, Any] = {k: v for k, v in request.items()
                            if k in ("model", "tools") and v}
    chat["messages"] = [_message(m) for m in messages if isinstance(m, Mapping)] \
        if isinstance(messages, list) else []
    return estimate_openai_chat_body(chat)


def _message(message: Mapping[str, Any]) -> dict[str, Any]:
    """One wire message as the Chat Completions message holding the same text and images."""
    text = "".join(message[k] for k in ("thinking", "content") if isinstance(message.get(k), str))
    images = message.get("images")
    role = message.get("role")
    out: dict[str, Any] = {"role": role if role in ("system", "user", "assistant") else "user"}
    if isinstance(images, list) and images:
        out["content"] = [{"type": "text", "text": text}, *(
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{image}"}}
            for image in images if isinstance(image, str))]
    else:
        out["content"] = text
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        out["content"] += "".join(json_text(c) for c in calls) if isinstance(out["content"], str) else ""
    return out
