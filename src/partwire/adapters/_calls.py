"""The tool calls of a history as encoders need them: calls by id, results without their call
(orphans, which every API refuses) and calls sent without their tool's definition."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from partwire._memo import cached
from partwire.adapters._losses import LossCollector
from partwire.history import History, HistoryEvent
from partwire.messages import AssistantMessage
from partwire.parts import ToolCallPart

__all__ = ["OrphanCheck", "missing_definition_reason", "orphan_loss", "tool_calls_by_id"]


def tool_calls_by_id(history: History) -> dict[str, ToolCallPart]:
    """Every tool call of the history's assistant messages, by canonical id.

    Of two calls with one id, the first: a call appended later never changes what an earlier
    message was sent with (the prefix law).
    """
    calls: dict[str, ToolCallPart] = {}
    for event in history:
        if isinstance(event, AssistantMessage):
            for part in event.parts:
                if isinstance(part, ToolCallPart):
                    calls.setdefault(part.id, part)
    return calls




class OrphanCheck:
    """Whether a tool result answers no tool call of the history (an orphan).

    Every API refuses a tool result whose call its request does not hold, so encoders drop an
    orphan with a loss (:func:`orphan_loss`). A result before its call is not an orphan: it goes
    out under its call's id, as before. Asked only when a result's call has not been encoded yet
    (the rare case): the history's calls are gathered on the first question.
    """

    __slots__ = ("calls", "history")

    def __init__(self, history: Sequence[HistoryEvent]) -> None:
        self.history = history
        self.calls: set[str] | None = None

    def __call__(self, call_id: str) -> bool:
        calls = self.calls
        if calls is None:
            calls = self.calls = {part.id for event in self.history
                                  if isinstance(event, AssistantMessage)
                                  for part in event.parts if isinstance(part, ToolCallPart)}
        return call_id not in calls


def orphan_loss(losses: LossCollector, i: int, call_id: str, message_id: str, api: str) -> None:
    """Report the tool result ``history[i]`` dropped because no tool call of the history is its own."""
    losses.add(f"history[{i}]", "tool_message", "dropped",
               f"it answers no tool call of this history ({call_id}); {api} rejects a tool result "
               "without its call", message_id)


@cached
@functools.lru_cache(maxsize=256)
def missing_definition_reason(name: str) -> str:
    """Why a tool call is reported where the request must define its tool (Anthropic): a resumed
    session sent without ``tools=``. The loss is on the call, so a session's projector, which
    projects only new turns, reports what ``to_wire`` does."""
    return (f"the call is sent, but no definition of the tool {name!r} is, and Anthropic rejects "
            "tool calls without definitions: pass their definitions in tools= (--tools FILE on the "
            "command line)")
