"""Prompt-cache markers: Anthropic's ``cache_control`` breakpoints, placed on a copy of the body.

Anthropic caches the prefix up to each block marked ``cache_control`` (tools, then system, then
messages), at most four marks a request. The automatic placement marks the end of the system
prompt (or the last tool when there is no system prompt), the last message of the previous
request (so its cache entry is read) and the last message of this one (so the next request reads
it). Thinking blocks cannot be marked; the last other block of a message is. The kept wire
messages are never written on: a marked message is a copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from partwire.session._projector import count_marks

__all__ = ["MAX_BREAKPOINTS", "mark_anthropic"]

MAX_BREAKPOINTS = 4
"""Anthropic's limit of ``cache_control`` blocks in one request."""

_EPHEMERAL = {"type": "ephemeral"}
_UNMARKABLE = frozenset({"thinking", "redacted_thinking"})


def _marked_content(content: Any) -> Any | None:
    """``content`` (a string or a list of blocks) with its last markable block marked, or None."""
    if isinstance(content, str):
        if not content:
            return None
        return [{"type": "text", "text": content, "cache_control": dict(_EPHEMERAL)}]
    if not isinstance(content, list):
        return None
    for k in range(len(content) - 1, -1, -1):
        block = content[k]
        if isinstance(block, dict) and block.get("type") not in _UNMARKABLE:
            if block.get("type") == "text" and not block.get("text"):
                continue
            copy = list(content)
            copy[k] = {**block, "cache_control": dict(_EPHEMERAL)}
            return copy
    return None


def mark_anthropic(request: dict[str, Any], message_indexes: Sequence[int], *,
                   prefix: bool = True, in_messages: int = 0) -> tuple[dict[str, Any], list[int]]:
    """A copy of ``request`` with breakpoints: the system prompt or tools (``prefix``), then the
    wire messages at ``message_indexes`` (negative counts from the end), the latest first, up to
    the limit less the marks already there (``in_messages``: those in the messages, which the
    caller counts). Returns the body and the message indexes actually marked."""
    body = dict(request)
    existing = _existing(body)
    budget = MAX_BREAKPOINTS - existing - in_messages
    if prefix and budget > 0 and not existing:  # a mark of the caller's own covers the prefix
        system = body.get("system")
        marked = _marked_content(system) if system else None
        if marked is not None:
            body["system"] = marked
            budget -= 1
        elif isinstance(body.get("tools"), list) and body["tools"]:
            tools = list(body["tools"])
            last = tools[-1]
            if isinstance(last, dict) and "cache_control" not in last:
                tools[-1] = {**last, "cache_control": dict(_EPHEMERAL)}
                body["tools"] = tools
                budget -= 1
    messages = body.get("messages")
    done: list[int] = []
    if not isinstance(messages, list) or budget <= 0:
        return body, done
    n = len(messages)
    wanted = sorted({i % n for i in message_indexes if -n <= i < n}, reverse=True)
    copy = list(messages)
    for i in wanted:
        if budget <= 0:
            break
        # A message with nothing markable (only thinking): the one before it takes the mark.
        k = i
        while k >= 0 and k not in done:
            message = copy[k]
            content = _marked_content(message.get("content")) if isinstance(message, dict) else None
            if content is not None:
                copy[k] = {**message, "content": content}
                done.append(k)
                budget -= 1
                break
            k -= 1
    body["messages"] = copy
    return body, sorted(done)


def _existing(body: dict[str, Any]) -> int:
    """Marks the caller put on the system prompt or tools."""
    return count_marks(body.get("system")) + count_marks(body.get("tools"))
