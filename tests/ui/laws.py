"""The round-trip law of every chat-UI format: canonical -> format -> canonical keeps every id
and signature, and every other difference is named by a loss of the way out."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from partwire import RedactedThinkingPart, ThinkingPart, ToolCallPart
from partwire.history import HistoryEvent
from partwire.projection import Loss
from tests.ui.canonical import dumped

__all__ = ["round_trip_problems"]


def _secrets(event: HistoryEvent) -> list[str]:
    """What replay needs back byte for byte: signatures, redacted data, call ids, item ids."""
    found: list[str] = []
    for part in getattr(event, "parts", ()):
        if isinstance(part, ThinkingPart):
            found += [part.signature.value] if part.signature else []
            found += [part.id] if part.id else []
        elif isinstance(part, RedactedThinkingPart):
            found.append(part.data.value)
        elif isinstance(part, ToolCallPart):
            found += [part.id, *part.provider_ids.values()]
    call_id = getattr(event, "call_id", None)
    return [*found, call_id] if isinstance(call_id, str) else found


def round_trip_problems(history: Sequence[HistoryEvent], losses: Sequence[Loss],
                        back: Sequence[HistoryEvent]) -> list[str]:
    """What breaks the law for one history (empty when it holds)."""
    problems: list[str] = []
    by_id: dict[str, list[tuple[int, HistoryEvent]]] = {}
    for k, event in enumerate(back):
        by_id.setdefault(event.id, []).append((k, event))
    named = {i for i in range(len(history)) for loss in losses
             if loss.path == f"history[{i}]" or loss.path.startswith(f"history[{i}].")}
    dropped = {loss.path for loss in losses if loss.action == "dropped"}
    kept_order: list[int] = []
    for i, event in enumerate(history):
        if f"history[{i}]" in dropped:
            continue
        same = by_id.get(event.id)
        if not same:
            problems.append(f"history[{i}] ({event.type}) lost its id {event.id} with no loss")
            continue
        at, again = same.pop(0)
        if i not in named:
            kept_order.append(at)
            if dumped(again) != dumped(event):
                problems.append(f"history[{i}] changed with no loss: {_diff(dumped(event), dumped(again))}")
        kept = set(_secrets(again))
        problems += [f"history[{i}] lost {s[:40]!r}" for s in _secrets(event) if s not in kept]
    problems += [f"{event.id} came back with no event of the history for it (or was reported dropped)" for rest in by_id.values() for _, event in rest]
    if kept_order != sorted(kept_order):
        problems.append("the order of the messages changed with no loss")
    return problems


def _diff(a: dict[str, Any], b: dict[str, Any]) -> str:
    keys = sorted(k for k in {*a, *b} if a.get(k) != b.get(k))
    return ", ".join(f"{k}: {json.dumps(a.get(k))[:120]} -> {json.dumps(b.get(k))[:120]}" for k in keys)
