"""Importing in batches, each read a batch ahead of the writes: the same rows as one append, and
every failure stops the reader and keeps the batches already committed."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from partwire.codec import Record, dumps, encode, iter_records
from partwire.store import ConflictError, Store, StoreError, open_store
from partwire.store import _api as store_api
from tests.store._events import turn_history, user


@pytest.fixture(autouse=True)
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two events per batch, so the seven-event history takes four."""
    monkeypatch.setattr(store_api, "IMPORT_BATCH", 2)


def _derived(store: Store, session_id: str) -> tuple[Any, ...]:
    return (store.session(session_id), store.tool_calls(session_id), store.usage(session_id),
            store.search("offset"), store.search("run"), store.latest_compaction(session_id))


def _readers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "partwire-store-import"]


def test_batches_read_ahead_derive_what_a_rebuild_derives(store: Store, tmp_path: Path) -> None:
    """A history imported two events per batch (a call answered in a later batch) has the derived
    rows a rebuild from its lines gives, and progress counts every byte once per batch."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(dumps(turn_history()))
    sizes: list[int] = []
    result = store.import_file(path, progress=sizes.append)
    assert (result.added, result.skipped) == (7, 0)
    assert len(sizes) == 4
    assert sum(sizes) == path.stat().st_size
    before = _derived(store, "s")
    assert [c.status for c in before[1]] == ["success", "error", "pending"]
    store.rebuild("s")
    assert _derived(store, "s") == before
    assert store.export_bytes("s") == path.read_bytes()
    assert _readers() == []


def test_a_writer_between_batches_is_neither_overwritten_nor_misnumbered(store_url: str, tmp_path: Path) -> None:
    """Another writer appending while the next batch is read ahead: its event keeps its place, the
    import's events follow it, and the derived rows are those a rebuild gives."""
    events = turn_history()
    path = tmp_path / "s.jsonl"
    path.write_bytes(dumps(events))
    other = user("OTHER", "written by someone else", t=2.5)

    def records() -> Iterator[Record]:
        for record in iter_records(path):
            if record.line == 3:  # the first line of the second batch, read while the first commits
                with open_store(store_url) as writer:
                    writer.append("s", [other])
            yield record

    with open_store(store_url) as store:
        result = store.import_records("s", records(), read_ahead=True)
        assert (result.added, result.skipped) == (7, 0)
        assert store.export_bytes("s") == dumps(events[:2]) + encode(other) + b"\n" + dumps(events[2:])
        before = _derived(store, "s")
        assert before[0].event_count == 8
        store.rebuild("s")
        assert _derived(store, "s") == before


def test_a_reimport_and_a_grown_file_skip_what_is_stored(store: Store, tmp_path: Path) -> None:
    """Batches whose events are all stored change nothing; the new tail after them is appended."""
    events = turn_history()
    path = tmp_path / "s.jsonl"
    path.write_bytes(dumps(events[:5]))
    store.import_file(path)
    path.write_bytes(dumps(events))
    result = store.import_file(path)
    assert (result.added, result.skipped) == (2, 5)
    before = _derived(store, "s")
    store.rebuild("s")
    assert _derived(store, "s") == before
    assert store.export_bytes("s") == dumps(events)


def test_an_error_while_reading_ahead_keeps_the_batches_before_it(store: Store, tmp_path: Path) -> None:
    """The records failing in the second batch raise that error; the first batch stays committed."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(dumps(turn_history()))

    def records() -> Iterator[Record]:
        for record in iter_records(path):
            if record.line == 4:
                raise OSError("the disk went away")
            yield record

    with pytest.raises(OSError, match="the disk went away"):
        store.import_records("s", records(), read_ahead=True)
    assert store.export_bytes("s") == dumps(turn_history()[:2])
    assert _readers() == []


def test_a_torn_line_read_ahead_is_refused_with_its_place(store: Store, tmp_path: Path) -> None:
    """Records ending in a torn line (passed without import_file's check) raise StoreError naming
    file and line; the batches before it stay committed and nothing of its batch is stored."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(dumps(turn_history()[:3]) + b'{"v":1,"type":"mess')
    with pytest.raises(StoreError, match=r"s\.jsonl:4: .*not imported"):
        store.import_records("s", iter_records(path), read_ahead=True)
    assert store.export_bytes("s") == dumps(turn_history()[:2])
    assert _readers() == []


def test_a_conflict_stops_the_reader(store: Store, tmp_path: Path) -> None:
    """An event stored with other bytes raises ConflictError in its batch; the earlier batches stay,
    nothing is overwritten, and the reader thread is gone."""
    events = turn_history()
    store.append("s", events[:3])
    store.append("s", [user("E04", "not the tool message of the file")])
    path = tmp_path / "s.jsonl"
    path.write_bytes(dumps(events))
    with pytest.raises(ConflictError, match="E04"):
        store.import_file(path)
    assert store.session("s").event_count == 4
    assert _readers() == []


@pytest.mark.parametrize("read_ahead", [False, True])
def test_records_are_read_in_the_callers_thread_unless_read_ahead_is_asked(
        store: Store, tmp_path: Path, read_ahead: bool) -> None:
    """import_records reads a caller's iterator in the caller's thread (an iterator bound to its
    thread, such as a sqlite3 cursor, works); with read_ahead, and in import_file, a second thread
    reads it. Both store the same session."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(dumps(turn_history()))
    seen: set[int] = set()

    def records() -> Iterator[Record]:
        for record in iter_records(path):
            seen.add(threading.get_ident())
            yield record

    result = store.import_records("s", records(), read_ahead=read_ahead)
    assert result.added == len(turn_history())
    assert store.export_bytes("s") == dumps(turn_history())
    assert (seen == {threading.get_ident()}) is not read_ahead
    assert _readers() == []
