"""The PostgreSQL backend: psycopg 3 (the ``partwire[postgres]`` extra), for many writers and machines.

Writers to one session serialise on that session's row (``SELECT ... FOR UPDATE``); writers to
different sessions run in parallel. Schema changes take a session-level advisory lock, so
processes opening a fresh database at once create it once.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final

from partwire._memo import derived

from ._errors import StoreUnavailableError
from ._snippet import Hit, Row, Segment
from ._sqlite import MESSAGE_COLUMNS, Cursor

__all__ = ["PostgresBackend"]

# Any constant: the key of the advisory lock that serialises schema creation and migration.
_SCHEMA_LOCK = 0x7061727477697265  # "partwire"
# Mirrors the expression of the parts_fts index, which PostgreSQL matches textually.
_TSV = "to_tsvector('english'::regconfig, left(p.text, 100000))"
# Equal ranks: in stored order; within one lineage, in the lineage's order.
_TIES = "p.session_id, p.seq, p.idx"
# The columns' types, for binary COPY (psycopg must be told them: a Python int or str fits several).
_EVENT_TYPES = ("text", "int8", "text", "text", "text", "text", "bytea")
_MESSAGE_TYPES = ("text", "int8", "text", "text", "text", "int8", "int8", "int8", "int8", "int8", "text", "text")
_PART_TYPES = ("text", "int8", "int4", "text", "text")
_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@")


def redact(url: str) -> str:
    """``url`` without its password."""
    return _PASSWORD.sub(r"\1***@", url)


class PostgresBackend:
    """One connection to one PostgreSQL database, used by one :class:`~partwire.store.Store`."""

    dialect: Final = "postgresql"

    def __init__(self, url: str) -> None:
        self.url = url
        """The libpq connection URL."""
        try:
            psycopg = importlib.import_module("psycopg")
        except ImportError as exc:
            raise StoreUnavailableError(
                "a postgresql:// store needs psycopg 3: pip install 'partwire[postgres]'"
            ) from exc
        self._psycopg: Any = psycopg
        self._lock = threading.RLock()
        try:
            kwargs = {} if "connect_timeout" in url else {"connect_timeout": 10}
            self._conn: Any = psycopg.connect(url, autocommit=True, **kwargs)
        except psycopg.Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StoreUnavailableError(f"cannot connect to PostgreSQL at {redact(url)}: {first}") from exc

    def describe(self) -> str:
        """The database, for messages (no password)."""
        return redact(self.url)

    @contextmanager
    def write(self) -> Iterator[Cursor]:
        """A transaction; writers lock the rows they change."""
        with self._lost(), self._lock, self._conn.transaction(), self._conn.cursor() as raw:
            yield _PgCursor(raw)

    @contextmanager
    def read(self) -> Iterator[Cursor]:
        """A repeatable-read transaction: every statement in it sees one snapshot."""
        with self._lost(), self._lock, self._conn.transaction(), self._conn.cursor() as raw:
            raw.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield _PgCursor(raw)

    @contextmanager
    def _lost(self) -> Iterator[None]:
        """A connection lost mid-way (server restarted, network gone), or a write refused to a
        read-only connection (a standby, ``default_transaction_read_only``, a role without the
        privilege), as one clear error."""
        errors = self._psycopg.errors
        try:
            yield
        except (self._psycopg.OperationalError, errors.ReadOnlySqlTransaction, errors.InsufficientPrivilege) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StoreUnavailableError(f"PostgreSQL at {redact(self.url)}: {first}") from exc

    def table_exists(self, cur: Cursor, name: str) -> bool:
        """Whether the table ``name`` exists on the search path."""
        cur.execute("SELECT to_regclass(?) IS NOT NULL", (name,))
        row = cur.fetchone()
        return bool(row and row[0])

    @contextmanager
    def schema_lock(self) -> Iterator[None]:
        """Serialise schema creation and migration across processes.

        A session-level lock taken outside the transaction: a transaction that waited for an
        advisory lock inside itself would still see the catalog as it was before the wait.
        """
        with self._lock:
            self._conn.execute("SELECT pg_advisory_lock(%s)", (_SCHEMA_LOCK,))
            try:
                yield
            finally:
                self._conn.execute("SELECT pg_advisory_unlock(%s)", (_SCHEMA_LOCK,))

    def insert_events(self, cur: Cursor, rows: list[Row], after: int) -> int:
        """Insert event rows by ``COPY``; the returned base is unused (no rowids here)."""
        cur.copy("events", "session_id, seq, id, type, role, created_at, line", rows, _EVENT_TYPES)
        return 0

    def insert_messages(self, cur: Cursor, rows: list[Row]) -> None:
        """Insert assistant message rows by ``COPY``."""
        cur.copy("messages", MESSAGE_COLUMNS, rows, _MESSAGE_TYPES)

    def index_parts(self, cur: Cursor, rows: list[Row], rowids: int | dict[int, int]) -> None:
        """Insert the searchable texts by ``COPY``; the GIN index follows the table."""
        cur.copy("parts", "session_id, seq, idx, type, text", rows, _PART_TYPES)

    def unindex_session(self, cur: Cursor, session_id: str, rows: list[Row]) -> None:
        """Remove a session's texts."""
        cur.execute("DELETE FROM parts WHERE session_id = ?", (session_id,))

    def clear_index(self, cur: Cursor) -> None:
        """Remove every text."""
        cur.execute("DELETE FROM parts")

    def rowids(self, cur: Cursor, session_id: str, first: int = 1, last: int = 1 << 62) -> dict[int, int]:
        """Nothing: PostgreSQL's texts are keyed by session and seq."""
        return {}

    def search(self, cur: Cursor, text: str, segments: list[Segment] | None, limit: int) -> list[Hit]:
        """Rows ``(session_id, event_id, seq, idx, type, snippet)`` best match first, within
        ``segments`` (stored session, first seq, last seq) when given."""
        where = f"p.text IS NOT NULL AND {_TSV} @@ q"
        params: list[Any] = [text]
        if segments is not None:
            if not segments:
                return []
            where += " AND (" + " OR ".join(["(p.session_id = ? AND p.seq BETWEEN ? AND ?)"] * len(segments)) + ")"
            params.extend(v for segment in segments for v in segment)
        cur.execute(
            "SELECT p.session_id, e.id, p.seq, p.idx, p.type, "
            "ts_headline('english', left(p.text, 100000), q, "
            "'StartSel=[, StopSel=], MaxWords=16, MinWords=6, MaxFragments=1, FragmentDelimiter=...') "
            "FROM parts p JOIN events e ON e.session_id = p.session_id AND e.seq = p.seq, "
            "plainto_tsquery('english', ?) q "
            f"WHERE {where} ORDER BY ts_rank({_TSV}, q) DESC, {_TIES if segments is None else 'p.seq, p.idx'} LIMIT ?",
            (*params, limit),
        )
        return [(sid, eid, int(seq), int(idx), typ, snip or "") for sid, eid, seq, idx, typ, snip in cur.fetchall()]

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._conn.close()


class _PgCursor(Cursor):
    """psycopg's ``%s`` placeholders from the ``?`` the store's SQL is written with."""

    _cache: dict[str, str] = derived({})

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run one statement."""
        super().execute(self._convert(sql), params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement for each row (pipelined by psycopg)."""
        super().executemany(self._convert(sql), rows)

    def copy(self, table: str, columns: str, rows: Sequence[Sequence[Any]],
             types: Sequence[str] | None = None) -> None:
        """Insert ``rows`` with one ``COPY ... FROM STDIN``: PostgreSQL's bulk load; in its binary
        format when the columns' ``types`` are given (a line's bytes go as they are, not as hex
        text twice their size for the server to decode)."""
        if not rows:
            return
        binary = " (FORMAT BINARY)" if types is not None else ""
        with self._cursor.copy(f"COPY {table} ({columns}) FROM STDIN{binary}") as copy:
            if types is not None:
                copy.set_types(types)
            for row in rows:
                copy.write_row(row)

    @classmethod
    def _convert(cls, sql: str) -> str:
        converted = cls._cache.get(sql)
        if converted is None:
            converted = cls._cache[sql] = sql.replace("%", "%%").replace("?", "%s")
        return converted
