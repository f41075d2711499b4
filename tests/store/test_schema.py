"""Store schema versions: creation, migration from every earlier version, refusal of newer ones."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from partwire.codec import dumps, encode
from partwire.store import SCHEMA_VERSION, SchemaVersionError, StoreUnavailableError, open_store
from partwire.store._api import Backend
from partwire.store._postgres import PostgresBackend
from partwire.store._schema import create_ddl
from partwire.store._sqlite import PAGE_SIZE, SqliteBackend
from tests.store._events import turn_history
from tests.store.conftest import fresh_schema_url


def _backend(url: str) -> Backend:
    return PostgresBackend(url) if url.startswith("postgresql://") else SqliteBackend(url)


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
def test_migrates_from_every_earlier_version(store_url: str, version: int) -> None:
    """A database at an earlier schema, holding only its verbatim lines, migrates and answers every query."""
    events = turn_history()
    backend = _backend(store_url)
    with backend.write() as cur:
        for statement in create_ddl(backend.dialect, version):
            cur.execute(statement)
        cur.execute("INSERT INTO store_meta (key, value) VALUES ('schema_version', ?)", (str(version),))
        cur.execute("INSERT INTO sessions (id) VALUES ('s')")
        cur.executemany(
            "INSERT INTO events (session_id, seq, id, type, role, created_at, line) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [("s", i + 1, e.id, e.type, getattr(e, "role", None), "2026-01-01T00:00:00.000000Z", encode(e))
             for i, e in enumerate(events)],
        )
    backend.close()
    with open_store(store_url) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.export_bytes("s") == dumps(events)
        assert [c.call_id for c in store.pending_tool_calls()] == ["tu_C"]
        assert [h.event_id for h in store.search("flaky")] == ["E01"]
        assert store.session("s").event_count == len(events)
        store.append("s", [], expect_last="E07")


def test_newer_schema_is_refused_and_left_alone(store_url: str) -> None:
    """A database written by a newer partwire raises SchemaVersionError and is not touched."""
    with open_store(store_url) as store:
        store.append("s", turn_history())
    backend = _backend(store_url)
    with backend.write() as cur:
        cur.execute("UPDATE store_meta SET value = '99' WHERE key = 'schema_version'")
    backend.close()
    with pytest.raises(SchemaVersionError, match=f"schema version 99, newer than {SCHEMA_VERSION}") as caught:
        open_store(store_url)
    assert (caught.value.found, caught.value.supported) == (99, SCHEMA_VERSION)
    backend = _backend(store_url)
    with backend.read() as cur:
        cur.execute("SELECT COUNT(*) FROM events")
        assert cur.fetchone() == (len(turn_history()),)
    backend.close()


def test_unreachable_postgres_is_one_clear_error() -> None:
    """A server that does not answer gives StoreUnavailableError naming it, without the password."""
    with pytest.raises(StoreUnavailableError, match=r"cannot connect to PostgreSQL at postgresql://u:\*\*\*@127\.0\.0\.1:1/db"):
        open_store("postgresql://u:secret@127.0.0.1:1/db")


def test_sqlite_in_a_missing_directory_is_unavailable(tmp_path: Path) -> None:
    """A SQLite path whose directory does not exist is refused with the directory named."""
    with pytest.raises(StoreUnavailableError, match="no directory"):
        open_store(tmp_path / "nope" / "store.sqlite")


def test_a_file_that_is_not_a_database_is_unavailable(tmp_path: Path) -> None:
    """Opening a JSONL file as a store fails clearly and leaves the file unchanged."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(turn_history()))
    with pytest.raises(StoreUnavailableError, match="cannot open SQLite database"):
        open_store(path)
    assert path.read_bytes() == dumps(turn_history())


def test_url_forms(tmp_path: Path) -> None:
    """sqlite:/// URLs, plain paths and :memory: open SQLite; other schemes are refused."""
    with open_store(f"sqlite:///{tmp_path}/a.sqlite") as store:
        store.append("s", turn_history()[:1])
    with open_store(tmp_path / "a.sqlite") as store:
        assert store.session("s").event_count == 1
        assert store.backend == "sqlite"
    with open_store("sqlite://:memory:") as store:
        assert store.sessions() == []
    with pytest.raises(StoreUnavailableError, match="unknown store URL scheme 'mysql'"):
        open_store("mysql://x/y")


def test_postgres_connection_lost_mid_way_is_one_clear_error(pg_server: str) -> None:
    """A store whose server connection is killed raises StoreUnavailableError, and a new store works."""
    url = fresh_schema_url(pg_server)
    store = open_store(url)
    store.append("s", turn_history())
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE pid <> pg_backend_pid() AND application_name = '' AND datname = 'postgres' "
            "AND query NOT ILIKE '%pg_stat_activity%' AND backend_type = 'client backend'"
        )
    with pytest.raises(StoreUnavailableError, match="PostgreSQL at postgresql://"):
        store.sessions()
    store.close()
    with open_store(url) as again:
        assert again.export_bytes("s") == dumps(turn_history())


def test_new_sqlite_store_has_large_pages_and_an_old_file_keeps_its_own(tmp_path: Path) -> None:
    """A new SQLite store is created with 8 KB pages in WAL mode; a 4 KB database opens and keeps 4 KB."""
    with open_store(tmp_path / "new.sqlite") as store:
        store.append("s", turn_history())
    conn = sqlite3.connect(tmp_path / "new.sqlite")
    assert conn.execute("PRAGMA page_size").fetchone() == (PAGE_SIZE,) == (8_192,)
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    conn.close()
    old = sqlite3.connect(tmp_path / "old.sqlite")
    old.execute("CREATE TABLE unrelated (x)")
    old.commit()
    old.close()
    with open_store(tmp_path / "old.sqlite") as store:
        store.append("s", turn_history())
        assert store.export_bytes("s") == dumps(turn_history())
    conn = sqlite3.connect(tmp_path / "old.sqlite")
    assert conn.execute("PRAGMA page_size").fetchone() == (4096,)
    conn.close()


def test_a_version_2_database_with_its_derived_rows_and_a_copied_fork_migrates(store_url: str) -> None:
    """A database as schema 2 wrote it (parts with their text in the full-text index, a row per
    message, a fork holding a copy of its prefix) opens at the current version: every line kept,
    the fork still reading as before, search and costs answered from the rebuilt rows."""
    events = turn_history()
    backend = _backend(store_url)
    rows = [(sid, i + 1, e.id, e.type, getattr(e, "role", None), "2026-01-01T00:00:00.000000Z", encode(e))
            for sid, upto in (("s", len(events)), ("f", 3)) for i, e in enumerate(events[:upto])]
    with backend.write() as cur:
        for statement in create_ddl(backend.dialect, 2):
            cur.execute(statement)
        cur.execute("INSERT INTO store_meta (key, value) VALUES ('schema_version', '2')")
        cur.execute("INSERT INTO sessions (id, event_count) VALUES ('s', 7)")
        cur.execute("INSERT INTO sessions (id, event_count, forked_from, forked_at) VALUES ('f', 3, 's', 'E03')")
        cur.executemany(
            "INSERT INTO events (session_id, seq, id, type, role, created_at, line) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        cur.executemany(
            "INSERT INTO messages (session_id, seq, id, role, created_at) VALUES (?, ?, ?, ?, ?)",
            [(r[0], r[1], r[2], r[4], r[5]) for r in rows if r[4] is not None])
        cur.executemany("INSERT INTO parts (session_id, seq, idx, type, text) VALUES (?, ?, 0, 'text', ?)",
                        [("s", 1, "Find the flaky timezone test"), ("f", 1, "Find the flaky timezone test")])
        if backend.dialect == "sqlite":
            cur.execute("INSERT INTO parts_fts (rowid, text) SELECT rowid, text FROM parts")
    backend.close()
    with open_store(store_url) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.export_bytes("s") == dumps(events)
        assert store.export_bytes("f") == dumps(events[:3])
        assert (store.session("f").forked_from, store.session("f").forked_at) == ("s", "E03")
        assert sorted(h.session_id for h in store.search("flaky")) == ["f", "s"]
        assert [c.call_id for c in store.pending_tool_calls("f")] == ["tu_B"]
        assert store.session("s").cost == Decimal("0.0125")
        store.append("f", [], expect_last="E03")
        store.fork("f", "E02", "g")
        assert store.export_bytes("g") == dumps(events[:2])
