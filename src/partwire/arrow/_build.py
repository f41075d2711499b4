"""Events made straight from the columns of a batch: the reader's fast path.

Validation would check every value of a row again, one Python object at a time; here the checks
are the few a column cannot answer by its type (a status among its literals, a required string
present, a count not negative), made on the values as they come out of the column, and the
models are made as the decoders make them from values already checked (``partwire._base.build``).
A row whose event these checks do not cover (anything in its ``extra`` column but a cost, a part
of another kind, a value out of place) gets ``None`` here and is read by validation, which also
says what is wrong with it.
"""

from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pyarrow as pa

from pydantic import BaseModel

from partwire._base import build, fields_maker
from partwire.parts import RefusalPart, TextPart, ThinkingPart, ToolCallPart
from partwire.usage import Usage

from ._defaults import EVENT_CLASSES, field_defaults
from ._schema import EVENT_SCHEMA, TEXT_FIELDS, TYPED_FIELDS, USAGE_COUNTS

__all__ = ["Columns", "same_types", "times"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# The extra of an assistant whose only remains are its cost's digits (as str(Decimal) writes them).
_COST_ONLY = re.compile(r'\{"usage":\{"cost":"(-?[0-9]+(?:\.[0-9]+)?(?:E[+-][0-9]+)?)"\}\}')
_MESSAGE_KINDS = frozenset({"system", "developer", "user", "assistant", "tool"})
_PART_MAKERS: dict[str, Callable[[Any], Any]] = {
    "text": fields_maker(TextPart, "text"),
    "thinking": fields_maker(ThinkingPart, "text"),
    "refusal": fields_maker(RefusalPart, "text"),
}


def _allowed(annotation: Any) -> tuple[bool, frozenset[Any] | None]:
    """Whether a string field's annotation admits ``None``, and the values it admits (``None``:
    any string)."""
    args = typing.get_args(annotation) if isinstance(annotation, types.UnionType) or \
        typing.get_origin(annotation) is typing.Union else (annotation,)
    nullable = type(None) in args
    choices: set[Any] = set()
    for arg in args:
        if typing.get_origin(arg) is typing.Literal:
            choices.update(typing.get_args(arg))
    return nullable, frozenset(choices) if choices else None


_LINE = frozenset({"v", "type", "id", "created_at", "role"})


def _template(cls: type[BaseModel]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Every field of ``cls`` at its default (the line's own fields too, filled in per row), and
    the fields whose default is a fresh container per instance."""
    defaults = field_defaults(cls)
    fresh = tuple(name for name, field in cls.model_fields.items()
                  if field.default_factory is not None and name in defaults)
    return {name: defaults.get(name) for name in cls.model_fields}, fresh


class _Kind:
    """How one kind of row becomes its event: the typed columns it reads, what each admits, and
    the event's fields at their defaults."""

    def __init__(self, kind: str) -> None:
        self.cls = EVENT_CLASSES[kind]
        self.kind = kind
        self.message = kind in _MESSAGE_KINDS
        self.fields: list[tuple[str, str, bool, frozenset[Any] | None]] = []
        for field, column in TYPED_FIELDS[kind].items():
            if column == "text" and kind in TEXT_FIELDS:
                continue
            nullable, choices = _allowed(self.cls.model_fields[field].annotation)
            self.fields.append((field, column, nullable, choices))
        self.template, self.fresh = _template(self.cls)
        # The fields an ``extra`` may hold for this path (strings with no typed column), with
        # whether each admits null; and the required fields, which a row must fill.
        self.strings = {name: field.annotation is not str for name, field in self.cls.model_fields.items()
                        if name not in TYPED_FIELDS[kind] and name not in _LINE
                        and field.annotation in (str, str | None)}
        self.required = tuple(name for name, field in self.cls.model_fields.items()
                              if field.is_required() and name not in _LINE)


_KINDS = {kind: _Kind(kind) for kind in TYPED_FIELDS}
_TOOL_CALL, _TOOL_CALL_FRESH = _template(ToolCallPart)
_USAGE, _ = _template(Usage)


def times(column: pa.Array | pa.ChunkedArray) -> list[datetime | None] | None:
    """A time column's values as UTC datetimes, or ``None`` when one is beyond ``datetime``."""
    micros = column.cast(pa.int64()).to_pylist()
    epoch, step = _EPOCH, timedelta
    try:
        return [epoch + step(microseconds=m) if m is not None else None for m in micros]
    except OverflowError:
        return None


class Columns:
    """The columns of one batch as Python lists, and the events made of its rows."""

    def __init__(self, batch: pa.RecordBatch, col: dict[str, list[Any]]) -> None:
        self.col = col
        self.created, self.started, self.finished = col["created_at"], col["started_at"], col["finished_at"]
        usage = batch.column("usage")
        self.usage_valid = usage.is_valid().to_pylist()
        self.usage = list(zip(*(usage.field(name).to_pylist()
                                for name in (*USAGE_COUNTS, "latency_ms", "pricing_version")), strict=True))
        parts = batch.column("parts")
        self.offsets = parts.offsets.to_pylist()
        self.parts_valid = parts.is_valid().to_pylist()
        flat = parts.values
        self.part = {name: flat.field(name).to_pylist()
                     for name in ("type", "text", "call_id", "tool_name", "arguments", "source_type", "extra")}

    def event(self, i: int) -> Any:
        """The event of row ``i``, or ``None`` when validation must read it."""
        col = self.col
        kind = col["type"][i]
        if kind == "message":
            kind = col["role"][i]
        how = _KINDS.get(kind)
        created = self.created[i]
        event_id = col["id"][i]
        if how is None or col["v"][i] != 1 or created is None or event_id is None:
            return None
        fields = how.template.copy()
        for name in how.fresh:
            fields[name] = {}
        fields["v"], fields["id"], fields["created_at"] = 1, event_id, created
        for field, column, nullable, choices in how.fields:
            value = col[column][i]
            if value is None:
                if not nullable:
                    return None
            elif choices is not None and value not in choices:
                return None
            fields[field] = value
        extra = col["extra"][i]
        cost = None
        if extra is not None:
            if kind == "assistant":
                found = _COST_ONLY.fullmatch(extra)
                if found is None:
                    return None
                cost = Decimal(found.group(1))
            elif not self._strings(extra, how, fields):
                return None
        if how.message:
            if self.parts_valid[i]:
                parts = self._parts(self.offsets[i], self.offsets[i + 1])
                if parts is None:
                    return None
                fields["parts"] = parts
            if kind == "assistant":
                usage = self._usage(i, cost)
                if usage is False:
                    return None
                fields["usage"] = usage
            elif kind == "tool":
                fields["started_at"] = self.started[i]
                fields["finished_at"] = self.finished[i]
        for name in how.required:
            if fields[name] is None:
                return None
        return build(how.cls, fields)

    @staticmethod
    def _strings(extra: str, how: _Kind, fields: dict[str, Any]) -> bool:
        """Lay an ``extra`` of string fields alone (a model switch's ``from_model``) over
        ``fields``; false, with ``fields`` as they were, for anything else."""
        if not how.strings:
            return False
        try:
            found = json.loads(extra)
        except ValueError:
            return False
        strings = how.strings
        if type(found) is not dict or not all(
                name in strings and (type(value) is str or (value is None and strings[name]))
                for name, value in found.items()):
            return False
        fields.update(found)
        return True

    def _parts(self, start: int, end: int) -> tuple[Any, ...] | None:
        part = self.part
        types_, texts, extras, sources = part["type"], part["text"], part["extra"], part["source_type"]
        made = []
        for j in range(start, end):
            kind = types_[j]
            if extras[j] is not None or sources[j] is not None:
                return None
            maker = _PART_MAKERS.get(kind)
            if maker is not None:
                text = texts[j]
                if text is None:
                    if kind != "thinking":
                        return None
                    text = ""  # the JSON path's default for a thinking part's text
                made.append(maker(text))
            elif kind == "tool_call":
                call_id, name, arguments = part["call_id"][j], part["tool_name"][j], part["arguments"][j]
                if call_id is None or name is None or arguments is None:
                    return None
                fields = _TOOL_CALL.copy()
                fields["id"], fields["name"], fields["arguments_json"] = call_id, name, arguments
                for fresh in _TOOL_CALL_FRESH:
                    fields[fresh] = {}
                made.append(build(ToolCallPart, fields))
            else:
                return None
        return tuple(made)

    def _usage(self, i: int, cost: Decimal | None) -> Usage | None | bool:
        """The row's usage, ``None`` without one, ``False`` when validation must read it."""
        values = _USAGE.copy()
        if self.usage_valid[i]:
            *counts, latency, version = self.usage[i]
            for name, count in zip(USAGE_COUNTS, counts, strict=True):
                if count is not None:
                    if count < 0:
                        return False
                    values[name] = count
            if latency is not None:
                values["latency_ms"] = latency
            if version is not None:
                values["pricing_version"] = version
        elif cost is None:
            return None
        if cost is not None:
            values["cost"] = cost
        return build(Usage, values)


def same_types(schema: pa.Schema) -> bool:
    """Whether every column has the type this partwire writes (the fast path reads no other)."""
    return all(schema.field(field.name).type == field.type for field in EVENT_SCHEMA)
