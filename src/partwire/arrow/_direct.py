"""History events to rows straight from their fields: the writer's fast path.

The row an event gets here is the row ``_write`` makes of its JSON line (``codec.encode``,
parsed), value for value; only the way there differs. Encoding a line and parsing it again cost
more than the rest of the conversion, so the fields are read off the model (several at once, by
``operator.itemgetter``, in C): strings and numbers as they are, times as ``datetime`` objects
for Arrow to convert, and only what has no typed column dumped to JSON (through pydantic's own
serializer, as the line holds it). An event this path cannot render exactly as its line (an
unknown field, a time in another zone) gets ``None`` here and the JSON path takes it; a value
Arrow refuses (a lone surrogate, a value not of its field's type) sends the whole batch there
(``BatchBuilder.finish``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from operator import itemgetter
from typing import Any

from pydantic import BaseModel

from partwire._base import NOT_JSON, json_copy
from partwire.messages import AssistantMessage, ToolMessage
from partwire.parts import TextPart
from partwire.usage import Usage

from ._defaults import EVENT_CLASSES, PART_CLASSES, SOURCE_CLASSES, field_defaults
from ._schema import (
    PART_COLUMNS,
    PART_FIELDS,
    SOURCE_FIELDS,
    TEXT_FIELDS,
    TYPED_FIELDS,
    USAGE_COUNTS,
)

__all__ = ["EVENT_PLANS", "PART_PLANS", "Row", "Unfit", "dumps", "event_row", "part_row", "usage_extra"]

Row = tuple[Any, ...]
"""One event's values in column order, ``session_id`` to ``extra`` (``parts`` left out), then
whether it has a parts list and where its parts end in the batch's list of parts."""

_ZERO = timedelta(0)
_COST_MAX = Decimal(10) ** 20
_MISSING: Any = object()
# The string columns after parent_id, in row order (text ... response_id).
_STRING_COLUMNS = ("text", "call_id", "tool_name", "status", "stop_reason", "model", "provider", "api",
                   "response_id")
_PART_INDEX = {name: k for k, name in enumerate(PART_COLUMNS)}
_USAGE_FIELDS = itemgetter(*USAGE_COUNTS, "latency_ms", "cost", "pricing_version", "provider_data")


class Unfit(Exception):
    """An event this path cannot render exactly as its JSON line: the JSON path takes it."""


def dumps(value: Any) -> str:
    """JSON text as the ``extra`` columns hold it (``json.dumps`` with these settings, whose
    encoder is made once here rather than on every call)."""
    return _ENCODE(value)


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _getter(names: tuple[str, ...]) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    """``itemgetter`` that gives a tuple for any number of names (it gives the bare value for one)."""
    if len(names) == 1:
        (name,) = names
        return lambda fields: (fields[name],)
    if not names:
        return lambda fields: ()
    return itemgetter(*names)


def _placer(names: tuple[str | None, ...]) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    """A function of a model's fields to the values of ``names`` in that order, ``None`` where a
    name is ``None``: one ``itemgetter`` between two runs of ``None`` when the names are
    contiguous (as they are for the commonest kinds), else one lookup per name."""
    present = [k for k, name in enumerate(names) if name is not None]
    if not present:
        empty = (None,) * len(names)
        return lambda fields: empty
    first, last = present[0], present[-1]
    if len(present) == last - first + 1:
        before, after = (None,) * first, (None,) * (len(names) - last - 1)
        get = _getter(tuple(name for name in names if name is not None))
        return lambda fields: (*before, *get(fields), *after)
    return lambda fields: tuple([fields[name] if name is not None else None for name in names])


class _Leftovers:
    """The fields of a class that have no column of their own, in the line's order, with the
    defaults at which they are left out: all at their defaults is one comparison of tuples."""

    def __init__(self, cls: type[BaseModel], taken: set[str]) -> None:
        self.names = tuple(name for name in cls.model_fields if name not in taken)
        defaults = field_defaults(cls, self.names)
        self.defaults = tuple(defaults.get(name, _MISSING) for name in self.names)
        self.types = tuple(map(type, self.defaults))
        # Where a default is a bool: an equal value (0) may be of another JSON type.
        self.bools = tuple(k for k, default in enumerate(self.defaults) if type(default) is bool)
        self.get = _getter(self.names)

    def extra(self, model: BaseModel, given: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """The fields of ``model`` that differ from their default, as its JSON line holds them;
        ``given`` holds the remains of a field split over columns (an assistant's usage, a part's
        source), kept in that field's place when not empty."""
        if model.__pydantic_extra__:
            raise Unfit  # unknown fields: their JSON is the line's to say
        values = self.get(model.__dict__)
        if given is None and values == self.defaults and tuple(map(type, values)) == self.types:
            return None
        kept: list[tuple[str, Any]] = []
        for name, value, default in zip(self.names, values, self.defaults, strict=True):
            if given is not None and name in given:
                if given[name]:
                    kept.append((name, given[name]))
            elif value is not default and (value != default or type(value) is not type(default)):
                kept.append((name, json_copy(value)))
        if not kept:
            return None
        out = dict(kept)
        rest = {name for name, value in kept if value is NOT_JSON}
        if rest:
            # Models, tuples, times, decimals: pydantic's serializer writes them as the line does.
            out.update(model.model_dump(mode="json", include=rest))
        return out


class _EventPlan:
    """Where each field of one event class goes."""

    def __init__(self, kind: str, cls: type[BaseModel]) -> None:
        self.kind = kind
        self.type = cls.model_fields["type"].default
        self.role = kind if self.type == "message" else None
        typed = {field: column for field, column in TYPED_FIELDS[kind].items() if column != "parent_id"}
        # The typed string values of a row, in column order: a field's name, or None.
        by_column = {column: field for field, column in typed.items()}
        self.strings = _placer(tuple(by_column.get(column) for column in _STRING_COLUMNS))
        self.parent = "parent_id" in cls.model_fields
        self.parts = "parts" in cls.model_fields
        self.joins_text = kind in TEXT_FIELDS
        taken = {"v", "type", "id", "created_at", "role", "parent_id", "parts", *typed}
        if cls is ToolMessage:
            taken |= {"started_at", "finished_at"}
        self.leftovers = _Leftovers(cls, taken)
        # The leftovers but an assistant's usage, whose remains the batch path looks at itself.
        self.plain = _Leftovers(cls, taken | {"usage"}) if cls is AssistantMessage else self.leftovers
        # What the batch path reads with one getter, and the string columns typed fields fill.
        self.typed_columns = tuple(typed.items())
        # (then the parts list, and the leftovers but usage, to be compared with their defaults a
        # column at a time).
        self.columns = _Columns(("v", "id", "created_at", *(("parent_id",) if self.parent else ()), *typed,
                                 *(("usage",) if cls is AssistantMessage else ()),
                                 *(("started_at", "finished_at") if cls is ToolMessage else ()),
                                 *(("parts",) if self.parts else ()), *self.plain.names))


class _Columns:
    """Names of fields read together, and their getter."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.getter = _getter(names)


class _PartPlan:
    """Where each field of one part class goes."""

    def __init__(self, kind: str, cls: type[BaseModel]) -> None:
        self.kind = kind
        typed = PART_FIELDS[kind]
        by_column = {column: field for field, column in typed.items()}
        self.values = _placer(tuple(by_column.get(column) for column in PART_COLUMNS[1:-1]))
        self.input = kind == "server_tool_call"
        self.source = "source" in cls.model_fields
        self.leftovers = _Leftovers(cls, {"type", *typed, *(("input",) if self.input else ())})
        # The typed fields' columns, and what the batch path reads of a part in one go.
        self.typed = tuple((field, _PART_INDEX[column]) for field, column in typed.items())
        self.read = _Columns((*typed, *self.leftovers.names))


EVENT_PLANS = {cls: _EventPlan(kind, cls) for kind, cls in EVENT_CLASSES.items()}
PART_PLANS = {cls: _PartPlan(kind, cls) for kind, cls in PART_CLASSES.items()}
_SOURCE_PLANS = {cls: (kind, *SOURCE_FIELDS[kind], _Leftovers(cls, {"type", SOURCE_FIELDS[kind][0]}))
                 for kind, cls in SOURCE_CLASSES.items()}


def _utc(value: Any) -> datetime | None:
    """A time the column holds exactly as the line writes it (UTC, written with a ``Z``)."""
    if value is None:
        return None
    if type(value) is not datetime or value.utcoffset() != _ZERO:
        raise Unfit
    return value


def _cost(value: Decimal) -> Decimal | None:
    """The cost as the decimal column holds it, or ``None`` when the column cannot hold it exactly."""
    exponent = value.as_tuple().exponent
    if type(exponent) is not int or exponent < -18 or not -_COST_MAX < value < _COST_MAX:
        return None
    return value


def _usage(usage: Any) -> tuple[tuple[Any, ...] | None, dict[str, Any] | None]:
    """The usage struct's values, and what of the usage its columns leave to ``extra``."""
    if usage is None:
        return None, None
    if type(usage) is not Usage or usage.__pydantic_extra__:
        raise Unfit
    i, o, r, w, t, latency, cost, version, data = _USAGE_FIELDS(usage.__dict__)
    # Arrow takes a bool for an int64 and JSON writes it otherwise: only ints pass.
    if (type(i) is not int or type(o) is not int or type(r) is not int or type(w) is not int
            or type(t) is not int or (latency is not None and type(latency) is not int)):
        raise Unfit
    left = usage_extra(cost, data)
    return (i, o, r, w, t, _cost(cost) if cost is not None else None, version, latency), left


def usage_extra(cost: Any, data: Any) -> dict[str, Any]:
    """What of a usage its columns leave to ``extra``: the cost's own digits (the column is for
    sums) and the provider's raw usage."""
    left: dict[str, Any] = {}
    if cost is not None:
        if type(cost) is not Decimal:
            raise Unfit
        left["cost"] = str(cost)
    if data is not None:
        left["provider_data"] = data.model_dump(mode="json")
    return left


def part_row(part: Any) -> tuple[Any, ...]:
    """The row of one part in the parts' columns, or ``Unfit``."""
    plan = PART_PLANS.get(type(part))
    if plan is None:
        raise Unfit
    fields = part.__dict__
    values = plan.values(fields)
    if plan.input or plan.source:
        row = list(values)
        given = None
        if plan.input:
            copied = json_copy(fields["input"])
            if copied is NOT_JSON:
                raise Unfit
            row[_PART_INDEX["arguments"] - 1] = dumps(copied)
        if plan.source:
            source = fields["source"]
            found = _SOURCE_PLANS.get(type(source))
            if found is None:
                raise Unfit
            kind, field, column, leftovers = found
            value = source.__dict__[field]
            if type(value) is not str:
                raise Unfit
            row[_PART_INDEX["source_type"] - 1] = kind
            row[_PART_INDEX[column] - 1] = value
            given = {"source": leftovers.extra(source)}
        extra = plan.leftovers.extra(part, given)
        return (plan.kind, *row, dumps(extra) if extra else None)
    extra = plan.leftovers.extra(part)
    return (plan.kind, *values, dumps(extra) if extra else None)


def event_row(event: Any, session_id: str | None, seq: int, parts: list[tuple[Any, ...]]) -> Row | None:
    """The row of ``event`` (its parts appended to ``parts``), or ``None``, with ``parts`` as it
    was, when the JSON path must take the event."""
    plan = EVENT_PLANS.get(type(event))
    if plan is None:
        return None
    mark = len(parts)
    try:
        return _event_row(plan, event, session_id, seq, parts)
    except Unfit:
        del parts[mark:]
        return None


def _event_row(plan: _EventPlan, event: Any, session_id: str | None, seq: int,
               parts: list[tuple[Any, ...]]) -> Row:
    fields = event.__dict__
    if fields["v"] != 1 or fields["type"] != plan.type:
        raise Unfit
    created = fields["created_at"]
    if type(created) is not datetime or created.utcoffset() != _ZERO:
        raise Unfit
    strings = plan.strings(fields)
    if plan.parts:
        own = fields["parts"]
        if type(own) is not tuple:
            raise Unfit
        parts.extend([part_row(part) for part in own])
        if plan.joins_text:
            strings = ("".join([part.text for part in own if type(part) is TextPart]), *strings[1:])
    if plan.kind == "assistant":
        usage, left = _usage(fields["usage"])
        # The usage's remains, if any, in its place (a usage its columns hold whole leaves none).
        extra = plan.leftovers.extra(event, {"usage": left})
        text = dumps(extra) if extra else None
        return (session_id, seq, 1, "message", "assistant", fields["id"], created, fields["parent_id"],
                *strings, usage, None, None, text, True, len(parts))
    extra = plan.leftovers.extra(event)
    if plan.kind == "tool":
        started, finished = _utc(fields["started_at"]), _utc(fields["finished_at"])
    else:
        started = finished = None
    return (session_id, seq, 1, plan.type, plan.role, fields["id"], created,
            fields["parent_id"] if plan.parent else None, *strings, None, started, finished,
            dumps(extra) if extra else None, plan.parts, len(parts))
