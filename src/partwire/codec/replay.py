"""Replay: a stored history turned into what a UI and the next model call need.

Interrupts and response metadata are never stored (DESIGN §5); :func:`replay` derives them.
:func:`context_messages` gives the messages for the next model call, honouring compaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal, TypeAlias

from partwire._base import CanonicalModel
from partwire.history import CompactionEvent, History, HistoryEvent
from partwire.ids import derive_id
from partwire.messages import (
    AssistantMessage,
    AssistantStatus,
    DeveloperMessage,
    Message,
    StopReason,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from partwire.usage import Usage

__all__ = [
    "InterruptEvent",
    "ReplayEvent",
    "ResponseMetadataEvent",
    "context_messages",
    "replay",
]


class InterruptEvent(CanonicalModel):
    """The user interrupted: derived from an aborted assistant or tool message, never stored."""

    type: Literal["interrupt"] = "interrupt"
    message_id: str
    """Id of the aborted message."""
    source: Literal["assistant", "tool"]
    """What was interrupted: the model's answer or a tool run."""
    call_id: str | None = None
    """For a tool: the canonical id of the call that was interrupted."""


class ResponseMetadataEvent(CanonicalModel):
    """What an assistant message says about the model call behind it; derived, never stored."""

    type: Literal["response_metadata"] = "response_metadata"
    message_id: str
    """Id of the assistant message."""
    model: str | None = None
    """The model, ``provider:model``."""
    provider: str | None = None
    """Who served the call."""
    api: str | None = None
    """The wire API used."""
    response_id: str | None = None
    """The provider's id of the response."""
    usage: Usage | None = None
    """Tokens, cost and latency."""
    stop_reason: StopReason | None = None
    """Why generation stopped, normalised."""
    stop_reason_raw: str | None = None
    """The provider's own stop reason."""
    status: AssistantStatus = "complete"
    """Whether the message is whole."""


ReplayEvent: TypeAlias = HistoryEvent | InterruptEvent | ResponseMetadataEvent
"""What replay yields: the stored events, and the runtime events derived from them."""

_MESSAGE_TYPES = (SystemMessage, DeveloperMessage, UserMessage, AssistantMessage, ToolMessage)


def replay(history: History) -> Iterator[ReplayEvent]:
    """The history's events in order, each assistant message followed by its derived events.

    After an assistant message: its :class:`ResponseMetadataEvent`, then an
    :class:`InterruptEvent` when it was aborted (``stop_reason`` or ``status``). After a tool
    message whose status is ``aborted``: an :class:`InterruptEvent`.
    """
    for event in history:
        yield event
        if isinstance(event, AssistantMessage):
            yield ResponseMetadataEvent(
                message_id=event.id,
                model=event.model,
                provider=event.provider,
                api=event.api,
                response_id=event.response_id,
                usage=event.usage,
                stop_reason=event.stop_reason,
                stop_reason_raw=event.stop_reason_raw,
                status=event.status,
            )
            if event.stop_reason == "aborted" or event.status == "aborted":
                yield InterruptEvent(message_id=event.id, source="assistant")
        elif isinstance(event, ToolMessage) and event.status == "aborted":
            yield InterruptEvent(message_id=event.id, source="tool", call_id=event.call_id)


def context_messages(
    history: History, *, summary_role: Literal["user", "system"] = "user"
) -> list[Message]:
    """The messages to send on the next model call: events dropped, the latest compaction applied.

    The latest :class:`CompactionEvent` removes the messages it replaces (those named in
    ``replaced_ids``, or else the ``replaced_count`` non-system messages right before it, or
    else every non-system message before it) and puts one ``summary_role`` message carrying its
    summary where the first of them was. System messages are always kept. Earlier compactions
    are superseded: the latest one is expected to summarise everything it replaces.
    """
    latest = None
    for index, event in enumerate(history):
        if isinstance(event, CompactionEvent):
            latest = index
    if latest is None:
        return [e for e in history if isinstance(e, _MESSAGE_TYPES)]

    compaction = history[latest]
    assert isinstance(compaction, CompactionEvent)
    before = [e for e in history[:latest] if isinstance(e, _MESSAGE_TYPES)]
    after = [e for e in history[latest + 1:] if isinstance(e, _MESSAGE_TYPES)]
    replaced = _replaced(before, compaction)
    kept = [m for i, m in enumerate(before) if i not in replaced]
    summary = _summary(compaction, summary_role)
    # The summary stands where the first replaced message stood (or at the compaction itself
    # when it replaced nothing that is still there).
    at = min(replaced) if replaced else len(before)
    position = sum(1 for i in range(at) if i not in replaced)
    return [*kept[:position], summary, *kept[position:], *after]


def _replaced(before: list[Message], compaction: CompactionEvent) -> set[int]:
    if compaction.replaced_ids is not None:
        wanted = set(compaction.replaced_ids)
        return {i for i, m in enumerate(before) if m.id in wanted and not isinstance(m, SystemMessage)}
    candidates = [i for i, m in enumerate(before) if not isinstance(m, SystemMessage)]
    if compaction.replaced_count is None:
        return set(candidates)
    count = max(compaction.replaced_count, 0)
    return set(candidates[len(candidates) - count:]) if count else set()


def _summary(compaction: CompactionEvent, role: Literal["user", "system"]) -> Message:
    # Derived from the compaction's id: the same history always gives the same summary message.
    # ULIDs cannot hold a time before 1970; such a summary just gets the epoch in its id.
    at = compaction.created_at if compaction.created_at.timestamp() >= 0 else None
    message_id = derive_id("compaction-summary", compaction.id, at=at)
    fields = {
        "id": message_id,
        "created_at": compaction.created_at,
        "metadata": {"compaction_id": compaction.id},
    }
    if role == "system":
        return SystemMessage(compaction.summary, **fields)
    return UserMessage(compaction.summary, **fields)
