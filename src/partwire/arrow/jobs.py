"""Jobs over many histories, Arrow tables in and Arrow tables out: one process, DuckDB, Ray Data.

Each job is a plain function of a ``pyarrow.Table`` in the history schema
(:data:`partwire.arrow.SCHEMA`) to a ``pyarrow.Table``, so the same function runs in one process
over a whole table and on a distributed engine over its batches (``docs/datasets.md``)::

    ds = ray.data.read_parquet("sessions.parquet")
    repriced = ds.map_batches(jobs.reprice, batch_format="pyarrow")
    requests = ds.groupby("session_id").map_groups(
        jobs.to_requests, batch_format="pyarrow", fn_kwargs={"target": "anthropic", "model": "sonnet"})

Row jobs (:func:`reprice`) take any slice of rows. Session jobs (:func:`to_requests`,
:func:`estimate_tokens`, :func:`to_training`) need each session's rows whole in one table: in
one process a table holds them; on Ray, group by ``session_id`` (``map_groups``). A session job
gives one row per session, in the order its sessions first appear.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

import pyarrow as pa

from partwire import datasets as formats
from partwire import pricing
from partwire.adapters import get_adapter
from partwire.errors import ArgumentError
from partwire.history import HistoryEvent
from partwire.pricing import PriceTable
from partwire.projection import Loss

from ._read import iter_rows
from ._schema import EVENT_SCHEMA
from ._write import BatchBuilder

__all__ = ["ESTIMATE_SCHEMA", "REQUEST_SCHEMA", "TRAINING_SCHEMA", "estimate_tokens", "reprice",
           "to_requests", "to_training"]

REQUEST_SCHEMA = pa.schema([
    pa.field("session_id", pa.string()),
    pa.field("request", pa.string()),
    pa.field("losses", pa.list_(pa.string())),
])
""":func:`to_requests` rows: the session, its request body as JSON text, and each loss as text."""

ESTIMATE_SCHEMA = pa.schema([
    pa.field("session_id", pa.string()),
    pa.field("events", pa.int64()),
    pa.field("input_tokens", pa.int64()),
])
""":func:`estimate_tokens` rows: the session, its events, the estimated input tokens of its request."""

TRAINING_SCHEMA = pa.schema([
    pa.field("session_id", pa.string()),
    pa.field("line", pa.string()),
    pa.field("losses", pa.list_(pa.string())),
])
""":func:`to_training` rows: the session, its training line as JSON text, each loss as text."""


def _sessions(table: pa.Table) -> Iterator[tuple[str | None, list[HistoryEvent]]]:
    """Each session's events, sessions in order of first appearance (rows of one session need
    not be adjacent, but must all be in ``table``)."""
    found: dict[str | None, list[tuple[int, HistoryEvent]]] = {}
    row = 1
    for batch in table.to_batches():
        seqs = batch.column("seq").to_pylist()
        for k, (session_id, event) in enumerate(iter_rows(batch, first_row=row)):
            found.setdefault(session_id, []).append((seqs[k], event))
        row += batch.num_rows
    for session_id, numbered in found.items():
        numbered.sort(key=lambda pair: pair[0])
        yield session_id, [event for _, event in numbered]


def _losses(losses: Sequence[Loss]) -> list[str]:
    return [str(loss) for loss in losses]


def reprice(table: pa.Table, *, prices: PriceTable | None = None, at: datetime | None = None) -> pa.Table:
    """The rows with each assistant message's cost and pricing version recomputed
    (:func:`partwire.pricing.reprice`); every other row as it was. A row job."""
    builder = BatchBuilder()
    batches = []
    row = 1
    for batch in table.to_batches():
        sessions = batch.column("session_id").to_pylist()
        seqs = batch.column("seq").to_pylist()
        events = [event for _, event in iter_rows(batch, first_row=row)]
        for k, event in enumerate(pricing.reprice(events, table=prices, at=at)):
            builder.add(sessions[k], seqs[k], event)
        row += batch.num_rows
        batches.append(builder.finish())
    return pa.Table.from_batches(batches, schema=EVENT_SCHEMA)


def to_requests(table: pa.Table, *, target: str, model: str, tools: Sequence[Any] = (),
                settings: Mapping[str, Any] | None = None, **to_wire: Any) -> pa.Table:
    """Each session's request to ``target`` (an adapter name) for ``model``, with its losses.
    A session job."""
    adapter = get_adapter(target)
    rows = []
    for session_id, events in _sessions(table):
        projection = adapter.to_wire(events, model=model, tools=tuple(tools), settings=settings, **to_wire)
        rows.append({"session_id": session_id, "request": _json(projection.request),
                     "losses": _losses(projection.losses)})
    return pa.Table.from_pylist(rows, schema=REQUEST_SCHEMA)


def estimate_tokens(table: pa.Table, *, target: str, model: str | None = None,
                    tools: Sequence[Any] = ()) -> pa.Table:
    """Each session's estimated input tokens on ``target`` (the adapter's offline estimate of the
    request for the whole history). A session job."""
    adapter = get_adapter(target)
    rows = [{"session_id": session_id, "events": len(events),
             "input_tokens": adapter.estimate_input_tokens(events, tuple(tools), model=model)}
            for session_id, events in _sessions(table)]
    return pa.Table.from_pylist(rows, schema=ESTIMATE_SCHEMA)


def to_training(table: pa.Table, *, format: Literal["trl", "openai_finetune"] = "trl",
                tools: Sequence[Any] = ()) -> pa.Table:
    """Each session as one training line (:func:`partwire.datasets.trl_row` or
    :func:`~partwire.datasets.openai_finetune`) as JSON text, with its losses. A session job."""
    if format not in ("trl", "openai_finetune"):
        raise ArgumentError("format", f"expected 'trl' or 'openai_finetune', not {format!r}",
                            function="partwire.arrow.jobs.to_training")
    rows = []
    for session_id, events in _sessions(table):
        line = formats.trl_row(events, tools=tools) if format == "trl" else formats.openai_finetune(events, tools=tools)
        rows.append({"session_id": session_id, "line": line.json(), "losses": _losses(line.losses)})
    return pa.Table.from_pylist(rows, schema=TRAINING_SCHEMA)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_bytes)


def _bytes(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        import base64

        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"{type(value).__name__} is not JSON")
