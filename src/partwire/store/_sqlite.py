"""The SQLite backend: the stdlib ``sqlite3`` module, WAL journal, FTS5 for full-text search.

A write transaction is ``BEGIN IMMEDIATE``: it takes the database's one write lock up front, so
two writers never interleave and never deadlock on a lock upgrade; readers go on reading the last
committed state meanwhile (WAL).
"""

from __future__ import annotations

import functools
import os
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final

from ._errors import StoreError, StoreUnavailableError
from ._snippet import WHOLE_LINE, Hit, Row, Segment, hit_text, large_hit_text

MESSAGE_COLUMNS = (
    "session_id, seq, model, status, stop_reason, input_tokens, output_tokens, cache_read_tokens, "
    "cache_write_tokens, reasoning_tokens, cost, pricing_version"
)

__all__ = ["MESSAGE_COLUMNS", "SqliteBackend"]

# A writer waits this long for another writer's transaction before giving up (SQLITE_BUSY).
BUSY_TIMEOUT_MS = 120_000
PAGE_SIZE = 8_192
"""The page size of a SQLite store created by this partwire (SQLite's default is 4,096)."""
_WORD = re.compile(r"\w+")
PART_BITS = 16
PART_SLOTS = 1 << PART_BITS
"""A part's full-text rowid is its event's rowid times this, plus its index + 1 (a tool output's
is 0): the first 65,535 parts of a message are searchable."""


def _fts_rows(rows: list[Row], rowids: int | dict[int, int]) -> list[tuple[int, str]]:
    if isinstance(rowids, int):
        return [((rowids + seq) << PART_BITS | (idx + 1), text)
                for _sid, seq, idx, _type, text in rows if idx + 1 < PART_SLOTS]
    return [(rowids[seq] << PART_BITS | (idx + 1), text)
            for _sid, seq, idx, _type, text in rows if idx + 1 < PART_SLOTS]


def _marks(columns: str) -> str:
    return ", ".join("?" * (columns.count(",") + 1))


class SqliteBackend:
    """One connection to one SQLite file, used by one :class:`~partwire.store.Store`."""

    dialect: Final = "sqlite"

    def __init__(self, path: str) -> None:
        self.path = path
        """The database file (``:memory:`` for a private in-memory database)."""
        self._lock = threading.RLock()
        try:
            if path != ":memory:":
                directory = os.path.dirname(os.path.abspath(path))
                if not os.path.isdir(directory):
                    raise StoreUnavailableError(f"cannot open SQLite database {path}: no directory {directory}")
            self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                                         timeout=BUSY_TIMEOUT_MS / 1000)
        except sqlite3.DatabaseError as exc:
            raise StoreUnavailableError(f"cannot open SQLite database {path}: {exc}") from exc
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            # A new file only (an existing database keeps its page size): rows carry whole event
            # lines of a few KB, which 8 KB pages hold with fewer overflow pages than the default
            # 4 KB (a file 12 % smaller); 16 KB pages were 6 % smaller still, but a one-event
            # append writes each page it touches whole to the WAL, and took 1.5 x as long.
            self._conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
            self._conn.execute("PRAGMA journal_mode = WAL").fetchone()
            # WAL + NORMAL: a committed transaction survives a crash of the process; a power cut
            # may lose the last transactions but never corrupts the database.
            self._conn.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise _damaged(path, exc) from exc

    def describe(self) -> str:
        """The database, for messages."""
        return f"sqlite:///{self.path}"

    @contextmanager
    def write(self) -> Iterator[Cursor]:
        """A write transaction holding the database's write lock; rolled back on any error."""
        with self._lock, _busy(self.path):
            cur = Cursor(self._conn.cursor())
            cur.execute("BEGIN IMMEDIATE")
            try:
                yield cur
            except BaseException:
                self._conn.rollback()
                raise
            cur.execute("COMMIT")

    @contextmanager
    def read(self) -> Iterator[Cursor]:
        """A read transaction: every statement in it sees one snapshot."""
        with self._lock, _busy(self.path):
            cur = Cursor(self._conn.cursor())
            cur.execute("BEGIN")
            try:
                yield cur
            finally:
                self._conn.rollback()

    def table_exists(self, cur: Cursor, name: str) -> bool:
        """Whether the table ``name`` exists."""
        cur.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
        return cur.fetchone() is not None

    @contextmanager
    def schema_lock(self) -> Iterator[None]:
        """Nothing to take: ``BEGIN IMMEDIATE`` already excludes every other writer."""
        yield

    def insert_events(self, cur: Cursor, rows: list[Row], after: int) -> int:
        """Insert event rows appended after ``after``; returns ``base``: the event of ``seq`` has
        rowid ``base + seq`` (the full-text index is keyed by it)."""
        cur.execute("SELECT COALESCE(MAX(rowid), 0) FROM events")
        found = cur.fetchone()
        base = int(found[0] if found else 0) - after
        cur.executemany(
            "INSERT INTO events (rowid, session_id, seq, id, type, role, created_at, line) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(base + row[1], *row) for row in rows],
        )
        return base

    def insert_messages(self, cur: Cursor, rows: list[Row]) -> None:
        """Insert assistant message rows."""
        cur.copy("messages", MESSAGE_COLUMNS, rows)

    def index_parts(self, cur: Cursor, rows: list[Row], rowids: int | dict[int, int]) -> None:
        """Add the searchable texts ``(session_id, seq, idx, type, text)`` to the index, keyed by
        their event's rowid (``base + seq``, or a map from seq) and their index."""
        cur.executemany("INSERT INTO parts_fts (rowid, text) VALUES (?, ?)", _fts_rows(rows, rowids))

    def unindex_session(self, cur: Cursor, session_id: str, rows: list[Row]) -> None:
        """Remove a session's texts from the index: ``rows`` are the texts its lines give, which
        are what was indexed (a contentless index deletes by rowid and the same text)."""
        cur.execute("SELECT seq, rowid FROM events WHERE session_id = ?", (session_id,))
        rowids = {int(seq): int(rowid) for seq, rowid in cur.fetchall()}
        cur.executemany("INSERT INTO parts_fts (parts_fts, rowid, text) VALUES ('delete', ?, ?)",
                        _fts_rows(rows, rowids))

    def clear_index(self, cur: Cursor) -> None:
        """Empty the full-text index."""
        cur.execute("INSERT INTO parts_fts (parts_fts) VALUES ('delete-all')")

    def rowids(self, cur: Cursor, session_id: str, first: int = 1, last: int = 1 << 62) -> dict[int, int]:
        """The rowid of each of a session's stored events (from seq ``first`` to ``last``), by seq."""
        cur.execute("SELECT seq, rowid FROM events WHERE session_id = ? AND seq BETWEEN ? AND ?",
                    (session_id, first, last))
        return {int(seq): int(rowid) for seq, rowid in cur.fetchall()}

    def search(self, cur: Cursor, text: str, segments: list[Segment] | None, limit: int) -> list[Hit]:
        """Rows ``(session_id, event_id, seq, idx, type, snippet)`` best match first, within
        ``segments`` (stored session, first seq, last seq) when given."""
        # Each word becomes a quoted FTS5 string: the user's text is never FTS5 query syntax.
        words = _WORD.findall(text)
        if not words:
            return []
        query = " ".join('"' + w.replace('"', '""') + '"' for w in words)
        where = "parts_fts MATCH ?"
        params: list[Any] = [query]
        if segments is not None:
            if not segments:
                return []
            where += " AND (" + " OR ".join(["(e.session_id = ? AND e.seq BETWEEN ? AND ?)"] * len(segments)) + ")"
            params.extend(v for segment in segments for v in segment)
        cur.execute(
            f"SELECT e.session_id, e.id, e.seq, (parts_fts.rowid & {PART_SLOTS - 1}) - 1, e.rowid, "
            "length(e.line) "
            f"FROM parts_fts JOIN events e ON e.rowid = (parts_fts.rowid >> {PART_BITS}) "
            f"WHERE {where} ORDER BY rank, {'e.session_id, e.seq' if segments is None else 'e.seq'}, "
            "parts_fts.rowid LIMIT ?",
            (*params, limit),
        )
        hits: list[Hit] = []
        # One line at a time, and a long one a window at a time: memory stays bounded whatever a
        # line's size (a search once held every hit's whole line, and all its words at once).
        for sid, eid, seq, idx, rowid, size in cur.fetchall():
            if size <= WHOLE_LINE:
                cur.execute("SELECT line FROM events WHERE rowid = ?", (rowid,))
                row = cur.fetchone()
                assert row is not None  # the same read transaction found it
                found = hit_text(bytes(row[0]), idx, words)
            else:
                with self._conn.blobopen("events", "line", rowid, readonly=True) as blob:
                    found = large_hit_text(functools.partial(_read_blob, blob), size, idx, words)
            hits.append((sid, eid, seq, idx, *found))
        return hits

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._conn.close()


def _read_blob(blob: sqlite3.Blob, offset: int, length: int) -> bytes:
    """``length`` bytes of a stored line from ``offset`` (fewer at its end)."""
    blob.seek(max(0, offset))
    return blob.read(max(0, length))


@contextmanager
def _busy(path: str) -> Iterator[None]:
    """Another writer holding the lock past the busy timeout, a full disk, or a damaged file, as
    one clear error naming the file."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        raise StoreUnavailableError(f"SQLite database {path}: {exc}") from exc
    except sqlite3.DatabaseError as exc:
        raise _damaged(path, exc) from exc


def _damaged(path: str, exc: sqlite3.DatabaseError) -> StoreUnavailableError:
    if isinstance(exc, sqlite3.OperationalError):
        return StoreUnavailableError(f"cannot open SQLite database {path}: {exc}")
    return StoreUnavailableError(
        f"cannot open SQLite database {path}: it is damaged or is not a database ({exc}); restore "
        f"it from a backup, or recover what it holds with `sqlite3 {path} .recover` into a new file")


class Cursor:
    """A DB-API cursor taking ``?`` placeholders on both backends."""

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run one statement."""
        try:
            self._cursor.execute(sql, params)
        except UnicodeEncodeError as exc:
            raise _not_text(params) from exc

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement for each row."""
        if rows:
            try:
                self._cursor.executemany(sql, rows)
            except UnicodeEncodeError as exc:
                raise _not_text([v for row in rows for v in row]) from exc

    def copy(self, table: str, columns: str, rows: Sequence[Sequence[Any]],
             types: Sequence[str] | None = None) -> None:
        """Insert ``rows`` into ``columns`` of ``table`` (PostgreSQL: by ``COPY``, binary when the
        columns' PostgreSQL ``types`` are given)."""
        self.executemany(f"INSERT INTO {table} ({columns}) VALUES ({_marks(columns)})", rows)

    def fetchone(self) -> tuple[Any, ...] | None:
        """The next row, or ``None``."""
        row: tuple[Any, ...] | None = self._cursor.fetchone()
        return row

    def fetchall(self) -> list[tuple[Any, ...]]:
        """The remaining rows."""
        return list(self._cursor.fetchall())


def _not_text(params: Sequence[Any]) -> StoreError:
    """A key (a session or event id) holding a lone surrogate: UTF-8, so the database, cannot
    hold it, and no stored session can have it."""
    bad = next((v for v in params if isinstance(v, str) and not _encodes(v)), None)
    return StoreError(f"{bad!r} is not valid UTF-8 text (it holds a lone surrogate), so no session "
                      "or event can have it as its id")


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
