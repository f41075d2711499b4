"""Folding a stream the way the cassette tests of every adapter check it."""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable

from partwire import AssistantMessage
from partwire.ids import deterministic_sources, use_sources
from partwire.streaming import Accumulator, MessageCompleteEvent, StreamEvent, TextDeltaEvent

__all__ = ["aabort_after", "abort_after", "assert_one_completion_last", "fold"]


def fold(events: Iterable[StreamEvent]) -> tuple[AssistantMessage, list[StreamEvent]]:
    """The accumulated message of a stream of events, and the events, under deterministic ids."""
    seen: list[StreamEvent] = []
    ids, clock = deterministic_sources()
    with use_sources(ids=ids, clock=clock):
        acc = Accumulator()
        for event in events:
            seen.append(event)
            acc.feed(event)
    return acc.message, seen


def assert_one_completion_last(events: list[StreamEvent]) -> None:
    """The stream ends with exactly one MessageCompleteEvent."""
    completions = [e for e in events if isinstance(e, MessageCompleteEvent)]
    assert len(completions) == 1
    assert events[-1] is completions[0]


class _StopAt:
    """An accumulator that aborts once the streamed text is exactly ``text``."""

    def __init__(self, text: str) -> None:
        self.acc = Accumulator()
        self.text = text
        self.streamed = ""

    def feed(self, event: StreamEvent) -> AssistantMessage | None:
        self.acc.feed(event)
        if isinstance(event, TextDeltaEvent):
            self.streamed += event.text
            if self.streamed == self.text:
                return self.acc.abort()
        return None

    def missed(self) -> AssertionError:
        return AssertionError(f"the stream never carried exactly {self.text!r}; it carried {self.streamed!r}")


def abort_after(events: Iterable[StreamEvent], text: str) -> AssistantMessage:
    """Feed events until the streamed text is exactly ``text``, then abort as a user would."""
    stop = _StopAt(text)
    for event in events:
        if (partial := stop.feed(event)) is not None:
            return partial
    raise stop.missed()


async def aabort_after(events: AsyncIterable[StreamEvent], text: str) -> AssistantMessage:
    """:func:`abort_after` over an asynchronous stream: stop reading there, as a user would."""
    stop = _StopAt(text)
    async for event in events:
        if (partial := stop.feed(event)) is not None:
            return partial
    raise stop.missed()
