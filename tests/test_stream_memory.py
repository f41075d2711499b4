"""The accumulator on long streams: the same message as the pieces joined, in bounded memory."""

from __future__ import annotations

import itertools
import tracemalloc
from collections.abc import Iterator

from partwire import TextPart, ThinkingPart, ToolCallPart
from partwire.streaming import (
    Accumulator,
    PartEvent,
    StopEvent,
    StreamEvent,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolCallDeltaEvent,
    ToolCallStartEvent,
    accumulate,
)


def _piece(i: int) -> str:
    return f"{i % 997:x}é"[: 1 + i % 4]


def _interleaved(n: int) -> Iterator[StreamEvent]:
    yield PartEvent(0, TextPart(text="base "))
    yield PartEvent(1, ThinkingPart(text=""))
    yield ToolCallStartEvent(2, "tu_1", "search", {}, None)
    for i in range(n):
        yield TextDeltaEvent(0, _piece(i))
        yield ThinkingDeltaEvent(1, _piece(i + 1))
        yield ToolCallDeltaEvent(2, _piece(i + 2))
    yield StopEvent("stop", "end_turn")


def test_long_stream_accumulates_every_piece_in_order() -> None:
    """Thousands of deltas per part, three parts interleaved, give each part its pieces joined."""
    n = 5_000  # many times the pending bound, and not a multiple of it
    message = accumulate(_interleaved(n))
    text, thinking, call = message.parts
    assert isinstance(text, TextPart)
    assert isinstance(thinking, ThinkingPart)
    assert isinstance(call, ToolCallPart)
    assert text.text == "base " + "".join(_piece(i) for i in range(n))
    assert thinking.text == "".join(_piece(i + 1) for i in range(n))
    assert call.arguments_json == "".join(_piece(i + 2) for i in range(n))


def test_snapshots_between_deltas_match_a_stream_read_whole() -> None:
    """A snapshot taken every few hundred deltas changes nothing in the final message."""
    events = list(_interleaved(2_000))
    acc = Accumulator()
    seen = []
    for i, event in enumerate(events):
        acc.feed(event)
        if i % 333 == 0:
            part = acc.part(0)
            assert isinstance(part, TextPart)
            seen.append(part.text)
    assert all(a == b[: len(a)] for a, b in itertools.pairwise(seen))
    whole = accumulate(events)
    assert acc.message.parts == whole.parts
    assert acc.message.text == whole.text


def test_stream_peak_stays_under_three_times_its_text() -> None:
    """Folding 400 KB of 4-character deltas peaks under 3x the final text, not 11x."""

    def deltas() -> Iterator[StreamEvent]:
        for i in range(100_000):
            yield TextDeltaEvent(0, f"{i % 1000:03d} ")  # a fresh string each, as a network read makes
        yield StopEvent("stop", "end_turn")

    tracemalloc.start()
    try:
        message = accumulate(deltas())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(message.text) == 400_000
    assert peak <= 3 * len(message.text)
