"""Growth: the cost per event of every whole-history operation at a large N over its cost at 1,000.

``growth.<op>`` is (seconds per event at N) / (seconds per event at 1,000), each the best of a few
runs with the garbage collector on, as an application runs (a collector whose passes grow with
the history is part of the cost). Target <= 1.3: nothing grows faster than its input. Beside each,
``growth.<op>.collector_off`` (no target) is the same ratio with the collector off: what the code
itself does, apart from CPython's full collections, which a large result makes likelier.

The operations: ``codec.load``; each adapter's ``to_wire`` and ``from_wire_request`` (of the
request its ``to_wire`` made); one ``Session`` turn per adapter (an assistant message and its tool
results appended, then ``request()``; its cost per turn, not per event); and both bridges' round
trips (``to_messages`` then ``from_messages``). N is 100,000 by default; ``PARTWIRE_GROWTH_N``
sets another (the bridges at 100,000 take minutes on a loaded machine).
"""

from __future__ import annotations

import functools
import gc
import os
import time
from collections.abc import Callable
from typing import Any

from partwire import AssistantMessage, HistoryEvent, Session
from partwire.adapters import get_adapter
from partwire.adapters._kernel import dry_run
from partwire.codec import dumps, loads
from tests.benchmarks._timing import quiet_losses
from tests.benchmarks.agent_history import agent_history
from tests.benchmarks.bench_session import ADAPTERS, _next_turn

__all__ = ["run"]

SMALL = 1_000
TARGET = 1.3


def _large() -> int:
    return int(os.environ.get("PARTWIRE_GROWTH_N", "100000"))


def _best(fn: Callable[[], object], repeat: int, *, collector: bool = True) -> float:
    """The fastest of ``repeat`` runs of ``fn``, collected between runs; with the collector off
    when ``collector`` is false."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        if not collector:
            gc.disable()
        try:
            start = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return best


def _ops(events: list[HistoryEvent]) -> dict[str, Callable[[], object]]:
    """Every operation on ``events``, ready to time."""
    ops: dict[str, Callable[[], object]] = {}
    data = dumps(events)
    ops["codec.load"] = lambda: loads(data)
    for name, model in ADAPTERS.items():
        adapter = get_adapter(name)
        ops[f"{name}.to_wire"] = functools.partial(adapter.to_wire, events, model=model)
        with dry_run():
            body = adapter.to_wire(events, model=model).request
        ops[f"{name}.from_wire_request"] = functools.partial(adapter.from_wire_request, body)
    for bridge in ("pydantic_ai", "langchain"):
        try:
            module = __import__(f"partwire.bridges.{bridge}", fromlist=["to_messages"])
            module.to_messages(events[:10])
        except ImportError:
            continue
        ops[f"bridge.{bridge}"] = functools.partial(_bridge_round_trip, module, events)
    return ops


def _bridge_round_trip(module: Any, events: list[HistoryEvent]) -> object:
    return module.from_messages(module.to_messages(events).messages)


def _session_turn(name: str, events: list[HistoryEvent], n: int, repeat: int) -> float:
    start = n
    while not isinstance(events[start], AssistantMessage):
        start += 1
    turn = _next_turn(events, start)
    best = float("inf")
    for _ in range(repeat):
        session = Session(f"{name}:{ADAPTERS[name]}", history=events[:start])
        session.request()
        gc.collect()
        began = time.perf_counter()
        session.append(*turn)
        session.request()
        best = min(best, time.perf_counter() - began)
    return best


def _costs(n: int, events: list[HistoryEvent], repeat: int) -> dict[str, float]:
    """Seconds per event of every operation on the first ``n`` events (per turn for sessions)."""
    history = events[:n]
    costs: dict[str, float] = {}
    with dry_run(), quiet_losses():
        for op, fn in _ops(history).items():
            costs[op] = _best(fn, repeat) / n
            costs[f"{op}.collector_off"] = _best(fn, repeat, collector=False) / n
        for name in ADAPTERS:
            costs[f"{name}.session_turn"] = _session_turn(name, events, n, repeat)
    return costs


def run() -> dict[str, dict[str, Any]]:
    """``growth.<op>`` for every operation, with the two costs beside it."""
    large = _large()
    events = agent_history(large + 200)
    small_costs = _costs(SMALL, events, repeat=5)
    large_costs = _costs(large, events, repeat=2)
    results: dict[str, dict[str, Any]] = {}
    for op, small in small_costs.items():
        unit = "us per turn" if op.endswith("session_turn") else "us per event"
        row: dict[str, Any] = {
            "value": round(large_costs[op] / small, 2), "unit": f"x the cost at {SMALL} ({large})",
            f"at_{SMALL}": f"{small * 1e6:.2f} {unit}", f"at_{large}": f"{large_costs[op] * 1e6:.2f} {unit}"}
        if not op.endswith(".collector_off"):
            row["target"] = TARGET
        results[f"growth.{op}"] = row
    return results
