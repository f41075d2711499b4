"""A generated dataset of many sessions (for the distributed jobs' test and the benchmarks):
deterministic, every common event shape, several models and providers, tool errors."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from partwire import (
    AssistantMessage,
    ModelSwitchEvent,
    SystemMessage,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    Usage,
    UserMessage,
)
from partwire.history import HistoryEvent

__all__ = ["MODELS", "fleet"]

MODELS = ("anthropic:claude-sonnet-4-6", "openai:gpt-5", "google:gemini-2.5-flash")
_START = datetime(2026, 3, 1, tzinfo=UTC)


def _session(n: int, turns: int) -> list[HistoryEvent]:
    at = _START + timedelta(hours=n)
    model = MODELS[n % len(MODELS)]
    events: list[HistoryEvent] = [SystemMessage("You are a careful coding agent.", id=f"m{n}-sys", created_at=at)]
    for t in range(turns):
        if t and t % 5 == 0:
            nxt = MODELS[(n + t) % len(MODELS)]
            events.append(ModelSwitchEvent(from_model=model, to_model=nxt, id=f"m{n}-{t}-sw", created_at=at))
            model = nxt
        call = ToolCallPart(id=f"tu_{n}_{t}", name=("grep", "read_file", "run_tests")[t % 3],
                            arguments_json=f'{{"q": "term {n} {t}"}}')
        events += [
            UserMessage(f"Step {t} of task {n}: look at module {t % 7} and fix the date parsing.",
                        id=f"m{n}-{t}-u", created_at=at),
            AssistantMessage([ThinkingPart(text=f"Plan for step {t}."), f"Checking module {t % 7}.", call],
                             model=model, provider=model.split(":")[0], stop_reason="tool_use",
                             id=f"m{n}-{t}-a", created_at=at,
                             usage=Usage(input_tokens=1200 + 37 * t, output_tokens=80 + t,
                                         cache_read_tokens=800, cost=Decimal("0.0042"))),
            ToolMessage(call_id=call.id, tool_name=call.name, status="error" if (n + t) % 9 == 0 else "success",
                        output_text=f"result of step {t}\n" * 3, id=f"m{n}-{t}-t", created_at=at),
        ]
        at += timedelta(seconds=30)
    return events


def fleet(events: int, *, turns: int = 16) -> Iterator[tuple[str, list[HistoryEvent]]]:
    """Sessions of about ``3 * turns`` events each, ``events`` events or a few more in all."""
    made = n = 0
    while made < events:
        session = _session(n, turns)
        made += len(session)
        yield f"s{n:06d}", session
        n += 1
