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
from itertools import repeat
from operator import is_, itemgetter
from typing import Any, cast

import pyarrow as pa
import pyarrow.compute as pc
from pydantic import BaseModel

from partwire._base import CanonicalModel, build, fields_maker, whole_maker
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


# The typed string columns a row's typed fields come from, in the order of a row's tuple of them.
_STRINGS = ("parent_id", "text", "call_id", "tool_name", "status", "stop_reason", "model", "provider", "api",
            "response_id")


def _picker(positions: list[int]) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """The values at ``positions`` of a row's tuple, as a tuple (``itemgetter`` gives a bare
    value for one position)."""
    if len(positions) > 1:
        return itemgetter(*positions)
    if positions:
        (position,) = positions
        return lambda row: (row[position],)
    return lambda row: ()


class _Kind:
    """How one kind of row becomes its event: the typed columns it reads, what each admits, and
    the event's fields at their defaults."""

    def __init__(self, kind: str) -> None:
        self.cls = cast(type[CanonicalModel], EVENT_CLASSES[kind])
        self.kind = kind
        self.message = kind in _MESSAGE_KINDS
        typed = [(field, column) for field, column in TYPED_FIELDS[kind].items()
                 if not (column == "text" and kind in TEXT_FIELDS)]
        self.names = tuple(field for field, _ in typed)
        positions = [_STRINGS.index(column) for _, column in typed]
        self.pick = _picker(positions)
        # The typed values that need a look: a literal's choices, or a string that may not be null.
        self.checks: list[tuple[int, bool, frozenset[Any] | None]] = []
        for k, (field, _) in enumerate(typed):
            nullable, choices = _allowed(self.cls.model_fields[field].annotation)
            if choices is not None or not nullable:
                self.checks.append((k, nullable, choices))
        self.template, self.fresh = _template(self.cls)
        # The template's copy, filled in, is every field: made into the event as it is.
        self.make = whole_maker(self.cls)
        # The fields an ``extra`` may hold for this path (strings with no typed column), with
        # whether each admits null; and the required fields, which a row must fill.
        self.strings = {name: field.annotation is not str for name, field in self.cls.model_fields.items()
                        if name not in TYPED_FIELDS[kind] and name not in _LINE
                        and field.annotation in (str, str | None)}
        self.required = tuple(name for name, field in self.cls.model_fields.items()
                              if field.is_required() and name not in _LINE and name not in self.names)


_KINDS = {kind: _Kind(kind) for kind in TYPED_FIELDS}
_TEXT_KINDS = pa.array(sorted(TEXT_FIELDS), pa.string())
_TOOL_CALL, _TOOL_CALL_FRESH = _template(ToolCallPart)
_USAGE, _ = _template(Usage)
_MAKE_TOOL_CALL = whole_maker(ToolCallPart)
_MAKE_USAGE = whole_maker(Usage)
_USAGE_NAMES = (*USAGE_COUNTS, "latency_ms", "pricing_version")
_UNSEEN: Any = object()


def times(column: pa.Array | pa.ChunkedArray) -> list[datetime | None] | None:
    """A time column's values as UTC datetimes, or ``None`` when one is beyond ``datetime``."""
    if column.null_count == len(column):
        return [None] * len(column)  # (a tool's start and end: absent from most rows)
    micros = column.cast(pa.int64()).to_pylist()
    epoch, step = _EPOCH, timedelta
    try:
        # timedelta's arguments by position (days, seconds, microseconds): a third cheaper.
        return [epoch + step(0, 0, m) if m is not None else None for m in micros]
    except OverflowError:
        return None


class Columns:
    """The columns of one batch as Python lists, and the events made of its rows."""

    def __init__(self, batch: pa.RecordBatch, created: list[datetime | None], started: list[datetime | None],
                 finished: list[datetime | None]) -> None:
        self.created, self.started, self.finished = created, started, finished
        kinds = pc.if_else(pc.equal(batch.column("type"), "message"), batch.column("role"), batch.column("type"))
        self.kinds = kinds.to_pylist()
        self.ids = batch.column("id").to_pylist()
        self.extras = batch.column("extra").to_pylist()
        # A message's text column is its parts' text joined, never read back: left unread.
        text = pc.if_else(pc.is_in(kinds, _TEXT_KINDS), pa.scalar(None, pa.string()), batch.column("text"))
        self.strings = list(zip(*((text if name == "text" else batch.column(name)).to_pylist() for name in _STRINGS),
                                strict=True))
        usage = batch.column("usage")
        self.usage_valid = usage.is_valid().to_pylist()
        # A count left out is 0 (its default), as validation reads a null one left out.
        counts = [usage.field(name).fill_null(0) for name in USAGE_COUNTS]
        self.usage_ok = all((pc.min(count).as_py() or 0) >= 0 for count in counts)
        self.usage = list(zip(*(column.to_pylist() for column in
                                (*counts, usage.field("latency_ms"), usage.field("pricing_version"))), strict=True))
        parts = batch.column("parts")
        self.offsets = parts.offsets.to_pylist()
        self.parts_valid = parts.is_valid().to_pylist()
        flat = parts.values
        # Every part of the batch made in one pass (``None`` for one this path does not make);
        # each row takes its slice.
        self.parts = list(map(_part, *(flat.field(name).to_pylist() for name in
                                       ("type", "text", "call_id", "tool_name", "arguments", "source_type",
                                        "extra"))))
        # Whether some part is left to validation (``is``, in C: ``None in parts`` would call
        # every part's Python ``__eq__``, about 3% of a read).
        self.unmade = any(map(is_, self.parts, repeat(None)))
        self.ones = pc.all(pc.equal(batch.column("v"), 1)).as_py() is not False
        # Each assistant extra's cost read so far (``None``: more than a cost).
        self.costs: dict[str, Any] = {}

    def event(self, i: int) -> Any:
        """The event of row ``i``, or ``None`` when validation must read it."""
        kind = self.kinds[i]
        how = _KINDS.get(kind)
        created = self.created[i]
        event_id = self.ids[i]
        if how is None or created is None or event_id is None or not self.ones:
            return None
        values = how.pick(self.strings[i])
        for k, nullable, choices in how.checks:
            value = values[k]
            if value is None:
                if not nullable:
                    return None
            elif choices is not None and value not in choices:
                return None
        fields = how.template.copy()
        for name in how.fresh:
            fields[name] = {}
        fields["v"], fields["id"], fields["created_at"] = 1, event_id, created
        fields.update(zip(how.names, values, strict=True))
        extra = self.extras[i]
        cost = None
        if extra is not None:
            if kind == "assistant":
                # Costs repeat within a batch (a price times the same counts): each text is
                # parsed once. A Decimal is immutable, so instances may share it.
                cost = self.costs.get(extra, _UNSEEN)
                if cost is _UNSEEN:
                    found = _COST_ONLY.fullmatch(extra)
                    cost = self.costs[extra] = Decimal(found.group(1)) if found is not None else None
                if cost is None:
                    return None
            elif not self._strings(extra, how, fields):
                return None
        if how.message:
            if self.parts_valid[i]:
                parts = tuple(self.parts[self.offsets[i]:self.offsets[i + 1]])
                if self.unmade and any(map(is_, parts, repeat(None))):
                    return None
                fields["parts"] = parts
            if kind == "assistant":
                if self.usage_valid[i]:
                    if not self.usage_ok:
                        return None
                    # From the template: a model's fields are written in its dict's order.
                    usage = _USAGE.copy()
                    usage.update(zip(_USAGE_NAMES, self.usage[i], strict=True))
                    usage["cost"] = cost
                    fields["usage"] = _MAKE_USAGE(usage)
                elif cost is not None:
                    fields["usage"] = build(Usage, {"cost": cost})
            elif kind == "tool":
                fields["started_at"] = self.started[i]
                fields["finished_at"] = self.finished[i]
        for name in how.required:
            if fields[name] is None:
                return None
        return how.make(fields)

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


def _part(kind: str, text: str | None, call_id: str | None, name: str | None, arguments: str | None,
          source_type: str | None, extra: str | None) -> Any:
    """The part of one row of the parts' columns, or ``None`` when validation must read it."""
    if extra is not None or source_type is not None:
        return None
    maker = _PART_MAKERS.get(kind)
    if maker is not None:
        if text is None:
            if kind != "thinking":
                return None
            text = ""  # a thinking part's text left out: its default
        return maker(text)
    if kind != "tool_call" or call_id is None or name is None or arguments is None:
        return None
    fields = _TOOL_CALL.copy()
    fields["id"], fields["name"], fields["arguments_json"] = call_id, name, arguments
    for fresh in _TOOL_CALL_FRESH:
        fields[fresh] = {}
    return _MAKE_TOOL_CALL(fields)


def same_types(schema: pa.Schema) -> bool:
    """Whether every column has the type this partwire writes (the fast path reads no other)."""
    return all(schema.field(field.name).type == field.type for field in EVENT_SCHEMA)
