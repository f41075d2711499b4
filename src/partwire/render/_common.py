"""What the HTML and Markdown transcripts share: which tool result goes under which call."""

from __future__ import annotations

from collections.abc import Sequence

from partwire.history import HistoryEvent, TaskMetadataEvent
from partwire.messages import AssistantMessage, ToolMessage
from partwire.parts import ToolCallPart

__all__ = ["session_title", "tool_results"]


def tool_results(events: Sequence[HistoryEvent]) -> dict[str, int]:
    """Call id -> index of the first tool message answering a call made earlier in ``events``
    (a transcript shows it under its call; any other tool message stands where it is)."""
    calls: set[str] = set()
    found: dict[str, int] = {}
    for i, event in enumerate(events):
        if isinstance(event, AssistantMessage):
            calls.update(p.id for p in event.parts if isinstance(p, ToolCallPart))
        elif isinstance(event, ToolMessage) and event.call_id in calls and event.call_id not in found:
            found[event.call_id] = i
    return found


def session_title(events: Sequence[HistoryEvent]) -> str | None:
    """The first task title the history holds."""
    return next((e.title for e in events if isinstance(e, TaskMetadataEvent) and e.title), None)
