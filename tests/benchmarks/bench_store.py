"""Session store speed (SQLite): import against a bare ``executemany`` of the same lines (a
reference: the targets against the stores users pick are in ``bench_store_peers.py``), and the
unanswered-tool-calls and full-text queries over 100,000 stored events.

``python -m tests.benchmarks store`` runs it; ``python -m tests.benchmarks.bench_store --plans``
prints the SQLite query plans that ``docs/store.md`` shows.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from partwire import AssistantMessage, TextPart, ToolCallPart, UserMessage
from partwire.codec import dumps, read
from partwire.store import Store, open_store
from partwire.store._derive import SessionTotals, derive
from tests.benchmarks._runner import Pass, Timed, alternate, best_time
from tests.benchmarks.agent_history import agent_history

TARGETS = {"query_ms": 5.0}
IMPORT_EVENTS = 10_000
QUERY_SESSIONS = 10  # 10 sessions of 10,000 events: 100,000 events for the queries
APPENDS = 200  # one-message appends timed together
RARE_WORD = "zanzibar"


@contextmanager
def _directory() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="partwire-bench-store-") as name:
        yield Path(name)


def _remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _import(work: Path, history_file: Path, lines: list[bytes]) -> dict[str, dict[str, float | str]]:
    store_db, bare_db = work / "store.sqlite", work / "bare.sqlite"

    def ours() -> None:
        _remove_db(store_db)
        with open_store(store_db) as store:
            store.import_file(history_file, "s")

    def bare() -> None:
        # The floor: the same verbatim lines into one keyed table, same journal settings, one transaction.
        _remove_db(bare_db)
        conn = sqlite3.connect(bare_db, isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("CREATE TABLE events (session_id TEXT, seq BIGINT, line BLOB, PRIMARY KEY (session_id, seq))")
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO events VALUES (?, ?, ?)", [("s", i, line) for i, line in enumerate(lines, 1)])
        conn.execute("COMMIT")
        conn.close()

    def codec_only() -> None:
        read(history_file)

    # Ours and the bare run alternately, so the load of a shared machine hits both alike; best of each.
    t_ours, t_bare = alternate(Timed(ours, bare, rounds=2, cpu=False))
    t_codec = best_time(codec_only, repeat=1)
    # The other floor: full-text indexing of the texts the store indexes (its tokenizer, no stored
    # content, one transaction), alone, with nothing else written.
    texts = [(k, row[4]) for k, row in enumerate(
        derive("s", list(zip(read(history_file).events, lines, strict=True)), SessionTotals()).parts, 1)]
    fts_db = work / "fts.sqlite"

    def fts_only() -> None:
        _remove_db(fts_db)
        conn = sqlite3.connect(fts_db, isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("CREATE VIRTUAL TABLE fts USING fts5(text, content='', tokenize='porter unicode61')")
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO fts (rowid, text) VALUES (?, ?)", texts)
        conn.execute("COMMIT")
        conn.close()

    t_fts = best_time(fts_only, repeat=1)
    # Small writes, an agent's everyday ones: one message per append (one transaction each), into
    # the store just imported.
    appends = [[UserMessage(f"step {i}: rerun the parser tests")] for i in range(APPENDS)]
    with open_store(store_db) as store:
        batches = iter(range(0, len(appends), APPENDS))

        def append_some() -> None:
            start = next(batches)
            for events in appends[start:start + APPENDS]:
                store.append("s", events)

        t_append = best_time(append_some, repeat=1) / APPENDS
    n = len(lines)
    return {
        # A reference, no target: issue 25 replaced it with the peers' (bench_store_peers.py).
        f"store.import.{n}": {"value": round(t_ours / t_bare, 2), "unit": "x bare executemany"},
        f"store.import.{n}.events_per_s": {"value": round(n / t_ours), "unit": "events/s"},
        f"store.import.{n}.bare_events_per_s": {"value": round(n / t_bare), "unit": "events/s"},
        # Where the target stands: decoding the lines with the codec alone, against the same floor.
        f"store.import.{n}.codec_read_only": {"value": round(t_codec / t_bare, 2), "unit": "x bare executemany"},
        f"store.import.{n}.fts_index_only": {"value": round(t_fts / t_bare, 2), "unit": "x bare executemany"},
        "store.append_one": {"value": round(t_append * 1000, 3), "unit": "ms"},
    }


def build_query_store(path: Path, history_file: Path) -> Store:
    """A store of 100,000 events: ten copies of the agent history, one with unanswered calls and a rare word."""
    store = open_store(path)
    for k in range(QUERY_SESSIONS):
        store.import_file(history_file, f"session-{k:02d}")
    store.append("session-05", [
        UserMessage(parts=(TextPart(text=f"Ship it to {RARE_WORD} before the release"),)),
        AssistantMessage(parts=(ToolCallPart(id="tu_pending_1", name="deploy", arguments_json="{}"),
                                ToolCallPart(id="tu_pending_2", name="notify", arguments_json="{}"))),
    ])
    return store


def _ms(fn: Callable[[], object]) -> float:
    return round(best_time(fn, repeat=17) * 1000, 3)  # a pass of three: 51 in all


def _queries(work: Path, history_file: Path) -> dict[str, dict[str, float | str]]:
    with build_query_store(work / "query.sqlite", history_file) as store:
        total = sum(s.event_count for s in store.sessions())
        # Each copy of the agent history ends in a turn whose two calls are still running.
        pending = [c.call_id for c in store.pending_tool_calls()]
        assert len(pending) == 2 * QUERY_SESSIONS + 2
        assert {"tu_pending_1", "tu_pending_2"} <= set(pending)
        assert len(store.search(RARE_WORD)) == 1
        return {
            f"store.pending.{total}": {"value": _ms(store.pending_tool_calls), "unit": "ms",
                                       "target": TARGETS["query_ms"]},
            f"store.search.{total}": {"value": _ms(lambda: store.search(RARE_WORD)), "unit": "ms",
                                      "target": TARGETS["query_ms"]},
            # A word in every session, ranked, the 20 best returned: a reference, no target.
            f"store.search_common.{total}": {"value": _ms(lambda: store.search("tokenizer coverage")),
                                             "unit": "ms"},
        }


def _measure() -> dict[str, dict[str, float | str]]:
    """One pass: import ratio and events per second, and the two query latencies over 100,000
    events, each timing a third of what one reading took before the runner (which runs this
    pass three times)."""
    history = agent_history(IMPORT_EVENTS)
    data = dumps(history)
    with _directory() as work:
        history_file = work / "h.jsonl"
        history_file.write_bytes(data)
        results = _import(work, history_file, data.splitlines())
        results.update(_queries(work, history_file))
    return results


FIGURES = [Pass(_measure)]

PLANS = {
    "pending tool calls": (
        "SELECT session_id, call_id, name, status, message_id, result_id, created_at, started_at, "
        "finished_at FROM tool_calls WHERE status = 'pending' ORDER BY session_id, seq, call_id"
    ),
    "full-text search": (
        "SELECT e.session_id, e.id, e.seq, (parts_fts.rowid & 65535) - 1, e.line "
        "FROM parts_fts JOIN events e ON e.rowid = (parts_fts.rowid >> 16) "
        f"WHERE parts_fts MATCH '\"{RARE_WORD}\"' ORDER BY rank, e.session_id, e.seq, parts_fts.rowid LIMIT 20"
    ),
    "latest compaction": (
        "SELECT line FROM events WHERE session_id = 'session-05' AND type = 'compaction' "
        "AND role IS NULL AND seq BETWEEN 1 AND 4611686018427387904 ORDER BY seq DESC LIMIT 1"
    ),
    "list sessions": "SELECT id FROM sessions ORDER BY updated_at DESC, id",
}


def plans() -> None:
    """Print SQLite's plan for each indexed query, on the 100,000-event store."""
    history = agent_history(IMPORT_EVENTS)
    with _directory() as work:
        history_file = work / "h.jsonl"
        history_file.write_bytes(dumps(history))
        build_query_store(work / "query.sqlite", history_file).close()
        conn = sqlite3.connect(work / "query.sqlite")
        for name, sql in PLANS.items():
            print(f"-- {name}")
            for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}"):
                print(row[3])
        conn.close()


if __name__ == "__main__":
    if "--plans" in sys.argv:
        plans()
    else:
        start = time.perf_counter()
        for key, value in _measure().items():
            print(key, value)
        print(f"{time.perf_counter() - start:.1f} s", file=sys.stderr)
    os._exit(0)
