"""Input limits: how long a line (or a wire body) and how deep its nesting may be before it is refused.

Hostile or broken input must not be read whole into memory or recursed into. A line longer than
``max_line_bytes`` is skipped in bounded chunks, never held; a line nested deeper than
``max_depth`` is refused by a scan of its brackets before any parser sees it. Both limits are
keyword arguments of every reader (and options of the ``partwire`` command), so a user with
unusual data can raise them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

__all__ = [
    "MAX_DEPTH",
    "MAX_LINE_BYTES",
    "TooLong",
    "exceeds_depth",
    "iter_lines",
    "read_body",
]

MAX_LINE_BYTES = 64 * 1024 * 1024
"""Default limit on one line (or one JSON body), in bytes: room for a few large base64 images."""

MAX_DEPTH = 200
"""Default limit on JSON nesting (objects and arrays), about what pydantic-core's parser takes.

Far below the interpreter's recursion limit, and far above what any history or wire body uses.
"""

# A JSON string, escapes included: brackets inside one are text, not nesting. An unterminated
# string (a torn line) does not match, so its brackets count, which can only refuse more.
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_SKIP_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class TooLong:
    """A line that was longer than the limit; only its length was read, in bounded chunks."""

    size: int
    """Its length in bytes, without the newline."""
    limit: int
    """The limit it broke."""
    final: bool
    """Whether it was the last line and had no newline."""

    def describe(self, what: str = "line") -> str:
        """The problem in words, with the way out."""
        return (f"{what} of {self.size:,} bytes is longer than the limit of {self.limit:,} bytes "
                f"(raise max_line_bytes, or --max-line-bytes on the command line, to read it)")


def iter_lines(handle: IO[bytes], max_line_bytes: int) -> Iterator[bytes | TooLong]:
    """The lines of ``handle`` with their newlines; a :class:`TooLong` for each over the limit."""
    readline = handle.readline
    cap = max_line_bytes + 1  # the content may be exactly the limit, plus its newline
    while True:
        chunk = readline(cap)
        if not chunk:
            return
        if len(chunk) < cap or chunk.endswith(b"\n"):
            yield chunk
            continue
        size = len(chunk)
        final = True
        while True:
            more = readline(_SKIP_CHUNK)
            if not more:
                break
            if more.endswith(b"\n"):
                size += len(more) - 1
                final = False
                break
            size += len(more)
        yield TooLong(size, max_line_bytes, final)


def read_body(handle: IO[bytes], max_bytes: int) -> bytes | TooLong:
    """All of ``handle`` when it holds at most ``max_bytes``; else its length, read in bounded chunks."""
    data = handle.read(max_bytes + 1)
    if len(data) <= max_bytes:
        return data
    size = len(data)
    del data
    while more := handle.read(_SKIP_CHUNK):
        size += len(more)
    return TooLong(size, max_bytes, final=True)


def exceeds_depth(raw: bytes | str, max_depth: int) -> bool:
    """Whether the JSON text ``raw`` nests objects and arrays deeper than ``max_depth``.

    A scan of brackets outside strings, in time linear in the text and with no recursion; it
    says nothing about whether the text is valid JSON.
    """
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if data.count(b"[") + data.count(b"{") <= max_depth:
        return False  # the common case, in two C-speed passes
    brackets = _STRING.sub(b"", data).translate(None, _NOT_BRACKET)
    depth = 0
    for byte in brackets:
        if byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > max_depth:
                return True
        else:
            depth -= 1
    return False
