"""The one bench runner: every module declares its figures, the runner measures and judges them.

A bench module exports ``FIGURES``, a list of:

- :class:`Figure` with a ``timed`` hook: the hook builds a :class:`Timed` (partwire's call and
  its peer's, inputs made once); the runner times the two alternately and the figure is their
  ratio (or partwire's time alone, scaled, when there is no peer);
- :class:`Figure` with a ``read`` hook: a value the module measures itself (an import time, a
  count of requests written back exactly, bytes held);
- :class:`Pass`: a hook that measures several figures in one go (costs at two sizes, a browser
  session) and returns their rows.

Every figure is measured three times, in a row, with its inputs built once and alive only
while it is measured, as each module measured one figure at a time before the runner. The value is the median of the three
readings; a target holds when the median is at or under it. A figure declared ``runs=1`` is a
count that does not move (exactness, memory) and is read once. Each reading times a third of
the rounds one reading took before the runner (best of 3 alternating rounds rather than 9), so a
whole run takes about as long as it did. Times are this process's CPU time unless a figure says
otherwise (the store's, which wait for a disk or a server).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RUNS", "Figure", "Pass", "Timed", "alternate", "best_time", "import_seconds", "judge",
           "measure_module", "quiet_losses"]

RUNS = 3
Value = float | int | str
Row = dict[str, Any]


@dataclass(frozen=True)
class Timed:
    """What a ratio figure times: partwire's call and its peer's, on inputs already made."""

    ours: Callable[[], object]
    """partwire's side: one call of the operation measured."""
    peer: Callable[[], object] | None = None
    """The peer's or the baseline's call; ``None`` times ``ours`` alone (the figure is its time)."""
    calls: int = 1
    """Calls of each per round, so a short call is not lost in the timer's grain or in one
    interruption by another process."""
    peer_calls: int | None = None
    """Calls of the peer per round where they differ from ``calls`` (a peer a hundred times
    slower than partwire needs one call where partwire needs many)."""
    rounds: int = 3
    """Alternating rounds per reading; the best round of each side counts."""
    cpu: bool = True
    """This process's CPU time, the default: both sides are pure computation, and on a shared
    machine wall time counts the turns of other processes (false for a disk or a server)."""
    scale: float = 1.0
    """Multiplies a time measured alone (no ``peer``): ``1e6 / lines`` for microseconds a line."""
    detail: Mapping[str, Value] = field(default_factory=dict)
    """Facts about the inputs written beside the figure (events, chunks, requests)."""


@dataclass(frozen=True)
class Figure:
    """One figure of the table: its name, what it is measured against, its target and its hook."""

    name: str
    """The figure's name in the table and in ``results.json`` (never renamed: history reads it)."""
    unit: str
    """What the value counts: ``x`` for a ratio, or a unit such as ``us`` or ``of 40 equal``."""
    peer: str = ""
    """What partwire is measured against (a library, a plain loop, its own cost at a smaller size)."""
    target: float | None = None
    """The value the median must be at or under; ``None`` for a figure reported for information."""
    timed: Callable[[], Timed] | None = None
    """Builds the two calls the runner times (called once; the same calls serve every run)."""
    read: Callable[[], Value | tuple[Value, Mapping[str, Value]]] | None = None
    """Measures the value itself, once per run (for what is not a ratio of two timings); it may
    return ``(value, detail)``, and a ``unit`` in the detail replaces the declared one."""
    digits: int = 3
    """Decimals kept in the results."""
    runs: int = RUNS
    """Readings taken: 1 for a value that does not move between runs (a count, bytes)."""


@dataclass(frozen=True)
class Pass:
    """Several figures measured in one go; the runner runs the whole pass ``runs`` times."""

    measure: Callable[[], dict[str, Row]]
    """Returns ``{name: {"value", "unit", "target"?, "peer"?, ...}}`` for one run; a row that
    holds ``"runs"`` (its readings, taken inside the pass) is judged on those instead."""
    runs: int = RUNS
    """Passes taken: 1 where one pass is long and its figures are reported without targets."""


def alternate(timed: Timed) -> tuple[float, float]:
    """Best seconds per call of ``timed.ours`` and ``timed.peer``, run alternately so a burst of
    load hits both alike, with the garbage collector off inside the rounds."""
    clock = time.process_time if timed.cpu else time.perf_counter
    peer_calls = timed.calls if timed.peer_calls is None else timed.peer_calls
    best_ours = best_peer = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(timed.rounds):
            start = clock()
            for _ in range(timed.calls):
                timed.ours()
            middle = clock()
            if timed.peer is not None:
                for _ in range(peer_calls):
                    timed.peer()
            end = clock()
            best_ours = min(best_ours, (middle - start) / timed.calls)
            best_peer = min(best_peer, (end - middle) / peer_calls)
    finally:
        gc.enable()
    return best_ours, best_peer


def best_time(fn: Callable[[], object], *, repeat: int = 3, cpu: bool = False) -> float:
    """The fastest of ``repeat`` runs of ``fn``, in seconds (wall time unless ``cpu``), with the
    garbage collector off."""
    return alternate(Timed(fn, rounds=repeat, cpu=cpu))[0]


def import_seconds(module: str, *, repeat: int = 5) -> float:
    """Fastest wall time of a fresh interpreter importing ``module``, less a bare interpreter's."""

    def run(code: str) -> float:
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-I", "-c", code], check=True)
            best = min(best, time.perf_counter() - start)
        return best

    bare = run("pass")
    return max(run(f"import {module}") - bare, 1e-9)


@contextlib.contextmanager
def quiet_losses() -> Iterator[None]:
    """Losses recorded as usual, their log records not written: a bench times the conversion,
    not the logging handler."""
    logger = logging.getLogger("partwire.projection")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def _reading(figure: Figure, timed: Timed | None) -> tuple[Value, dict[str, Value]]:
    """One reading of ``figure``: its value and the times behind it."""
    if figure.read is not None:
        value = figure.read()
        return (value[0], dict(value[1])) if isinstance(value, tuple) else (value, {})
    assert timed is not None, f"{figure.name}: a figure needs a timed or a read hook"
    ours, peer = alternate(timed)
    if timed.peer is None:
        return ours * timed.scale, {"ours_s": ours}
    return ours / peer, {"ours_s": ours, "peer_s": peer}


def judge(name: str, readings: Sequence[Value], *, unit: str, target: float | None = None,
          peer: str = "", digits: int = 3, extra: Mapping[str, Any] | None = None) -> Row:
    """The results row of one figure from its readings: the median as its value, the spread
    ((max - min) / median) beside it, and whether the median holds its target."""
    row: Row = {"unit": unit}
    numbers = [float(r) for r in readings if isinstance(r, int | float)]
    if len(numbers) == len(readings) and numbers:
        median = statistics.median(numbers)
        whole = all(isinstance(r, int) for r in readings)
        row["value"] = int(median) if whole and median.is_integer() else round(median, digits)
        row["runs"] = [r if isinstance(r, int) else round(float(r), digits) for r in readings]
        row["spread"] = round((max(numbers) - min(numbers)) / median, 3) if median else 0.0
    else:  # a reading that is not a number (``"2/5"`` refused): the last, as read
        row["value"] = readings[-1]
        row["runs"] = list(readings)
    if peer:
        row["peer"] = peer
    if target is not None:
        row["target"] = target
        row["held"] = isinstance(row["value"], int | float) and row["value"] <= target
    row.update(extra or {})
    return row


def measure_module(figures: Sequence[Figure | Pass], *, runs: int = RUNS,
                   log: Callable[[str], None] | None = None) -> dict[str, Row]:
    """Every figure of one module in declaration order, each read ``runs`` times in a row with
    its inputs built once, judged on the median of its readings; a :class:`Pass` run ``runs``
    times."""
    inputs: dict[str, dict[str, Value]] = {}
    readings: dict[str, list[Value]] = {}
    details: dict[str, dict[str, list[Value]]] = {}
    pass_rows: dict[str, list[Row]] = {}
    # Losses are recorded as usual and not logged: a figure times the conversion, not logging.
    with quiet_losses():
        for item in figures:
            if isinstance(item, Pass):
                for _ in range(min(runs, item.runs)):
                    for name, row in item.measure().items():
                        pass_rows.setdefault(name, []).append(row)
                continue
            # A figure's inputs are alive only while it is measured, so no figure is timed beside
            # another's 10,000-event history.
            timed = item.timed() if item.timed is not None else None
            for run in range(min(runs, item.runs)):
                value, times = _reading(item, timed)
                readings.setdefault(item.name, []).append(value)
                for key, seconds in times.items():
                    details.setdefault(item.name, {}).setdefault(key, []).append(seconds)
                if log is not None:
                    log(f"  run {run + 1}/{runs} {item.name}: {value}")
            inputs[item.name] = dict(timed.detail) if timed is not None else {}
            del timed
    results: dict[str, Row] = {}
    for item in figures:
        if isinstance(item, Pass):
            continue
        extra: dict[str, Any] = dict(inputs[item.name])
        for key, values in details.get(item.name, {}).items():
            numeric = all(isinstance(v, int | float) for v in values)
            extra[key] = statistics.median(float(v) for v in values) if numeric else values[-1]
        results[item.name] = judge(item.name, readings[item.name], unit=item.unit,
                                   target=item.target, peer=item.peer, digits=item.digits,
                                   extra=extra)
    for name, rows in pass_rows.items():
        last = rows[-1]
        extra = {k: v for k, v in last.items() if k not in {"value", "unit", "target", "peer", "runs"}}
        values = last["runs"] if "runs" in last else [r["value"] for r in rows]
        results[name] = judge(name, values, unit=last["unit"], target=last.get("target"),
                              peer=last.get("peer", ""), extra=extra)
    return results
