"""History events to Arrow record batches (the columns of ``_schema``).

The columns hold exactly what the JSONL file holds. Fields with a typed column go there; what is
left, minus the values that equal their field's default, goes to the ``extra`` column as a JSON
object. The rule is written here once, over an event's canonical JSON (``codec.encode``, parsed);
``_direct`` makes the same row from the model's fields, faster, and hands back to this path what
it cannot render exactly. A line that Arrow's UTF-8 strings cannot hold (a lone surrogate read
from a JSON escape) rides whole in ``extra``.

A batch is built as one tuple per row and one per part, turned into columns by ``zip`` and into
arrays by Arrow, in C: a list per column appended to value by value cost more than the values.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from itertools import islice
from typing import Any

import pyarrow as pa

from partwire._collector import hold, release
from partwire.codec import encode
from partwire.history import HistoryEvent

from ._columns import columnar_batch
from ._defaults import EVENT_DEFAULTS, PART_DEFAULTS, SOURCE_DEFAULTS
from ._direct import Row, event_row
from ._schema import (
    EVENT_SCHEMA,
    PART_COLUMNS,
    PART_FIELDS,
    PART_TYPE,
    SOURCE_FIELDS,
    TEXT_FIELDS,
    TYPED_FIELDS,
    USAGE_COUNTS,
    USAGE_TYPE,
)

__all__ = ["LINE_KEY", "BatchBuilder"]

LINE_KEY = "$line"
"""The ``extra`` key of a row that carries its event's whole JSONL line instead of columns."""

_INT64 = (-(2**63), 2**63 - 1)
_COST_STEP = Decimal(1).scaleb(-18)
_COST_MAX = Decimal(10) ** 20


_COMMON = frozenset({"v", "type", "id", "created_at", "role"})
_STRING_COLUMNS = ("text", "call_id", "tool_name", "status", "stop_reason", "model", "provider",
                   "api", "response_id")


class _Unfit(Exception):
    """An event that the typed columns cannot hold exactly (its line goes whole to ``extra``)."""


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _prune(data: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """``data`` without the values that equal their field's default (same JSON type too)."""
    missing = object()
    return {k: v for k, v in data.items()
            if (d := defaults.get(k, missing)) is missing or d != v or type(d) is not type(v)}


def _time(text: Any) -> tuple[datetime | None, bool]:
    """A dumped datetime as the column's UTC instant, and whether the column gives back the
    same text."""
    if text is None:
        return None, True
    if not isinstance(text, str):
        raise _Unfit
    try:
        value = datetime.fromisoformat(text)
    except ValueError as exc:
        raise _Unfit from exc
    if text.endswith("Z"):
        return value, True
    # A naive time or another zone: the column holds the instant (a naive time read as UTC),
    # extra the text as written.
    return (value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)), False


def _count(value: Any) -> int | None:
    if value is None:
        return None
    if type(value) is not int or not _INT64[0] <= value <= _INT64[1]:
        raise _Unfit
    return value


def _cost(text: Any) -> Decimal | None:
    """The cost as the column's decimal, or ``None`` when it does not fit (the text is kept)."""
    if text is None:
        return None
    try:
        value = Decimal(str(text))
        if not value.is_finite() or abs(value) >= _COST_MAX:
            return None
        exact = value.quantize(_COST_STEP)
    except (InvalidOperation, ValueError):
        return None
    return exact if exact == value else None


class BatchBuilder:
    """Collects events as rows and makes a ``RecordBatch`` of them (then starts again)."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._sessions: list[str | None] = []
        self._seqs: list[int] = []
        self._events: list[HistoryEvent] = []

    @property
    def rows(self) -> int:
        """Rows added since the last batch."""
        return len(self._events)

    def add(self, session_id: str | None, seq: int, event: HistoryEvent) -> None:
        """Append one event as one row."""
        self._sessions.append(session_id)
        self._seqs.append(seq)
        self._events.append(event)

    def extend(self, session_id: str | None, first_seq: int, events: list[HistoryEvent]) -> None:
        """Append consecutive events of one session, the first at position ``first_seq``."""
        self._sessions += [session_id] * len(events)
        self._seqs += range(first_seq, first_seq + len(events))
        self._events += events

    def finish(self) -> pa.RecordBatch:
        """The rows added since the last batch, as one ``RecordBatch``; the builder starts again.

        The whole batch is made a column at a time (``_columns``) when its events allow;
        otherwise each event's row is made from its fields (``_direct``) or, failing that, from
        its JSON line; a batch Arrow refuses then (a lone surrogate, which UTF-8 cannot hold;
        a value not of its field's type) is made from JSON lines alone, which keep such a line
        whole.
        """
        sessions, seqs, events = self._sessions, self._seqs, self._events
        self._reset()
        # The batch allocates no cycles: the collector is held off while it is made
        # (``partwire._collector``), or its passes over everything the program holds cost a
        # fifth of the writer's time.
        held = hold(events)
        try:
            return self._finish(sessions, seqs, events)
        finally:
            if held:
                release()

    @staticmethod
    def _finish(sessions: list[str | None], seqs: list[int], events: list[HistoryEvent]) -> pa.RecordBatch:
        batch = columnar_batch(sessions, seqs, events)
        if batch is not None:
            return batch
        rows: list[Row] = []
        parts: list[tuple[Any, ...]] = []
        for session_id, seq, event in zip(sessions, seqs, events, strict=True):
            row = event_row(event, session_id, seq, parts)
            rows.append(row if row is not None else _json_row(session_id, seq, event, parts))
        try:
            return _batch(rows, parts)
        except (UnicodeEncodeError, pa.ArrowException, OverflowError):
            rows, parts = [], []
            for session_id, seq, event in zip(sessions, seqs, events, strict=True):
                rows.append(_json_row(session_id, seq, event, parts))
            return _batch(rows, parts)


def _json_row(session_id: str | None, seq: int, event: HistoryEvent, parts: list[tuple[Any, ...]]) -> Row:
    """The row of ``event`` made from its JSON line (its parts appended to ``parts``)."""
    line = encode(event)
    # The codec writes a lone surrogate as a \ud8xx-\udfff escape; Arrow strings are UTF-8
    # and cannot hold one, so such a line is kept whole (a false alarm only costs room).
    if b"\\ud" not in line and b"\\uD" not in line:
        data = json.loads(line)
        mark = len(parts)
        try:
            return _columns_row(session_id, seq, data, parts)
        except _Unfit:
            del parts[mark:]
    return _line_row(session_id, seq, event, line, len(parts))


def _columns_row(session_id: str | None, seq: int, data: dict[str, Any], parts: list[tuple[Any, ...]]) -> Row:
    kind = data["role"] if data.get("type") == "message" else data.get("type")
    if kind not in TYPED_FIELDS or not isinstance(data.get("id"), str):
        raise _Unfit
    rest = dict(data)
    for key in _COMMON:
        rest.pop(key, None)
    created, exact = _time(data.get("created_at"))
    if not exact:
        rest["created_at"] = data["created_at"]
    values: dict[str, Any] = {}
    _take_strings(rest, TYPED_FIELDS[kind], values)
    own_parts = rest.pop("parts", None) if "parts" in EVENT_DEFAULTS[kind] else None
    if own_parts is not None and not isinstance(own_parts, list):
        raise _Unfit
    if kind in TEXT_FIELDS:
        values["text"] = "".join(p.get("text", "") for p in own_parts or ()
                                 if isinstance(p, dict) and p.get("type") == "text"
                                 and isinstance(p.get("text"), str))
    usage = _usage_row(rest) if kind == "assistant" else None
    started = finished = None
    if kind == "tool":
        started, exact = _time(rest.get("started_at"))
        if exact:
            rest.pop("started_at", None)
        finished, exact = _time(rest.get("finished_at"))
        if exact:
            rest.pop("finished_at", None)
    if own_parts is not None:
        parts.extend([_part_row(p) for p in own_parts])
    extra = _prune(rest, EVENT_DEFAULTS[kind])
    return (session_id, seq, data["v"] if type(data.get("v")) is int else 1, data["type"], data.get("role"),
            data["id"], created, values.pop("parent_id", None), *(values.get(name) for name in _STRING_COLUMNS),
            usage, started, finished, _dumps(extra) if extra else None, own_parts is not None, len(parts))


def _take_strings(rest: dict[str, Any], columns: dict[str, str], into: dict[str, Any]) -> None:
    """Move each field with a string column from ``rest`` to ``into`` (under its column's name)."""
    for field, column in columns.items():
        if field in rest:
            value = rest.pop(field)
            if value is not None and not isinstance(value, str):
                raise _Unfit
            into[column] = value


def _usage_row(rest: dict[str, Any]) -> tuple[Any, ...] | None:
    usage = rest.get("usage")
    if usage is None:
        return None
    if not isinstance(usage, dict):
        raise _Unfit
    left = dict(usage)
    counts = [_count(left.pop(name, None)) for name in USAGE_COUNTS]
    latency = _count(left.pop("latency_ms", None))
    version = left.pop("pricing_version", None)
    if version is not None and not isinstance(version, str):
        raise _Unfit
    # The cost column is for sums; its exact text (a Decimal's own digits) stays in extra.
    cost = _cost(left.get("cost"))
    left = {k: v for k, v in left.items() if v is not None}
    if left:
        rest["usage"] = left
    else:
        del rest["usage"]
    return (*counts, cost, version, latency)


def _part_row(part: Any) -> tuple[Any, ...]:
    if not isinstance(part, dict) or part.get("type") not in PART_FIELDS:
        raise _Unfit
    kind = part["type"]
    rest = dict(part)
    del rest["type"]
    row: dict[str, Any] = {"type": kind}
    _take_strings(rest, PART_FIELDS[kind], row)
    if kind == "server_tool_call":
        row["arguments"] = _dumps(rest.pop("input", None))
    source = rest.get("source")
    if isinstance(source, dict) and source.get("type") in SOURCE_FIELDS:
        source_type = source["type"]
        field, column = SOURCE_FIELDS[source_type]
        value = source.get(field)
        if isinstance(value, str):
            left = dict(source)
            del left["type"], left[field]
            row["source_type"] = source_type
            row[column] = value
            left = _prune(left, SOURCE_DEFAULTS[source_type])
            if left:
                rest["source"] = left
            else:
                del rest["source"]
    extra = _prune(rest, PART_DEFAULTS[kind])
    if extra:
        row["extra"] = _dumps(extra)
    return tuple(row.get(name) for name in PART_COLUMNS)


def _line_row(session_id: str | None, seq: int, event: HistoryEvent, line: bytes, parts_end: int) -> Row:
    """A row whose ``extra`` holds the event's whole line (escapes keep it valid UTF-8)."""
    text = line.decode("utf-8", "backslashreplace")
    created = event.created_at
    return (session_id, seq, 1, event.type, getattr(event, "role", None),
            event.id.encode("utf-8", "replace").decode(),
            created.astimezone(UTC) if created.tzinfo is not None else None, None,
            *(None for _ in _STRING_COLUMNS), None, None, None, _dumps({LINE_KEY: text}), False, parts_end)


_ROW_WIDTH = 23
_TIME_TYPE = EVENT_SCHEMA.field("created_at").type
_NO_USAGE = (None,) * len(USAGE_TYPE)


def _batch(rows: list[Row], parts: list[tuple[Any, ...]]) -> pa.RecordBatch:
    """The rows (and their parts) as one ``RecordBatch``: columns by ``zip``, arrays by Arrow."""
    columns: list[Any] = list(zip(*rows, strict=True)) if rows else [()] * _ROW_WIDTH
    part_columns: list[Any] = list(zip(*parts, strict=True)) if parts else [()] * len(PART_COLUMNS)
    parts_values = pa.StructArray.from_arrays(
        [pa.array(values, pa.string()) for values in part_columns], fields=list(PART_TYPE))
    parts_array = pa.ListArray.from_arrays(
        pa.array([0, *columns[22]], pa.int32()), parts_values, type=EVENT_SCHEMA.field("parts").type,
        mask=pa.array([not has for has in columns[21]], pa.bool_()))
    usage = columns[17]
    usage_columns: list[Any] = (list(zip(*(u if u is not None else _NO_USAGE for u in usage), strict=True))
                                if usage else [()] * len(USAGE_TYPE))
    usage_array = pa.StructArray.from_arrays(
        [pa.array(values, field.type) for values, field in zip(usage_columns, USAGE_TYPE, strict=True)],
        fields=list(USAGE_TYPE), mask=pa.array([u is None for u in usage], pa.bool_()))
    arrays: list[pa.Array] = []
    for field in EVENT_SCHEMA:
        if field.name == "parts":
            arrays.append(parts_array)
        elif field.name == "usage":
            arrays.append(usage_array)
        else:
            arrays.append(pa.array(columns[_COLUMN_OF[field.name]], field.type))
    return pa.RecordBatch.from_arrays(arrays, schema=EVENT_SCHEMA)


# Where each column's values sit in a row (``parts`` is made from the parts and the offsets).
_COLUMN_OF = {name: k for k, name in enumerate(
    ("session_id", "seq", "v", "type", "role", "id", "created_at", "parent_id", "text", "call_id",
     "tool_name", "status", "stop_reason", "model", "provider", "api", "response_id", "usage",
     "started_at", "finished_at", "extra"))}


def iter_batches(sessions: Iterable[tuple[str | None, Iterable[HistoryEvent]]],
                 batch_rows: int) -> Iterator[pa.RecordBatch]:
    """Record batches of at most ``batch_rows`` rows over the events of every session, in order."""
    builder = BatchBuilder()
    for session_id, events in sessions:
        # A session taken a slice at a time (as much as fills the batch), not an event at a
        # time: adding rows one by one took a twentieth of the writer's time.
        remaining = iter(events)
        seq = 0
        while chunk := list(islice(remaining, batch_rows - builder.rows)):
            builder.extend(session_id, seq, chunk)
            seq += len(chunk)
            if builder.rows >= batch_rows:
                yield builder.finish()
    if builder.rows:
        yield builder.finish()
