"""JSONL histories: one history event per line, each line carrying its schema version ``v``.

The same verbs as every format module: :func:`encode` / :func:`decode` for one line,
:func:`dumps` / :func:`loads` for bytes, :func:`dump` / :func:`load` for files, plus the streaming
:func:`iter_records`, the reporting :func:`read`, the append-only :class:`Writer`, and
:func:`rewrite` (migrate a file, keeping what it does not understand byte for byte).

Reading is tolerant by default: every problem is reported and nothing is dropped. ``strict=True``
raises :class:`~partwire.errors.DecodeError` on the first problem instead. Every reader takes
``max_line_bytes`` and ``max_depth``: a line over either limit is refused without being held in
memory or parsed (see ``partwire._limits``). Whatever the bytes, a reader raises nothing but partwire's own
errors (and ``OSError`` from the file itself). See ``docs/codec.md``.
"""

from __future__ import annotations

import io
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from pydantic import ValidationError

from partwire._collector import hold, release
from partwire._limits import MAX_DEPTH, MAX_LINE_BYTES, TooLong, iter_lines
from partwire.errors import DecodeError
from partwire.history import History, HistoryEvent
from partwire.messages import FILLED_IN

from ._reader import LineDecoder, Problem, ProblemKind, Record, Source, open_source, validate_line
from ._writer import FsyncPolicy, Writer, WriterClosedError, atomic_write, encode

__all__ = [
    "MAX_DEPTH",
    "MAX_LINE_BYTES",
    "FsyncPolicy",
    "Problem",
    "ProblemKind",
    "ReadResult",
    "Record",
    "Source",
    "Writer",
    "WriterClosedError",
    "decode",
    "dump",
    "dumps",
    "encode",
    "iter_records",
    "load",
    "loads",
    "read",
    "rewrite",
]

logger = logging.getLogger("partwire.codec")


@dataclass(frozen=True, slots=True)
class ReadResult:
    """A history read tolerantly, with every problem met on the way."""

    events: list[HistoryEvent] = field(default_factory=list)
    """The events, one per non-blank line, in file order."""
    problems: list[Problem] = field(default_factory=list)
    """Everything reported, in file order."""


def decode(
    line: bytes | str, *, strict: bool = True, line_no: int | None = None, file: str | None = None,
    max_line_bytes: int = MAX_LINE_BYTES, max_depth: int = MAX_DEPTH,
) -> HistoryEvent:
    """Decode one line (a trailing newline is allowed); strict by default.

    In tolerant mode what cannot be understood comes back as an ``UnknownEvent`` (or
    ``UnknownPart``) saying why; a blank line has no event and raises in both modes.

    A lone line has no neighbours, so a legacy tool result cannot find its call here: read whole
    files with :func:`load` or :func:`iter_records` to migrate them.
    """
    data = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
    if not data.endswith(b"\n"):
        data += b"\n"  # one line on its own is whole: never report it torn
    decoder = LineDecoder(file=file, strict=strict, max_depth=max_depth)
    chunk: bytes | TooLong = data
    if len(data) - 1 > max_line_bytes:
        chunk = TooLong(len(data) - 1, max_line_bytes, final=False)
    try:
        record = decoder.record(chunk, line_no or 1)
    except DecodeError as exc:
        if line_no is not None:
            raise
        # The decoder numbers lines from 1; a lone line given without a number has none.
        raise DecodeError(exc.message, file=file, path=exc.path) from exc.__cause__
    if record is None:
        raise DecodeError("blank line: no event", file=file, line=line_no)
    return record.event


def iter_records(
    source: Source, *, strict: bool = False, max_line_bytes: int = MAX_LINE_BYTES, max_depth: int = MAX_DEPTH
) -> Iterator[Record]:
    """Stream the records of a file, one line at a time (memory is bounded by ``max_line_bytes``)."""
    with open_source(source) as (handle, name):
        decoder = LineDecoder(file=name, strict=strict, max_depth=max_depth)
        for line_no, chunk in enumerate(iter_lines(handle, max_line_bytes), 1):
            record = decoder.record(chunk, line_no)
            if record is not None:
                yield record


def read(
    source: Source, *, strict: bool = False, max_line_bytes: int = MAX_LINE_BYTES, max_depth: int = MAX_DEPTH
) -> ReadResult:
    """Read a whole file: its events and every problem, in file order."""
    return _read(source, strict, max_line_bytes, max_depth, log=False)


def _read(source: Source, strict: bool, max_line_bytes: int, max_depth: int, *,
          log: bool) -> ReadResult:
    result = ReadResult()
    events, problems = result.events, result.problems
    validate = validate_line
    held = False
    try:
        with open_source(source) as (handle, name):
            held = hold(handle)  # a file, of a length not known yet: held as a large input
            decoder = LineDecoder(file=name, strict=strict, max_depth=max_depth)
            fast = not decoder.check_depth
            for line_no, chunk in enumerate(iter_lines(handle, max_line_bytes), 1):
                if fast and type(chunk) is bytes:
                    # The fast path inline: no Record is built for a line that validates.
                    filled = FILLED_IN[0]
                    try:
                        event = validate(chunk)
                    except ValidationError:
                        pass
                    else:
                        if FILLED_IN[0] == filled:  # else it lacks v, id or created_at: checked
                            events.append(event)
                            continue
                record = decoder.record(chunk, line_no) if not fast else _slow(decoder, chunk, line_no)
                if record is not None:
                    events.append(record.event)
                    problems.extend(record.problems)
        if log:
            _log(problems)
    finally:
        # Released last: what the read allocated (the file closed, the problems logged) is not
        # collected on the way out.
        if held:
            release()
    return result


def _slow(decoder: LineDecoder, chunk: bytes | TooLong, line_no: int) -> Record | None:
    if isinstance(chunk, TooLong):
        return decoder.too_long(chunk, line_no)
    has_newline = chunk.endswith(b"\n")
    return decoder.slow(chunk[:-1] if has_newline else chunk, line_no, final=not has_newline)


def load(
    source: Source, *, strict: bool = False, max_line_bytes: int = MAX_LINE_BYTES, max_depth: int = MAX_DEPTH
) -> list[HistoryEvent]:
    """The events of a file; each problem is logged once at WARNING on ``partwire.codec``."""
    return _read(source, strict, max_line_bytes, max_depth, log=True).events


def loads(
    data: bytes | str, *, strict: bool = False, max_line_bytes: int = MAX_LINE_BYTES, max_depth: int = MAX_DEPTH
) -> list[HistoryEvent]:
    """The events of JSONL text; each problem is logged once at WARNING on ``partwire.codec``."""
    held = hold(data)  # held from the first allocation when the text is long
    try:
        raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        return load(io.BytesIO(raw), strict=strict, max_line_bytes=max_line_bytes, max_depth=max_depth)
    finally:
        if held:
            release()


def dumps(history: History) -> bytes:
    """The JSONL text of a history: one line per event, each ending in a newline."""
    return b"".join([encode(event) + b"\n" for event in history])


def dump(history: History, path: str | os.PathLike[str]) -> None:
    """Write a history to ``path`` atomically (a temporary file, then ``os.replace``)."""
    atomic_write(path, (encode(event) + b"\n" for event in history))


def rewrite(
    src: Source, dst: str | os.PathLike[str], *, max_line_bytes: int = MAX_LINE_BYTES, max_depth: int = MAX_DEPTH
) -> list[Problem]:
    """Rewrite ``src`` into ``dst`` in the current version; returns the problems met.

    Lines it understood are written re-encoded (older versions migrated); every line it did not
    fully understand is written back byte for byte from what was on disk. Blank lines are
    dropped. ``dst`` may be ``src``: the new file replaces the old one atomically. A line over
    ``max_line_bytes`` was never read and so cannot be written back: it raises
    :class:`~partwire.errors.DecodeError` and ``dst`` is left as it was.
    """
    problems: list[Problem] = []

    def lines() -> Iterator[bytes]:
        for record in iter_records(src, max_line_bytes=max_line_bytes, max_depth=max_depth):
            for problem in record.problems:
                if problem.kind == "too_long":
                    raise DecodeError(f"{problem.message}; nothing was written", file=problem.file,
                                      line=problem.line)
            problems.extend(record.problems)
            yield (encode(record.event) if record.understood else record.raw) + b"\n"

    atomic_write(dst, lines())
    return problems


def _log(problems: list[Problem]) -> None:
    for problem in problems:
        logger.warning(
            "%s", problem,
            extra={"file": problem.file, "line": problem.line, "kind": problem.kind, "path": problem.path},
        )

