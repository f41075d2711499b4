"""The session store: histories in SQLite (the embedded default) or PostgreSQL (many writers).

``open_store(url)`` picks the backend from the URL: a path or ``sqlite:///path`` opens SQLite
through the standard library; ``postgresql://...`` opens PostgreSQL through psycopg 3 (the
``partwire[postgres]`` extra). Every event's line is stored verbatim, so an export is
byte-identical to what went in; sessions, assistant messages (with their costs), tool calls and
a full-text index are derived on write (a write of more than ``DEFERRED_INDEX`` events leaves its
texts for the next search to index); a fork refers to its parent's prefix. See ``docs/store.md``.
"""

from __future__ import annotations

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
from ._open import open_store
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
