"""Derived rows: what the store indexes about each event, computed from the decoded event.

Every derived column can be recomputed from the verbatim line (``Store.rebuild`` does), so the
derivation lives here once, for both backends, and is pure: events in, rows out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from partwire._memo import memo
from partwire.history import HistoryEvent, ModelSwitchEvent, TaskMetadataEvent
from partwire.messages import AssistantMessage, ToolMessage
from partwire.parts import RefusalPart, TextPart, ThinkingPart, ToolCallPart
from partwire.pricing import Cost, PriceTable, pricer
from partwire.usage import Usage

__all__ = ["Derived", "SessionTotals", "clean", "derive", "price", "texts", "timestamp"]

Row = tuple[Any, ...]

TOOL_OUTPUT_INDEX = -1
"""The ``parts.idx`` of a tool message's ``output_text`` (searchable like a text part)."""
_TEXT_PARTS = (TextPart, ThinkingPart, RefusalPart)


def timestamp(value: datetime) -> str:
    """A sortable UTC timestamp with microseconds: ``2026-01-01T00:00:00.000000Z``."""
    if value.utcoffset():  # aware and not UTC (a naive time is taken as UTC, as it is)
        value = value.astimezone(UTC)
    if value.year < 1000:  # strftime's unpadded year, as it always was written
        return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    # The first 26 characters of the ISO form are the same text, without strftime's format parsing.
    return value.isoformat(timespec="microseconds")[:26] + "Z"


def clean(text: str) -> str:
    """``text`` as a database text value: NUL (which PostgreSQL refuses) and lone surrogates
    (which are not UTF-8) become U+FFFD. Only derived columns are cleaned; the line is verbatim."""
    if text.isascii() and "\x00" not in text:
        return text
    return text.replace("\x00", "\ufffd").encode("utf-8", "replace").decode("utf-8")


@dataclass(slots=True)
class SessionTotals:
    """A session's running summary, carried from one write to the next."""

    created_at: str | None = None
    updated_at: str | None = None
    last_seq: int = 0
    last_event_id: str | None = None
    event_count: int = 0
    message_count: int = 0
    model: str | None = None
    title: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost: Decimal | None = None
    uncosted: int = 0
    forked_seq: int = 0
    """A fork's first ``forked_seq`` events are its parent's (read, never written by a write)."""


@dataclass(slots=True)
class Derived:
    """The rows one write adds, and the tool results that answer calls stored earlier."""

    events: list[Row] = field(default_factory=list)
    messages: list[Row] = field(default_factory=list)
    """Assistant messages: ``(session_id, seq, model, status, stop_reason, input_tokens,
    output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost, pricing_version)``."""
    parts: list[Row] = field(default_factory=list)
    """The searchable texts: ``(session_id, seq, idx, type, text)``."""
    tool_calls: dict[str, list[Any]] = field(default_factory=dict)
    """New calls by id: ``[seq, message_id, name, status, result_seq, result_id, created_at,
    started_at, finished_at]``."""
    results: list[Row] = field(default_factory=list)
    """``(status, result_seq, result_id, started_at, finished_at, call_id)`` for calls stored earlier."""


def derive(
    session_id: str, items: list[tuple[HistoryEvent, bytes]], totals: SessionTotals, *, with_texts: bool = True
) -> Derived:
    """The rows for ``items`` appended after ``totals.last_seq``; updates ``totals`` in place.
    Without ``with_texts``, no searchable texts (their indexing is left for later: :func:`texts`)."""
    out = Derived()
    add_text: Callable[[Row], None] | None = out.parts.append if with_texts else None
    events_append = out.events.append
    seq = totals.last_seq
    created_at, updated_at = totals.created_at, totals.updated_at
    event_id: str | None = totals.last_event_id
    messages = 0
    for event, line in items:
        seq += 1
        created = timestamp(event.created_at)
        event_id = event.id
        if not event_id.isascii() or "\x00" in event_id:
            event_id = clean(event_id)
        role = getattr(event, "role", None)
        events_append((session_id, seq, event_id, event.type, role, created, line))
        if created_at is None:
            created_at = created
        if updated_at is None or created > updated_at:
            updated_at = created
        if role is not None:
            messages += 1
            _message(session_id, seq, event_id, event, created, out, totals, add_text)
        elif isinstance(event, TaskMetadataEvent):
            if event.title is not None:
                totals.title = clean(event.title)
        elif isinstance(event, ModelSwitchEvent):
            totals.model = clean(event.to_model)
        # A compaction is found through the events (session_id, type, seq) index: nothing to derive.
    totals.created_at, totals.updated_at = created_at, updated_at
    totals.event_count += len(items)
    totals.message_count += messages
    totals.last_event_id = event_id
    totals.last_seq = seq
    return out


def _message(
    session_id: str, seq: int, event_id: str, event: Any, created: str, out: Derived, totals: SessionTotals,
    add_text: Callable[[Row], None] | None,
) -> None:
    model = status = stop = usage = None
    if isinstance(event, AssistantMessage):
        model = clean(event.model) if event.model is not None else None
        status, stop, usage = event.status, event.stop_reason, event.usage
        if model is not None:
            totals.model = model
        interrupted = status == "aborted" or stop == "aborted"
        for part in event.parts:
            if isinstance(part, ToolCallPart):
                out.tool_calls[clean(part.id)] = [
                    seq, event_id, clean(part.name), "aborted" if interrupted else "pending",
                    None, None, created, None, None,
                ]
    elif isinstance(event, ToolMessage):
        started = timestamp(event.started_at) if event.started_at is not None else None
        finished = timestamp(event.finished_at) if event.finished_at is not None else None
        call_id = clean(event.call_id)
        pending = out.tool_calls.get(call_id)
        if pending is not None:
            pending[3:] = [event.status, seq, event_id, pending[6], started, finished]
        else:
            out.results.append((event.status, seq, event_id, started, finished, call_id))
    if add_text is not None:
        _texts(session_id, seq, event, add_text)
    if not isinstance(event, AssistantMessage):
        return
    if usage is None:
        out.messages.append((session_id, seq, model, status, stop, None, None, None, None, None, None, None))
        return
    totals.input_tokens += usage.input_tokens
    totals.output_tokens += usage.output_tokens
    totals.cache_read_tokens += usage.cache_read_tokens
    totals.cache_write_tokens += usage.cache_write_tokens
    totals.reasoning_tokens += usage.reasoning_tokens
    cost, version = (usage.cost, usage.pricing_version) if usage.cost is not None else price(event)
    if cost is not None:
        totals.cost = cost if totals.cost is None else totals.cost + cost
    else:
        totals.uncosted += 1
    out.messages.append((
        session_id, seq, model, status, stop,
        usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens,
        usage.reasoning_tokens, None if cost is None else str(cost), version,
    ))


def texts(session_id: str, items: list[tuple[int, HistoryEvent]]) -> list[Row]:
    """The searchable texts ``(session_id, seq, idx, type, text)`` of events stored at ``seq``: the
    rows :func:`derive` gives them (what the full-text index was, or is to be, given)."""
    out: list[Row] = []
    for seq, event in items:
        if getattr(event, "role", None) is not None:
            _texts(session_id, seq, event, out.append)
    return out


def _texts(session_id: str, seq: int, event: Any, append: Callable[[Row], None]) -> None:
    if isinstance(event, ToolMessage) and event.output_text:
        append((session_id, seq, TOOL_OUTPUT_INDEX, "tool_output", clean(event.output_text)))
    for index, part in enumerate(event.parts):
        if isinstance(part, _TEXT_PARTS) and part.text:
            text = part.text
            if not text.isascii() or "\x00" in text:
                text = clean(text)
            append((session_id, seq, index, part.type, text))


def price(message: AssistantMessage, *, table: PriceTable | None = None,
          at: datetime | None = None) -> tuple[Decimal | None, str | None]:
    """A message's cost and the version of the prices that made it, from the price data
    ``partwire cost`` uses (:func:`partwire.pricing.message_cost`: genai-prices, the ``pricing``
    extra, or a user ``table``), with the prices of its own day or of ``at``; ``(None, None)`` when
    its model has no price. Prices are looked up once per model and day."""
    usage = message.usage
    if usage is None:
        return None, None
    model = message.model
    if model and ":" not in model and message.provider:
        model = f"{message.provider}:{model}"  # as message_cost names it
    when = at or message.created_at
    key = (model, when.date(), id(table) if table is not None else None)
    found = _PRICERS.get(key)
    if found is None or table is not None:
        if len(_PRICERS) > 4096:
            _PRICERS.clear()
        found = pricer(model, at=when, table=table)
        if table is None:
            _PRICERS[key] = found
    cost = found(usage)
    return cost.usd, str(cost.version) if cost.usd is not None and cost.version else None


_PRICERS: dict[tuple[str | None, date, int | None], Callable[[Usage], Cost]] = memo({})
