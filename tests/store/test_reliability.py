"""Reliability on both backends: concurrent writers, concurrent imports, a killed writer, hostile
text, and SQL injection through every query parameter."""

from __future__ import annotations

import io
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from partwire import HistoryEvent, TextPart, ToolCallPart, UserMessage
from partwire.codec import dumps, encode, loads, read
from partwire.store import NotFoundError, Store, StoreError, open_store
from tests.store import _workers
from tests.store._events import assistant, tool, turn_history, user

WRITERS = 4
EVENTS_PER_WRITER = 1000
_SPAWN = multiprocessing.get_context("spawn")


def _run_all(target: Callable[..., None], argsets: list[tuple[Any, ...]]) -> None:
    processes = [_SPAWN.Process(target=target, args=args) for args in argsets]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=600)
    assert [p.exitcode for p in processes] == [0] * len(processes)


def _check_writers(ids: list[str], writers: int, per_writer: int) -> None:
    assert len(ids) == len(set(ids)) == writers * per_writer
    for writer in range(writers):
        mine = [i for i in ids if i.startswith(f"W{writer}-")]
        assert mine == [f"W{writer}-{n:05d}" for n in range(per_writer)]


def test_four_processes_append_to_one_session(store_url: str) -> None:
    """4 processes appending 1,000 events each to one session lose nothing, duplicate nothing, keep each writer's order."""
    open_store(store_url).close()  # the schema exists before the writers race
    _run_all(_workers.append_one_by_one, [(store_url, "shared", w, EVENTS_PER_WRITER) for w in range(WRITERS)])
    with open_store(store_url) as store:
        ids = [e.id for e in store.load("shared")]
        _check_writers(ids, WRITERS, EVENTS_PER_WRITER)
        assert store.session("shared").event_count == WRITERS * EVENTS_PER_WRITER


def test_four_processes_append_to_their_own_sessions(store_url: str) -> None:
    """4 processes appending 1,000 events each to separate sessions keep every event in order."""
    _run_all(_workers.append_one_by_one, [(store_url, f"s{w}", w, EVENTS_PER_WRITER) for w in range(WRITERS)])
    with open_store(store_url) as store:
        for writer in range(WRITERS):
            ids = [e.id for e in store.load(f"s{writer}")]
            assert ids == [f"W{writer}-{n:05d}" for n in range(EVENTS_PER_WRITER)]


def test_expect_last_keeps_turns_whole_under_contention(store_url: str) -> None:
    """Writers racing with expect_last never interleave a turn: each question is followed by its answer."""
    open_store(store_url).close()
    _run_all(_workers.append_turns, [(store_url, "turns", w, 50) for w in range(WRITERS)])
    with open_store(store_url) as store:
        ids = [e.id for e in store.load("turns")]
    assert len(ids) == WRITERS * 50 * 2
    for question, answer in zip(ids[::2], ids[1::2], strict=True):
        assert question.endswith("-q")
        assert answer == question[:-2] + "-a"


def test_four_processes_import_the_same_file(store_url: str, tmp_path: Path) -> None:
    """The same file imported by 4 processes at once leaves one session equal to the file, byte for byte."""
    events = [user(f"E{n:05d}", f"line {n}") for n in range(5000)]
    path = tmp_path / "big.jsonl"
    path.write_bytes(dumps(events))
    _run_all(_workers.import_file, [(store_url, str(path))] * WRITERS)
    with open_store(store_url) as store:
        assert [s.session_id for s in store.sessions()] == ["big"]
        assert store.export_bytes("big") == path.read_bytes()
        assert store.session("big").event_count == 5000


def test_killed_writer_loses_nothing_committed(store_url: str, tmp_path: Path) -> None:
    """A writer killed mid-append leaves every committed turn, no half turn, and the session writable."""
    open_store(store_url).close()
    log = tmp_path / "writer.log"
    log.touch()
    writer = _SPAWN.Process(target=_workers.write_until_killed, args=(store_url, "k", str(log), 300_000))
    writer.start()
    deadline = time.monotonic() + 120
    # Kill it just after it starts its fourth append: most likely inside that transaction.
    while "begin 3\n" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.002)
    time.sleep(0.005)
    assert writer.pid is not None
    os.kill(writer.pid, signal.SIGKILL)
    writer.join(timeout=60)
    done = sum(1 for line in log.read_text().splitlines() if line.startswith("done "))
    assert done >= 3
    with open_store(store_url) as store:
        data = store.export_bytes("k")
        result = read(io.BytesIO(data))
        assert result.problems == []
        turns = len(result.events) // 3
        assert len(result.events) % 3 == 0
        assert turns in (done, done + 1)  # the kill may land after the commit, before "done"
        assert store.pending_tool_calls("k") == []
        last = store.session("k").last_event_id
        store.append("k", [user("after", "still writable")], expect_last=last)
        assert store.session("k").event_count == len(result.events) + 1


def test_nul_and_unusual_text_round_trip(store: Store) -> None:
    """NUL characters, control characters and non-BMP text are stored, exported and searched unchanged."""
    text = "nul\x00here \x01\x1f tab\t emoji 🧪 right-to-left \u202e quote ' \" backslash \\ end"
    event = user("N1", text)
    store.append("s", [event])
    assert store.export_bytes("s") == encode(event) + b"\n"
    assert b"\\u0000" in store.export_bytes("s")
    assert store.load("s") == [event]
    assert [h.event_id for h in store.search("backslash emoji")] == ["N1"]


def test_lone_surrogate_escapes_are_kept_verbatim(store: Store, tmp_path: Path) -> None:
    """A line whose JSON escapes a lone surrogate is exported byte for byte and loads as the codec loads it."""
    line = (b'{"v":1,"type":"message","id":"LS1","created_at":"2026-01-01T00:00:00Z","role":"user",'
            b'"parts":[{"type":"text","text":"lone \\ud800 and \\udfff surrogates"}]}\n')
    data = dumps(turn_history()[:1]) + line
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    store.import_file(path)
    assert store.export_bytes("s") == data
    assert [e.model_dump(mode="json") for e in store.load("s")] == [e.model_dump(mode="json") for e in loads(data)]


def test_ten_megabyte_parts(store: Store) -> None:
    """A 10 MB text part and a 10 MB tool output are stored and exported unchanged."""
    big = "lorem ipsum dolor sit amet " * (10 * 1024 * 1024 // 27)
    events: list[HistoryEvent] = [user("B1", "opening words " + big), assistant("B2", calls=(("tu_big", "dump"),)),
              tool("B3", "tu_big", "dump", output=big)]
    store.append("s", events)
    assert store.export_bytes("s") == dumps(events)
    assert store.load("s") == events
    assert [h.event_id for h in store.search("opening")] == ["B1"]


HOSTILE = [
    "'; DROP TABLE events; --",
    '" OR 1=1 --',
    "x') OR ('1'='1",
    "%", "%s", "%(x)s", "_", "?", "$1", "\\", "*", "NEAR(a b)", "a OR b", '"unbalanced', "col:value",
    "🧪'--",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_sql_injection_through_every_parameter_is_inert(store: Store, text: str, tmp_path: Path) -> None:
    """Hostile strings as session ids, event ids, tool names, filters and search text are only data."""
    store.append("victim", turn_history())
    events: list[HistoryEvent] = [
        UserMessage(id=text, parts=(TextPart(text=f"says {text}"),)),
        assistant("A", calls=((f"tu_{text}", text),), model=text),
    ]
    store.append(text, events, expect_last=None)
    assert store.export_bytes(text) == dumps(events)
    assert store.load(text, until=text) == events[:1]
    assert store.session(text).model == text
    assert [c.name for c in store.tool_calls(text, name=text)] == [text]
    assert [c.call_id for c in store.pending_tool_calls(text)] == [f"tu_{text}"]
    assert store.tool_calls(status=text) == []
    assert store.latest_compaction(text) is None
    assert [u.model for u in store.usage(text)] == [text]
    store.search(text)
    store.search(text, session_id=text)
    forked = store.fork(text, text, text + "-fork")
    assert store.export_bytes(forked) == dumps(events[:1])
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(turn_history()))
    assert store.import_file(path, text + "-import").added == len(turn_history())
    with pytest.raises(NotFoundError):
        store.export_bytes("victim" + text)
    with pytest.raises(StoreError):
        store.sessions(limit=text)  # type: ignore[arg-type]
    # The victim is untouched and every table still answers.
    assert store.export_bytes("victim") == dumps(turn_history())
    assert {s.session_id for s in store.sessions()} == {"victim", text, text + "-fork", text + "-import"}
    assert [h.event_id for h in store.search("flaky")] == ["E01", "E01"]


def test_tool_call_ids_and_names_with_hostile_text(store: Store) -> None:
    """Tool calls whose id and name hold SQL and quotes are tracked like any other."""
    call = ToolCallPart(id="tu_'); DELETE FROM tool_calls; --", name="rm -rf '/'", arguments_json="{}")
    store.append("s", [user("U", "go"), assistant("A", calls=((call.id, call.name),))])
    assert [(c.call_id, c.name) for c in store.pending_tool_calls()] == [(call.id, call.name)]
    store.append("s", [tool("T", call.id, call.name)])
    assert store.pending_tool_calls() == []
