"""The session store: histories in SQLite (the embedded default) or PostgreSQL (many writers).

``open_store(url)`` picks the backend from the URL: a path or ``sqlite:///path`` opens SQLite
through the standard library; ``postgresql://...`` opens PostgreSQL through psycopg 3 (the
``partwire[postgres]`` extra). Every event's line is stored verbatim, so an export is
byte-identical to what went in; sessions, assistant messages (with their costs), tool calls and
a full-text index are derived on write (a write of more than ``DEFERRED_INDEX`` events leaves its
texts for the next search to index); a fork refers to its parent's prefix. See ``docs/store.md``.
"""

from __future__ import annotations

import os
from urllib.parse import unquote

from ._api import (
    IMPORT_BATCH,
    UNSET,
    AppendResult,
    ImportResult,
    SearchHit,
    SessionSummary,
    Store,
    ToolCallRecord,
    UsageTotal,
)
from ._async import AsyncStore, open_async_store
from ._backlog import DEFERRED_INDEX
from ._errors import (
    ConflictError,
    ExpectLastError,
    NotFoundError,
    SchemaVersionError,
    StoreError,
    StoreUnavailableError,
)
from ._schema import SCHEMA_VERSION

__all__ = [
    "DEFERRED_INDEX",
    "IMPORT_BATCH",
    "SCHEMA_VERSION",
    "UNSET",
    "AppendResult",
    "AsyncStore",
    "ConflictError",
    "ExpectLastError",
    "ImportResult",
    "NotFoundError",
    "SchemaVersionError",
    "SearchHit",
    "SessionSummary",
    "Store",
    "StoreError",
    "StoreUnavailableError",
    "ToolCallRecord",
    "UsageTotal",
    "open_async_store",
    "open_store",
]


def open_store(url: str | os.PathLike[str]) -> Store:
    """Open (creating or migrating its schema as needed) the store at ``url``.

    ``url`` is a file path, ``sqlite:///relative/path``, ``sqlite:////absolute/path``,
    ``sqlite://:memory:``, or a libpq URL ``postgresql://user:password@host:port/dbname?...``
    (``postgres://`` too). A database with a newer store schema raises
    :class:`SchemaVersionError`; one that cannot be opened or reached raises
    :class:`StoreUnavailableError`.
    """
    text = os.fspath(url)
    if text.startswith(("postgresql://", "postgres://")):
        from ._postgres import PostgresBackend

        return Store(PostgresBackend(text))
    if "://" in text and not text.startswith("sqlite://"):
        scheme = text.split("://", 1)[0]
        raise StoreUnavailableError(f"unknown store URL scheme {scheme!r}: use a path, sqlite:/// or postgresql://")
    from ._sqlite import SqliteBackend

    if text.startswith("sqlite://"):
        rest = unquote(text[len("sqlite://"):])
        text = rest[1:] if rest.startswith("/") else rest  # sqlite:///rel, sqlite:////abs
        if not text:
            raise StoreUnavailableError("a sqlite:// URL needs a path: sqlite:///path/to/file.sqlite")
    return Store(SqliteBackend(text))
