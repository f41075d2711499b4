"""Accounting benchmarks: counting a long history's tokens against building its request.

All on a 1,000-message agent history, each a ratio to ``to_wire`` of the same history in the
same run (issue 12: an estimate costs at most 2x ``to_wire``; it is one body build plus the
count, so the count alone must stay within 1x):

- ``accounting.count.<adapter>.1000``: counting the request body, as an agent does before each
  call (the counts of strings seen in the previous estimate are remembered). Target <= 1.0x.
- ``accounting.count_cold.<adapter>.1000``: the same with nothing remembered (the first estimate
  of a history): every string goes through the BPE tokenizer. Reported, no target.
- ``accounting.estimate.<adapter>.1000``: the adapter's whole ``estimate_input_tokens`` (its own
  body build plus the count). Target <= 2.0x.

Run with ``python -m tests.benchmarks accounting``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from partwire.adapters import get_adapter
from partwire.adapters._estimate import count_text
from partwire.caches import clear
from partwire.history import HistoryEvent
from tests.benchmarks._timing import best_pair
from tests.benchmarks.agent_history import agent_history

__all__ = ["run"]

_MODELS = {"anthropic": "claude-sonnet-4-6", "openai_chat": "gpt-4o",
           "openai_responses": "gpt-4o", "google": "gemini-2.5-flash"}


def _bench(name: str, history: list[HistoryEvent]) -> dict[str, dict[str, Any]]:
    adapter = get_adapter(name)
    model = _MODELS[name]
    count: Callable[[Mapping[str, Any]], int] = importlib.import_module(
        f"partwire.adapters.{name}._tokens").estimate_request_tokens
    body = adapter.to_wire(history, model=model).request

    def build() -> object:
        return adapter.to_wire(history, model=model)

    def cold() -> object:
        clear()
        return count(body)

    warm_s, wire_s = best_pair(lambda: count(body), build, rounds=7)
    cold_s, wire2_s = best_pair(cold, build, rounds=5)
    whole_s, wire3_s = best_pair(lambda: adapter.estimate_input_tokens(history), build, rounds=7)
    return {
        f"accounting.count.{name}.1000": {
            "value": round(warm_s / wire_s, 2), "unit": "x to_wire", "target": 1.0},
        f"accounting.count_cold.{name}.1000": {
            "value": round(cold_s / wire2_s, 2), "unit": "x to_wire"},
        f"accounting.estimate.{name}.1000": {
            "value": round(whole_s / wire3_s, 2), "unit": "x to_wire", "target": 2.0},
    }


def run() -> dict[str, dict[str, Any]]:
    """Count and estimate over to_wire, per adapter, on a 1,000-message history."""
    history = agent_history(1000)
    count_text("load the tokenizer once; loading is not the per-call cost")
    results: dict[str, dict[str, Any]] = {}
    for name in _MODELS:
        results.update(_bench(name, history))
    return results


if __name__ == "__main__":
    for key, value in run().items():
        print(key, value)
