"""What every ``partwire`` verb shares: its one-line errors, the input limits, reading and writing.

A FILE argument of ``-`` is stdin. Errors are :class:`CommandError` (or any other
:class:`~partwire.errors.PartwireError`), which :func:`partwire.cli.main` prints as one
``partwire: error: ...`` line.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from typing import IO, Any, NoReturn

from partwire._limits import TooLong, exceeds_depth, read_body
from partwire.codec import MAX_DEPTH, MAX_LINE_BYTES, Record, iter_records
from partwire.errors import ConversionError, PartwireError

__all__ = [
    "STDIO",
    "CommandError",
    "Parser",
    "display_name",
    "first_line",
    "limits_parser",
    "open_input",
    "read_json_body",
    "read_records",
    "read_tools_file",
    "stdout_bytes",
]

STDIO = "-"
_STDIN_NAME = "<stdin>"


class CommandError(PartwireError):
    """The command cannot run on what it was given (a missing file, an unreadable path)."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, like every other error of the command."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"partwire: error: {message} (try 'partwire --help')\n")


def limits_parser() -> Parser:
    """The options every command that reads input shares (``-v`` is accepted after the command too)."""
    common = Parser(add_help=False)
    common.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                        help="show partwire's log records on stderr")
    common.add_argument("--max-line-bytes", type=_positive, default=MAX_LINE_BYTES, metavar="N",
                        help=f"refuse a line (or a wire body) longer than N bytes (default {MAX_LINE_BYTES:,})")
    common.add_argument("--max-depth", type=_positive, default=MAX_DEPTH, metavar="N",
                        help=f"refuse JSON nested deeper than N levels (default {MAX_DEPTH})")
    return common


def _positive(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def read_records(name: str, args: argparse.Namespace, *, strict: bool = False) -> list[Record]:
    """Every line of the history ``name`` as a record, within the command's limits."""
    with open_input(name) as stream:
        return list(iter_records(stream, strict=strict, max_line_bytes=args.max_line_bytes,
                                 max_depth=args.max_depth))


def read_json_body(stream: IO[bytes], name: str, args: argparse.Namespace) -> Any:
    """One JSON body, refused before parsing when it is too large or too deeply nested."""
    data = read_body(stream, args.max_line_bytes)
    if isinstance(data, TooLong):
        raise CommandError(f"{name}: body of {data.size:,} bytes is larger than the limit of "
                           f"{data.limit:,} bytes (raise it with --max-line-bytes)")
    if exceeds_depth(data, args.max_depth):
        raise CommandError(f"{name}: JSON nested deeper than {args.max_depth} levels "
                           f"(raise the limit with --max-depth)")
    try:
        body = json.loads(data)
    except UnicodeDecodeError as exc:
        raise CommandError(f"{name}: not UTF-8: {exc.reason} at byte {exc.start}") from exc
    except json.JSONDecodeError as exc:
        raise CommandError(f"{name}: not a JSON body: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc
    except (ValueError, RecursionError) as exc:
        raise CommandError(f"{name}: not a JSON body: {first_line(exc)}") from exc
    if not isinstance(body, dict | list):
        kind = "null" if body is None else {bool: "boolean", str: "string"}.get(type(body), "number")
        raise CommandError(f"{name}: a JSON {kind}, not an object or an array")
    return body


def read_tools_file(path: str, args: argparse.Namespace) -> Any:
    """The tool definitions of the ``--tools`` FILE ``path`` (a JSON array or a request body's
    tools); a definition that cannot be read is an error named after that file."""
    from partwire.convert import read_tools  # the CLI imports the converter only when it runs

    name = display_name(path)
    with open_input(path) as stream:
        data = read_json_body(stream, name, args)
    try:
        return read_tools(data)
    except ConversionError as exc:
        raise CommandError(f"{name}: {exc.reason}") from exc


@contextlib.contextmanager
def open_input(name: str) -> Iterator[IO[bytes]]:
    """The file ``name`` opened for reading bytes, or stdin for ``-``."""
    if name == STDIO:
        yield sys.stdin.buffer
        return
    if os.path.isdir(name):
        raise CommandError(f"{name} is a directory, not a history file")
    with open(name, "rb") as handle:
        yield handle


def stdout_bytes() -> IO[bytes]:
    """Standard output for bytes, after whatever text was printed before."""
    sys.stdout.flush()
    return sys.stdout.buffer


def display_name(name: str) -> str:
    """How messages name the FILE argument ``name``."""
    return _STDIN_NAME if name == STDIO else name


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message, for a one-line error."""
    text = str(exc).strip().splitlines()
    return text[0] if text else "(no message)"
