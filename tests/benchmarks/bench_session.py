"""Session speed: the cost of ``request()`` at turn N of a growing agent session.

``session.request.N`` is one agent turn (an assistant message and its tool results appended, then
``request()``) on a session already holding N events of agent traffic. The session reuses the wire
messages of earlier turns, so the cost follows the new events, not the history: the target holds
the cost at 10,000 events to 3x the cost at 100 (a full ``to_wire`` grows about 100x). The full
projection's cost at each N is reported beside it for comparison.
"""

from __future__ import annotations

import functools
from typing import Any

from partwire import AssistantMessage, HistoryEvent, Session
from partwire.adapters import get_adapter
from partwire.adapters._kernel import dry_run
from tests.benchmarks._runner import Pass, best_time
from tests.benchmarks.agent_history import agent_history
from tests.harness.laws import tools_called

SIZES = (100, 1_000, 10_000)
TARGET = 3.0
ADAPTERS = {"anthropic": "claude-sonnet-4-6", "openai_chat": "gpt-4.1",
            "openai_responses": "gpt-5", "google": "gemini-2.5-pro"}


def _next_turn(events: list[HistoryEvent], at: int) -> list[HistoryEvent]:
    """The events from ``at`` up to (not including) the assistant message after the next one."""
    end = at + 1
    while end < len(events) and not isinstance(events[end], AssistantMessage):
        end += 1
    return events[at:end]


def _cost(adapter: str, events: list[HistoryEvent], n: int, *, repeat: int) -> tuple[float, float]:
    """(seconds of one turn's append + request, seconds of the full to_wire) at ``n`` events."""
    start = n
    while not isinstance(events[start], AssistantMessage):
        start += 1  # the turn appended opens with an assistant message
    turn = _next_turn(events, start)
    model = ADAPTERS[adapter]
    best = float("inf")
    for _ in range(repeat):
        # An agent's session holds its tools (Anthropic refuses calls without definitions).
        session = Session(f"{adapter}:{model}", history=events[:start], tools=tools_called(events))
        session.request()  # the session's first request projects it whole

        def turn_cost(s: Session = session) -> Any:
            s.append(*turn)
            return s.request()

        best = min(best, best_time(turn_cost, repeat=1, cpu=True))
    context = events[:start + len(turn)]
    with dry_run():
        full = best_time(lambda: get_adapter(adapter).to_wire(context, model=model), cpu=True,
                         repeat=1 if n >= 10_000 else 2)  # a pass of three: 3 and 6 in all
    return best, full


@functools.cache
def _events() -> list[HistoryEvent]:
    return agent_history(SIZES[-1] + 200)


def _measure() -> dict[str, dict[str, Any]]:
    """One pass: every adapter's turn cost at each size (the best of three turns), and the full
    projection's beside it."""
    events = _events()
    results: dict[str, dict[str, Any]] = {}
    for adapter in ADAPTERS:
        label = "session.request" if adapter == "anthropic" else f"session.request.{adapter}"
        costs = {n: _cost(adapter, events, n, repeat=3) for n in SIZES}
        base = costs[SIZES[0]][0]
        for n in SIZES:
            ours, full = costs[n]
            results[f"{label}.{n}.us"] = {"value": round(ours * 1e6, 1), "unit": "us per turn"}
            results[f"{label}.{n}.full_to_wire.us"] = {"value": round(full * 1e6, 1),
                                                       "unit": "us (whole to_wire)"}
            if n != SIZES[0]:
                results[f"{label}.{n}"] = {"value": round(ours / base, 2),
                                           "unit": f"x the cost at {SIZES[0]}", "target": TARGET,
                                           "peer": f"its own turn at {SIZES[0]} events"}
    return results


FIGURES = [Pass(_measure)]
