"""Large writes leave their texts to the next search: a search never misses a stored event, and
finds exactly what indexing on write finds, on both backends, with two processes searching at once."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
from pathlib import Path
from urllib.parse import quote

import pytest

from partwire import HistoryEvent
from partwire.cli import main
from partwire.codec import dumps
from partwire.store import DEFERRED_INDEX, SearchHit, Store, StoreUnavailableError, open_store
from tests.store import _workers
from tests.store._events import assistant, tool, user
from tests.store.conftest import fresh_schema_url

WORDS = ["zanzibar", "offsets", "parsing", "kettle", "quorum", "lantern", "meridian"]
_SPAWN = multiprocessing.get_context("spawn")


def history(turns: int, prefix: str = "E") -> list[HistoryEvent]:
    """``turns`` turns of three events (user, assistant with a call, tool output), each text naming
    a word of ``WORDS``: every word matches many parts of every kind."""
    events: list[HistoryEvent] = []
    for n in range(turns):
        word, other = WORDS[n % len(WORDS)], WORDS[(3 * n + 1) % len(WORDS)]
        call = f"tu_{prefix}{n:06d}"
        events += [
            user(f"{prefix}{n:06d}-q", f"turn {n}: what about the {word} here?", t=3 * n),
            assistant(f"{prefix}{n:06d}-a", f"Looking at {other} and {word}.", ((call, "grep"),), t=3 * n + 1),
            tool(f"{prefix}{n:06d}-t", call, "grep", output=f"found {other} in chunk{n} today", t=3 * n + 2),
        ]
    return events


def found(hits: list[SearchHit]) -> list[tuple[str, int, str, str]]:
    """What a search found, without the session (sessions differ between the compared stores)."""
    return [(h.event_id, h.part_index, h.part_type, h.snippet) for h in hits]


def append_inline(store: Store, session_id: str, events: list[HistoryEvent]) -> None:
    """Append in writes small enough to be indexed as they are written."""
    for start in range(0, len(events), DEFERRED_INDEX):
        store.append(session_id, events[start:start + DEFERRED_INDEX])


def test_a_large_append_leaves_its_texts_and_a_small_one_does_not(store: Store) -> None:
    """An append of more than DEFERRED_INDEX events is indexed by the next index(); one of
    DEFERRED_INDEX events is indexed as it is written."""
    events = history(700)  # 2,100 events
    store.append("small", events[:DEFERRED_INDEX])
    assert store.index() == 0
    store.append("large", events)
    assert store.index() == len(events)
    assert store.index() == 0


def test_search_right_after_a_bulk_append_finds_what_indexing_on_write_finds(store: Store) -> None:
    """The first search after a large append (no index() call) finds every word's parts, ranked
    and cut as in a session written in small appends; so does every later search."""
    events = history(500)  # 1,500 events, one write
    store.append("bulk", events)
    append_inline(store, "inline", events)
    for word in WORDS:
        bulk = store.search(word, session_id="bulk", limit=10_000)
        assert bulk, word
        assert found(bulk) == found(store.search(word, session_id="inline", limit=10_000)), word
    assert "E000000-a" in {h.event_id for h in store.search("zanzibar offsets", session_id="bulk", limit=1000)}
    last = events[-1]
    assert [h.event_id for h in store.search("chunk499", session_id="bulk")] == [last.id]
    assert store.index() == 0


def test_search_after_an_import_and_in_a_fork_of_a_bulk_session(store: Store, tmp_path: Path) -> None:
    """An imported file (batches of 2,000 left to the next search) and a fork of a session whose
    texts wait are searched whole, the fork's shared prefix included."""
    events = history(1400)  # 4,200 events: three import batches
    path = tmp_path / "big.jsonl"
    path.write_bytes(dumps(events))
    store.import_file(path, "imported")
    store.append("bulk", events)
    fork = store.fork("bulk", events[2999].id, "forked")
    store.append(fork, history(2, "F"))
    for session_id, expected in (("imported", 4200), ("bulk", 4200), (fork, 3006)):
        hits = store.search("turn", session_id=session_id, limit=100_000)
        assert len(hits) == expected // 3, session_id
    assert {h.event_id for h in store.search("chunk1399", limit=10)} == {events[-1].id}
    assert [h.session_id for h in store.search("chunk999", session_id=fork)] == [fork]


def test_rebuild_with_texts_waiting_keeps_the_index_exact(store: Store) -> None:
    """Rebuilding one session, then all, while a large write's texts wait leaves an index that
    answers as one built on write (SQLite: FTS5's integrity check passes)."""
    events = history(400)
    store.append("bulk", events)
    append_inline(store, "inline", events)
    store.rebuild("bulk")
    store.append("bulk2", events)
    store.rebuild()
    assert store.index() == 0
    for word in WORDS:
        expected = found(store.search(word, session_id="inline", limit=10_000))
        assert found(store.search(word, session_id="bulk", limit=10_000)) == expected
        assert found(store.search(word, session_id="bulk2", limit=10_000)) == expected
    if store.backend == "sqlite":
        path = repr(store).removeprefix("<Store sqlite:///").removesuffix(">")
        with sqlite3.connect(path) as conn:
            conn.execute("INSERT INTO parts_fts (parts_fts, rank) VALUES ('integrity-check', 1)")


def test_two_processes_searching_at_once_index_once(store_url: str, tmp_path: Path) -> None:
    """Two processes whose first searches both find a large write's texts waiting: neither
    fails, neither waits forever, both find every part once, as indexing on write does."""
    events = history(1500)  # 4,500 events
    with open_store(store_url) as store:
        store.append("bulk", events)
    barrier = _SPAWN.Barrier(2)
    outs = [tmp_path / f"hits{n}.json" for n in range(2)]
    processes = [_SPAWN.Process(target=_workers.search_at_once, args=(store_url, WORDS, barrier, str(out)))
                 for out in outs]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=600)
    assert [p.exitcode for p in processes] == [0, 0]
    with open_store(store_url) as store:
        assert store.index() == 0
        append_inline(store, "inline", events)
        expected = {word: [[eid, idx, typ, snip] for eid, idx, typ, snip
                           in found(store.search(word, session_id="inline", limit=100_000))] for word in WORDS}
        after = {word: [[h.session_id, *row] for h, row in zip(hits, found(hits), strict=True)]
                 for word in WORDS if (hits := store.search(word, session_id="bulk", limit=100_000))}
    for out in outs:
        hits = json.loads(out.read_text(encoding="utf-8"))
        for word in WORDS:
            mine = [hit for hit in hits[word] if hit[0] == "bulk"]
            assert [hit[1:] for hit in mine] == expected[word], word
            assert mine == after[word], word


def test_the_first_event_past_the_threshold_defers(store: Store) -> None:
    """DEFERRED_INDEX + 1 new events in one append are left to the next search, which finds them;
    a re-run of that append, whose events are all stored, leaves nothing."""
    events = [user(f"U{n:05d}", f"note {n} meridian") for n in range(DEFERRED_INDEX + 1)]
    store.append("s", events)
    assert len(store.search("meridian", limit=100_000)) == len(events)
    store.append("s", events)
    assert store.index() == 0


def test_store_index_verb(store_url: str, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """``partwire store index`` after a large import indexes its events and says how many; run
    again, it has nothing to do; a search then finds the last event."""
    events = history(400)  # 1,200 events: one import batch, left to the next search
    path = tmp_path / "big.jsonl"
    path.write_bytes(dumps(events))
    assert main(["store", "--db", store_url, "import", str(path)]) == 0
    capsysbinary.readouterr()
    for expected in (len(events), 0):
        assert main(["store", "--db", store_url, "index"]) == 0
        assert capsysbinary.readouterr().out.decode() == f"{expected} event(s) indexed\n"
    assert main(["store", "--db", store_url, "search", "chunk399"]) == 0
    assert events[-1].id in capsysbinary.readouterr().out.decode()


def test_a_read_only_connection_with_texts_waiting_is_one_clear_error(pg_server: str) -> None:
    """PostgreSQL: a search on a read-only connection while a large write's texts wait raises
    StoreUnavailableError naming the server (no password) and the refusal; once indexed by a
    writer, the read-only connection searches."""
    url = fresh_schema_url(pg_server)
    events = history(400)
    with open_store(url) as store:
        store.append("bulk", events)
    read_only = url + quote(" -cdefault_transaction_read_only=on")
    with open_store(read_only) as store:
        with pytest.raises(StoreUnavailableError, match="read-only transaction") as caught:
            store.search("chunk399")
        assert "postgres:***@" in str(caught.value)
    with open_store(url) as store:
        assert store.index() == len(events)
    with open_store(read_only) as store:
        assert [h.event_id for h in store.search("chunk399")] == [events[-1].id]
