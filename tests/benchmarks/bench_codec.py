"""Codec speed: load and dump of an agent history's JSONL against orjson, and import time."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import TypeAdapter

from partwire.codec import dumps, loads
from tests.benchmarks._timing import import_seconds, ratio
from tests.benchmarks.agent_history import agent_history

TARGETS = {"load": 1.6, "dump": 3.0, "import": 5.0}


def _codec(n: int) -> dict[str, dict[str, float | str]]:
    history = agent_history(n)
    data = dumps(history)
    lines = data.splitlines()
    objects = [orjson.loads(line) for line in lines]
    assert loads(data) == history

    load, ours_load, _ = ratio(lambda: loads(data), lambda: [orjson.loads(x) for x in lines])
    # pydantic's own JSON path with no model at all: no pydantic-validated load can beat it, so it
    # is printed beside the load ratio to show how much of the gap is the validator's.
    untyped = TypeAdapter(Any)
    floor, _, _ = ratio(lambda: [untyped.validate_json(x) for x in lines], lambda: [orjson.loads(x) for x in lines])
    dump, ours_dump, _ = ratio(lambda: dumps(history), lambda: [orjson.dumps(o) for o in objects])
    return {
        f"codec.load.{n}": {"value": round(load, 3), "unit": "x orjson.loads", "target": TARGETS["load"]},
        f"codec.load.{n}.pydantic_untyped_floor": {"value": round(floor, 3), "unit": "x orjson.loads"},
        f"codec.load.{n}.per_line": {"value": round(ours_load / len(lines) * 1e6, 2), "unit": "us"},
        f"codec.dump.{n}": {"value": round(dump, 3), "unit": "x orjson.dumps", "target": TARGETS["dump"]},
        f"codec.dump.{n}.per_line": {"value": round(ours_dump / len(lines) * 1e6, 2), "unit": "us"},
    }


def run() -> dict[str, dict[str, float | str]]:
    """Ratios for 1,000 and 10,000 messages, and import partwire / import pydantic."""
    results: dict[str, dict[str, float | str]] = {}
    for n in (1_000, 10_000):
        results.update(_codec(n))
    partwire_s, pydantic_s = import_seconds("partwire"), import_seconds("pydantic")
    results["import.partwire"] = {
        "value": round(partwire_s / pydantic_s, 3), "unit": "x import pydantic", "target": TARGETS["import"],
    }
    results["import.partwire.seconds"] = {"value": round(partwire_s, 4), "unit": "s"}
    return results
