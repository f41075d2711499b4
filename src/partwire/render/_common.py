"""What every rendering shares: the history's title, and the facts each writes the same way (an
event's time, an error's facts, a compaction's scope, a tool's duration, who signed a thought)."""

from __future__ import annotations

from collections.abc import Sequence

from partwire import history as _history
from partwire.messages import AssistantMessage, ToolMessage
from partwire.parts import Base64Source, ThinkingPart

__all__ = [
    "byte_size",
    "compaction_scope",
    "error_facts",
    "inline_size",
    "retry_delay",
    "served_via",
    "session_title",
    "shown_status",
    "signer",
    "stamp",
    "token_change",
    "tool_duration",
]


def session_title(events: Sequence[_history.HistoryEvent]) -> str | None:
    """The first task title the history holds."""
    return next((e.title for e in events if isinstance(e, _history.TaskMetadataEvent) and e.title), None)


def stamp(event: _history.HistoryEvent) -> str:
    """When ``event`` happened, to the second, UTC written as ``Z``."""
    return event.created_at.isoformat(sep=" ", timespec="seconds").replace("+00:00", "Z")


# The facts below read the same in every rendering; each renderer only wraps them in its markup.


def error_facts(event: _history.ErrorEvent) -> str:
    """Who failed, its HTTP status and whether a retry may help: ``anthropic, HTTP 529, retryable``."""
    facts = [event.provider, f"HTTP {event.status}" if event.status else None,
             "retryable" if event.retryable else "not retryable"]
    return ", ".join(x for x in facts if x)


def retry_delay(event: _history.RetryEvent) -> str:
    """`` after 2,000 ms``, or nothing when the retry names no delay."""
    return f" after {event.delay_ms:,} ms" if event.delay_ms is not None else ""


def compaction_scope(event: _history.CompactionEvent) -> str:
    """Which messages a compaction summarised, in a few words."""
    if event.replaced_ids is not None:
        return f"{len(event.replaced_ids)} messages"
    if event.replaced_count is not None:
        return f"the {event.replaced_count} messages before it"
    return "earlier messages"


def token_change(event: _history.CompactionEvent, arrow: str) -> str:
    """``, 90,000 -> 4,000 tokens`` with ``arrow``, or nothing when either count is unknown."""
    if event.tokens_before is None or event.tokens_after is None:
        return ""
    return f", {event.tokens_before:,} {arrow} {event.tokens_after:,} tokens"


def tool_duration(tool: ToolMessage) -> str | None:
    """How long the tool ran (``1.5 s``), when both ends are known."""
    if not (tool.started_at and tool.finished_at):
        return None
    return f"{(tool.finished_at - tool.started_at).total_seconds():,.1f} s"


def served_via(message: AssistantMessage) -> str | None:
    """The provider that served the message, when its model id does not already say so."""
    if message.provider and not (message.model or "").startswith(f"{message.provider}:"):
        return message.provider
    return None


def shown_status(message: AssistantMessage) -> str | None:
    """The message's status, unless it is ``complete`` or repeats its stop reason."""
    return None if message.status in ("complete", message.stop_reason) else message.status


def signer(part: ThinkingPart) -> str:
    """``signed by <issuer>`` or ``unsigned``."""
    return f"signed by {part.signature.issuer}" if part.signature else "unsigned"


def inline_size(source: Base64Source) -> str:
    """The decoded size of inline base64 data, in bytes or KiB."""
    return byte_size(len(source.data) * 3 // 4 - source.data[-2:].count("="))


def byte_size(size: int) -> str:
    """``1,234 bytes``, or ``12.1 KiB`` from 10,000 bytes on."""
    return f"{size:,} bytes" if size < 10_000 else f"{size / 1024:,.1f} KiB"
