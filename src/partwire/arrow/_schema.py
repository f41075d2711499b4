"""The Arrow schema of a history: one row per event, parts as a list of tagged structs.

Which field of which event or part lands in which column is written down once here, as tables
the writer and the reader both follow, so the two directions cannot disagree. ``docs/datasets.md``
documents every column.
"""

from __future__ import annotations

import pyarrow as pa

__all__ = [
    "ARROW_SCHEMA_VERSION",
    "COST_TYPE",
    "EVENT_SCHEMA",
    "PART_COLUMNS",
    "PART_FIELDS",
    "PART_TYPE",
    "SOURCE_FIELDS",
    "TEXT_FIELDS",
    "TIME_TYPE",
    "TYPED_FIELDS",
    "USAGE_COUNTS",
    "USAGE_TYPE",
]

ARROW_SCHEMA_VERSION = "1"
"""The version of the Arrow schema, written in every table's metadata; a change of column
meaning or type needs a new version (and the reader of the old one)."""

TIME_TYPE = pa.timestamp("us", tz="UTC")
COST_TYPE = pa.decimal128(38, 18)

PART_COLUMNS = ("type", "text", "call_id", "tool_name", "arguments", "issuer", "media_type",
                "source_type", "reference", "data", "extra")
PART_TYPE = pa.struct([pa.field("type", pa.string(), nullable=False)]
                      + [pa.field(name, pa.string()) for name in PART_COLUMNS[1:]])

USAGE_COUNTS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
                "reasoning_tokens")
USAGE_TYPE = pa.struct([pa.field(name, pa.int64()) for name in USAGE_COUNTS]
                       + [pa.field("cost", COST_TYPE), pa.field("pricing_version", pa.string()),
                          pa.field("latency_ms", pa.int64())])

EVENT_SCHEMA = pa.schema(
    [
        pa.field("session_id", pa.string()),
        pa.field("seq", pa.int64(), nullable=False),
        pa.field("v", pa.int32(), nullable=False),
        pa.field("type", pa.string(), nullable=False),
        pa.field("role", pa.string()),
        pa.field("id", pa.string(), nullable=False),
        pa.field("created_at", TIME_TYPE),
        pa.field("parent_id", pa.string()),
        pa.field("text", pa.string()),
        pa.field("parts", pa.list_(pa.field("item", PART_TYPE, nullable=False))),
        pa.field("call_id", pa.string()),
        pa.field("tool_name", pa.string()),
        pa.field("status", pa.string()),
        pa.field("stop_reason", pa.string()),
        pa.field("model", pa.string()),
        pa.field("provider", pa.string()),
        pa.field("api", pa.string()),
        pa.field("response_id", pa.string()),
        pa.field("usage", USAGE_TYPE),
        pa.field("started_at", TIME_TYPE),
        pa.field("finished_at", TIME_TYPE),
        pa.field("extra", pa.string()),
    ],
    metadata={"partwire.arrow.schema": ARROW_SCHEMA_VERSION, "partwire.format": "1"},
)

# Which event fields are stored in which typed string column, by event kind (a message's kind is
# its role). The typed column is the field's one copy: the reader takes the field back from it.
TYPED_FIELDS: dict[str, dict[str, str]] = {
    "system": {"parent_id": "parent_id"},
    "developer": {"parent_id": "parent_id"},
    "user": {"parent_id": "parent_id"},
    "assistant": {"parent_id": "parent_id", "status": "status", "stop_reason": "stop_reason",
                  "model": "model", "provider": "provider", "api": "api",
                  "response_id": "response_id"},
    "tool": {"parent_id": "parent_id", "call_id": "call_id", "tool_name": "tool_name",
             "status": "status", "output_text": "text"},
    "error": {"message": "text", "provider": "provider"},
    "task_metadata": {"title": "text"},
    "compaction": {"summary": "text"},
    "retry": {"reason": "text"},
    "model_switch": {"to_model": "model"},
    "subtask": {"status": "status"},
    "unknown": {},
}

TEXT_FIELDS: frozenset[str] = frozenset({"system", "developer", "user", "assistant"})
"""Kinds whose ``text`` column is derived (their text parts joined) and never read back."""

# Which part fields are stored in which struct field, by part type.
PART_FIELDS: dict[str, dict[str, str]] = {
    "text": {"text": "text"},
    "thinking": {"text": "text"},
    "refusal": {"text": "text"},
    "tool_call": {"id": "call_id", "name": "tool_name", "arguments_json": "arguments"},
    "server_tool_call": {"id": "call_id", "name": "tool_name", "issuer": "issuer"},
    "server_tool_result": {"call_id": "call_id", "name": "tool_name", "issuer": "issuer"},
    "image": {"media_type": "media_type"},
    "document": {"media_type": "media_type"},
    "audio": {"media_type": "media_type"},
    "redacted_thinking": {},
    "unknown": {"issuer": "issuer"},
}

# A media source's own field, by source type: the reference (where the bytes are) or the
# inline data.
SOURCE_FIELDS: dict[str, tuple[str, str]] = {
    "url": ("url", "reference"),
    "file_ref": ("path", "reference"),
    "provider_file": ("file_id", "reference"),
    "base64": ("data", "data"),
    "text": ("text", "data"),
}
