"""Growth: the cost per event of every whole-history operation at a large N over its cost at 1,000.

``growth.<op>`` is (seconds per event at N) / (seconds per event at 1,000) with the garbage
collector on, as an application runs: the collector's passes are part of the cost. Target <= 1.3:
nothing grows faster than its input. Beside each, ``growth.<op>.collector_off`` (no target) is the
same ratio with the collector off: what the code itself does.

How a cost per event is taken, so that both sizes meet the collector alike: the operation runs
back to back on its input until it has done as many events as the large size (N / 1,000 runs of
1,000 events; one run of N), after one warm-up run, and the cost is the CPU time of the runs over their
events. CPython runs a full collection once the objects that survived into its oldest
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

Both sizes are timed cold: before each run, outside the timed span, a 96 MiB copy between two
preallocated buffers empties the processor's caches. A 100,000-event history (hundreds of MB)
is read from memory on every call whatever the bench does; a 1,000-event one (3 MB) run back to
back stays in the 32 MiB cache from one run to the next, which no application calling it once
per request sees, and which made even a loop with no partwire code in it read 4-5x "growth".
``growth.<op>.cache_warm`` (no target) is the ratio without the emptying, the machine's cache
included; ``growth.baseline.plain_dicts`` (no target) is a loop over the same history as plain
dicts (``orjson``) that reads every event and its parts and builds a wire-like dict for each, no
partwire code in it: cold it reads about 1.0, warm 4-5. The ``Session`` turn is timed over
successive turns of one session (three readings, each the best of three turns, at both sizes), each after a full collection
and with the caches emptied: the collection alone walks the whole heap, which left a
1,000-event session in the cache and a 100,000-event one out of it.
"""

from __future__ import annotations

import functools
import gc
import math
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import orjson

from partwire import AssistantMessage, HistoryEvent, Session
from partwire.adapters import get_adapter
from partwire.adapters._kernel import dry_run
from partwire.codec import dumps, loads
from tests.benchmarks._runner import RUNS, Pass
from tests.benchmarks.agent_history import agent_history
from tests.benchmarks.bench_session import ADAPTERS, _next_turn

__all__ = ["FIGURES"]

SMALL = 1_000
TARGET = 1.3


def _large() -> int:
    return int(os.environ.get("PARTWIRE_GROWTH_N", "100000"))


def _wanted(op: str) -> bool:
    """Whether ``op`` is among those ``PARTWIRE_GROWTH_ONLY`` names (comma-separated prefixes,
    such as ``codec,anthropic``); every operation when it is unset."""
    only = os.environ.get("PARTWIRE_GROWTH_ONLY")
    return not only or any(op.startswith(prefix.strip()) for prefix in only.split(","))


# Larger than the processor's last-level cache (32 MiB on the bench machine) with room to spare:
# copying one into the other between runs leaves none of the history in any cache.
_SCRATCH = bytearray(96 * 2**20)
_SCRATCH_SOURCE = bytes(len(_SCRATCH))


def _evict_caches() -> None:
    """Push whatever the last run left in the processor's caches out, allocating nothing (the
    collector's arithmetic is untouched): a 96 MiB copy between two preallocated buffers."""
    _SCRATCH[:] = _SCRATCH_SOURCE


def _per_event(fn: Callable[[], object], n: int, total: int, *, collector: bool = True,
               cold: bool = True) -> list[float]:
    """CPU seconds per event of ``fn`` (an operation on ``n`` events), three readings, each of
    runs back to back until ``total`` events are done, after one warm-up run; the collector off
    when ``collector`` is false. ``cold``: the caches are emptied before each run, outside the
    timed span, so every run reads its input from memory as a 100,000-event run must; otherwise
    the runs follow each other with nothing between them, and a small input stays in the cache
    from one run to the next."""
    fn()
    runs = max(1, math.ceil(total / n))
    readings = []
    for _ in range(RUNS):
        gc.collect()
        if not collector:
            gc.disable()
        try:
            spent = 0.0
            for _ in range(runs):
                if cold:
                    _evict_caches()
                start = time.process_time()
                fn()
                spent += time.process_time() - start
            readings.append(spent / (runs * n))
        finally:
            gc.enable()
    return readings


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


def _session_turn(name: str, events: list[HistoryEvent], n: int, repeat: int) -> list[float]:
    """Three readings, each the CPU seconds of the fastest of ``repeat`` successive turns of one ``Session`` holding the
    first ``n``-odd events: each turn's assistant message and tool results appended, then
    ``request()``, each after a full collection and with the caches emptied (the collection walks
    the whole heap, which leaves a 1,000-event session in the cache and a 100,000-event one out of
    it; emptying them treats both sizes alike)."""
    start = n
    while not isinstance(events[start], AssistantMessage):
        start += 1
    session = Session(f"{name}:{ADAPTERS[name]}", history=events[:start])
    session.request()
    readings = []
    for _ in range(RUNS):
        best = float("inf")
        for _ in range(repeat):
            turn = _next_turn(events, start)
            start += len(turn)
            gc.collect()
            _evict_caches()
            began = time.process_time()
            session.append(*turn)
            session.request()
            best = min(best, time.process_time() - began)
        readings.append(best)
    return readings


def _costs(n: int, events: list[HistoryEvent], repeat: int, total: int) -> dict[str, list[float]]:
    """Three readings of the CPU seconds per event of every operation on the first ``n`` events,
    each over batches of ``total`` events (per turn for sessions, the best of ``repeat``)."""
    history = events[:n]
    costs: dict[str, list[float]] = {}
    with dry_run():
        for op, fn in _ops(history).items():
            if not _wanted(op):
                continue
            costs[op] = _per_event(fn, n, total)
            costs[f"{op}.collector_off"] = _per_event(fn, n, total, collector=False)
            if not op.startswith("bridge."):  # minutes a figure at 100,000; the cache is not theirs
                costs[f"{op}.cache_warm"] = _per_event(fn, n, total, cold=False)
        for name in ADAPTERS:
            if not _wanted(f"{name}.session_turn"):
                continue
            costs[f"{name}.session_turn"] = _session_turn(name, events, n, repeat)
    return costs


def _measure() -> dict[str, dict[str, Any]]:
    """``growth.<op>`` for every operation, with the two costs beside it. The three readings of
    a figure are taken within each size (the large history is built once, and alone), the
    ``i``-th at the large size over the ``i``-th at 1,000."""
    large = _large()
    # Each size is timed with only its own input alive: a 100,000-event history alive while the
    # 1,000-event calls run makes every full collection in them a pass over the large heap.
    # ``total``: each reading does as many events as the large size (one run of it, 100 of 1,000).
    small_costs = _costs(SMALL, agent_history(SMALL + 200), repeat=3, total=large)
    gc.collect()
    large_costs = _costs(large, agent_history(large + 200), repeat=3, total=large)
    results: dict[str, dict[str, Any]] = {}
    for op, small in small_costs.items():
        unit = "us per turn" if op.endswith("session_turn") else "us per event"
        ratios = [round(big / little, 2) for big, little in zip(large_costs[op], small, strict=True)]
        row: dict[str, Any] = {
            "value": statistics.median(ratios), "runs": ratios,
            "unit": f"x the cost at {SMALL} ({large})",
            "peer": f"its own cost per event at {SMALL} events",
            f"at_{SMALL}": f"{statistics.median(small) * 1e6:.2f} {unit}",
            f"at_{large}": f"{statistics.median(large_costs[op]) * 1e6:.2f} {unit}"}
        if not op.endswith((".collector_off", ".cache_warm")) and not op.startswith("baseline."):
            row["target"] = TARGET
        results[f"growth.{op}"] = row
    return results


# One pass: its three readings are taken inside it (see ``_measure``).
FIGURES = [Pass(_measure, runs=1)]
