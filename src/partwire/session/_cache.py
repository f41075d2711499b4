"""Prompt-cache markers, placed on a copy of the body: Anthropic's ``cache_control`` breakpoints
and Bedrock Converse's ``cachePoint`` blocks.

Both cache the prefix up to each marker (tools, then system, then messages), at most four
markers a request. The automatic placement is the same for both: the end of the system prompt
(or the last tool when there is no system prompt), the last message of the previous request (so
its cache entry is read) and the last message of this one (so the next request reads it).
Anthropic marks a block; thinking blocks cannot be marked, so the last other block of a message
is. Converse adds a ``cachePoint`` block after the content to cache, and refuses one right after
a reasoning block or first in a message: a message that ends in reasoning passes its point to
the message before it. The kept wire messages are never written on: a marked message is a copy.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from partwire.model_ids import bedrock_family
from partwire.session._projector import count_marks

__all__ = ["MAX_BREAKPOINTS", "caches_on_bedrock", "mark_anthropic", "mark_bedrock"]

MAX_BREAKPOINTS = 4
"""The limit of markers in one request: Anthropic's ``cache_control`` blocks, and Converse's
``cachePoint`` blocks (its cache checkpoints)."""

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
                   prefix: bool = True, in_messages: int = 0,
                   replaced: dict[int, Any] | None = None) -> tuple[dict[str, Any], list[int]]:
    """A copy of ``request`` with breakpoints: the system prompt or tools (``prefix``), then the
    wire messages at ``message_indexes`` (negative counts from the end), the latest first, up to
    the limit less the marks already there (``in_messages``: those in the messages, which the
    caller counts). Returns the body and the message indexes actually marked. With ``replaced``,
    the messages list is marked in place (no copy) and each message it replaces is put there
    under its index, for the caller to put back."""
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
    # A message with nothing markable (only thinking): the one before it takes the mark.
    return _mark_messages(body, message_indexes, budget, replaced, _marked_content)


def _existing(body: dict[str, Any]) -> int:
    """Marks the caller put on the system prompt or tools."""
    return count_marks(body.get("system")) + count_marks(body.get("tools"))


# -- Bedrock Converse ---------------------------------------------------------------------------

# Claude models on Bedrock without prompt caching: Converse refuses a request with a cache point
# for them ("You invoked an unsupported model or your request did not allow prompt caching").
_UNCACHED_CLAUDE = re.compile(r"claude-(?:v2|instant|3-(?:opus|sonnet|haiku)|3-5-sonnet-20240620)")
# After these blocks Converse refuses a cache point (reasoning), or one is there already.
_NO_POINT_AFTER = ("reasoningContent", "cachePoint")


def caches_on_bedrock(model_id: str) -> tuple[bool, bool]:
    """Whether the Bedrock model takes cache points at all, and in ``toolConfig.tools``: Claude
    (from 3.5 Haiku and 3.7 Sonnet on) in system, messages and tools, Nova in system and
    messages; any other model refuses them."""
    family = bedrock_family(model_id)
    if family == "claude":
        takes = not _UNCACHED_CLAUDE.search(model_id.lower())
        return takes, takes
    return family == "nova", False


def _point() -> dict[str, Any]:
    return {"cachePoint": {"type": "default"}}


def _ends_in(blocks: Any, key: str) -> bool:
    return isinstance(blocks, list) and bool(blocks) and isinstance(blocks[-1], dict) \
        and key in blocks[-1]


def mark_bedrock(request: dict[str, Any], message_indexes: Sequence[int], *,
                 prefix: bool = True, in_messages: int = 0, any_model: bool = False,
                 replaced: dict[int, Any] | None = None) -> tuple[dict[str, Any], list[int]]:
    """A copy of ``request`` (``client.converse`` arguments) with ``cachePoint`` blocks: after the
    system prompt or the tools (``prefix``), then after the wire messages at ``message_indexes``,
    the latest first, up to the limit less the points already there (``in_messages``: those in
    the messages, which the caller counts). Nothing for a model that refuses cache points, unless
    ``any_model`` (points asked for by hand). Returns the body and the message indexes marked.
    ``replaced``: as for :func:`mark_anthropic`."""
    body = dict(request)
    model = body.get("modelId")
    takes, in_tools = caches_on_bedrock(model) if isinstance(model, str) else (False, False)
    if not (takes or any_model):
        return body, []
    config = body.get("toolConfig")
    tools = config.get("tools") if isinstance(config, dict) else None
    existing = count_marks(body.get("system")) + count_marks(tools)
    budget = MAX_BREAKPOINTS - existing - in_messages
    if prefix and budget > 0 and not existing:  # a point of the caller's own covers the prefix
        system = body.get("system")
        if isinstance(system, list) and system:
            body["system"] = [*system, _point()]
            budget -= 1
        elif isinstance(tools, list) and tools and (in_tools or any_model):
            body["toolConfig"] = {**config, "tools": [*tools, _point()]}  # type: ignore[dict-item]
            budget -= 1
    # A message that ends in reasoning cannot take a point: the one before it does.
    return _mark_messages(body, message_indexes, budget, replaced, _pointed)


def _pointed(content: Any) -> Any:
    """``content`` with a ``cachePoint`` after it; :data:`_HAS_MARK` when it ends in one (marked
    already, and counted), ``None`` when it cannot take one (empty, or ends in reasoning)."""
    if _ends_in(content, "cachePoint"):
        return _HAS_MARK
    if isinstance(content, list) and content and not _ends_in(content, "reasoningContent"):
        return [*content, _point()]
    return None


# -- both ---------------------------------------------------------------------------------------

_HAS_MARK = object()  # what a marker returns for a message that carries a mark already


def _mark_messages(body: dict[str, Any], message_indexes: Sequence[int], budget: int,
                   replaced: dict[int, Any] | None,
                   mark: Callable[[Any], Any]) -> tuple[dict[str, Any], list[int]]:
    """``body`` with the wire messages at ``message_indexes`` marked (negative counts from the
    end), the latest first, while ``budget`` lasts, and the indexes marked. ``mark(content)`` is
    the content with its mark, ``None`` when the message cannot take one (the message before it
    is tried instead), or :data:`_HAS_MARK` when it has one (done, and not charged again).
    ``replaced``: as for :func:`mark_anthropic`."""
    messages = body.get("messages")
    done: list[int] = []
    if not isinstance(messages, list) or budget <= 0:
        return body, done
    n = len(messages)
    wanted = sorted({i % n for i in message_indexes if -n <= i < n}, reverse=True)
    copy = list(messages) if replaced is None else messages
    for i in wanted:
        if budget <= 0:
            break
        k = i
        while k >= 0 and k not in done:
            message = copy[k]
            content = mark(message.get("content")) if isinstance(message, dict) else None
            if content is _HAS_MARK:
                done.append(k)
                break
            if content is not None:
                if replaced is not None:
                    replaced.setdefault(k, message)
                copy[k] = {**message, "content": content}
                done.append(k)
                budget -= 1
                break
            k -= 1
    body["messages"] = copy
    return body, sorted(done)
