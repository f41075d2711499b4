"""Forks that share their prefix: a session's lineage, and the state a fork starts from.

A fork stores only its own events, at the positions after the event it was forked at
(``sessions.forked_seq``); its first ``forked_seq`` events are its parent's (and so on up). A
session's lineage is a list of segments ``(stored session, first seq, last seq)``, oldest first;
reads walk it. What a fork starts from (its totals, the tool calls still open at the fork point)
is worked out from the parent's current state less the parent's events after the fork point, so a
fork costs what the parent grew past that point, never the length of the prefix.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any

from ._derive import SessionTotals, clean
from ._lines import decode_lines
from ._snippet import Segment
from ._sqlite import Cursor

__all__ = ["OPEN", "ForkStart", "fork_start", "segments"]

OPEN = 1 << 62
"""The last seq of a segment that is still growing."""

ForkStart = tuple[SessionTotals, list[tuple[Any, ...]]]


def segments(cur: Cursor, session_id: str, upto: int | None = None) -> list[Segment]:
    """The segments holding ``session_id``'s events (up to seq ``upto``), oldest first; empty when
    there is no such session."""
    out: list[Segment] = []
    sid: str | None = session_id
    high = OPEN if upto is None else upto
    seen: set[str] = set()
    while sid is not None and sid not in seen:
        seen.add(sid)
        cur.execute("SELECT forked_from, forked_seq FROM sessions WHERE id = ?", (sid,))
        row = cur.fetchone()
        if row is None:
            break
        parent, base = row[0], int(row[1] or 0)
        if high > base:
            out.append((sid, base + 1, high))
        if not base:
            break
        high = min(high, base)
        sid = parent
    out.reverse()
    return out


def fork_start(cur: Cursor, parent: str, at: int, totals: SessionTotals) -> ForkStart:
    """The totals of ``parent``'s lineage up to seq ``at`` (``totals`` are its current ones), and
    the tool calls open there, as ``tool_calls`` rows without their session."""
    lineage = segments(cur, parent)
    prefix = [(s, lo, min(hi, at)) for s, lo, hi in lineage if lo <= at]
    suffix = [(s, max(lo, at + 1), hi) for s, lo, hi in lineage if hi > at]
    start = replace(totals)
    if totals.last_seq > at:
        _subtract(cur, start, suffix, prefix)
        start.event_count = start.last_seq = at
        cur.execute(_AT, _at_params(prefix, at))
        found = cur.fetchone()
        assert found is not None
        start.last_event_id, start.updated_at = found[0], found[1]
        start.model = _latest_model(cur, prefix)
        start.title = _latest_title(cur, prefix)
    return start, _open_calls(cur, prefix, suffix, at)


_AT = "SELECT id, created_at FROM events WHERE session_id = ? AND seq = ?"


def _at_params(prefix: list[Segment], at: int) -> tuple[Any, ...]:
    return next((s, at) for s, lo, hi in prefix if lo <= at <= hi)


def _subtract(cur: Cursor, start: SessionTotals, suffix: list[Segment], prefix: list[Segment]) -> None:
    """Take the messages of ``suffix`` out of ``start``."""
    suffix_cost = Decimal(0)
    for sid, lo, hi in suffix:
        cur.execute("SELECT COUNT(*) FROM events WHERE session_id = ? AND seq BETWEEN ? AND ? "
                    "AND role IS NOT NULL", (sid, lo, hi))
        row = cur.fetchone()
        start.message_count -= int(row[0]) if row else 0
        cur.execute(
            "SELECT COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0), "
            "COALESCE(SUM(cache_read_tokens), 0), COALESCE(SUM(cache_write_tokens), 0), "
            "COALESCE(SUM(reasoning_tokens), 0), "
            "SUM(CASE WHEN cost IS NULL AND input_tokens IS NOT NULL THEN 1 ELSE 0 END) "
            "FROM messages WHERE session_id = ? AND seq BETWEEN ? AND ?", (sid, lo, hi))
        sums = cur.fetchone()
        assert sums is not None
        start.input_tokens -= int(sums[0])
        start.output_tokens -= int(sums[1])
        start.cache_read_tokens -= int(sums[2])
        start.cache_write_tokens -= int(sums[3])
        start.reasoning_tokens -= int(sums[4])
        start.uncosted -= int(sums[5] or 0)
        cur.execute("SELECT cost FROM messages WHERE session_id = ? AND seq BETWEEN ? AND ? "
                    "AND cost IS NOT NULL", (sid, lo, hi))
        suffix_cost += sum((Decimal(c) for (c,) in cur.fetchall()), Decimal(0))
    if start.cost is not None and suffix_cost:
        start.cost -= suffix_cost
        if not start.cost and not _any_cost(cur, prefix):
            start.cost = None  # every known cost was after the fork point


def _any_cost(cur: Cursor, prefix: list[Segment]) -> bool:
    for sid, lo, hi in prefix:
        cur.execute("SELECT 1 FROM messages WHERE session_id = ? AND seq BETWEEN ? AND ? "
                    "AND cost IS NOT NULL LIMIT 1", (sid, lo, hi))
        if cur.fetchone() is not None:
            return True
    return False


def _latest_model(cur: Cursor, prefix: list[Segment]) -> str | None:
    """The model of the latest assistant message or model switch in ``prefix``."""
    for sid, lo, hi in reversed(prefix):
        cur.execute("SELECT seq, model FROM messages WHERE session_id = ? AND seq BETWEEN ? AND ? "
                    "AND model IS NOT NULL ORDER BY seq DESC LIMIT 1", (sid, lo, hi))
        message = cur.fetchone()
        cur.execute("SELECT seq, line FROM events WHERE session_id = ? AND type = 'model_switch' "
                    "AND role IS NULL AND seq BETWEEN ? AND ? ORDER BY seq DESC LIMIT 1", (sid, lo, hi))
        switch = cur.fetchone()
        if switch is not None and (message is None or switch[0] > message[0]):
            event = decode_lines([bytes(switch[1])])[0]
            to_model = getattr(event, "to_model", None)
            if isinstance(to_model, str):
                return clean(to_model)
        if message is not None:
            return str(message[1])
    return None


def _latest_title(cur: Cursor, prefix: list[Segment]) -> str | None:
    """The title of the latest task_metadata event with one in ``prefix``."""
    for sid, lo, hi in reversed(prefix):
        cur.execute("SELECT line FROM events WHERE session_id = ? AND type = 'task_metadata' "
                    "AND role IS NULL AND seq BETWEEN ? AND ? ORDER BY seq DESC", (sid, lo, hi))
        for (line,) in cur.fetchall():
            title = getattr(decode_lines([bytes(line)])[0], "title", None)
            if isinstance(title, str):
                return clean(title)
    return None


_CALL_COLUMNS = "call_id, seq, message_id, name, status, created_at"


def _open_calls(cur: Cursor, prefix: list[Segment], suffix: list[Segment], at: int) -> list[tuple[Any, ...]]:
    """The calls of ``prefix`` no tool message had answered by seq ``at``: ``(call_id, seq,
    message_id, name, status, result_seq, result_id, created_at, started_at, finished_at)``.

    A session's own ``tool_calls`` rows include those it was forked with, so each segment's rows
    are read up to its last seq (not from its first), the later segment's row winning."""
    found: dict[str, tuple[Any, ...]] = {}
    seen: set[str] = set()
    for sid, lo, hi in reversed(prefix):
        if lo == 1:  # a session's own calls only: the pending ones, through their partial index
            cur.execute(f"SELECT {_CALL_COLUMNS} FROM tool_calls WHERE session_id = ? "
                        "AND status = 'pending' AND seq <= ?", (sid, hi))
        else:  # and the calls it was forked with (seq < lo), whatever they became
            cur.execute(f"SELECT {_CALL_COLUMNS} FROM tool_calls WHERE session_id = ? AND seq <= ? "
                        "AND (status = 'pending' OR seq < ?)", (sid, hi, lo))
        for row in cur.fetchall():
            if row[0] not in seen:
                seen.add(row[0])
                if row[4] == "pending":
                    found[row[0]] = row
    answered_later: set[str] = set()
    for sid, lo, hi in suffix:
        cur.execute("SELECT line FROM events WHERE session_id = ? AND seq BETWEEN ? AND ? AND role = 'tool'",
                    (sid, lo, hi))
        for event in decode_lines([bytes(line) for (line,) in cur.fetchall()]):
            call_id = getattr(event, "call_id", None)
            if isinstance(call_id, str):
                answered_later.add(clean(call_id))
    for call_id in answered_later - found.keys():
        for sid, _lo, hi in reversed(prefix):
            cur.execute(f"SELECT {_CALL_COLUMNS} FROM tool_calls WHERE session_id = ? AND call_id = ? "
                        "AND seq <= ?", (sid, call_id, hi))
            call = cur.fetchone()
            if call is not None:
                found[call_id] = (*call[:4], _status_at_call(cur, prefix, int(call[1])), call[5])
                break
    return [(call_id, seq, message_id, name, status, None, None, created, None, None)
            for call_id, seq, message_id, name, status, created in found.values()]


def _status_at_call(cur: Cursor, prefix: list[Segment], seq: int) -> str:
    """``aborted`` when the message at ``seq`` was interrupted, else ``pending``."""
    for sid, lo, hi in prefix:
        if lo <= seq <= hi:
            cur.execute("SELECT status, stop_reason FROM messages WHERE session_id = ? AND seq = ?", (sid, seq))
            row = cur.fetchone()
            if row is not None and "aborted" in (row[0], row[1]):
                return "aborted"
    return "pending"
