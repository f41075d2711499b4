"""Growth: the cost per event of every whole-history operation at a large N over its cost at 1,000.

``growth.<op>`` is (seconds per event at N) / (seconds per event at 1,000) with the garbage
collector on, as an application runs: the collector's passes are part of the cost. Target <= 1.3:
nothing grows faster than its input. Beside each, ``growth.<op>.collector_off`` (no target) is the
same ratio with the collector off: what the code itself does.

How a cost per event is taken, so that both sizes meet the collector alike: the operation runs
back to back on its input until it has done as many events as the large size (N runs of 1,000
events; 2 runs of N), after one warm-up run, and the cost is the CPU time of the whole batch over
its events. CPython runs a full collection once the objects that survived into its oldest
generation have grown by a quarter since the last one; a single large call meets one such pass
inside itself, while a single small call (timed alone, best of a few after a collection, as this
module did at first) almost never does: one 1,000-event call was measured free of the passes that
a stream of them pays for. (The collector still costs more per event at N: a large result lives
through the passes it triggers, docs/adapters/index.md.) CPU time, not wall time: the bench
machine is shared, and a half-second call at N is interrupted by other processes where a
millisecond call at 1,000 is not.

The operations: ``codec.load``; each adapter's ``to_wire`` and ``from_wire_request`` (of the
request its ``to_wire`` made); one ``Session`` turn per adapter (an assistant message and its tool
results appended, then ``request()``; its cost per turn, not per event); and both bridges' round
trips (``to_messages`` then ``from_messages``). N is 100,000 by default; ``PARTWIRE_GROWTH_N``
sets another (the bridges at 100,000 take minutes on a loaded machine); ``PARTWIRE_GROWTH_ONLY``
runs only the operations whose names start with one of its comma-separated prefixes. Each size is timed with
only its own history alive (the 1,000-event calls once ran beside the 100,000-event history,
and each full collection in them was a pass over it).

``growth.baseline.plain_dicts`` (no target) is the machine's own growth: a loop over the same
history as plain dicts (``orjson``) that reads every event and its parts and builds a wire-like
dict for each, no partwire code in it. A 1,000-event history fits in the processor's cache and
is timed a hundred times over while it is hot; a 100,000-event one is read from memory on every
call. What that costs a plain loop, partwire's walks pay too (``docs/adapters/index.md``).
"""

from __future__ import annotations

import functools
import gc
import math
import os
import time
from collections.abc import Callable
from typing import Any

import orjson

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


def _wanted(op: str) -> bool:
    """Whether ``op`` is among those ``PARTWIRE_GROWTH_ONLY`` names (comma-separated prefixes,
    such as ``codec,anthropic``); every operation when it is unset."""
    only = os.environ.get("PARTWIRE_GROWTH_ONLY")
    return not only or any(op.startswith(prefix.strip()) for prefix in only.split(","))


def _per_event(fn: Callable[[], object], n: int, total: int, *, collector: bool = True) -> float:
    """CPU seconds per event of ``fn`` (an operation on ``n`` events), run back to back until
    ``total`` events are done, after one warm-up run; the collector off when ``collector`` is
    false."""
    fn()
    runs = max(1, math.ceil(total / n))
    gc.collect()
    if not collector:
        gc.disable()
    try:
        start = time.process_time()
        for _ in range(runs):
            fn()
        return (time.process_time() - start) / (runs * n)
    finally:
        gc.enable()


def _ops(events: list[HistoryEvent]) -> dict[str, Callable[[], object]]:
    """Every operation on ``events``, ready to time."""
    ops: dict[str, Callable[[], object]] = {}
    data = dumps(events)
    ops["codec.load"] = lambda: loads(data)
    plain = [orjson.loads(line) for line in data.splitlines()]
    ops["baseline.plain_dicts"] = functools.partial(_plain_walk, plain)
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


def _plain_walk(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A wire-like message per line of the history as plain dicts: no partwire code, the
    machine's own growth for a walk that reads every event and its parts and builds a result."""
    out = []
    for line in lines:
        message: dict[str, Any] = {"role": line.get("role"), "id": line.get("id")}
        parts = line.get("parts")
        if parts:
            message["content"] = [part.get("text") or part.get("name") for part in parts]
        else:
            message["content"] = line.get("output_text")
        out.append(message)
    return out


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
        began = time.process_time()
        session.append(*turn)
        session.request()
        best = min(best, time.process_time() - began)
    return best


def _costs(n: int, events: list[HistoryEvent], repeat: int, total: int) -> dict[str, float]:
    """CPU seconds per event of every operation on the first ``n`` events, over batches of
    ``total`` events (per turn for sessions, the best of ``repeat``)."""
    history = events[:n]
    costs: dict[str, float] = {}
    with dry_run(), quiet_losses():
        for op, fn in _ops(history).items():
            if not _wanted(op):
                continue
            costs[op] = _per_event(fn, n, total)
            costs[f"{op}.collector_off"] = _per_event(fn, n, total, collector=False)
        for name in ADAPTERS:
            if not _wanted(f"{name}.session_turn"):
                continue
            costs[f"{name}.session_turn"] = _session_turn(name, events, n, repeat)
    return costs


def run() -> dict[str, dict[str, Any]]:
    """``growth.<op>`` for every operation, with the two costs beside it."""
    large = _large()
    # Each size is timed with only its own input alive: a 100,000-event history alive while the
    # 1,000-event calls run makes every full collection in them a pass over the large heap.
    small_costs = _costs(SMALL, agent_history(SMALL + 200), repeat=5, total=2 * large)
    gc.collect()
    large_costs = _costs(large, agent_history(large + 200), repeat=2, total=2 * large)
    results: dict[str, dict[str, Any]] = {}
    for op, small in small_costs.items():
        unit = "us per turn" if op.endswith("session_turn") else "us per event"
        row: dict[str, Any] = {
            "value": round(large_costs[op] / small, 2), "unit": f"x the cost at {SMALL} ({large})",
            f"at_{SMALL}": f"{small * 1e6:.2f} {unit}", f"at_{large}": f"{large_costs[op] * 1e6:.2f} {unit}"}
        if not op.endswith(".collector_off") and not op.startswith("baseline."):
            row["target"] = TARGET
        results[f"growth.{op}"] = row
    return results
