"""Arrow record batches back to history events: the typed columns, with ``extra`` laid over them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pydantic import TypeAdapter, ValidationError

from partwire.codec import decode
from partwire.errors import DecodeError
from partwire.history import HistoryEvent

from ._build import Columns, same_types, times
from ._schema import (
    ARROW_SCHEMA_VERSION,
    EVENT_SCHEMA,
    PART_COLUMNS,
    PART_FIELDS,
    SOURCE_FIELDS,
    TEXT_FIELDS,
    TYPED_FIELDS,
    USAGE_COUNTS,
)
from ._write import LINE_KEY

__all__ = ["check_schema", "iter_rows", "read_batch"]

_EVENTS: TypeAdapter[HistoryEvent] = TypeAdapter(HistoryEvent)
_MESSAGE_KINDS = frozenset({"system", "developer", "user", "assistant", "tool"})


def check_schema(schema: pa.Schema, source: str | None) -> None:
    """Refuse data written with another schema version, or missing a column this reader needs."""
    version = (schema.metadata or {}).get(b"partwire.arrow.schema")
    if version is not None and version.decode() != ARROW_SCHEMA_VERSION:
        raise DecodeError(f"Arrow schema version {version.decode()} is not the version this partwire "
                          f"reads ({ARROW_SCHEMA_VERSION})", file=source)
    missing = [f.name for f in EVENT_SCHEMA if f.name not in schema.names]
    if missing:
        raise DecodeError(f"not a partwire history table: no column {', '.join(missing)}", file=source)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> None:
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value


def _json(text: str, source: str | None, row: int, path: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise DecodeError(f"not JSON: {exc}", file=source, line=row, path=path) from exc
    if not isinstance(value, dict):
        raise DecodeError(f"expected a JSON object, got {type(value).__name__}", file=source, line=row,
                          path=path)
    return value


def iter_rows(batch: pa.RecordBatch, *, source: str | None = None,
              first_row: int = 1) -> Iterator[tuple[str | None, HistoryEvent]]:
    """``(session_id, event)`` for each row of ``batch``; errors name the row (1-based, counted
    from ``first_row``) as their line."""
    sessions, events = read_batch(batch, source=source, first_row=first_row)
    return zip(sessions, events, strict=True)


def read_batch(batch: pa.RecordBatch, *, source: str | None = None,
               first_row: int = 1) -> tuple[list[str | None], list[HistoryEvent]]:
    """The session id and the event of each row of ``batch``, as :func:`iter_rows` gives them.

    Each row's event is made straight from the columns (``_build``) when its values are ones
    that path checks, and validated from a dict of its fields otherwise.
    """
    check_schema(batch.schema, source)
    # Times as datetimes made from their microseconds (Arrow's own datetimes, made with a zone
    # object per value, cost several times more); a time beyond datetime's years goes to
    # validation as text, which says what is wrong with it.
    made = [times(batch.column(name)) for name in _TIMES]
    created, started, finished = made
    fast = None
    if created is not None and started is not None and finished is not None and same_types(batch.schema):
        fast = Columns(batch, created, started, finished)
    validated: _Validated | None = None
    events: list[HistoryEvent] = []
    made_event = fast.event if fast is not None else None
    for i in range(batch.num_rows):
        event = made_event(i) if made_event is not None else None
        if event is None:
            if validated is None:
                validated = _Validated(batch, made, source)
            event = validated.event(i, first_row + i)
        events.append(event)
    return batch.column("session_id").to_pylist(), events


_TIMES = ("created_at", "started_at", "finished_at")


class _Validated:
    """The slow path: a row's fields as a dict, with ``extra`` laid over them, validated."""

    def __init__(self, batch: pa.RecordBatch, made: list[list[Any] | None], source: str | None) -> None:
        col = {name: batch.column(name).to_pylist() for name in
               ("v", "type", "role", "id", "text", "call_id", "tool_name", "status", "stop_reason", "model",
                "provider", "api", "response_id", "parent_id", "extra")}
        for name, values in zip(_TIMES, made, strict=True):
            col[name] = values if values is not None else pc.strftime(
                batch.column(name), format="%Y-%m-%dT%H:%M:%SZ").to_pylist()
        self.col, self.source = col, source
        usage_column = batch.column("usage")
        self.usage_valid = usage_column.is_valid().to_pylist()
        self.usage_fields = {name: usage_column.field(name).to_pylist()
                             for name in (*USAGE_COUNTS, "latency_ms", "pricing_version")}
        parts = batch.column("parts")
        self.offsets = parts.offsets.to_pylist()
        self.valid = parts.is_valid().to_pylist()
        flat = parts.values
        self.part_cols = {name: flat.field(name).to_pylist() for name in PART_COLUMNS}

    def event(self, i: int, row: int) -> HistoryEvent:
        col, source = self.col, self.source
        extra_text = col["extra"][i]
        extra = _json(extra_text, source, row, "extra") if extra_text is not None else {}
        line = extra.get(LINE_KEY)
        if isinstance(line, str):
            return decode(line, file=source, line_no=row)
        kind = col["type"][i]
        data: dict[str, Any] = {"v": col["v"][i], "type": kind, "id": col["id"][i]}
        if col["created_at"][i] is not None:
            data["created_at"] = col["created_at"][i]
        if kind == "message":
            kind = col["role"][i]
            data["role"] = kind
        for field, column in TYPED_FIELDS.get(kind, {}).items():
            if column == "text" and kind in TEXT_FIELDS:
                continue
            data[field] = col[column][i]
        if kind in _MESSAGE_KINDS and self.valid[i]:
            data["parts"] = [_part(j, self.part_cols["type"], self.part_cols, source, row)
                             for j in range(self.offsets[i], self.offsets[i + 1])]
        if kind == "assistant":
            if self.usage_valid[i]:
                data["usage"] = {k: values[i] for k, values in self.usage_fields.items()
                                 if values[i] is not None}
        elif kind == "tool":
            data["started_at"] = col["started_at"][i]
            data["finished_at"] = col["finished_at"][i]
        _merge(data, extra)
        try:
            return _EVENTS.validate_python(data)
        except ValidationError as exc:
            error = exc.errors()[0]
            path = ".".join(str(p) for p in error["loc"])
            raise DecodeError(f"not a history event: {error['msg']}", file=source, line=row,
                              path=path) from exc


def _part(j: int, types: list[Any], cols: dict[str, list[Any]], source: str | None,
          row: int) -> dict[str, Any]:
    kind = types[j]
    part: dict[str, Any] = {"type": kind}
    for field, column in PART_FIELDS.get(kind, {}).items():
        value = cols[column][j]
        if value is not None:
            part[field] = value
    if kind == "server_tool_call" and cols["arguments"][j] is not None:
        try:
            part["input"] = json.loads(cols["arguments"][j])
        except ValueError as exc:
            raise DecodeError(f"server tool input is not JSON: {exc}", file=source, line=row,
                              path="parts.arguments") from exc
    source_type = cols["source_type"][j]
    if source_type in SOURCE_FIELDS:
        field, column = SOURCE_FIELDS[source_type]
        part["source"] = {"type": source_type, field: cols[column][j]}
    extra = cols["extra"][j]
    if extra is not None:
        _merge(part, _json(extra, source, row, "parts.extra"))
    return part
