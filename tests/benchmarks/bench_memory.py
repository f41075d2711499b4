"""Memory: what a loaded history, a projection and a stream hold, each in a fresh interpreter.

Every figure comes from its own subprocess (``python -m tests.benchmarks.bench_memory <figure>``),
measured with :mod:`tracemalloc` around the one operation, so nothing another figure allocated or
cached is counted. Memory, unlike time, does not move with the machine's load: one pass.

- ``memory.load.N``: bytes a history of N agent events holds once :func:`partwire.codec.loads`
  has read it, over what the same JSONL holds as ``orjson.loads`` dicts (target <= 1.0).
- ``memory.to_wire.<api>.N``: the peak of ``to_wire`` on the loaded history (the request it
  builds included) over the size of that request as JSON (target <= 0.6).
- ``memory.stream.per_text``: the peak of folding a 1 MB text streamed in 4-character deltas
  (made one at a time, as a network read makes them) over the final text (target <= 3).
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

from tests.benchmarks._runner import Pass

__all__ = ["FIGURES"]

LOAD_SIZES = (10_000, 100_000)
TO_WIRE_SIZE = 10_000
APIS = {"anthropic": "claude-sonnet-4-6", "openai_chat": "gpt-4.1",
        "openai_responses": "gpt-5", "google": "gemini-2.5-pro"}
TARGETS = {"load": 1.0, "to_wire": 0.6, "stream": 3.0}
STREAM_TEXT = 1_000_000
DELTA = 4


def _traced(fn: Callable[[], Any]) -> tuple[Any, int, int]:
    """(what ``fn`` returned, bytes still held by it after a collection, peak bytes while it ran)."""
    gc.collect()
    tracemalloc.start()
    try:
        kept = fn()
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return kept, current, peak


def _history_bytes(n: int) -> bytes:
    from partwire.codec import dumps
    from tests.benchmarks.agent_history import agent_history

    return dumps(agent_history(n))


def _load(n: int, how: str) -> dict[str, float]:
    data = _history_bytes(n)
    if how == "partwire":
        from partwire.codec import loads

        _, held, _ = _traced(lambda: loads(data))
    else:
        import orjson

        lines = data.splitlines()
        _, held, _ = _traced(lambda: [orjson.loads(line) for line in lines])
    return {"per_event": held / n}


def _to_wire(api: str, n: int) -> dict[str, float]:
    from partwire.adapters import get_adapter
    from partwire.adapters._kernel import dry_run
    from partwire.codec import loads

    history = loads(_history_bytes(n))
    adapter = get_adapter(api)
    with dry_run():
        projection, _, peak = _traced(lambda: adapter.to_wire(history, model=APIS[api]))
    return {"peak": peak, "body": len(json.dumps(projection.request))}


def _deltas() -> Iterator[Any]:
    from partwire.streaming import StopEvent, TextDeltaEvent

    words = "abcdefghijklmnopqrstuvwxyz"
    for i in range(STREAM_TEXT // DELTA):
        # A new string per delta, as decoding a network read makes one.
        yield TextDeltaEvent(index=0, text=words[i % 23:i % 23 + DELTA - 1] + " ")
    yield StopEvent(stop_reason="stop", stop_reason_raw="end_turn")


def _stream() -> dict[str, float]:
    from partwire.streaming import accumulate

    message, _, peak = _traced(lambda: accumulate(_deltas()))
    return {"peak": peak, "text": len(message.text.encode())}


def child(figure: str) -> dict[str, float]:
    """One figure, measured in this process: ``load:<n>:<partwire|orjson>``, ``to_wire:<api>:<n>``
    or ``stream``."""
    kind, *args = figure.split(":")
    if kind == "load":
        return _load(int(args[0]), args[1])
    if kind == "to_wire":
        return _to_wire(args[0], int(args[1]))
    if kind == "stream":
        return _stream()
    raise SystemExit(f"bench_memory: no figure {figure!r}")


def _fresh(figure: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-m", "tests.benchmarks.bench_memory", figure],
                         check=True, capture_output=True, text=True, env=os.environ.copy())
    result: dict[str, float] = json.loads(out.stdout.splitlines()[-1])
    return result


def _measure() -> dict[str, dict[str, Any]]:
    """Every memory figure, each from a fresh interpreter."""
    results: dict[str, dict[str, Any]] = {}
    for n in LOAD_SIZES:
        ours, dicts = _fresh(f"load:{n}:partwire")["per_event"], _fresh(f"load:{n}:orjson")["per_event"]
        results[f"memory.load.{n}"] = {"value": round(ours / dicts, 3), "unit": "x orjson dicts",
                                       "target": TARGETS["load"], "bytes_per_event": round(ours),
                                       "orjson_bytes_per_event": round(dicts)}
    for api in APIS:
        figure = _fresh(f"to_wire:{api}:{TO_WIRE_SIZE}")
        results[f"memory.to_wire.{api}.{TO_WIRE_SIZE}"] = {
            "value": round(figure["peak"] / figure["body"], 3), "unit": "x request JSON",
            "target": TARGETS["to_wire"], "peak_mb": round(figure["peak"] / 1e6, 1)}
    figure = _fresh("stream")
    results["memory.stream.per_text"] = {"value": round(figure["peak"] / figure["text"], 2),
                                         "unit": "x final text", "target": TARGETS["stream"]}
    return results


FIGURES = [Pass(_measure, runs=1)]


if __name__ == "__main__":
    print(json.dumps(child(sys.argv[1])))
