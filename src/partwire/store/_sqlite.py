"""The SQLite backend: the stdlib ``sqlite3`` module, WAL journal, FTS5 for full-text search.

A write transaction is ``BEGIN IMMEDIATE``: it takes the database's one write lock up front, so
two writers never interleave and never deadlock on a lock upgrade; readers go on reading the last
committed state meanwhile (WAL).
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final

from ._errors import StoreError, StoreUnavailableError

__all__ = ["SqliteBackend"]

# A writer waits this long for another writer's transaction before giving up (SQLITE_BUSY).
BUSY_TIMEOUT_MS = 120_000
PAGE_SIZE = 16_384
"""The page size of a SQLite store created by this partwire (SQLite's default is 4,096)."""
_WORD = re.compile(r"\w+")


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
            # lines of a few KB, and 16 KB pages hold them and the full-text index's segments with
            # fewer pages and overflow chains than the default 4 KB.
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

    def index_parts(self, cur: Cursor, session_id: str, after_seq: int) -> None:
        """Add the parts written after ``after_seq`` to the full-text index."""
        cur.execute(
            "INSERT INTO parts_fts (rowid, text) SELECT rowid, text FROM parts "
            "WHERE session_id = ? AND seq > ? AND text IS NOT NULL",
            (session_id, after_seq),
        )

    def unindex_parts(self, cur: Cursor, session_id: str) -> None:
        """Remove a session's parts from the full-text index (before deleting them)."""
        cur.execute(
            "INSERT INTO parts_fts (parts_fts, rowid, text) SELECT 'delete', rowid, text FROM parts "
            "WHERE session_id = ? AND text IS NOT NULL",
            (session_id,),
        )

    def search(self, cur: Cursor, text: str, session_id: str | None, limit: int) -> list[tuple[Any, ...]]:
        """Rows ``(session_id, event_id, seq, idx, type, snippet)`` best match first."""
        # Each word becomes a quoted FTS5 string: the user's text is never FTS5 query syntax.
        words = _WORD.findall(text)
        if not words:
            return []
        query = " ".join('"' + w.replace('"', '""') + '"' for w in words)
        where = "parts_fts MATCH ?"
        params: list[Any] = [query]
        if session_id is not None:
            where += " AND p.session_id = ?"
            params.append(session_id)
        cur.execute(
            "SELECT p.session_id, e.id, p.seq, p.idx, p.type, "
            "snippet(parts_fts, 0, '[', ']', '...', 16) "
            "FROM parts_fts JOIN parts p ON p.rowid = parts_fts.rowid "
            "JOIN events e ON e.session_id = p.session_id AND e.seq = p.seq "
            f"WHERE {where} ORDER BY rank LIMIT ?",
            (*params, limit),
        )
        return cur.fetchall()

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._conn.close()


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
