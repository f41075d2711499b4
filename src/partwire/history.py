"""History events: every message, plus the non-message events replay needs (DESIGN §5).

A history is an ordered sequence of :data:`HistoryEvent`. Streaming deltas, tool-call-start
signals, interrupts and response metadata are never stored: replay derives them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal, TypeAlias

from pydantic import ConfigDict, Field, JsonValue, TypeAdapter

from partwire.messages import MESSAGE_CLASSES, Message, _EventBase

__all__ = [
    "CompactionEvent",
    "ErrorEvent",
    "History",
    "HistoryEvent",
    "ModelSwitchEvent",
    "RetryEvent",
    "SubtaskEvent",
    "TaskMetadataEvent",
    "UnknownEvent",
]


class NonMessageEvent(_EventBase):
    """The base of every history event that is not a message: a record for the application and
    for replay, never sent to a provider (an encoder skips them all with one class pattern)."""

    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    """Application data."""


class ErrorEvent(NonMessageEvent):
    """A failed model call or a failure outside any message."""

    type: Literal["error"] = "error"
    code: str | None = None
    """Machine-readable code (``overloaded_error``, ``rate_limit_exceeded``, ``429``)."""
    message: str
    """Human-readable description."""
    provider: str | None = None
    """The provider that failed, when one did."""
    retryable: bool = False
    """Whether the same call may succeed if retried."""
    status: int | None = None
    """HTTP status, when there was one."""


class TaskMetadataEvent(NonMessageEvent):
    """Facts about the task as a whole (title, working directory, totals), set by the app."""

    type: Literal["task_metadata"] = "task_metadata"
    task_id: str | None = None
    """The application's id for the task or session."""
    title: str | None = None
    """A title for the task."""
    data: JsonValue = None
    """Anything else the application records about the task."""


class CompactionEvent(NonMessageEvent):
    """Older messages were summarised; the next model call sees the summary instead of them."""

    type: Literal["compaction"] = "compaction"
    summary: str
    """The summary that replaces the compacted messages."""
    replaced_ids: tuple[str, ...] | None = None
    """Ids of the messages it replaces, when listed."""
    replaced_count: int | None = None
    """Otherwise: how many non-system messages right before this event it replaces."""
    tokens_before: int | None = None
    """Context size before compaction."""
    tokens_after: int | None = None
    """Context size after compaction."""


class RetryEvent(NonMessageEvent):
    """A model call is being retried."""

    type: Literal["retry"] = "retry"
    attempt: int
    """1-based number of the attempt about to be made."""
    reason: str
    """Why (the error that caused it)."""
    delay_ms: int | None = None
    """Wait before the attempt, in milliseconds."""


class ModelSwitchEvent(NonMessageEvent):
    """The session moved to another model."""

    type: Literal["model_switch"] = "model_switch"
    from_model: str | None = None
    """The previous model, ``provider:model``."""
    to_model: str
    """The new model, ``provider:model``."""
    reason: str | None = None
    """Why (``user /model command``, ``fallback after 529``)."""


class SubtaskEvent(NonMessageEvent):
    """Work handed to a child session (a sub-agent)."""

    type: Literal["subtask"] = "subtask"
    child_session_id: str
    """The child session's id."""
    agent: str | None = None
    """The agent that ran it."""
    prompt: str | None = None
    """What it was asked."""
    status: Literal["pending", "running", "success", "error", "aborted"] = "pending"
    """Where the subtask stands."""
    result: str | None = None
    """Its final answer, when done."""


class UnknownEvent(NonMessageEvent):
    """A line nobody here understood; kept whole, never dropped in silence."""

    type: Literal["unknown"] = "unknown"
    original_type: str | None = None
    """The ``type`` (or ``role``) the line claimed, when it had one."""
    raw: JsonValue = None
    """The line's JSON value; the line's text when it was not JSON."""
    problem: str | None = None
    """Why it was not understood."""


HistoryEvent: TypeAlias = Annotated[
    Message
    | ErrorEvent
    | TaskMetadataEvent
    | CompactionEvent
    | RetryEvent
    | ModelSwitchEvent
    | SubtaskEvent
    | UnknownEvent,
    Field(discriminator="type"),
]
"""Any history line: a message (``type="message"``, told apart by ``role``) or an event.

A pydantic type like any other: a field of an application's model (``events:
list[HistoryEvent]``), a ``TypeAdapter``, a FastAPI body. pydantic validates it as a nested tagged
union, ``type`` first, then ``role`` among messages; its JSON is what the codec writes.
"""

History = Sequence[HistoryEvent]
"""A history: events in order."""

EVENT_ADAPTER: TypeAdapter[HistoryEvent] = TypeAdapter(HistoryEvent, config=ConfigDict(cache_strings="all"))
"""Validates and serialises one history line.

Its JSON parser caches keys only (pydantic's default also caches every string value of up to 64
characters): a history's values are mostly unique (ids, times, texts), so caching them costs
more than it saves, 7-10% of a load. Literal tags (``type``, ``role``) are shared objects either
way; a repeated value such as a model name is a string of its own per line (about 4% more memory).
"""

NON_MESSAGE_CLASSES: dict[str, type[NonMessageEvent]] = {
    "error": ErrorEvent, "task_metadata": TaskMetadataEvent, "compaction": CompactionEvent,
    "retry": RetryEvent, "model_switch": ModelSwitchEvent, "subtask": SubtaskEvent,
    "unknown": UnknownEvent,
}
"""Each event class that is not a message by its ``type``; messages are
:data:`~partwire.messages.MESSAGE_CLASSES`, by ``role``."""
EVENT_TYPES: frozenset[str] = frozenset({"message", *NON_MESSAGE_CLASSES})
"""Every event tag this version understands."""
MESSAGE_ROLES: frozenset[str] = frozenset(MESSAGE_CLASSES)
"""Every message role."""
