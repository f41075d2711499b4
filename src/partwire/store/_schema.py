"""The store's schema, every version of it, and the migrations between them.

One DDL text serves both backends: ``{blob}`` is ``BLOB`` in SQLite and ``BYTEA`` in
PostgreSQL, and the full-text index is each backend's own (FTS5 / a GIN index on a
``tsvector``). A migration is DDL, then a rebuild of every derived table from the verbatim
event lines, so no migration has to transform derived data by hand.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["SCHEMA_VERSION", "Dialect", "create_ddl", "migration_ddl"]

Dialect = Literal["sqlite", "postgresql"]

SCHEMA_VERSION = 4
"""The store schema this partwire writes. Version 1 had no parts table, no full-text index and no
fork columns; version 2 copied a fork's prefix, kept a row per message and (in SQLite) each part's
text beside the line; version 3 indexed every write's texts for search as part of the write."""

# Version 1: the canonical format spec's sessions / messages / tool_calls, plus the verbatim
# events. Kept as written so tests can build a version-1 database and migrate it.
# The outcome and usage columns of a messages row, the same in version 1 and in version 3's rebuild.
_MESSAGE_FACTS = """model TEXT,
    status TEXT,
    stop_reason TEXT,
    input_tokens BIGINT,
    output_tokens BIGINT,
    cache_read_tokens BIGINT,
    cache_write_tokens BIGINT,
    reasoning_tokens BIGINT,
    cost TEXT,
    pricing_version TEXT,"""

_V1 = """
CREATE TABLE store_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    created_at TEXT,
    updated_at TEXT,
    last_seq BIGINT NOT NULL DEFAULT 0,
    last_event_id TEXT,
    event_count BIGINT NOT NULL DEFAULT 0,
    message_count BIGINT NOT NULL DEFAULT 0,
    model TEXT,
    title TEXT,
    input_tokens BIGINT NOT NULL DEFAULT 0,
    output_tokens BIGINT NOT NULL DEFAULT 0,
    cache_read_tokens BIGINT NOT NULL DEFAULT 0,
    cache_write_tokens BIGINT NOT NULL DEFAULT 0,
    reasoning_tokens BIGINT NOT NULL DEFAULT 0,
    cost TEXT,
    uncosted BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX sessions_updated ON sessions (updated_at);
CREATE TABLE events (
    session_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    id TEXT NOT NULL,
    type TEXT NOT NULL,
    role TEXT,
    created_at TEXT NOT NULL,
    line {blob} NOT NULL,
    PRIMARY KEY (session_id, seq),
    UNIQUE (session_id, id)
);
CREATE INDEX events_type ON events (session_id, type, seq);
CREATE TABLE messages (
    session_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    id TEXT NOT NULL,
    role TEXT NOT NULL,
    created_at TEXT NOT NULL,
    parent_id TEXT,
    {message_facts}
    PRIMARY KEY (session_id, seq)
);
CREATE INDEX messages_model ON messages (model, session_id);
CREATE TABLE tool_calls (
    session_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    message_id TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    result_seq BIGINT,
    result_id TEXT,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    PRIMARY KEY (session_id, call_id)
);
CREATE INDEX tool_calls_pending ON tool_calls (session_id, seq) WHERE status = 'pending';
CREATE INDEX tool_calls_status ON tool_calls (status, name);
"""

# Version 2: parts in order with their searchable text, the full-text index, fork provenance.
# SQLite's full-text index reads the parts table by rowid, so its key is a UNIQUE constraint there.
_V2 = """
CREATE TABLE parts (
    session_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    idx INTEGER NOT NULL,
    type TEXT NOT NULL,
    text TEXT,
    {parts_key} (session_id, seq, idx)
);
{parts_fts};
ALTER TABLE sessions ADD COLUMN forked_from TEXT;
ALTER TABLE sessions ADD COLUMN forked_at TEXT;
"""
_V2_SQLITE_FTS = """CREATE VIRTUAL TABLE parts_fts USING fts5(text, content='parts', content_rowid='rowid',
                                          tokenize='porter unicode61')"""
# PostgreSQL's tsvector holds at most 1 MB; the index covers the first 100,000 characters of a
# part (SQLite's FTS5 has no such limit and indexes all of it).
_V2_POSTGRES_FTS = """CREATE INDEX parts_fts ON parts USING gin (to_tsvector('english'::regconfig, left(text, 100000)))
    WHERE text IS NOT NULL"""
_V2_SQLITE = _V2.replace("{parts_key}", "UNIQUE").replace("{parts_fts}", _V2_SQLITE_FTS)
_V2_POSTGRES = _V2.replace("{parts_key}", "PRIMARY KEY").replace("{parts_fts}", _V2_POSTGRES_FTS)


# Version 3: text stored once, forks that refer to their parent's prefix, compact message rows.
# SQLite: the full-text index is contentless, keyed by the event's rowid and the part's index (its
# text is the line's; snippets are cut from the decoded line), so there is no parts table; only
# assistant messages have a messages row, without what the events row already holds.
_V3_MESSAGES = """
DROP TABLE messages;
CREATE TABLE messages (
    session_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    {message_facts}
    PRIMARY KEY (session_id, seq)
){without_rowid};
DROP INDEX events_type;
CREATE INDEX events_type ON events (session_id, type, seq) WHERE role IS NULL;
ALTER TABLE sessions ADD COLUMN forked_seq BIGINT NOT NULL DEFAULT 0
"""
_V3_SQLITE = """
DROP TABLE parts_fts;
DROP TABLE parts;
CREATE VIRTUAL TABLE parts_fts USING fts5(text, content='', tokenize='porter unicode61');
""" + _V3_MESSAGES
_V3_POSTGRES = _V3_MESSAGES

# Version 4: a large write leaves its texts out of the full-text index and records the events here;
# the next search (or Store.index) indexes them in its own transaction before it searches. A
# version-3 partwire, which would search without doing so, refuses the database.
_V4 = """
CREATE TABLE unindexed (
    session_id TEXT NOT NULL,
    first_seq BIGINT NOT NULL,
    last_seq BIGINT NOT NULL,
    PRIMARY KEY (session_id, first_seq)
)
"""


def _statements(text: str, dialect: Dialect) -> list[str]:
    blob = "BLOB" if dialect == "sqlite" else "BYTEA"
    without_rowid = " WITHOUT ROWID" if dialect == "sqlite" else ""
    text = text.replace("{message_facts}", _MESSAGE_FACTS)
    return [s.strip().replace("{blob}", blob).replace("{without_rowid}", without_rowid)
            for s in text.split(";\n") if s.strip()]


def version_ddl(version: int, dialect: Dialect) -> list[str]:
    """The statements that move a database from ``version - 1`` to ``version`` (1: create)."""
    if version == 1:
        return _statements(_V1, dialect)
    if version == 2:
        return _statements(_V2_SQLITE if dialect == "sqlite" else _V2_POSTGRES, dialect)
    if version == 3:
        return _statements(_V3_SQLITE if dialect == "sqlite" else _V3_POSTGRES, dialect)
    if version == 4:
        return _statements(_V4, dialect)
    raise ValueError(f"no store schema version {version}")


def create_ddl(dialect: Dialect, version: int = SCHEMA_VERSION) -> list[str]:
    """Every statement that creates a database at ``version`` from nothing."""
    return [s for v in range(1, version + 1) for s in version_ddl(v, dialect)]


def migration_ddl(found: int, dialect: Dialect) -> list[str]:
    """The statements that migrate a database at version ``found`` to :data:`SCHEMA_VERSION`."""
    return [s for v in range(found + 1, SCHEMA_VERSION + 1) for s in version_ddl(v, dialect)]
