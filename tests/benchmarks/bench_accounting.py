"""Accounting benchmarks: counting a long history's tokens against building its request.

All on a 1,000-message agent history, each a ratio to ``to_wire`` of the same history in the
same run (issue 12: an estimate costs at most 2x ``to_wire``; it is one body build plus the
count, so the count alone must stay within 1x):

- ``accounting.count.<adapter>.1000``: counting the request body, as an agent does before each
  call (the counts of strings seen in the previous estimate are remembered). Target <= 1.0x.
- ``accounting.count_cold.<adapter>.1000``: the same with no string remembered (the first estimate
  of a history; the tokenizer stays loaded): every string goes through the BPE tokenizer. Reported, no target.
- ``accounting.estimate.<adapter>.1000``: the adapter's whole ``estimate_input_tokens`` (its own
  body build plus the count). Target <= 2.0x.

Run with ``python -m tests.benchmarks accounting``.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from typing import Any

from partwire.adapters import get_adapter
from partwire.adapters._estimate import count_text
from partwire.caches import clear
from partwire.history import HistoryEvent
from tests.benchmarks._runner import Figure, Timed
from tests.benchmarks.agent_history import agent_history

__all__ = ["FIGURES"]

_MODELS = {"anthropic": "claude-sonnet-4-6", "openai_chat": "gpt-4o",
           "openai_responses": "gpt-4o", "google": "gemini-2.5-flash"}


@functools.cache
def _history() -> list[HistoryEvent]:
    count_text("load the tokenizer once; loading is not the per-call cost")
    return agent_history(1000)


def _timed(name: str, what: str) -> Timed:
    """``what`` (count, count_cold or estimate) of adapter ``name`` against its ``to_wire``."""
    history = _history()
    adapter = get_adapter(name)
    model = _MODELS[name]
    count: Callable[[Mapping[str, Any]], int] = importlib.import_module(
        f"partwire.adapters.{name}._tokens").estimate_request_tokens
    body = adapter.to_wire(history, model=model).request

    def build() -> object:
        return adapter.to_wire(history, model=model)

    def cold() -> object:
        clear(values_only=True)
        return count(body)

    ours = {"count": lambda: count(body), "count_cold": cold,
            "estimate": lambda: adapter.estimate_input_tokens(history)}[what]
    return Timed(ours, build, rounds=2)  # 6 rounds in all (7, and 5 for the cold count, before)


TARGETS = {"count": 1.0, "count_cold": None, "estimate": 2.0}
FIGURES = [Figure(f"accounting.{what}.{name}.1000", "x to_wire", f"{name} to_wire", target,
                  timed=functools.partial(_timed, name, what), digits=2)
           for name in _MODELS for what, target in TARGETS.items()]
