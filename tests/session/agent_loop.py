"""A synthetic agent history: a task, then rounds of thinking, parallel tool calls and results."""

from __future__ import annotations

from partwire.history import HistoryEvent
from partwire.messages import AssistantMessage, SystemMessage, ToolMessage, UserMessage
from partwire.parts import TextPart, ToolCallPart


def agent_events(rounds: int, *, system: bool = True) -> list[HistoryEvent]:
    """A system prompt and a task, then ``rounds`` rounds of an assistant turn making two tool
    calls and their two results (one an error), with a user remark every tenth round."""
    events: list[HistoryEvent] = []
    if system:
        events.append(SystemMessage("You are a coding agent. Use the tools."))
    events.append(UserMessage("Fix the failing test in tests/test_parse.py."))
    for r in range(rounds):
        a, b = f"tu_{r:04d}a", f"tu_{r:04d}b"
        events.append(AssistantMessage(parts=(
            TextPart(text=f"Round {r}: reading two files."),
            ToolCallPart(id=a, name="read_file", arguments_json=f'{{"path": "src/m{r}.py"}}'),
            ToolCallPart(id=b, name="run", arguments_json=f'{{"cmd": "pytest -k t{r}"}}'),
        ), stop_reason="tool_use"))
        events.append(ToolMessage(call_id=a, tool_name="read_file", output_text=f"def f{r}(): ..."))
        events.append(ToolMessage(call_id=b, tool_name="run", status="error",
                                  output_text=f"FAILED t{r}"))
        if r % 10 == 9:
            events.append(AssistantMessage(f"Progress after round {r}."))
            events.append(UserMessage("Keep going."))
    return events
