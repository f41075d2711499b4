"""Histories as Arrow tables and Parquet files: one row per event, in a stable, versioned schema.

Needs ``pyarrow`` (``pip install 'partwire[arrow]'``); ``import partwire`` never imports it.
Every column is documented in ``docs/datasets.md``. A history written to Arrow and read back
gives the same JSONL bytes (``codec.dumps``) as the history it came from::

    table = partwire.arrow.from_history(events, session_id="s1")
    assert partwire.codec.dumps(partwire.arrow.to_history(table)) == partwire.codec.dumps(events)

Typed columns hold what people query (text, tool names, call ids, arguments, status, media,
usage and cost, model, provider, times); every other field rides in the ``extra`` JSON column,
so nothing is lost. Many sessions go into one table as rows tagged with ``session_id`` and their
position ``seq``; :func:`write_parquet` and :func:`iter_parquet` stream them a row group at a
time, never holding the whole dataset.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError as exc:  # pragma: no cover - the extra is installed wherever tests run
    raise ImportError("partwire.arrow needs pyarrow: pip install 'partwire[arrow]'") from exc

from partwire.errors import ArgumentError
from partwire.history import History, HistoryEvent

from ._read import check_schema, iter_rows, read_batch
from ._schema import ARROW_SCHEMA_VERSION, EVENT_SCHEMA
from ._write import iter_batches

__all__ = [
    "ARROW_SCHEMA_VERSION",
    "BATCH_ROWS",
    "SCHEMA",
    "TRL_SCHEMA",
    "from_histories",
    "from_history",
    "iter_parquet",
    "to_histories",
    "to_history",
    "write_parquet",
    "write_rows",
]

SCHEMA: pa.Schema = EVENT_SCHEMA
"""The Arrow schema of a history table (its metadata names the schema version)."""

BATCH_ROWS = 8192
"""Rows per record batch and per Parquet row group unless told otherwise: small enough to stream
(a batch of typical events is a few MiB), large enough for Parquet's compression to work."""

Sessions = Iterable[tuple[str | None, Iterable[HistoryEvent]]]
"""``(session_id, events)`` pairs: the histories of a dataset, each under its session id."""


def from_history(history: History, *, session_id: str | None = None) -> pa.Table:
    """One history as a table, one row per event (``session_id`` on every row)."""
    return pa.Table.from_batches(list(iter_batches([(session_id, history)], BATCH_ROWS)),
                                 schema=EVENT_SCHEMA)


def from_histories(sessions: Sessions, *, batch_rows: int = BATCH_ROWS) -> Iterator[pa.RecordBatch]:
    """Record batches of at most ``batch_rows`` rows over many sessions, made as they are read."""
    if batch_rows < 1:
        raise ArgumentError("batch_rows", f"must be at least 1, not {batch_rows}",
                            function="partwire.arrow.from_histories")
    return iter_batches(sessions, batch_rows)


def to_history(data: pa.Table | pa.RecordBatch) -> list[HistoryEvent]:
    """The events of every row, in row order (whatever their session).

    Raises :class:`~partwire.errors.DecodeError` naming the row (as its line, 1-based) and column
    when a row is not a history event, or when the table is not in this schema version.
    """
    events: list[HistoryEvent] = []
    row = 1
    for batch in _batches(data):
        events.extend(read_batch(batch, first_row=row)[1])
        row += batch.num_rows
    return events


def to_histories(data: pa.Table | pa.RecordBatch | Iterable[pa.RecordBatch],
                 *, source: str | None = None) -> Iterator[tuple[str | None, list[HistoryEvent]]]:
    """``(session_id, events)`` for each run of rows with the same session id, in row order."""
    current: str | None = None
    events: list[HistoryEvent] = []
    started = False
    for session_id, event in _rows(data, source=source):
        if started and session_id != current:
            yield current, events
            events = []
        current, started = session_id, True
        events.append(event)
    if started:
        yield current, events


def write_parquet(sessions: Sessions, path: str | os.PathLike[str], *, row_group_rows: int = BATCH_ROWS,
                  compression: str = "zstd", progress: Any = None) -> int:
    """Write the sessions to one Parquet file, one row group per ``row_group_rows`` events, and
    return the number of events written. Memory holds one row group, never the dataset.

    ``progress``, when given, is called with the number of events of each row group written.
    """
    count = 0
    with pq.ParquetWriter(os.fspath(path), EVENT_SCHEMA, compression=compression) as writer:
        for batch in from_histories(sessions, batch_rows=row_group_rows):
            writer.write_batch(batch, row_group_size=row_group_rows)
            count += batch.num_rows
            if progress is not None:
                progress(batch.num_rows)
    return count


def iter_parquet(path: str | os.PathLike[str], *,
                 batch_rows: int = BATCH_ROWS) -> Iterator[tuple[str | None, list[HistoryEvent]]]:
    """``(session_id, events)`` for each session of a Parquet file, read a batch at a time."""
    file = pq.ParquetFile(os.fspath(path))
    check_schema(file.schema_arrow, os.fspath(path))
    return to_histories(file.iter_batches(batch_size=batch_rows), source=os.fspath(path))


_TRL_CALL = pa.struct([pa.field("id", pa.string()), pa.field("type", pa.string()),
                       pa.field("function", pa.struct([pa.field("name", pa.string()),
                                                       pa.field("arguments", pa.string())]))])
TRL_SCHEMA: pa.Schema = pa.schema([
    pa.field("messages", pa.list_(pa.struct([
        pa.field("role", pa.string()), pa.field("content", pa.string()),
        pa.field("reasoning_content", pa.string()), pa.field("tool_calls", pa.list_(_TRL_CALL)),
        pa.field("name", pa.string()), pa.field("tool_call_id", pa.string())]))),
    pa.field("tools", pa.string()),
])
"""The Arrow schema of TRL conversational rows (``partwire.datasets.trl_row``): one fixed type
for every row, so ``datasets`` loads a Parquet file of them as the rows written."""


def write_rows(rows: Iterable[Any], path: str | os.PathLike[str], schema: pa.Schema, *,
               row_group_rows: int = BATCH_ROWS, compression: str = "zstd") -> int:
    """Write rows (dicts, or ``partwire.datasets.Line`` objects) of ``schema`` to a Parquet file a
    row group at a time; returns how many were written."""
    count = 0
    chunk: list[Any] = []
    with pq.ParquetWriter(os.fspath(path), schema, compression=compression) as writer:
        for row in rows:
            chunk.append(getattr(row, "value", row))
            if len(chunk) >= row_group_rows:
                writer.write_table(pa.Table.from_pylist(chunk, schema=schema))
                count += len(chunk)
                chunk = []
        if chunk:
            writer.write_table(pa.Table.from_pylist(chunk, schema=schema))
            count += len(chunk)
    return count


def _batches(data: pa.Table | pa.RecordBatch | Iterable[pa.RecordBatch]) -> Iterable[pa.RecordBatch]:
    if isinstance(data, pa.Table):
        batches: list[pa.RecordBatch] = data.to_batches()
        return batches
    if isinstance(data, pa.RecordBatch):
        return [data]
    return (batch for batch in data)


def _rows(data: pa.Table | pa.RecordBatch | Iterable[pa.RecordBatch],
          *, source: str | None = None) -> Iterator[tuple[str | None, HistoryEvent]]:
    row = 1
    for batch in _batches(data):
        yield from iter_rows(batch, source=source, first_row=row)
        row += batch.num_rows
