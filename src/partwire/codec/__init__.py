"""The codec: histories as JSONL (read, write, append), migrations from older versions, replay.

See ``docs/codec.md`` for the line format, the tolerance guarantees and the writer's behaviour.
"""

from partwire.messages import SCHEMA_VERSION

from .jsonl import (
    MAX_DEPTH,
    MAX_LINE_BYTES,
    FsyncPolicy,
    Problem,
    ProblemKind,
    ReadResult,
    Record,
    Source,
    Writer,
    WriterClosedError,
    decode,
    dump,
    dumps,
    encode,
    iter_records,
    load,
    loads,
    read,
    rewrite,
)
from .migrations import MIGRATIONS, Migration, MigrationContext, MigrationError, migrate
from .replay import InterruptEvent, ReplayEvent, ResponseMetadataEvent, context_messages, replay

__all__ = [
    "MAX_DEPTH",
    "MAX_LINE_BYTES",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "FsyncPolicy",
    "InterruptEvent",
    "Migration",
    "MigrationContext",
    "MigrationError",
    "Problem",
    "ProblemKind",
    "ReadResult",
    "Record",
    "ReplayEvent",
    "ResponseMetadataEvent",
    "Source",
    "Writer",
    "WriterClosedError",
    "context_messages",
    "decode",
    "dump",
    "dumps",
    "encode",
    "iter_records",
    "load",
    "loads",
    "migrate",
    "read",
    "replay",
    "rewrite",
]
