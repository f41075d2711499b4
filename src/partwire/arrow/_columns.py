"""A whole batch of events to Arrow columns at once: the writer's fastest path.

The rows are those ``_direct`` makes one event at a time (and ``_write`` from JSON lines),
value for value. Here the events are taken a class at a time: one ``itemgetter`` (in C) reads
every field with a column from each event of the class, ``zip`` turns them into columns, and
Arrow makes each column into an array in one call; a column a class never fills is an array of
nulls, made without a value. The classes' record batches are put back in the events' order by
one ``take``. The commonest parts are the exception: one Python loop reads each once, in order
(``_common_parts``). A batch holding anything else (an unknown field, a time in another zone, a value
whose JSON form the columns cannot give back exactly) gets ``None``, and the row paths take it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from itertools import accumulate, chain, repeat
from json.encoder import encode_basestring
from operator import attrgetter, itemgetter, sub
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pydantic_core import TzInfo

from partwire.messages import AssistantMessage, ToolMessage
from partwire.parts import RefusalPart, TextPart, ThinkingPart, ToolCallPart
from partwire.usage import Usage

from ._direct import EVENT_PLANS, PART_PLANS, Unfit, dumps, part_row, usage_extra
from ._schema import COST_TYPE, EVENT_SCHEMA, PART_COLUMNS, PART_TYPE, USAGE_COUNTS, USAGE_TYPE

__all__ = ["columnar_batch"]

_ZERO = timedelta(0)
# Zones whose offset is the same at every instant: one look at each tells whether all its times
# are UTC. Any other zone is asked time by time.
_FIXED = (timezone, TzInfo)
_ZONE = attrgetter("tzinfo")
_EXTRA = attrgetter("__pydantic_extra__")
_DICT = attrgetter("__dict__")
_STRING_COLUMNS = ("text", "call_id", "tool_name", "status", "stop_reason", "model", "provider", "api",
                   "response_id")
_FIELD_TYPES = {field.name: field.type for field in EVENT_SCHEMA}
# A string as JSON, as ``dumps`` writes one (``ensure_ascii=False``): the same C function.
_string = encode_basestring
_USAGE_GET = itemgetter(*USAGE_COUNTS, "cost", "pricing_version", "latency_ms", "provider_data")


# Arrow reads a list of Python values one by one; the helpers below spare it the reading where
# the column is known without it (all nulls, one value repeated) or cheaper another way (an
# aware ``datetime`` costs several times a string: its zone is asked for its offset).
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECONDS = pa.duration("us")


def _all_none(values: Sequence[Any]) -> bool:
    """Whether every value is ``None``. (``count(None)`` alone would compare each other value
    with ``None`` by ``==``, a call each, and a pydantic model's ``__eq__`` is Python.)"""
    return not values or (values[0] is None and values.count(None) == len(values))


def _column(values: Sequence[Any], kind: pa.DataType) -> pa.Array:
    """A column of ``values``; all nulls made at once."""
    if _all_none(values):
        return pa.nulls(len(values), kind)
    return pa.array(values, kind)


def _strings(values: Sequence[Any]) -> pa.Array:
    """A string column; all nulls made at once."""
    return _column(values, pa.string())


def _same(value: Any, count: int, kind: pa.DataType) -> pa.Array:
    """A column of ``count`` times ``value``."""
    if value is None:
        return pa.nulls(count, kind)
    return pa.repeat(pa.scalar(value, kind), count)


def _times(values: Sequence[Any], kind: pa.DataType) -> pa.Array:
    """A timestamp column of UTC ``datetime`` values (as ``_all_utc`` found them) or nulls: each
    time's distance from the epoch, a ``timedelta`` made in C, which Arrow reads as
    microseconds without asking a zone."""
    if _all_none(values):
        return pa.nulls(len(values), kind)
    if type(None) in set(map(type, values)):
        return pa.array(values, kind)
    return pa.array(list(map(sub, values, repeat(_EPOCH))), _MICROSECONDS).view(pa.int64()).view(kind)


def _all_utc(values: Sequence[Any], nullable: bool) -> bool:
    """Whether every value is a ``datetime`` the column holds as the line writes it (a UTC time)."""
    kinds = set(map(type, values))
    if nullable:
        kinds.discard(type(None))
    if not kinds <= {datetime}:
        return False
    present = [value for value in values if value is not None] if nullable else values
    zones = set(map(_ZONE, present))
    if all(type(zone) in _FIXED and zone.utcoffset(None) == _ZERO for zone in zones):
        return True
    return all(value.utcoffset() == _ZERO for value in present)


def _odd(columns: Sequence[Sequence[Any]], defaults: tuple[Any, ...]) -> list[tuple[int, list[int]]]:
    """Per leftover column (by index) that is not all at its default, the rows where it is not
    (as the line's JSON tells them apart: ``0`` is not ``false``); each column is counted at
    once, and looked at row by row only when a value differs."""
    odd: list[tuple[int, list[int]]] = []
    # (No rows, no columns: nothing is odd.)
    for j, (column, default) in enumerate(zip(columns, defaults, strict=False)):
        # ``count`` compares by identity first: the shared None, False and empty tuple of
        # defaults are found without a call.
        if column.count(default) == len(column) and (
                type(default) is not bool or set(map(type, column)) <= {bool}):
            continue
        rows = [k for k, value in enumerate(column)
                if value is not default and (value != default or type(value) is not type(default))]
        if rows:
            odd.append((j, rows))
    return odd


def _string_extras(odd: list[tuple[int, list[int]]], columns: Sequence[Sequence[Any]],
                   names: tuple[str, ...], extras: list[str | None]) -> set[int]:
    """Write the ``extra`` of each odd row whose leftovers off their defaults are all strings
    (a model switch's ``from_model``) straight from their JSON pieces, as ``dumps`` of the
    leftovers writes them; give back the other odd rows, for the leftovers' own ``extra``.

    One ``dumps`` of a one-key dict per model switch took 7% of the writer's time.
    """
    pieces: dict[int, list[str]] = {}
    slow: set[int] = set()
    for j, rows in odd:
        column = columns[j]
        key = _string(names[j]) + ":"
        for k in rows:
            value = column[k]
            if type(value) is str:
                pieces.setdefault(k, []).append(key + _string(value))
            else:
                slow.add(k)
    for k, found in pieces.items():
        if k not in slow:
            extras[k] = "{" + ",".join(found) + "}"
    return slow


class _Group:
    """One class's events of a batch as columns (arrays), or ``Unfit``."""

    def __init__(self, cls: type, events: list[Any]) -> None:
        plan = EVENT_PLANS[cls]
        m = len(events)
        if any(map(_EXTRA, events)):
            raise Unfit
        get = plan.columns
        # Every field the batch needs, read off each event in one pass (in C).
        values = list(zip(*map(get.getter, map(_DICT, events)), strict=True)) or [()] * len(get.names)
        found = dict(zip(get.names, values, strict=True))
        if set(map(type, found["v"])) != {int} or set(found["v"]) != {1}:
            raise Unfit
        if not _all_utc(found["created_at"], False):
            raise Unfit
        self.arrays: dict[str, pa.Array] = {}
        arrays = self.arrays
        arrays["v"] = _same(1, m, pa.int32())
        arrays["type"] = _same(plan.type, m, pa.string())
        arrays["role"] = _same(plan.role, m, pa.string())
        arrays["id"] = pa.array(found["id"], pa.string())
        arrays["created_at"] = _times(found["created_at"], _FIELD_TYPES["created_at"])
        if plan.parent:
            arrays["parent_id"] = _strings(found["parent_id"])
        for field, column in plan.typed_columns:
            arrays[column] = _strings(found[field])
        extras: list[str | None] = [None] * m
        # What differs from its default goes to extra.
        leftovers = values[len(get.names) - len(plan.plain.names):] if plan.plain.names else []
        odd = _odd(leftovers, plan.plain.defaults)
        if cls is AssistantMessage:
            self._usage(found["usage"], events, extras, {k for _, rows in odd for k in rows})
        else:
            for k in _string_extras(odd, leftovers, plan.plain.names, extras):
                extra = plan.leftovers.extra(events[k])
                extras[k] = dumps(extra) if extra else None
        if cls is ToolMessage:
            for name in ("started_at", "finished_at"):
                if not _all_utc(found[name], True):
                    raise Unfit
                arrays[name] = _times(found[name], _FIELD_TYPES[name])
        arrays["extra"] = _strings(extras)
        # Each event's parts list, read in the same pass (an empty tuple for a class without
        # parts): the parts, and the text joined from them, are made for the whole batch at
        # once, in the events' order (``_parts``).
        self.parts: Sequence[Any] = found["parts"] if plan.parts else ((),) * m
        self.rows = m

    def _usage(self, usages: Sequence[Any], events: list[Any], extras: list[str | None], odd: set[int]) -> None:
        m = len(usages)
        whole = type(None) not in set(map(type, usages))
        present = range(m) if whole else [k for k, usage in enumerate(usages) if usage is not None]
        given = usages if whole else [usages[k] for k in present]
        columns: list[Sequence[Any]] = [()] * len(USAGE_TYPE)
        cost_texts: list[str] | None = None
        if given:
            if set(map(type, given)) != {Usage} or any(map(_EXTRA, given)):
                raise Unfit
            *counts, costs, versions, latencies, datas = zip(*map(_USAGE_GET, map(_DICT, given)), strict=True)
            for column in counts:
                if set(map(type, column)) != {int}:
                    raise Unfit
            cost_types = set(map(type, costs))
            if not set(map(type, latencies)) <= {int, type(None)} or not cost_types <= {Decimal, type(None)}:
                raise Unfit
            # A cost the decimal column cannot hold exactly makes Arrow refuse the batch: the
            # row paths then leave it null.
            columns = [*counts, costs, versions, latencies]
            if whole and not odd and cost_types == {Decimal} and _all_none(datas):
                # The commonest remains, a cost alone on every row: its digits need no escaping,
                # and the same text makes the decimal column (Arrow parses it in C++, as exactly
                # as it reads a ``Decimal``, and cheaper).
                cost_texts = list(map(str, costs))
                extras[:] = ['{"usage":{"cost":"' + text + '"}}' for text in cost_texts]
            else:
                for k, cost, data in zip(present, costs, datas, strict=True):
                    if data is None and cost is not None and k not in odd:
                        extras[k] = f'{{"usage":{{"cost":"{cost!s}"}}}}'
                        continue
                    left = usage_extra(cost, data)
                    if left or k in odd:
                        extra = EVENT_PLANS[AssistantMessage].leftovers.extra(events[k], {"usage": left})
                        extras[k] = dumps(extra) if extra else None
        for k in odd.difference(present):
            extra = EVENT_PLANS[AssistantMessage].leftovers.extra(events[k], {"usage": None})
            extras[k] = dumps(extra) if extra else None
        if not whole:
            # Rows without a usage: its values spread over every row, null where there is none.
            full: list[Any] = [_NO_USAGE] * m
            for k, row in zip(present, zip(*columns, strict=True), strict=True):
                full[k] = row
            columns = list(zip(*full, strict=True)) if m else [()] * len(USAGE_TYPE)
        mask = None if whole else pa.array([usage is None for usage in usages], pa.bool_())
        # The cost column is made from its text when there is one: the Decimals are not read.
        arrays = [pa.array(cost_texts, pa.string()).cast(COST_TYPE) if k == _COST_INDEX and cost_texts is not None
                  else _column(values, field.type)
                  for k, (values, field) in enumerate(zip(columns, USAGE_TYPE, strict=True))]
        self.arrays["usage"] = pa.StructArray.from_arrays(arrays, fields=list(USAGE_TYPE), mask=mask)

    def batch(self) -> pa.RecordBatch:
        """The group's rows in ``_GROUP_COLUMNS``."""
        return pa.RecordBatch.from_arrays(
            [self.arrays[name] if name in self.arrays else pa.nulls(self.rows, _FIELD_TYPES[name])
             for name in _GROUP_COLUMNS], names=list(_GROUP_COLUMNS))


_NO_USAGE = (None,) * len(USAGE_TYPE)
_COST_INDEX = USAGE_TYPE.get_field_index("cost")
_PART_INDEX = {name: k for k, name in enumerate(PART_COLUMNS)}
# What a class's group makes: all but the columns the batch makes in the events' order.
_GROUP_COLUMNS = tuple(field.name for field in EVENT_SCHEMA if field.name not in ("session_id", "seq", "parts"))
# Per class: whether it has parts, and whether its ``text`` is its text parts joined.
_HAS_PARTS = {cls: plan.parts for cls, plan in EVENT_PLANS.items()}
_JOINS_TEXT = {cls: plan.joins_text for cls, plan in EVENT_PLANS.items()}


# The leftovers of the four common part classes, as ``_common_parts`` checks them by name: a
# field added to one of these classes must be added there too (this fails the import until it is).
_COMMON_LEFTOVERS: dict[Any, tuple[str, ...]] = {TextPart: ("provider_data", "citations"), ThinkingPart: ("provider_data", "signature", "id"),
                     ToolCallPart: ("provider_data", "provider_ids"), RefusalPart: ("provider_data",)}
if any(PART_PLANS[cls].leftovers.names != names for cls, names in _COMMON_LEFTOVERS.items()):
    raise TypeError("partwire.arrow: the common parts' fields changed; update _common_parts")


def _common_parts(lists: Sequence[tuple[Any, ...]]) -> pa.StructArray | None:
    """The parts' struct array when every part is text, thinking, a tool call or a refusal
    without unknown fields, else ``None``.

    One Python loop over the parts, each read once while it is in the cache: the parts of a
    batch lie scattered in memory, and the passes a class at a time in C (class, unknown
    fields, grouping, fields, then a ``take`` back into order) cost half as much again.
    """
    # Each part's kind as a byte (its name is taken from ``_KIND_NAMES`` by Arrow); the text of
    # the parts that have one, and the tool calls' fields, with nothing appended for the other
    # parts: Arrow puts each value in its row.
    codes = bytearray()
    texts: list[str] = []
    ids: list[str] = []
    names: list[str] = []
    arguments: list[str] = []
    odd: list[int] = []
    code, text, call_id, name, argument, mark = (codes.append, texts.append, ids.append, names.append,
                                                 arguments.append, odd.append)
    j = -1
    for part in chain.from_iterable(lists):
        j += 1
        cls = type(part)
        if part.__pydantic_extra__:
            return None
        fields = part.__dict__
        if cls is TextPart:
            code(0)
            text(fields["text"])
            if fields["provider_data"] is not None or fields["citations"] != ():
                mark(j)
        elif cls is ToolCallPart:
            code(_TOOL_CALL)
            call_id(fields["id"])
            name(fields["name"])
            argument(fields["arguments_json"])
            extra_ids = fields["provider_ids"]
            if fields["provider_data"] is not None or type(extra_ids) is not dict or extra_ids:
                mark(j)
        elif cls is ThinkingPart:
            code(2)
            text(fields["text"])
            if fields["provider_data"] is not None or fields["signature"] is not None or fields["id"] is not None:
                mark(j)
        elif cls is RefusalPart:
            code(3)
            text(fields["text"])
            if fields["provider_data"] is not None:
                mark(j)
        else:
            return None
    count = j + 1
    extras: list[str | None] = [None] * count
    if odd:
        flat = list(chain.from_iterable(lists))
        for j in odd:
            extra = PART_PLANS[type(flat[j])].leftovers.extra(flat[j])
            extras[j] = dumps(extra) if extra else None
    kinds = pa.Array.from_buffers(pa.int8(), count, [None, pa.py_buffer(codes)])
    calls = pc.equal(kinds, _TOOL_CALL)
    arrays = [pa.nulls(count, pa.string())] * len(PART_COLUMNS)
    arrays[_PART_INDEX["type"]] = _KIND_NAMES.take(kinds)
    arrays[_PART_INDEX["text"]] = _spread(texts, pc.invert(calls))
    for column, values in (("call_id", ids), ("tool_name", names), ("arguments", arguments)):
        arrays[_PART_INDEX[column]] = _spread(values, calls)
    arrays[_PART_INDEX["extra"]] = _strings(extras)
    return pa.StructArray.from_arrays(arrays, fields=list(PART_TYPE))


# The kinds ``_common_parts`` tells apart, by their byte.
_KIND_NAMES = pa.array(["text", "tool_call", "thinking", "refusal"], pa.string())
_TOOL_CALL = 1


def _spread(values: list[str], rows: pa.BooleanArray) -> pa.Array:
    """A string column holding ``values`` in the ``rows`` that are true, in order, and nulls."""
    if len(values) == len(rows):
        return pa.array(values, pa.string())
    return pc.replace_with_mask(pa.nulls(len(rows), pa.string()), rows, pa.array(values, pa.string()))


def _parts(lists: list[Any], has_parts: list[bool]) -> tuple[pa.ListArray, pa.Array]:
    """The batch's ``parts`` column, in the events' order, and the text of each row's text parts
    joined (``""`` for a row without parts), or ``Unfit``.

    Made for the whole batch rather than a class at a time: the parts hold most of a batch's
    bytes, and putting a class's rows back in order would copy every one of their strings."""
    if set(map(type, lists)) - {tuple}:
        raise Unfit
    values = _common_parts(lists)
    if values is None:
        rows = [part_row(part) for part in chain.from_iterable(lists)]
        columns = list(zip(*rows, strict=True)) if rows else [()] * len(PART_COLUMNS)
        values = pa.StructArray.from_arrays([pa.array(values, pa.string()) for values in columns],
                                            fields=list(PART_TYPE))
    offsets = pa.array(list(accumulate(map(len, lists), initial=0)), pa.int32())
    mask = None if all(has_parts) else pa.array([not has for has in has_parts], pa.bool_())
    parts = pa.ListArray.from_arrays(offsets, values, type=_FIELD_TYPES["parts"], mask=mask)
    # The text parts' text joined, row by row, by Arrow.
    texts = pc.if_else(pc.equal(values.field("type"), "text"), values.field("text"), "")
    return parts, pc.binary_join(pa.ListArray.from_arrays(offsets, texts), "")


def columnar_batch(sessions: list[str | None], seqs: list[int], events: list[Any]) -> pa.RecordBatch | None:
    """The events as one ``RecordBatch``, or ``None`` when the row paths must take them."""
    classes = list(map(type, events))
    kinds = set(classes)
    if not events or not kinds <= EVENT_PLANS.keys():
        return None
    try:
        if len(kinds) == 1:
            group = _Group(classes[0], events)
            batch = group.batch()
            lists = list(group.parts)
        else:
            # The events grouped by class (a stable sort on each class's number, in C); each
            # group's rows are then put back in the events' order by one ``take``, and their
            # parts lists by the same positions.
            number = {cls: k for k, cls in enumerate(kinds)}
            codes = list(map(number.__getitem__, classes))
            order = sorted(range(len(events)), key=codes.__getitem__)
            grouped = list(map(events.__getitem__, order))
            groups = []
            start = 0
            for cls, k in number.items():
                end = start + codes.count(k)
                groups.append(_Group(cls, grouped[start:end]))
                start = end
            positions = pc.sort_indices(pa.array(order, pa.int64()))
            batch = pa.concat_batches([group.batch() for group in groups]).take(positions)
            grouped_lists = list(chain.from_iterable(group.parts for group in groups))
            lists = list(map(grouped_lists.__getitem__, positions.to_pylist()))
        parts, joined = _parts(lists, list(map(_HAS_PARTS.__getitem__, classes)))
        joins = list(map(_JOINS_TEXT.__getitem__, classes))
        text = batch.column("text")
        if all(joins):
            text = joined
        elif any(joins):
            text = pc.if_else(pa.array(joins, pa.bool_()), joined, text)
    except (Unfit, pa.ArrowException, UnicodeEncodeError, OverflowError):
        return None
    session = (_same(sessions[0], len(sessions), pa.string()) if sessions.count(sessions[0]) == len(sessions)
               else pa.array(sessions, pa.string()))
    columns = {"session_id": session, "seq": pa.array(seqs, pa.int64()),
               "parts": parts, "text": text}
    return pa.RecordBatch.from_arrays([columns[name] if name in columns else batch.column(name)
                                       for name in EVENT_SCHEMA.names], schema=EVENT_SCHEMA)
