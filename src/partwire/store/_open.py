"""Opening a store: the backend chosen by the URL."""

from __future__ import annotations

import os
from urllib.parse import unquote

from ._api import Store
from ._errors import StoreUnavailableError

__all__ = ["open_store"]


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
