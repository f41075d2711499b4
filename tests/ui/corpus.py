"""Every corpus history and recorded stream of the five APIs, as the chat-UI tests read them.

A history is a real request's conversation (``from_wire_request``), with the response's
assistant message after it when the file has one that parses; a stream is a recorded provider
stream read by its adapter's ``stream``. Both are made under deterministic ids and clocks, once
per process.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from partwire import PartwireError
from partwire.adapters import ADAPTER_NAMES, get_adapter
from partwire.history import HistoryEvent
from partwire.ids import deterministic_sources, use_sources
from partwire.streaming import StreamEvent
from tests.harness.corpus import CORPUS

__all__ = ["histories", "streams"]


def _files() -> Iterator[tuple[str, Path]]:
    for name in ADAPTER_NAMES:
        folder = CORPUS / name.replace("_", "-")
        for path in sorted(folder.glob("*.json")):
            yield name, path


@functools.cache
def histories() -> tuple[tuple[str, tuple[HistoryEvent, ...]], ...]:
    """``(file, history)`` for every corpus file with a request or a response that parses."""
    found: list[tuple[str, tuple[HistoryEvent, ...]]] = []
    ids, clock = deterministic_sources()
    with use_sources(ids=ids, clock=clock):
        for name, path in _files():
            adapter = get_adapter(name)
            record: dict[str, Any] = json.loads(path.read_text())
            events: list[HistoryEvent] = []
            request = record.get("request")
            if isinstance(request, dict) and record.get("status") != 400:
                with contextlib.suppress(PartwireError):
                    events.extend(adapter.from_wire_request(request).history)
            response = record.get("response")
            if isinstance(response, dict) and (record.get("status") or 200) < 400:
                with contextlib.suppress(PartwireError):
                    events.append(adapter.from_wire(response))
            if events:
                found.append((f"{path.parent.name}/{path.name}", tuple(events)))
    return tuple(found)


@functools.cache
def streams() -> tuple[tuple[str, tuple[StreamEvent, ...]], ...]:
    """``(file, events)`` for every recorded stream of the corpus that its adapter reads."""
    found: list[tuple[str, tuple[StreamEvent, ...]]] = []
    ids, clock = deterministic_sources()
    with use_sources(ids=ids, clock=clock):
        for name, path in _files():
            record: dict[str, Any] = json.loads(path.read_text())
            source: Any = record["sse"].encode() if isinstance(record.get("sse"), str) else \
                record.get("chunks")
            if not source:
                continue
            try:
                events = tuple(get_adapter(name).stream(source))
            except PartwireError:
                continue  # an error stream the adapter raises on: no message to show
            found.append((f"{path.parent.name}/{path.name}", events))
    return tuple(found)
