"""The :class:`Store`: sessions of history events in SQLite or PostgreSQL, one API for both.

Each event's line is stored verbatim (the bytes the JSONL codec writes for it, or the bytes read
from an imported file), so an export is byte-identical; every other column is derived from the
decoded event on write (``_derive``) and can be rebuilt from the lines (:meth:`Store.rebuild`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from types import TracebackType
from typing import Any, Final, Literal, Protocol

from partwire.codec import Record, encode, iter_records
from partwire.codec._reader import is_complete_line
from partwire.history import CompactionEvent, HistoryEvent, TaskMetadataEvent
from partwire.ids import new_message_id
from partwire.messages import AssistantMessage
from partwire.pricing import PriceTable

from ._backlog import DEFERRED_INDEX, behind, catch_up, record
from ._derive import Derived, SessionTotals, clean, derive, price
from ._errors import (
    ConflictError,
    ExpectLastError,
    NotFoundError,
    SchemaVersionError,
    StoreError,
    StoreUnavailableError,
)
from ._import import Batch, BatchReader
from ._lineage import OPEN, fork_start, segments
from ._lines import decode_lines
from ._schema import SCHEMA_VERSION, Dialect, create_ddl, migration_ddl
from ._snippet import Hit, Row, Segment
from ._sqlite import Cursor

__all__ = [
    "UNSET",
    "AppendResult",
    "ImportResult",
    "SearchHit",
    "SessionSummary",
    "Store",
    "ToolCallRecord",
    "UsageTotal",
]


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset()
"""``expect_last`` not given: append whatever the session's last event is."""

_IN_CHUNK = 500  # ids per IN (...) lookup: well under SQLite's 32,766-variable limit
_EXPORT_CHUNK = 1000
IMPORT_BATCH = 2000
"""Events per transaction when importing a file: each batch commits on its own."""

_SESSION_COLUMNS = (
    "created_at, updated_at, last_seq, last_event_id, event_count, message_count, model, title, "
    "input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost, uncosted"
)
_SUMMARY_COLUMNS = f"id, {_SESSION_COLUMNS}, forked_from, forked_at"
_CALLS_INSERT = (
    "INSERT INTO tool_calls (session_id, call_id, seq, message_id, name, status, result_seq, "
    "result_id, created_at, started_at, finished_at)"
)
_CALLS_ARRAYS = ("?::text[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[], "
                 "?::text[], ?::text[], ?::text[]")
_CALLS_UPSERT = (
    "ON CONFLICT (session_id, call_id) DO UPDATE SET seq = excluded.seq, "
    "message_id = excluded.message_id, name = excluded.name, status = excluded.status, "
    "result_seq = excluded.result_seq, result_id = excluded.result_id, "
    "created_at = excluded.created_at, started_at = excluded.started_at, "
    "finished_at = excluded.finished_at"
)
_TOOL_COLUMNS = (
    "session_id, call_id, name, status, message_id, result_id, created_at, started_at, finished_at"
)


class Backend(Protocol):
    """What the store needs from a database (``_sqlite.SqliteBackend``, ``_postgres.PostgresBackend``)."""

    @property
    def dialect(self) -> Dialect: ...
    def describe(self) -> str: ...
    def write(self) -> Any: ...
    def read(self) -> Any: ...
    def table_exists(self, cur: Cursor, name: str) -> bool: ...
    def schema_lock(self) -> Any: ...
    def insert_events(self, cur: Cursor, rows: list[Row], after: int) -> int: ...
    def insert_messages(self, cur: Cursor, rows: list[Row]) -> None: ...
    def index_parts(self, cur: Cursor, rows: list[Row], rowids: int | dict[int, int]) -> None: ...
    def unindex_session(self, cur: Cursor, session_id: str, rows: list[Row]) -> None: ...
    def clear_index(self, cur: Cursor) -> None: ...
    def rowids(self, cur: Cursor, session_id: str, first: int = ..., last: int = ...) -> dict[int, int]: ...
    def search(self, cur: Cursor, text: str, segments: list[Segment] | None, limit: int) -> list[Hit]: ...
    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What an append or an import batch did."""

    session_id: str
    """The session written to."""
    added: int
    """Events stored by this call."""
    skipped: int
    """Events already stored with the same bytes (an idempotent re-run)."""
    last_event_id: str | None
    """The session's last event after the call."""


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What importing one file did."""

    session_id: str
    """The session the file went to."""
    added: int
    """Events stored."""
    skipped: int
    """Events already stored with the same bytes."""
    problems: tuple[str, ...]
    """What the reader reported (unknown events, future versions), ``FILE:LINE: message``; the lines
    are stored verbatim all the same."""


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One session as ``ls`` lists it.

    Its id is ``session_id``, as on every other record of the store (``SearchHit``,
    ``ToolCallRecord``, ``UsageTotal``); ``id`` is kept as a deprecated alias.
    """

    session_id: str
    """The session id."""
    created_at: datetime | None
    """The first event's time."""
    updated_at: datetime | None
    """The latest event time."""
    last_event_id: str | None
    """The id of the last event (pass it as ``expect_last``)."""
    event_count: int
    """Events stored."""
    message_count: int
    """Messages among them."""
    model: str | None
    """The model of the latest assistant message or model switch."""
    title: str | None
    """The latest task title."""
    input_tokens: int
    """Summed over assistant messages (usage is normalised: cache reads included)."""
    output_tokens: int
    """Summed over assistant messages (reasoning included)."""
    cache_read_tokens: int
    """Summed over assistant messages."""
    cache_write_tokens: int
    """Summed over assistant messages."""
    reasoning_tokens: int
    """Summed over assistant messages."""
    cost: Decimal | None
    """Sum of the known costs in USD; ``None`` when no message had one."""
    uncosted: int
    """Messages with usage but no cost (not guessed; see ``cost``)."""
    forked_from: str | None
    """The session this one was forked from."""
    forked_at: str | None
    """The event it was forked at (the last event shared with ``forked_from``)."""

    @property
    def id(self) -> str:
        """Deprecated alias of :attr:`session_id` (the name every other store record uses)."""
        warnings.warn("SessionSummary.id is deprecated; use SessionSummary.session_id",
                      DeprecationWarning, stacklevel=2)
        return self.session_id


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """A tool call and where it stands (derived from the call and the tool message answering it)."""

    session_id: str
    """The session."""
    call_id: str
    """The canonical tool-call id."""
    name: str
    """The tool's name."""
    status: Literal["pending", "success", "error", "aborted", "denied"]
    """``pending`` until a tool message answers it (``aborted`` when its message was interrupted)."""
    message_id: str
    """The assistant message holding the call."""
    result_id: str | None
    """The tool message answering it."""
    created_at: datetime
    """When the assistant message was created."""
    started_at: datetime | None
    """When the tool started, if recorded."""
    finished_at: datetime | None
    """When the tool finished, if recorded."""


@dataclass(frozen=True, slots=True)
class UsageTotal:
    """Usage and cost summed over the assistant messages of one session and one model."""

    session_id: str
    """The session."""
    model: str | None
    """The model (``provider:model``), ``None`` when messages named none."""
    messages: int
    """Assistant messages counted."""
    input_tokens: int
    """Summed input tokens."""
    output_tokens: int
    """Summed output tokens."""
    cache_read_tokens: int
    """Summed cache reads."""
    cache_write_tokens: int
    """Summed cache writes."""
    reasoning_tokens: int
    """Summed reasoning tokens."""
    cost: Decimal | None
    """Sum of the known costs in USD; ``None`` when none was known."""
    uncosted: int
    """Messages with usage but no cost."""


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A part whose text matches a search."""

    session_id: str
    """The session."""
    event_id: str
    """The message holding the part."""
    seq: int
    """The message's position in its session (1-based)."""
    part_index: int
    """The part's index in the message; -1 for a tool message's ``output_text``."""
    part_type: str
    """``text``, ``thinking``, ``refusal`` or ``tool_output``."""
    snippet: str
    """The matching words in context, marked ``[like this]``."""


class _NoChange(Exception):
    """Nothing to write: roll the transaction back (it may have created an empty session row)."""


class Store:
    """Sessions of history events in one database. Open one with :func:`~partwire.store.open_store`.

    Thread-safe (one connection, used by one thread at a time); use one store per process, or one
    per thread for parallel reads.
    """

    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self.backend: Dialect = backend.dialect
        """``sqlite`` or ``postgresql``."""
        try:
            self._ensure_schema()
        except BaseException:
            backend.close()  # a refused database (newer schema) leaves no connection behind
            raise

    # -- lifecycle --------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection."""
        self._backend.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Store {self._backend.describe()}>"

    @property
    def schema_version(self) -> int:
        """The database's store schema version (always the current one once opened)."""
        with self._backend.read() as cur:
            return self._read_version(cur) or 0

    # -- writing ----------------------------------------------------------------------------

    def append(
        self,
        session_id: str,
        events: Iterable[HistoryEvent],
        *,
        expect_last: str | _Unset | None = UNSET,
    ) -> AppendResult:
        """Append ``events`` to a session (created on first append), atomically and in order.

        ``expect_last`` makes the append conditional: it must be the id of the session's last
        event (``None``: the session must be empty), else :class:`ExpectLastError` and nothing is
        written, so two writers cannot interleave a turn. Events already stored with the same
        bytes are skipped (a retried append is a no-op); the same id with other bytes raises
        :class:`ConflictError`.
        """
        items = [(event, encode(event)) for event in events]
        return self._write(_session_id(session_id), items, expect_last)

    def import_records(
        self,
        session_id: str,
        records: Iterable[Record],
        *,
        progress: Callable[[int], None] | None = None,
        read_ahead: bool = False,
    ) -> ImportResult:
        """Store decoded lines (from :func:`partwire.codec.iter_records`) verbatim, in batches.

        Each batch of :data:`IMPORT_BATCH` events commits on its own; a re-run skips what is
        stored, so an interrupted import is finished by running it again. ``progress`` is called
        with the number of bytes of the lines stored (newlines included) after each batch.
        With ``read_ahead`` (what :meth:`import_file` does), ``records`` is read, validated and
        derived in a second thread, a batch ahead of the writes: faster on two cores, for any
        iterator that may be advanced from another thread. Without it, ``records`` is read in
        the caller's thread, so an iterator bound to it (a database cursor) works.
        """
        session_id = _session_id(session_id)
        added = skipped = 0
        problems: list[str] = []
        reader = BatchReader(session_id, records, IMPORT_BATCH, ahead=read_ahead)
        try:
            while (batch := reader.next()) is not None:
                problems.extend(batch.problems)
                result = self._write(session_id, batch.items, UNSET, ahead=batch, indexing=reader.resume)
                added += result.added
                skipped += result.skipped
                if progress is not None:
                    progress(batch.size)
        finally:
            reader.close()
        return ImportResult(session_id, added, skipped, tuple(problems))

    def import_file(
        self,
        path: str | os.PathLike[str],
        session_id: str | None = None,
        *,
        progress: Callable[[int], None] | None = None,
    ) -> ImportResult:
        """Import a JSONL history file as one session, its lines stored verbatim.

        The session id is ``session_id`` if given, else the ``task_id`` of a ``task_metadata``
        event on the file's first line, else the file's name without its extension. A file whose
        final line is torn is refused before anything is stored.
        """
        name = os.fspath(path)
        _check_tail(name)
        if session_id is None:
            session_id = _session_id_of(name)
        return self.import_records(session_id, iter_records(name), progress=progress, read_ahead=True)

    def fork(self, session_id: str, event_id: str, new_session_id: str | None = None) -> str:
        """Start a new session whose history is ``session_id``'s up to and including ``event_id``.

        The fork refers to that prefix, it does not copy it: reads of the fork (load, export,
        search, tool calls, usage) see the whole lineage, and both sessions keep growing on their
        own. Its cost does not grow with the prefix (only with what the parent holds after the
        fork point). Returns the new session's id (a new ``fork_<ULID>`` unless given); a new id
        that already names a session raises :class:`ConflictError`.
        """
        new_id = _session_id(new_session_id or f"fork_{new_message_id()}")
        with self._backend.write() as cur:
            seq = self._event_seq(cur, session_id, event_id)
            cur.execute("SELECT event_count FROM sessions WHERE id = ?", (new_id,))
            if cur.fetchone() is not None:
                raise ConflictError(new_id, event_id, f"cannot fork into {new_id!r}: that session exists")
            parent = self._lock_session(cur, session_id)  # its writers wait: the suffix holds still
            totals, open_calls = fork_start(cur, session_id, seq, parent)
            cur.execute("INSERT INTO sessions (id, forked_from, forked_at, forked_seq) VALUES (?, ?, ?, ?)",
                        (new_id, session_id, clean(event_id), seq))
            self._save_totals(cur, new_id, totals)
            self._insert_calls(cur, new_id, open_calls)
        return new_id

    def reprice(self, session_id: str | None = None, *, table: PriceTable | None = None,
                at: datetime | None = None) -> int:
        """Recompute the cost and price version of every stored assistant message with usage (of one
        session, or of all) in place, as ``partwire reprice`` does to a file: with the prices of
        each message's own day, or of ``at``; from genai-prices, or ``table`` where it lists the
        model. A model without a price gets no cost (a stale one would be a guess). Every
        session's totals follow, forks included. The lines are not changed. Returns how many
        messages were repriced."""
        repriced = 0
        with self._backend.write() as cur:
            if session_id is not None:
                self._require_session(cur, session_id)
            where, params = ("", ()) if session_id is None else (" AND m.session_id = ?", (session_id,))
            cur.execute("SELECT m.session_id, m.seq, e.line FROM messages m JOIN events e "
                        "ON e.session_id = m.session_id AND e.seq = m.seq "
                        f"WHERE m.input_tokens IS NOT NULL{where}", params)
            rows = cur.fetchall()
            updates = []
            for (sid, seq, _line), event in zip(rows, decode_lines(bytes(r[2]) for r in rows), strict=True):
                if isinstance(event, AssistantMessage):
                    cost, version = price(event, table=table, at=at)
                    updates.append((None if cost is None else str(cost), version, sid, seq))
            cur.executemany("UPDATE messages SET cost = ?, pricing_version = ? WHERE session_id = ? AND seq = ?",
                            updates)
            repriced = len(updates)
            cur.execute("SELECT id FROM sessions")
            for (sid,) in cur.fetchall():
                self._recount_costs(cur, sid)
        return repriced

    def rebuild(self, session_id: str | None = None) -> None:
        """Recompute every derived row (sessions, messages, parts, tool calls, the full-text
        index) of one session, or of all, from the verbatim lines. Rebuilding one session first
        indexes what large writes left for later (of every session, as :meth:`index` does)."""
        with self._backend.write() as cur:
            self._rebuild(cur, session_id)

    def index(self) -> int:
        """Bring the full-text index up to date, in one transaction: index the texts that writes
        of more than :data:`~partwire.store.DEFERRED_INDEX` events left for later. :meth:`search`
        does this first when needed; call it to pay that cost at a time of your choosing (after
        an import, before a database is made read-only). Returns how many events it indexed."""
        with self._backend.write() as cur:
            return catch_up(cur, self._backend, decode_lines)

    # -- reading ----------------------------------------------------------------------------

    def export(self, session_id: str, *, until: str | None = None) -> Iterator[bytes]:
        """The session's JSONL, one line (ending in a newline) at a time, in memory bounded by a
        chunk of lines; up to and including the event ``until`` when given."""
        with self._backend.read() as cur:
            lineage = self._lineage(cur, session_id, until)
        for sid, first, last in lineage:
            after = first - 1
            while True:
                with self._backend.read() as cur:
                    cur.execute(
                        "SELECT seq, line FROM events WHERE session_id = ? AND seq > ? AND seq <= ? "
                        f"ORDER BY seq LIMIT {_EXPORT_CHUNK}",
                        (sid, after, last),
                    )
                    rows = cur.fetchall()
                for seq, line in rows:
                    yield bytes(line) + b"\n"
                    after = seq
                if len(rows) < _EXPORT_CHUNK:
                    break

    def export_bytes(self, session_id: str, *, until: str | None = None) -> bytes:
        """The session's whole JSONL text (see :meth:`export`)."""
        return b"".join(self.export(session_id, until=until))

    def load(self, session_id: str, *, until: str | None = None) -> list[HistoryEvent]:
        """The session's events (up to and including ``until``), decoded tolerantly by the codec.

        Eager: every event is validated here, each line parsed once, straight from the bytes the
        database returns (what the codec's reader does with a file's lines), so a line the codec
        cannot read whole is an ``UnknownEvent`` now, not an error later.
        """
        lines: list[bytes] = []
        with self._backend.read() as cur:
            for sid, first, last in self._lineage(cur, session_id, until):
                cur.execute("SELECT line FROM events WHERE session_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
                            (sid, first, last))
                lines.extend(line for (line,) in cur.fetchall())
        return decode_lines(lines)

    def sessions(self, *, limit: int | None = None) -> list[SessionSummary]:
        """Every session, the most recently active first."""
        sql = f"SELECT {_SUMMARY_COLUMNS} FROM sessions ORDER BY updated_at DESC, id"
        params: tuple[Any, ...] = ()
        if limit is not None:
            sql += " LIMIT ?"
            params = (_limit(limit),)
        with self._backend.read() as cur:
            cur.execute(sql, params)
            return [_summary(row) for row in cur.fetchall()]

    def session(self, session_id: str) -> SessionSummary:
        """One session's summary; :class:`NotFoundError` when there is none."""
        with self._backend.read() as cur:
            cur.execute(f"SELECT {_SUMMARY_COLUMNS} FROM sessions WHERE id = ?", (session_id,))
            row = cur.fetchone()
        if row is None:
            raise NotFoundError(f"no session {session_id!r}")
        return _summary(row)

    def pending_tool_calls(self, session_id: str | None = None) -> list[ToolCallRecord]:
        """Tool calls no tool message has answered (after a crash: the calls to re-run or abort)."""
        return self.tool_calls(session_id, status="pending")

    def tool_calls(
        self, session_id: str | None = None, *, status: str | None = None, name: str | None = None
    ) -> list[ToolCallRecord]:
        """Tool calls, in call order within each session, filtered by session, status and name.

        A fork's calls are its lineage's as they stood at the fork point, then its own."""
        with self._backend.read() as cur:
            lineage = segments(cur, session_id) if session_id is not None else None
            if lineage is not None and len(lineage) > 1 and status != "pending":
                # A fork holds the calls still open at its fork point (pending ones included), so
                # only the other statuses need its ancestors' rows, the later session's row winning.
                rows: dict[str, tuple[Any, ...]] = {}
                for sid, _first, last in reversed(lineage):
                    cur.execute(f"SELECT {_TOOL_COLUMNS}, seq FROM tool_calls WHERE session_id = ? AND seq <= ?",
                                (sid, last))
                    for row in cur.fetchall():
                        rows.setdefault(row[1], (session_id, *row[1:]))
                found = sorted(rows.values(), key=lambda r: (r[-1], r[1]))
                return [_tool_call(r[:-1]) for r in found
                        if (status is None or r[3] == status) and (name is None or r[2] == name)]
            where, params = [], []
            for column, value in (("status", status), ("session_id", session_id), ("name", name)):
                if value is not None:
                    where.append(f"{column} = ?")
                    params.append(value)
            sql = f"SELECT {_TOOL_COLUMNS} FROM tool_calls"
            if where:
                sql += " WHERE " + " AND ".join(where)
            sql += " ORDER BY session_id, seq, call_id"
            cur.execute(sql, params)
            return [_tool_call(row) for row in cur.fetchall()]

    def latest_compaction(self, session_id: str) -> CompactionEvent | None:
        """The session's most recent compaction event, if any."""
        row = None
        with self._backend.read() as cur:
            for sid, first, last in reversed(segments(cur, session_id)):
                cur.execute(
                    "SELECT line FROM events WHERE session_id = ? AND type = 'compaction' AND role IS NULL "
                    "AND seq BETWEEN ? AND ? ORDER BY seq DESC LIMIT 1",
                    (sid, first, last),
                )
                row = cur.fetchone()
                if row is not None:
                    break
        if row is None:
            return None
        event = decode_lines([bytes(row[0])])[0]
        return event if isinstance(event, CompactionEvent) else None

    def usage(self, session_id: str | None = None) -> list[UsageTotal]:
        """Usage and cost of assistant messages, summed by session and model.

        For one session, its lineage's messages (a fork's prefix included, as its totals); for
        all, each stored message once, under the session that stores it."""
        with self._backend.read() as cur:
            if session_id is None:
                parts: list[tuple[str, list[Any]]] = [("", [])]
            else:
                parts = [(" WHERE session_id = ? AND seq BETWEEN ? AND ?", list(segment))
                         for segment in segments(cur, session_id)]
            totals: dict[tuple[str, str | None], list[Any]] = {}
            for where, params in parts:
                cur.execute(
                    "SELECT session_id, model, COUNT(*), COALESCE(SUM(input_tokens), 0), "
                    "COALESCE(SUM(output_tokens), 0), COALESCE(SUM(cache_read_tokens), 0), "
                    "COALESCE(SUM(cache_write_tokens), 0), COALESCE(SUM(reasoning_tokens), 0), "
                    "SUM(CASE WHEN cost IS NULL AND input_tokens IS NOT NULL THEN 1 ELSE 0 END) "
                    f"FROM messages{where} GROUP BY session_id, model",
                    params,
                )
                for sid, model, *sums in cur.fetchall():
                    acc = totals.setdefault((session_id or sid, model), [0] * 7 + [None])
                    for k, value in enumerate(sums):
                        acc[k] += int(value or 0)
                # Costs are exact decimals kept as text; summed here, not in SQL floats.
                cost_where = (f"{where} AND" if where else " WHERE") + " cost IS NOT NULL"
                cur.execute(f"SELECT session_id, model, cost FROM messages{cost_where}", params)
                for sid, model, cost in cur.fetchall():
                    acc = totals[session_id or sid, model]
                    acc[7] = Decimal(cost) if acc[7] is None else acc[7] + Decimal(cost)
        return [
            UsageTotal(sid, model, n, i, o, cr, cw, r, cost, unc)
            for (sid, model), (n, i, o, cr, cw, r, unc, cost) in sorted(
                totals.items(), key=lambda item: (item[0][0], item[0][1] is not None, item[0][1] or ""))
        ]

    def search(self, text: str, *, session_id: str | None = None, limit: int = 20) -> list[SearchHit]:
        """Text, thinking, refusal parts and tool outputs matching every word of ``text``, best
        first (SQLite FTS5 with the Porter stemmer; PostgreSQL's ``english`` text search); within
        one session's lineage when ``session_id`` is given.

        Texts that a large write left out of the index are indexed first (:meth:`index`), so a
        search finds every stored event; that first search is then a write (it waits for the
        write lock) and pays the indexing."""
        text, limit = clean(text), _limit(limit)
        with self._backend.read() as cur:
            rows = None if behind(cur) else self._search(cur, text, session_id, limit)
        if rows is None:
            self.index()
            with self._backend.read() as cur:
                rows = self._search(cur, text, session_id, limit)
        return [SearchHit(session_id or sid, eid, int(seq), int(idx), typ, snip)
                for sid, eid, seq, idx, typ, snip in rows]

    def _search(self, cur: Cursor, text: str, session_id: str | None, limit: int) -> list[Hit]:
        lineage = segments(cur, session_id) if session_id is not None else None
        return self._backend.search(cur, text, lineage, limit)

    # -- internals: writing -----------------------------------------------------------------

    def _write(
        self,
        session_id: str,
        items: list[tuple[HistoryEvent, bytes]],
        expect_last: str | _Unset | None,
        *,
        ahead: Batch | None = None,
        indexing: Callable[[SessionTotals], None] | None = None,
    ) -> AppendResult:
        """One transaction. ``ahead`` may hold the rows, derived for the session as it was expected
        to be; ``indexing`` is told the totals once the rest of the transaction runs in the
        database (the full-text index and the commit), or when nothing is written."""
        try:
            with self._backend.write() as cur:
                totals = self._lock_session(cur, session_id)
                new, skipped = self._new_items(cur, session_id, items, totals)
                if not new:
                    raise _NoChange(totals)
                if not isinstance(expect_last, _Unset) and expect_last != totals.last_event_id:
                    raise ExpectLastError(session_id, expect_last, totals.last_event_id)
                after = totals.last_seq
                later = len(new) > DEFERRED_INDEX  # the texts are left to the next search
                prepared = ahead.rows_for(totals, new, with_texts=not later) if ahead is not None else None
                if prepared is None:
                    rows = derive(session_id, new, totals, with_texts=not later)
                else:
                    rows, totals = prepared
                self._insert(cur, session_id, rows, after, totals, indexing, index_later=later)
        except _NoChange as nothing:
            unchanged: SessionTotals = nothing.args[0]
            if indexing is not None:
                indexing(unchanged)
            return AppendResult(session_id, 0, len(items), unchanged.last_event_id)
        return AppendResult(session_id, len(new), skipped, totals.last_event_id)

    def _lock_session(self, cur: Cursor, session_id: str) -> SessionTotals:
        """The session's totals, its row locked (created if new)."""
        select = (f"SELECT {_SESSION_COLUMNS}, forked_seq FROM sessions WHERE id = ?"
                  + (" FOR UPDATE" if self.backend == "postgresql" else ""))
        cur.execute(select, (session_id,))
        row = cur.fetchone()
        if row is None:
            cur.execute("INSERT INTO sessions (id) VALUES (?) ON CONFLICT (id) DO NOTHING", (session_id,))
            cur.execute(select, (session_id,))
            row = cur.fetchone()
        assert row is not None
        values = list(row)
        values[13] = Decimal(values[13]) if values[13] is not None else None
        return SessionTotals(*values)

    def _new_items(
        self, cur: Cursor, session_id: str, items: list[tuple[HistoryEvent, bytes]], totals: SessionTotals
    ) -> tuple[list[tuple[HistoryEvent, bytes]], int]:
        """The items not stored yet; raises :class:`ConflictError` for an id stored with other bytes."""
        seen: dict[str, bytes] = {}
        if totals.event_count > 0:
            ids = list({clean(event.id) for event, _ in items})
            lineage = segments(cur, session_id) if totals.forked_seq else [(session_id, 1, OPEN)]
            for sid, first, last in lineage:
                for start in range(0, len(ids), _IN_CHUNK):
                    chunk = ids[start:start + _IN_CHUNK]
                    marks = ", ".join("?" * len(chunk))
                    cur.execute(f"SELECT id, line FROM events WHERE session_id = ? AND id IN ({marks}) "
                                "AND seq BETWEEN ? AND ?", (sid, *chunk, first, last))
                    seen.update((eid, bytes(line)) for eid, line in cur.fetchall())
        new: list[tuple[HistoryEvent, bytes]] = []
        skipped = 0
        for event, line in items:
            event_id = clean(event.id)
            stored = seen.get(event_id)
            if stored is None:
                seen[event_id] = line
                new.append((event, line))
            elif stored == line:
                skipped += 1
            else:
                raise ConflictError(
                    session_id, event_id,
                    f"session {session_id!r} already holds event {event_id!r} with other content; "
                    "not overwritten",
                )
        return new, skipped

    def _insert(
        self,
        cur: Cursor,
        session_id: str,
        rows: Derived,
        after: int,
        totals: SessionTotals,
        indexing: Callable[[SessionTotals], None] | None = None,
        *,
        rowids: dict[int, int] | None = None,
        index_later: bool = False,
    ) -> None:
        """Insert the rows of events appended after ``after`` and save the session's ``totals``;
        with ``rowids`` (a rebuild), the events are stored already, with these rowids by seq;
        with ``index_later``, their texts are left to the next catch-up (``_backlog``)."""
        base = self._backend.insert_events(cur, rows.events, after) if rowids is None else 0
        self._backend.insert_messages(cur, rows.messages)
        self._insert_calls(cur, session_id, [(call_id, *values) for call_id, values in rows.tool_calls.items()])
        cur.executemany(
            # Only a call made before the result: a result that comes first answers nothing.
            "UPDATE tool_calls SET status = ?, result_seq = ?, result_id = ?, started_at = ?, "
            "finished_at = ? WHERE session_id = ? AND call_id = ? AND seq < ?",
            [(*r[:5], session_id, r[5], r[1]) for r in rows.results],
        )
        self._save_totals(cur, session_id, totals)
        # From here on the transaction runs inside the database (indexing, then the commit).
        if indexing is not None:
            indexing(totals)
        if index_later:
            record(cur, session_id, after + 1, totals.last_seq)
        elif rows.parts:
            self._backend.index_parts(cur, rows.parts, base if rowids is None else rowids)

    def _insert_calls(self, cur: Cursor, session_id: str, calls: list[tuple[Any, ...]]) -> None:
        """Insert tool-call rows ``(call_id, seq, ..., finished_at)``, a stored call's row replaced."""
        if not calls:
            return
        if self.backend == "postgresql":
            # One statement over arrays, not one per row (a pipeline of thousands of statements
            # was a fifth of a bulk write); call ids are unique within ``calls``.
            cur.execute(f"{_CALLS_INSERT} SELECT ?, * FROM unnest({_CALLS_ARRAYS}) {_CALLS_UPSERT}",
                        (session_id, *(list(column) for column in zip(*calls, strict=True))))
            return
        cur.executemany(f"{_CALLS_INSERT} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) {_CALLS_UPSERT}",
                        [(session_id, *call) for call in calls])

    def _recount_costs(self, cur: Cursor, session_id: str) -> None:
        """Set a session's cost and unpriced count from its lineage's messages rows."""
        cost: Decimal | None = None
        uncosted = 0
        for sid, first, last in segments(cur, session_id):
            cur.execute("SELECT cost FROM messages WHERE session_id = ? AND seq BETWEEN ? AND ? "
                        "AND input_tokens IS NOT NULL", (sid, first, last))
            for (value,) in cur.fetchall():
                if value is None:
                    uncosted += 1
                else:
                    cost = Decimal(value) if cost is None else cost + Decimal(value)
        cur.execute("UPDATE sessions SET cost = ?, uncosted = ? WHERE id = ?",
                    (None if cost is None else str(cost), uncosted, session_id))

    def _save_totals(self, cur: Cursor, session_id: str, t: SessionTotals) -> None:
        cur.execute(
            "UPDATE sessions SET created_at = ?, updated_at = ?, last_seq = ?, last_event_id = ?, "
            "event_count = ?, message_count = ?, model = ?, title = ?, input_tokens = ?, "
            "output_tokens = ?, cache_read_tokens = ?, cache_write_tokens = ?, reasoning_tokens = ?, "
            "cost = ?, uncosted = ? WHERE id = ?",
            (t.created_at, t.updated_at, t.last_seq, t.last_event_id, t.event_count, t.message_count,
             t.model, t.title, t.input_tokens, t.output_tokens, t.cache_read_tokens,
             t.cache_write_tokens, t.reasoning_tokens, None if t.cost is None else str(t.cost),
             t.uncosted, session_id),
        )

    def _rebuild(self, cur: Cursor, session_id: str | None) -> None:
        """Derive every row again from the lines (the events rows stay as they are)."""
        cur.execute("SELECT id, forked_from, forked_seq FROM sessions ORDER BY id")
        forks = {sid: (parent, int(at or 0)) for sid, parent, at in cur.fetchall()}
        if session_id is None:
            ids = _parents_first(forks)
            self._backend.clear_index(cur)
            cur.execute("DELETE FROM unindexed")  # all indexed again below
            for table in ("messages", "tool_calls"):
                cur.execute(f"DELETE FROM {table}")
        else:
            self._require_session(cur, session_id)
            # Unindexing deletes the texts the lines give, which must all be in the index (a
            # contentless FTS5 index given texts it does not hold is damaged).
            catch_up(cur, self._backend, decode_lines)
            ids = [session_id]
        for sid in ids:
            cur.execute("SELECT seq, line FROM events WHERE session_id = ? ORDER BY seq", (sid,))
            stored = [(int(seq), bytes(line)) for seq, line in cur.fetchall()]
            parent, at = forks[sid]
            start = SessionTotals()
            open_calls: list[tuple[Any, ...]] = []
            if at and parent is not None:
                start, open_calls = fork_start(cur, parent, at, self._lock_session(cur, parent))
            # The texts a session's lines give are the texts that were indexed for them (a
            # migration, which may change what is derived, rebuilds all and empties the index).
            items = list(zip(decode_lines(line for _, line in stored), (line for _, line in stored),
                             strict=True))
            totals = replace(start)
            rows = derive(sid, items, totals)
            if session_id is not None:
                self._backend.unindex_session(cur, sid, rows.parts)
                for table in ("messages", "tool_calls"):
                    cur.execute(f"DELETE FROM {table} WHERE session_id = ?", (sid,))
            self._insert_calls(cur, sid, open_calls)
            self._insert(cur, sid, rows, start.last_seq, totals, rowids=self._backend.rowids(cur, sid))

    # -- internals: reading and schema --------------------------------------------------------

    def _require_session(self, cur: Cursor, session_id: str) -> None:
        cur.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,))
        if cur.fetchone() is None:
            raise NotFoundError(f"no session {session_id!r}")

    def _event_seq(self, cur: Cursor, session_id: str, event_id: str) -> int:
        """The position of ``event_id`` in ``session_id``'s lineage."""
        self._require_session(cur, session_id)
        for sid, first, last in segments(cur, session_id):
            cur.execute("SELECT seq FROM events WHERE session_id = ? AND id = ? AND seq BETWEEN ? AND ?",
                        (sid, clean(event_id), first, last))
            row = cur.fetchone()
            if row is not None:
                return int(row[0])
        raise NotFoundError(f"session {session_id!r} has no event {event_id!r}")

    def _lineage(self, cur: Cursor, session_id: str, until: str | None) -> list[Segment]:
        """The segments of ``session_id``'s events up to ``until``; :class:`NotFoundError` for an
        unknown session or event."""
        last = self._event_seq(cur, session_id, until) if until is not None else None
        if until is None:
            self._require_session(cur, session_id)
        return segments(cur, session_id, last)

    def _read_version(self, cur: Cursor) -> int | None:
        if not self._backend.table_exists(cur, "store_meta"):
            return None
        cur.execute("SELECT value FROM store_meta WHERE key = 'schema_version'")
        row = cur.fetchone()
        if row is None:
            return None
        try:
            return int(row[0])
        except (TypeError, ValueError):
            raise StoreUnavailableError(
                f"{self._backend.describe()}: its store_meta table holds schema_version {row[0]!r}, "
                "not a number: the database was changed by something other than partwire; "
                "restore it from a backup, or set the value to the version it was made with"
            ) from None

    def _ensure_schema(self) -> None:
        with self._backend.read() as cur:
            found = self._read_version(cur)
        if found == SCHEMA_VERSION:
            return
        if found is not None and found > SCHEMA_VERSION:
            raise SchemaVersionError(found, SCHEMA_VERSION)
        with self._backend.schema_lock(), self._backend.write() as cur:
            found = self._read_version(cur)  # again, under the lock: another process may have won
            if found == SCHEMA_VERSION:
                return
            if found is not None and found > SCHEMA_VERSION:
                raise SchemaVersionError(found, SCHEMA_VERSION)
            if found is None:
                for statement in create_ddl(self._backend.dialect):
                    cur.execute(statement)
                cur.execute("INSERT INTO store_meta (key, value) VALUES ('schema_version', ?)",
                            (str(SCHEMA_VERSION),))
                return
            for statement in migration_ddl(found, self._backend.dialect):
                cur.execute(statement)
            # Every migration ends by deriving the new tables from the verbatim lines.
            self._rebuild(cur, None)
            cur.execute("UPDATE store_meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))


# -- helpers ---------------------------------------------------------------------------------


def _session_id(value: str) -> str:
    if not isinstance(value, str) or not value:
        raise StoreError(f"a session id must be a non-empty string, not {value!r}")
    if clean(value) != value:
        raise StoreError(f"a session id must be valid UTF-8 text without NUL characters, not {value!r}")
    return value


def _limit(value: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise StoreError(f"limit must be a non-negative integer, not {value!r}")
    return value


def _check_tail(path: str) -> None:
    """Refuse a file whose final line is torn (an interrupted write), before storing anything."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size == 0:
                return
            handle.seek(size - 1)
            if handle.read(1) == b"\n":
                return
            line_start, end = 0, size
            while end > 0:  # back from the end, a block at a time, to the final line's start
                begin = max(0, end - (1 << 16))
                handle.seek(begin)
                newline = handle.read(end - begin).rfind(b"\n")
                if newline >= 0:
                    line_start = begin + newline + 1
                    break
                end = begin
            handle.seek(line_start)
            tail = handle.read()
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not tail.strip() or is_complete_line(tail):
        return
    raise StoreError(f"{path}:{_count_lines(path)}: torn final line (an interrupted write); nothing imported")


def _count_lines(path: str) -> int:
    with open(path, "rb") as handle:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b"")) + 1


def _session_id_of(path: str) -> str:
    """The ``task_id`` of a ``task_metadata`` first line, else the file name without extension."""
    records = iter_records(path)
    try:
        first = next(records, None)
    finally:
        records.close()  # type: ignore[attr-defined]  # a generator: close its file now
    if first is not None and isinstance(first.event, TaskMetadataEvent) and first.event.task_id:
        return first.event.task_id
    stem = os.path.basename(path)
    for suffix in (".jsonl", ".ndjson", ".json"):
        if stem.endswith(suffix):
            return stem[: -len(suffix)] or stem
    return stem


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value is not None else None


def _summary(row: tuple[Any, ...]) -> SessionSummary:
    (sid, created, updated, _last_seq, last_id, events, messages, model, title,
     i, o, cr, cw, r, cost, uncosted, forked_from, forked_at) = row
    return SessionSummary(
        sid, _time(created), _time(updated), last_id, int(events), int(messages), model, title,
        int(i), int(o), int(cr), int(cw), int(r), Decimal(cost) if cost is not None else None,
        int(uncosted), forked_from, forked_at,
    )


def _tool_call(row: tuple[Any, ...]) -> ToolCallRecord:
    sid, call_id, name, status, message_id, result_id, created, started, finished = row
    created_at = _time(created)
    assert created_at is not None
    return ToolCallRecord(sid, call_id, name, status, message_id, result_id, created_at,
                          _time(started), _time(finished))


def _parents_first(forks: dict[str, tuple[str | None, int]]) -> list[str]:
    """Session ids, each fork after the session it was forked from."""
    done: list[str] = []
    placed: set[str] = set()

    def place(sid: str, trail: frozenset[str]) -> None:
        if sid in placed or sid in trail:
            return
        parent, at = forks[sid]
        if at and parent in forks:
            place(parent, trail | {sid})
        placed.add(sid)
        done.append(sid)

    for sid in sorted(forks):
        place(sid, frozenset())
    return done
