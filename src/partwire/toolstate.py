"""Tool-call states derived from a history: pending, success, error, aborted, denied, with timing.

Nothing stores a call's state: it follows from the call and the tool message that answers it
(DESIGN §5, OpenFork's pending → running → done, made derivable).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from partwire.history import History
from partwire.messages import AssistantMessage, ToolMessage
from partwire.parts import ToolCallPart

__all__ = ["ToolCallState", "ToolState", "tool_call_states"]

ToolState = Literal["pending", "success", "error", "aborted", "denied"]
"""Where a tool call stands."""


@dataclass(frozen=True, slots=True)
class ToolCallState:
    """One tool call and how it ended (or that it has not yet)."""

    call: ToolCallPart
    """The call."""
    state: ToolState
    """``pending`` until a tool message answers it, unless its message was interrupted."""
    call_index: int
    """Position of the assistant message holding the call."""
    result_index: int | None
    """Position of the tool message answering it, if any."""
    result: ToolMessage | None
    """The tool message answering it, if any."""
    started_at: datetime | None
    """When the tool started, if recorded."""
    finished_at: datetime | None
    """When the tool finished, if recorded."""

    @property
    def duration(self) -> timedelta | None:
        """How long the tool ran, when both times are known."""
        if self.started_at is None or self.finished_at is None:
            return None
        return self.finished_at - self.started_at


def tool_call_states(history: History) -> dict[str, ToolCallState]:
    """The state of every tool call in ``history``, by canonical id, in call order.

    A call with no result is ``aborted`` when the message that made it was interrupted (the tool
    never ran), else ``pending``. A result naming no call is not listed (``validate_history``
    reports it).
    """
    states: dict[str, ToolCallState] = {}
    for i, event in enumerate(history):
        if isinstance(event, AssistantMessage):
            interrupted = event.status == "aborted" or event.stop_reason == "aborted"
            for part in event.parts:
                if isinstance(part, ToolCallPart):
                    states[part.id] = ToolCallState(
                        part, "aborted" if interrupted else "pending", i, None, None, None, None
                    )
        elif isinstance(event, ToolMessage) and event.call_id in states:
            before = states[event.call_id]
            states[event.call_id] = ToolCallState(
                before.call, event.status, before.call_index, i, event,
                event.started_at, event.finished_at,
            )
    return states
