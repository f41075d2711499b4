"""The one walk of a history that every rendering formats: text, Markdown and HTML.

:func:`walk` prices the assistant turns that lack a cost, runs :func:`partwire.codec.replay` and
gives each stored event as an :class:`Entry` carrying what replay derives for it (the response
metadata of an assistant message, the interrupt of an aborted answer or tool run), with the tool
results that the Markdown and HTML transcripts show under the call they answer. A renderer only
formats entries: it never decides again what was interrupted or which result belongs where.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from partwire.codec import InterruptEvent, ResponseMetadataEvent, replay
from partwire.history import HistoryEvent
from partwire.messages import AssistantMessage, ToolMessage
from partwire.parts import ToolCallPart
from partwire.render._common import session_title
from partwire.render._costs import show_costs

__all__ = ["Entry", "Transcript", "walk"]


# Not frozen: the walk sets what replay derives on the entry it belongs to (a frozen dataclass
# would cost a copy per assistant message; renderers only read entries).
@dataclass(slots=True)
class Entry:
    """One stored event as a transcript shows it, with what replay derives for it."""

    index: int
    """The event's position in the history (the HTML page's ``e<index>`` ids)."""
    event: HistoryEvent
    """The stored event, its cost priced when it had none."""
    response: ResponseMetadataEvent | None = None
    """For an assistant message: what it says about the model call behind it."""
    interrupt: InterruptEvent | None = None
    """The interrupt replay derives from this event: an aborted answer or tool run."""
    turn: int | None = None
    """For an assistant message: its number among the assistant messages (a projection turn)."""
    attached: bool = False
    """A tool message answering an earlier call: Markdown and HTML show it under that call."""


@dataclass(frozen=True, slots=True)
class Transcript:
    """A history walked once: its entries in order, and the facts a transcript's head shows."""

    events: list[HistoryEvent]
    """The history, costs priced where missing."""
    entries: list[Entry]
    """One entry per event, in order."""
    total: list[str]
    """The total-cost line(s); none when no message recorded usage."""
    title: str | None
    """The first task title the history holds."""
    answers: dict[str, int] = field(default_factory=dict)
    """Call id -> index of the first tool message answering a call made earlier."""

    @property
    def models(self) -> list[str]:
        """The assistant messages' models, sorted, each once."""
        return sorted({e.model for e in self.events if isinstance(e, AssistantMessage) and e.model})

    def blocks(self) -> Iterator[Entry]:
        """The entries that stand where they are: every one but the results shown under a call."""
        return (entry for entry in self.entries if not entry.attached)

    def result(self, call_id: str) -> Entry | None:
        """The entry of the tool message shown under the call ``call_id``, if the history has one."""
        index = self.answers.get(call_id)
        return None if index is None else self.entries[index]


def walk(history: Sequence[HistoryEvent]) -> Transcript:
    """``history`` walked once for a rendering: priced, replayed, and results matched to calls."""
    events, total = show_costs(history)
    entries: list[Entry] = []
    calls: set[str] = set()
    answers: dict[str, int] = {}
    turns = 0
    # Replay yields each stored event, then what it derives from it: those go on the last entry.
    for item in replay(events):
        if isinstance(item, ResponseMetadataEvent):
            entries[-1].response = item
            continue
        if isinstance(item, InterruptEvent):
            entries[-1].interrupt = item
            continue
        entry = Entry(len(entries), item)
        if isinstance(item, AssistantMessage):
            entry.turn = turns
            turns += 1
            calls.update([part.id for part in item.parts if isinstance(part, ToolCallPart)])
        elif isinstance(item, ToolMessage) and item.call_id in calls and item.call_id not in answers:
            answers[item.call_id] = entry.index
            entry.attached = True
        entries.append(entry)
    return Transcript(events, entries, total, session_title(events), answers)
