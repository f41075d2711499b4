"""Small histories for the store tests: turns with tool calls, usage with cost, compactions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from partwire import (
    AssistantMessage,
    CompactionEvent,
    HistoryEvent,
    TextPart,
    ToolCallPart,
    ToolMessage,
    Usage,
    UserMessage,
)

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    """A fixed time ``seconds`` after T0."""
    return T0 + timedelta(seconds=seconds)


def user(event_id: str, text: str, t: float = 0) -> UserMessage:
    """A user message with one text part."""
    return UserMessage(id=event_id, created_at=at(t), parts=(TextPart(text=text),))


def assistant(
    event_id: str,
    text: str = "",
    calls: tuple[tuple[str, str], ...] = (),
    *,
    model: str = "anthropic:claude-sonnet-4-6",
    cost: str | None = "0.01",
    tokens: tuple[int, int] = (100, 10),
    aborted: bool = False,
    t: float = 0,
) -> AssistantMessage:
    """An assistant message with optional text and tool calls ``(call_id, tool name)``."""
    parts: list[TextPart | ToolCallPart] = [TextPart(text=text)] if text else []
    parts += [ToolCallPart(id=cid, name=name, arguments_json='{"x":1}') for cid, name in calls]
    return AssistantMessage(
        id=event_id,
        created_at=at(t),
        parts=tuple(parts),
        model=model,
        stop_reason="aborted" if aborted else ("tool_use" if calls else "stop"),
        status="aborted" if aborted else "complete",
        usage=Usage(input_tokens=tokens[0], output_tokens=tokens[1],
                    cost=Decimal(cost) if cost is not None else None),
    )


def tool(event_id: str, call_id: str, name: str, status: str = "success", output: str = "ok",
         t: float = 0) -> ToolMessage:
    """The tool message answering ``call_id``."""
    return ToolMessage(
        id=event_id, created_at=at(t), call_id=call_id, tool_name=name, status=status,
        output_text=output, started_at=at(t - 1), finished_at=at(t),
    )


def compaction(event_id: str, summary: str, t: float = 0) -> CompactionEvent:
    """A compaction event replacing two messages."""
    return CompactionEvent(id=event_id, created_at=at(t), summary=summary, replaced_count=2)


def turn_history() -> list[HistoryEvent]:
    """A session with three tool calls: one answered, one failed, one never answered."""
    return [
        user("E01", "Find the flaky timezone test", t=1),
        assistant("E02", "Looking at the offsets.", (("tu_A", "grep"), ("tu_B", "run_shell")), t=2),
        tool("E03", "tu_A", "grep", output="tests/test_parse.py:12: offset dropped", t=3),
        tool("E04", "tu_B", "run_shell", status="error", output="exit 1", t=4),
        compaction("E05", "first summary", t=5),
        assistant("E06", "One more run.", (("tu_C", "run_shell"),), model="openai:gpt-5",
                  cost="0.0025", tokens=(50, 5), t=6),
        compaction("E07", "second summary", t=7),
    ]
