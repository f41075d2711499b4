"""Writing history lines: the encoder, the append-only writer, and atomic whole-file writes.

The writer is safe for several processes appending to one file on one machine: each line goes
out in one ``os.write`` on an ``O_APPEND`` descriptor, under an exclusive ``flock`` (where
``fcntl`` exists). A crash can leave at most one torn final line; the next writer repairs it
before appending, and keeps its bytes.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import Any, Literal, get_args

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

from partwire._base import escape_surrogates, is_surrogate_error
from partwire.errors import ArgumentError, PartwireError
from partwire.history import EVENT_ADAPTER, HistoryEvent, UnknownEvent

from ._reader import is_complete_line

__all__ = ["FsyncPolicy", "Writer", "WriterClosedError", "atomic_write", "encode"]

logger = logging.getLogger("partwire.codec")

FsyncPolicy = Literal["always", "on_close", "never"]
"""When the writer calls ``fsync``: after every append, once when closing, or never."""

TORN_LINE_PROBLEM = "torn final line repaired by the writer"
_SCAN_BLOCK = 1 << 16
_WRITE_BUFFER = 1 << 20


class WriterClosedError(PartwireError, ValueError):
    """An append was attempted on a closed writer."""

    def __init__(self, path: str) -> None:
        self.path = path
        """The file the writer wrote to."""
        super().__init__(f"{path}: writer is closed")


def _event_classes(tp: Any) -> Iterator[type[BaseModel]]:
    for arg in get_args(tp):
        if not isinstance(arg, type):  # the nested Message union, or the Annotated wrapper
            yield from _event_classes(arg)
        elif issubclass(arg, BaseModel):
            yield arg


# Each event class's own serializer, by exact class: the bytes of EVENT_ADAPTER.dump_json (a test
# holds them equal on every event type) without the union serializer's dispatch, which costs
# about 40% of a dump, and with the models' own setting for non-finite floats (Infinity, NaN),
# which the reader reads back; the union's default wrote null for them, losing the value.
_TO_JSON: dict[type, Callable[[Any], bytes]] = {
    cls: cls.__pydantic_serializer__.to_json for cls in _event_classes(HistoryEvent)}


def encode(event: HistoryEvent) -> bytes:
    """One history line: compact JSON with every field (nulls included), no newline.

    A lone surrogate in a string (read from a ``"\\ud800"`` escape; UTF-8 cannot hold it) is
    written back as the same escape, so a line read and written again is the line it was.
    """
    # No exclude_none: it would also drop unknown fields whose value is null.
    to_json = _TO_JSON.get(type(event))
    try:
        if to_json is None:  # a subclass, or not an event at all: the union decides
            return EVENT_ADAPTER.dump_json(event)
        return to_json(event)
    except PydanticSerializationError as exc:
        if not is_surrogate_error(exc):
            raise
        return _encode_escaped(event)


def _encode_escaped(event: HistoryEvent) -> bytes:
    # pydantic's JSON writer has no way to escape a lone surrogate: the slow path, taken only by
    # lines that hold one, writes the same JSON through the json module.
    data = EVENT_ADAPTER.dump_python(event, mode="json")
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=True)
    return escape_surrogates(text).encode("utf-8")


if sys.platform == "win32":  # pragma: no cover - no flock there; appends rely on O_APPEND alone

    @contextlib.contextmanager
    def _locked(fd: int) -> Iterator[None]:
        yield

else:
    import fcntl

    @contextlib.contextmanager
    def _locked(fd: int) -> Iterator[None]:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)


def _write_all(fd: int, data: bytes) -> None:
    written = os.write(fd, data)
    # A regular file takes the whole buffer in one write; the loop only matters when the disk
    # fills or a signal interrupts, and the lock keeps other appenders out meanwhile.
    while written < len(data):
        written += os.write(fd, data[written:])


class Writer:
    """Appends history events to a JSONL file, one line per event, safe across processes.

    Use it as a context manager, or call :meth:`close`. ``fsync="always"`` makes every
    :meth:`append` and :meth:`extend` durable before it returns; ``"on_close"`` (the default)
    syncs once on close; ``"never"`` leaves it to the operating system.
    """

    def __init__(self, path: str | os.PathLike[str], *, fsync: FsyncPolicy = "on_close") -> None:
        if fsync not in ("always", "on_close", "never"):
            raise ArgumentError("fsync", f"expected 'always', 'on_close' or 'never', not {fsync!r}",
                                function="Writer")
        self.path = os.fspath(path)
        """The file appended to."""
        self.fsync: FsyncPolicy = fsync
        """The fsync policy."""
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
        self._fd: int | None = os.open(self.path, flags, 0o666)
        # The file's size after our last write; any other size means someone else wrote (or
        # crashed) since, so the tail is checked again.
        self._end = -1
        self._unsynced = False
        # flock excludes other open files, not other threads sharing this one.
        self._thread_lock = threading.Lock()

    def append(self, event: HistoryEvent) -> None:
        """Append one event as one line."""
        self._write([encode(event) + b"\n"])

    def extend(self, events: Iterable[HistoryEvent]) -> None:
        """Append events in order, one line (and one write) each, under one lock."""
        self._write([encode(event) + b"\n" for event in events])

    def close(self) -> None:
        """Sync (under the ``on_close`` policy) and close the file; closing twice is harmless."""
        with self._thread_lock:
            if self._fd is None:
                return
            fd, self._fd = self._fd, None
            try:
                if self.fsync == "on_close" and self._unsynced:
                    os.fsync(fd)
            finally:
                os.close(fd)

    @property
    def closed(self) -> bool:
        """Whether the writer is closed."""
        return self._fd is None

    def __enter__(self) -> Writer:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _write(self, lines: list[bytes]) -> None:
        with self._thread_lock:
            fd = self._fd
            if fd is None:
                raise WriterClosedError(self.path)
            if lines:
                with _locked(fd):
                    self._append_locked(fd, lines)

    def _append_locked(self, fd: int, lines: list[bytes]) -> None:
        size = os.fstat(fd).st_size
        if size != self._end:
            self._repair_tail(fd, size)
        for data in lines:
            _write_all(fd, data)
        self._end = os.lseek(fd, 0, os.SEEK_CUR)
        if self.fsync == "always":
            os.fsync(fd)
        else:
            self._unsynced = True

    def _repair_tail(self, fd: int, size: int) -> None:
        if size == 0 or _read_at(fd, 1, size - 1) == b"\n":
            return
        start = _last_line_start(fd, size)
        tail = _read_at(fd, size - start, start)
        if is_complete_line(tail):
            # The last event is whole and only its newline is missing.
            _write_all(fd, b"\n")
            return
        os.ftruncate(fd, start)
        text = tail.decode("utf-8", "replace")
        _write_all(fd, encode(UnknownEvent(original_type=None, raw=text, problem=TORN_LINE_PROBLEM)) + b"\n")
        logger.warning(
            "%s: torn final line (%d bytes at offset %d) replaced by an unknown event that keeps it",
            self.path, len(tail), start,
            extra={"file": self.path, "offset": start, "torn_bytes": len(tail)},
        )


def _read_at(fd: int, length: int, offset: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, length, offset)
    # No pread (Windows): moving the offset is harmless, O_APPEND writes go to the end anyway.
    os.lseek(fd, offset, os.SEEK_SET)
    chunks: list[bytes] = []
    while length > 0 and (chunk := os.read(fd, length)):
        chunks.append(chunk)
        length -= len(chunk)
    return b"".join(chunks)


def _last_line_start(fd: int, size: int) -> int:
    end = size
    while end > 0:
        begin = max(0, end - _SCAN_BLOCK)
        newline = _read_at(fd, end - begin, begin).rfind(b"\n")
        if newline >= 0:
            return begin + newline + 1
        end = begin
    return 0


def atomic_write(path: str | os.PathLike[str], chunks: Iterable[bytes]) -> None:
    """Write ``chunks`` to ``path`` through a temporary file and ``os.replace``: all or nothing.

    The temporary file (``.NAME.<hex>.tmp`` beside the target) is locked while it is written; one
    left behind by a writer that was killed (``kill -9``, a power cut) is removed by the next
    ``atomic_write`` of the same file.
    """
    target = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    _remove_stale_temps(directory, os.path.basename(target))
    temp = os.path.join(directory, f".{os.path.basename(target)}.{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(temp, flags, 0o666)
    try:
        _try_lock(fd)  # held until the rename: the mark of a writer still alive
        with open(fd, "wb", buffering=_WRITE_BUFFER, closefd=False) as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        if os.path.exists(target):
            os.chmod(temp, os.stat(target).st_mode & 0o7777)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    finally:
        os.close(fd)
    _fsync_directory(directory)


_TEMP_NAME = re.compile(r"[0-9a-f]{12}\.tmp")
# A temporary file younger than this may belong to a writer that has created it and not yet
# locked it; older and unlocked, its writer is gone.
_STALE_AFTER = 2.0


def _remove_stale_temps(directory: str, name: str) -> None:
    """Remove the temporary files of ``name`` that no live writer holds (flock tells)."""
    if sys.platform == "win32":  # pragma: no cover - no flock to tell a live writer from a dead one
        return
    prefix = f".{name}."
    try:
        names = [n for n in os.listdir(directory) if n.startswith(prefix) and _TEMP_NAME.fullmatch(n[len(prefix):])]
    except OSError:
        return
    for stale in names:
        full = os.path.join(directory, stale)
        try:
            fd = os.open(full, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            continue
        try:
            if _try_lock(fd, wait=False) and time.time() - os.fstat(fd).st_mtime >= _STALE_AFTER:
                with contextlib.suppress(OSError):
                    os.unlink(full)
                    logger.info("removed %s, left by a writer that did not finish", full)
        finally:
            os.close(fd)


def _try_lock(fd: int, *, wait: bool = True) -> bool:
    if sys.platform == "win32":  # pragma: no cover
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        return False
    return True


def _fsync_directory(directory: str) -> None:
    # The rename is durable only once the directory entry is; not every platform lets a
    # directory be opened for that, and the data itself is already synced.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
