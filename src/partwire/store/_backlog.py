"""The full-text index's backlog: what a large write left for the next search to index.

Indexing text for search is most of a bulk write's cost (FTS5's Porter tokenizer in SQLite,
``to_tsvector('english', ...)`` and the GIN index in PostgreSQL). A write of more than
:data:`DEFERRED_INDEX` new events stores its lines and derived rows as usual but leaves their texts
out of the index, recording the events' range in the ``unindexed`` table in the same transaction.
:func:`catch_up` indexes every recorded range, in its own write transaction, and a search runs it
first whenever the table is not empty, so a search never misses a stored event. Small writes (an
agent loop's appends) index their texts inline, as before.

Two processes catching up at once index each range once: SQLite lets one writer in at a time
(the second finds the table empty when its turn comes); in PostgreSQL the ranges are locked in
one order (``FOR UPDATE``), and a range deleted by the first is skipped by the second.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from partwire.history import HistoryEvent

from ._derive import texts
from ._snippet import Row
from ._sqlite import Cursor

__all__ = ["DEFERRED_INDEX", "behind", "catch_up", "record"]

DEFERRED_INDEX = 1000
"""A write of more new events than this leaves their texts to the next search (or
:meth:`~partwire.store.Store.index`); a smaller one indexes them as it writes."""
_CHUNK = 2000  # events decoded and indexed at a time: memory bounded on a catch-up of millions


class _Indexer(Protocol):
    @property
    def dialect(self) -> str: ...
    def index_parts(self, cur: Cursor, rows: list[Row], rowids: int | dict[int, int]) -> None: ...
    def rowids(self, cur: Cursor, session_id: str, first: int = ..., last: int = ...) -> dict[int, int]: ...


def record(cur: Cursor, session_id: str, first: int, last: int) -> None:
    """Leave the texts of ``session_id``'s events ``first``..``last`` for the next catch-up."""
    cur.execute("INSERT INTO unindexed (session_id, first_seq, last_seq) VALUES (?, ?, ?)",
                (session_id, first, last))


def behind(cur: Cursor) -> bool:
    """Whether some stored texts are not indexed yet."""
    cur.execute("SELECT 1 FROM unindexed LIMIT 1")
    return cur.fetchone() is not None


def catch_up(cur: Cursor, backend: _Indexer, decode: Callable[[Iterable[bytes]], list[HistoryEvent]]) -> int:
    """Index every range left for later and forget it, in ``cur``'s write transaction; returns
    how many events were read. ``decode`` turns stored lines into events (the store's reader)."""
    lock = " FOR UPDATE" if backend.dialect == "postgresql" else ""
    cur.execute(f"SELECT session_id, first_seq, last_seq FROM unindexed ORDER BY session_id, first_seq{lock}")
    done = 0
    for session_id, first, last in cur.fetchall():
        for low in range(int(first), int(last) + 1, _CHUNK):
            high = min(int(last), low + _CHUNK - 1)
            cur.execute("SELECT seq, line FROM events WHERE session_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
                        (session_id, low, high))
            stored = cur.fetchall()
            events = decode(bytes(line) for _, line in stored)
            rows = texts(session_id, [(int(seq), event) for (seq, _), event in zip(stored, events, strict=True)])
            if rows:
                backend.index_parts(cur, rows, backend.rowids(cur, session_id, low, high))
            done += len(stored)
        cur.execute("DELETE FROM unindexed WHERE session_id = ? AND first_seq = ?", (session_id, first))
    return done
