"""Codec speed: load and dump of an agent history's JSONL against orjson, and import time."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import orjson
import pydantic_core
from pydantic import TypeAdapter

from partwire.codec import dumps, loads
from partwire.history import HistoryEvent
from tests.benchmarks._runner import Figure, Timed, import_seconds
from tests.benchmarks.agent_history import agent_history
from tests.benchmarks.plain_mirror import plain_event_adapter

# Load is held to a plain pydantic model of the same shape, timed alternately in the same run: a
# pure-Python load that builds pydantic models cannot beat one (docs/codec.md has the evidence
# that retired the old 1.6x-orjson target). orjson stays beside it for information.
TARGETS = {"load": 1.15, "dump": 3.0, "import": 5.0}


@functools.cache
def _inputs(n: int) -> tuple[list[HistoryEvent], bytes, list[bytes], list[Any]]:
    """An ``n``-event agent history, its JSONL, the lines and the lines as orjson objects."""
    history = agent_history(n)
    data = dumps(history)
    lines = data.splitlines()
    assert loads(data) == history
    return history, data, lines, [orjson.loads(line) for line in lines]


@functools.cache
def _peers(n: int) -> dict[str, Callable[[], object]]:
    """Where the load target stands, each on the same lines (docs/codec.md): orjson, pydantic's
    JSON parser alone, pydantic's JSON path with no schema, a plain pydantic model of exactly our
    shape, and that shape as TypedDicts (validation without one class instance)."""
    _, _, lines, _ = _inputs(n)
    untyped = TypeAdapter(Any).validator
    plain = plain_event_adapter().validator
    dicts = plain_event_adapter(dicts=True).validator
    for validator in (plain, dicts):
        for line in lines:
            validator.validate_json(line)  # the mirrors take every line, or their figures mean nothing
    return {
        "orjson": lambda: [orjson.loads(x) for x in lines],
        "jiter_parse_only": lambda: [pydantic_core.from_json(x) for x in lines],
        "pydantic_untyped_floor": lambda: [untyped.validate_json(x) for x in lines],
        "plain_pydantic_models": lambda: [plain.validate_json(x) for x in lines],
        "plain_pydantic_dicts": lambda: [dicts.validate_json(x) for x in lines],
    }


def _load(n: int, peer: str, **how: Any) -> Timed:
    data = _inputs(n)[1]
    return Timed(lambda: loads(data), _peers(n)[peer], **how)


def _reference(n: int, peer: str) -> Timed:
    """The peer's load against orjson's (for information: where the target stands)."""
    peers = _peers(n)
    return Timed(peers[peer], peers["orjson"])


def _dump(n: int) -> Timed:
    history, _, _, objects = _inputs(n)
    return Timed(lambda: dumps(history), lambda: [orjson.dumps(o) for o in objects])


def _per_line(n: int, what: str) -> Timed:
    """Microseconds per line of partwire's load or dump alone."""
    history, data, lines, _ = _inputs(n)
    op = {"load": lambda: loads(data), "dump": lambda: dumps(history)}[what]
    return Timed(op, scale=1e6 / len(lines))


def _import_ratio() -> float:
    return import_seconds("partwire") / import_seconds("pydantic")


def _codec(n: int) -> list[Figure]:
    return [
        # The target's ratio: a 1,000-line load takes a few milliseconds, where one interruption by
        # another process moved the best of seven wall-clock rounds by 20%: CPU time, more rounds.
        Figure(f"codec.load.{n}", "x plain pydantic model", "a plain pydantic model of the same shape",
               TARGETS["load"], timed=lambda: _load(n, "plain_pydantic_models", cpu=True,
                                                   rounds=max(3, 10_000 // n))),
        Figure(f"codec.load.{n}.vs_orjson", "x orjson.loads", "orjson.loads per line",
               timed=lambda: _load(n, "orjson")),
        *(Figure(f"codec.load.{n}.{peer}", "x orjson.loads", "orjson.loads per line",
                 timed=functools.partial(_reference, n, peer))
          for peer in ("jiter_parse_only", "pydantic_untyped_floor", "plain_pydantic_models",
                       "plain_pydantic_dicts")),
        Figure(f"codec.load.{n}.per_line", "us", timed=lambda: _per_line(n, "load"), digits=2),
        Figure(f"codec.dump.{n}", "x orjson.dumps", "orjson.dumps per line", TARGETS["dump"],
               timed=lambda: _dump(n)),
        Figure(f"codec.dump.{n}.per_line", "us", timed=lambda: _per_line(n, "dump"), digits=2),
    ]


FIGURES = [
    *_codec(1_000), *_codec(10_000),
    Figure("import.partwire", "x import pydantic", "import pydantic", TARGETS["import"],
           read=_import_ratio),
    Figure("import.partwire.seconds", "s", read=lambda: import_seconds("partwire"), digits=4),
]
