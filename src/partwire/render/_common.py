"""What every rendering shares: the history's title, and how an event's time is written."""

from __future__ import annotations

from collections.abc import Sequence

from partwire.history import HistoryEvent, TaskMetadataEvent

__all__ = ["session_title", "stamp"]


def session_title(events: Sequence[HistoryEvent]) -> str | None:
    """The first task title the history holds."""
    return next((e.title for e in events if isinstance(e, TaskMetadataEvent) and e.title), None)


def stamp(event: HistoryEvent) -> str:
    """When ``event`` happened, to the second, UTC written as ``Z``."""
    return event.created_at.isoformat(sep=" ", timespec="seconds").replace("+00:00", "Z")
