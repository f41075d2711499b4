"""Store fixtures: every store test runs on SQLite and on a real PostgreSQL server.

The server comes from the ``pgserver`` wheel (PostgreSQL 16 binaries, no root, no system
package), started once per test session in a temporary directory. Each test gets its own
PostgreSQL schema (through ``search_path`` in the URL), so tests never see each other's rows.
Test ids end in ``[sqlite]`` or ``[postgres]``: ``pytest -k postgres`` selects the PostgreSQL half.
"""

from __future__ import annotations

import importlib
import shutil
import tempfile
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest

from partwire.store import Store, open_store

BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """The URL of a PostgreSQL server running for the whole test session."""
    # Not under pytest's tmp_path: that tree is private to its owner, and when the tests run as
    # root pgserver runs the server as an unprivileged user who must reach its data directory.
    pgdata = tempfile.mkdtemp(prefix="partwire-pg-")
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (CI containers); harmless here.
        warnings.simplefilter("ignore")
        pgserver = importlib.import_module("pgserver")
        server = pgserver.get_server(pgdata, cleanup_mode="stop")
        url: str = server.get_uri()
    yield url
    server.cleanup()
    shutil.rmtree(pgdata, ignore_errors=True)


def fresh_schema_url(base: str) -> str:
    """``base`` with a new, empty PostgreSQL schema first on its search path."""
    schema = f"t_{uuid.uuid4().hex}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    joiner = "&" if "?" in base else "?"
    return f"{base}{joiner}options={quote(f'-csearch_path={schema}')}"


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL naming an empty store: a SQLite file, or a fresh schema on the PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "store.sqlite")
    base: str = request.getfixturevalue("pg_server")
    return fresh_schema_url(base)


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    """An open, empty store on each backend."""
    with open_store(store_url) as opened:
        yield opened
