"""History events to Arrow record batches (the columns of ``_schema``).

Each event is taken from its canonical JSON (``codec.encode``), so the columns hold exactly what
the JSONL file holds. Fields with a typed column go there; what is left, minus the values that
equal their field's default, goes to the ``extra`` column as a JSON object. A line that Arrow's
UTF-8 strings cannot hold (a lone surrogate read from a JSON escape) rides whole in ``extra``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

import pyarrow as pa
from pydantic import BaseModel
from pydantic_core import PydanticUndefined, to_jsonable_python

from partwire.codec import encode
from partwire.history import NON_MESSAGE_CLASSES, HistoryEvent
from partwire.messages import MESSAGE_CLASSES
from partwire.parts import PART_CLASSES, SOURCE_CLASSES

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


def _defaults(cls: type[BaseModel]) -> dict[str, Any]:
    """The JSON form of each optional field's default: values equal to it need not be stored."""
    found: dict[str, Any] = {}
    for name, field in cls.model_fields.items():
        if field.is_required():
            continue
        value = field.get_default(call_default_factory=True)
        if value is not PydanticUndefined:
            found[name] = to_jsonable_python(value)
    return found


_EVENT_CLASSES: dict[str, type[BaseModel]] = {**MESSAGE_CLASSES, **NON_MESSAGE_CLASSES}
EVENT_DEFAULTS = {kind: _defaults(cls) for kind, cls in _EVENT_CLASSES.items()}
PART_DEFAULTS = {kind: _defaults(cls) for kind, cls in PART_CLASSES.items()}
SOURCE_DEFAULTS = {kind: _defaults(cls) for kind, cls in SOURCE_CLASSES.items()}
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


def _time(text: Any) -> tuple[str | None, bool]:
    """A dumped datetime as UTC ISO text for the column (Arrow parses it, in C), and whether the
    column gives back the same text."""
    if text is None:
        return None, True
    if not isinstance(text, str):
        raise _Unfit
    if text.endswith("Z"):
        return text, True
    try:
        value = datetime.fromisoformat(text)
    except ValueError as exc:
        raise _Unfit from exc
    # A naive time or another zone: the column holds the instant (a naive time read as UTC),
    # extra the text as written.
    value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return value.isoformat(), False


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
    """Collects events as columns and makes a ``RecordBatch`` of them (then starts again)."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self.rows = 0
        self._session: list[str | None] = []
        self._seq: list[int] = []
        self._v: list[int] = []
        self._type: list[str] = []
        self._role: list[str | None] = []
        self._id: list[str] = []
        self._created: list[str | None] = []
        self._parent: list[str | None] = []
        self._strings: dict[str, list[str | None]] = {name: [] for name in _STRING_COLUMNS}
        self._usage: list[dict[str, Any] | None] = []
        self._started: list[str | None] = []
        self._finished: list[str | None] = []
        self._extra: list[str | None] = []
        self._offsets: list[int] = [0]
        self._has_parts: list[bool] = []
        self._part: dict[str, list[str | None]] = {name: [] for name in PART_COLUMNS}

    def add(self, session_id: str | None, seq: int, event: HistoryEvent) -> None:
        """Append one event as one row."""
        line = encode(event)
        # The codec writes a lone surrogate as a \ud8xx-\udfff escape; Arrow strings are UTF-8
        # and cannot hold one, so such a line is kept whole (a false alarm only costs room).
        if b"\\ud" not in line and b"\\uD" not in line:
            data = json.loads(line)
            mark = len(self._part["type"])
            try:
                self._add_columns(session_id, seq, data)
                return
            except _Unfit:
                self._truncate(mark)
        self._add_line(session_id, seq, event, line)

    def _add_columns(self, session_id: str | None, seq: int, data: dict[str, Any]) -> None:
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
        for field, column in TYPED_FIELDS[kind].items():
            if field in rest:
                value = rest.pop(field)
                if value is not None and not isinstance(value, str):
                    raise _Unfit
                values[column] = value
        parts = rest.pop("parts", None) if kind in EVENT_DEFAULTS and "parts" in EVENT_DEFAULTS[kind] else None
        if parts is not None and not isinstance(parts, list):
            raise _Unfit
        if kind in TEXT_FIELDS:
            values["text"] = "".join(p.get("text", "") for p in parts or ()
                                     if isinstance(p, dict) and p.get("type") == "text"
                                     and isinstance(p.get("text"), str))
        usage = self._usage_row(rest) if kind == "assistant" else None
        started = finished = None
        if kind == "tool":
            started, exact = _time(rest.get("started_at"))
            if exact:
                rest.pop("started_at", None)
            finished, exact = _time(rest.get("finished_at"))
            if exact:
                rest.pop("finished_at", None)
        part_rows = [self._part_row(p) for p in parts] if parts is not None else None
        extra = _prune(rest, EVENT_DEFAULTS[kind])

        # Nothing below raises: the row is appended whole or not at all.
        self._session.append(session_id)
        self._seq.append(seq)
        self._v.append(data["v"] if type(data.get("v")) is int else 1)
        self._type.append(data["type"])
        self._role.append(data.get("role"))
        self._id.append(data["id"])
        self._created.append(created)
        self._parent.append(values.pop("parent_id", None))
        for name in _STRING_COLUMNS:
            self._strings[name].append(values.get(name))
        self._usage.append(usage)
        self._started.append(started)
        self._finished.append(finished)
        self._extra.append(_dumps(extra) if extra else None)
        self._has_parts.append(part_rows is not None)
        if part_rows:
            for row in part_rows:
                for name in PART_COLUMNS:
                    self._part[name].append(row.get(name))
        self._offsets.append(len(self._part["type"]))
        self.rows += 1

    def _usage_row(self, rest: dict[str, Any]) -> dict[str, Any] | None:
        usage = rest.get("usage")
        if usage is None:
            return None
        if not isinstance(usage, dict):
            raise _Unfit
        left = dict(usage)
        row: dict[str, Any] = {name: _count(left.pop(name, None)) for name in USAGE_COUNTS}
        row["latency_ms"] = _count(left.pop("latency_ms", None))
        version = left.pop("pricing_version", None)
        if version is not None and not isinstance(version, str):
            raise _Unfit
        row["pricing_version"] = version
        # The cost column is for sums; its exact text (a Decimal's own digits) stays in extra.
        row["cost"] = _cost(left.get("cost"))
        left = {k: v for k, v in left.items() if v is not None}
        if left:
            rest["usage"] = left
        else:
            del rest["usage"]
        return row

    def _part_row(self, part: Any) -> dict[str, Any]:
        if not isinstance(part, dict) or part.get("type") not in PART_FIELDS:
            raise _Unfit
        kind = part["type"]
        rest = dict(part)
        del rest["type"]
        row: dict[str, Any] = {"type": kind}
        for field, column in PART_FIELDS[kind].items():
            if field in rest:
                value = rest.pop(field)
                if value is not None and not isinstance(value, str):
                    raise _Unfit
                row[column] = value
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
        return row

    def _truncate(self, mark: int) -> None:
        for column in self._part.values():
            del column[mark:]

    def _add_line(self, session_id: str | None, seq: int, event: HistoryEvent, line: bytes) -> None:
        """A row whose ``extra`` holds the event's whole line (escapes keep it valid UTF-8)."""
        text = line.decode("utf-8", "backslashreplace")
        self._session.append(session_id)
        self._seq.append(seq)
        self._v.append(1)
        self._type.append(event.type)
        self._role.append(getattr(event, "role", None))
        self._id.append(event.id.encode("utf-8", "replace").decode())
        created = event.created_at
        self._created.append(created.astimezone(UTC).isoformat()
                             if created.tzinfo is not None else None)
        self._parent.append(None)
        for name in _STRING_COLUMNS:
            self._strings[name].append(None)
        self._usage.append(None)
        self._started.append(None)
        self._finished.append(None)
        self._extra.append(_dumps({LINE_KEY: text}))
        self._has_parts.append(False)
        self._offsets.append(len(self._part["type"]))
        self.rows += 1

    def finish(self) -> pa.RecordBatch:
        """The rows added since the last batch, as one ``RecordBatch``; the builder starts again."""
        parts_values = pa.StructArray.from_arrays(
            [pa.array(self._part[name], pa.string()) for name in PART_COLUMNS],
            fields=list(PART_TYPE),
        )
        mask = pa.array([not has for has in self._has_parts], pa.bool_())
        parts = pa.ListArray.from_arrays(pa.array(self._offsets, pa.int32()), parts_values,
                                         type=EVENT_SCHEMA.field("parts").type, mask=mask)
        strings = {name: pa.array(values, pa.string()) for name, values in self._strings.items()}
        time_type = EVENT_SCHEMA.field("created_at").type
        columns = {
            "session_id": pa.array(self._session, pa.string()),
            "seq": pa.array(self._seq, pa.int64()),
            "v": pa.array(self._v, pa.int32()),
            "type": pa.array(self._type, pa.string()),
            "role": pa.array(self._role, pa.string()),
            "id": pa.array(self._id, pa.string()),
            "created_at": pa.array(self._created, pa.string()).cast(time_type),
            "parent_id": pa.array(self._parent, pa.string()),
            "parts": parts,
            **strings,
            "usage": pa.array(self._usage, USAGE_TYPE),
            "started_at": pa.array(self._started, pa.string()).cast(time_type),
            "finished_at": pa.array(self._finished, pa.string()).cast(time_type),
            "extra": pa.array(self._extra, pa.string()),
        }
        batch = pa.RecordBatch.from_arrays([columns[f.name] for f in EVENT_SCHEMA], schema=EVENT_SCHEMA)
        self._reset()
        return batch


def iter_batches(sessions: Iterable[tuple[str | None, Iterable[HistoryEvent]]],
                 batch_rows: int) -> Iterator[pa.RecordBatch]:
    """Record batches of at most ``batch_rows`` rows over the events of every session, in order."""
    builder = BatchBuilder()
    for session_id, events in sessions:
        for seq, event in enumerate(events):
            builder.add(session_id, seq, event)
            if builder.rows >= batch_rows:
                yield builder.finish()
    if builder.rows:
        yield builder.finish()
