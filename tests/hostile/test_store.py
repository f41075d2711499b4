"""The store under hostile input: lone surrogates, a damaged SQLite file, a schema version that is
not a number. Each gives the store's own error naming the file and what to do, never a raw
``sqlite3``, ``psycopg`` or encoding error."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from partwire.codec import dumps, loads
from partwire.store import Store, StoreError, StoreUnavailableError, open_store
from tests.store._events import turn_history

LINES = (
    b'{"v":1,"type":"message","id":"01J00000000000000000000001","created_at":"2026-01-01T00:00:00Z",'
    b'"role":"user","parts":[{"type":"text","text":"a\\ud800b"}]}\n'
    b'{"v":1,"type":"message","id":"01J00000000000000000000002","created_at":"2026-01-01T00:00:01Z",'
    b'"role":"user","metadata":{"k":"\\udfff"},"parts":[{"type":"hologram","t":"\\ud800"}]}\n'
)


def test_events_with_lone_surrogates_are_stored_and_exported_as_read(store: Store) -> None:
    """append stores lines holding lone surrogates; export gives the codec's bytes and load the events."""
    events = loads(LINES)
    store.append("s", events)
    assert store.export_bytes("s") == dumps(events)
    assert dumps(store.load("s")) == dumps(events)
    assert [hit.event_id for hit in store.search("b")] in ([], [events[0].id])


def _calls(store: Store, key: str) -> dict[str, Callable[[], Any]]:
    return {
        "append": lambda: store.append(key, turn_history()[:1]),
        "load": lambda: store.load(key),
        "export": lambda: store.export_bytes(key),
        "session": lambda: store.session(key),
        "tool_calls": lambda: store.tool_calls(key),
        "latest_compaction": lambda: store.latest_compaction(key),
        "usage": lambda: store.usage(key),
        "fork": lambda: store.fork(key, "e1"),
        "fork_into": lambda: store.fork("s", "e1", key),
        "load_until": lambda: store.load("s", until=key),
        "search": lambda: store.search("hi", session_id=key),
    }


@pytest.mark.parametrize("call", sorted(_calls(None, "").keys()))  # type: ignore[arg-type]
def test_a_key_with_a_lone_surrogate_is_a_store_error_on_every_call(store: Store, call: str) -> None:
    """A session or event id with a lone surrogate (no stored session can have one) gives
    StoreError naming it, on every call that takes one, and the store keeps working."""
    store.append("s", turn_history())
    with pytest.raises(StoreError) as caught:
        _calls(store, "s\ud800")[call]()
    assert "'s\\ud800'" in str(caught.value)
    assert store.load("s") == turn_history()


def _damage(path: Path) -> None:
    """Overwrite every page past the first two with noise, as a failing disk would."""
    data = bytearray(path.read_bytes())
    page = 16_384
    for i in range(2 * page, len(data)):
        data[i] = (i * 131) % 256
    path.write_bytes(bytes(data))


def test_a_damaged_sqlite_file_is_one_error_naming_it(tmp_path: Path) -> None:
    """A store whose pages are damaged fails to open or to read with StoreUnavailableError naming
    the file and the way out, never sqlite3.DatabaseError."""
    path = tmp_path / "s.db"
    with open_store(path) as store:
        for n in range(40):
            store.append(f"s{n}", turn_history())
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    _damage(path)
    def use() -> None:
        with open_store(path) as store:
            for n in range(40):
                store.load(f"s{n}")
            store.append("new", turn_history())
            store.search("hello")

    with pytest.raises(StoreUnavailableError) as caught:
        use()
    message = str(caught.value)
    assert str(path) in message
    assert "restore it from a backup" in message
    assert isinstance(caught.value.__cause__, sqlite3.DatabaseError)


def test_a_file_of_noise_is_not_a_store(tmp_path: Path) -> None:
    """A file that is no SQLite database is refused at open, naming it."""
    path = tmp_path / "noise.db"
    path.write_bytes(bytes(range(256)) * 64)
    with pytest.raises(StoreUnavailableError, match=r"noise\.db: it is damaged or is not a database"):
        open_store(path)


@pytest.mark.parametrize("value", ["abc", "", "2.5"])
def test_a_schema_version_that_is_not_a_number_is_a_store_error(store_url: str, value: str) -> None:
    """A store_meta schema_version changed by hand to a non-number gives StoreUnavailableError
    naming the database and the value, not ValueError."""
    with open_store(store_url) as store:
        store.append("s", turn_history())
    if store_url.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(store_url, autocommit=True) as conn:
            conn.execute("UPDATE store_meta SET value = %s WHERE key = 'schema_version'", (value,))
    else:
        with sqlite3.connect(store_url) as conn:
            conn.execute("UPDATE store_meta SET value = ? WHERE key = 'schema_version'", (value,))
    with pytest.raises(StoreUnavailableError) as caught:
        open_store(store_url)
    assert f"schema_version {value!r}, not a number" in str(caught.value)
