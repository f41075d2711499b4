"""The ``partwire`` command: print the example, show, validate and rewrite history files, print the schema.

Every FILE argument takes ``-`` for stdin (and ``rewrite``'s OUT takes ``-`` for stdout). A file
that cannot be read, or a bad command line, ends with one ``partwire: error: ...`` line on stderr
and exit status 2, never a traceback. ``validate`` exits 1 when it finds a problem.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any, NoReturn

from partwire._cli_cost import add_cost_parsers, show_costs
from partwire._example import example_history
from partwire._transcript import printable, render
from partwire.codec import (
    Record,
    ResponseMetadataEvent,
    encode,
    iter_records,
    replay,
    rewrite,
)
from partwire.codec.schema import render as render_schema
from partwire.errors import DecodeError, LossError, PartwireError
from partwire.validation import validate_history

__all__ = ["main"]

STDIO = "-"
FORMATS = ("canonical", "anthropic", "openai-chat")
"""What ``partwire convert`` reads and writes: the canonical JSONL and the adapters built so far."""
_STDIN_NAME = "<stdin>"
# Server tool results are provider JSON (search hits, code output); a transcript shows a taste.


class CommandError(PartwireError):
    """The command cannot run on what it was given (a missing file, an unreadable path)."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, like every other error of the command."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"partwire: error: {message} (try 'partwire --help')\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``) and return the exit status."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # --help, or a bad command line (already reported in one line)
        return exc.code if isinstance(exc.code, int) else 2
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        return run(args)
    except BrokenPipeError:  # `partwire example | head` closes the pipe early; that is fine
        _silence_stdout()
        return 0
    except (PartwireError, OSError) as exc:
        print(f"partwire: error: {_error_message(exc)}", file=sys.stderr)
        return 2


def _parser() -> _Parser:
    parser = _Parser(
        prog="partwire",
        description="Print the bundled example, show, validate and rewrite partwire history files "
                    "(JSONL), and print their JSON Schema.",
        epilog="Every FILE may be '-' for stdin. Exit status: 0 ok, 1 problems found (validate), "
               "2 unusable input or command line.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    example = commands.add_parser("example", help="print the bundled example history as JSONL")
    example.set_defaults(run=_example)

    show = commands.add_parser("show", help="print a readable transcript of a history")
    show.add_argument("file", metavar="FILE", help="the history (JSONL); '-' reads stdin")
    show.set_defaults(run=_show)

    validate = commands.add_parser("validate", help="report every problem of a history as FILE:LINE: message")
    validate.add_argument("file", metavar="FILE", help="the history (JSONL); '-' reads stdin")
    validate.add_argument("--strict", action="store_true", help="stop at the first problem")
    validate.set_defaults(run=_validate)

    rewrite_cmd = commands.add_parser(
        "rewrite", help="write a history back in the current version; lines not understood stay byte-identical"
    )
    rewrite_cmd.add_argument("src", metavar="IN", help="the history to read; '-' reads stdin")
    rewrite_cmd.add_argument("dst", metavar="OUT", help="where to write it; '-' writes stdout")
    rewrite_cmd.set_defaults(run=_rewrite)

    convert_cmd = commands.add_parser(
        "convert", help="convert a history or a wire body between formats; losses go to stderr"
    )
    convert_cmd.add_argument("--from", dest="source", required=True, choices=FORMATS, help="the input's format")
    convert_cmd.add_argument("--to", dest="target", required=True, choices=FORMATS, help="the output's format")
    convert_cmd.add_argument("--model", help="model of the request to build (default: the input's own)")
    convert_cmd.add_argument("--strict", action="store_true", help="fail (exit 1) instead of losing anything")
    convert_cmd.add_argument(
        "file", metavar="FILE",
        help="canonical JSONL, or a wire request/response body (JSON); '-' reads stdin",
    )
    convert_cmd.set_defaults(run=_convert)

    schema = commands.add_parser("schema", help="print the JSON Schema of one history line")
    schema.set_defaults(run=_schema)
    add_cost_parsers(commands)
    return parser


# -- commands ---------------------------------------------------------------------------------


def _example(args: argparse.Namespace) -> int:
    out = _stdout_bytes()
    for event in example_history():
        out.write(encode(event) + b"\n")
    out.flush()
    return 0


def _schema(args: argparse.Namespace) -> int:
    out = _stdout_bytes()
    out.write(render_schema().encode("utf-8"))
    out.flush()
    return 0


def _show(args: argparse.Namespace) -> int:
    if isinstance(sys.stdout, io.TextIOWrapper):
        # A transcript must print whatever the history holds, whatever the terminal's encoding.
        sys.stdout.reconfigure(errors="backslashreplace")
    records = _read(args.file)
    name = _display_name(args.file)
    for record in records:
        for problem in record.problems:
            print(f"{name}:{problem.line}: {problem.message}", file=sys.stderr)
    first = True
    events, total = show_costs([r.event for r in records])
    for item in replay(events):
        lines = render(item)
        if not lines:
            continue
        # Response metadata belongs to the assistant block just printed.
        if not first and not isinstance(item, ResponseMetadataEvent):
            print()
        print("\n".join(printable(line) for line in lines))
        first = False
    print("\n" + "\n".join(total))
    return 0


def _validate(args: argparse.Namespace) -> int:
    name = _display_name(args.file)
    try:
        records = _read(args.file, strict=args.strict)
    except DecodeError as exc:
        inner = f" at {exc.path}" if exc.path else ""
        print(f"{name}:{exc.line or '?'}: {exc.message}{inner}")
        return 1
    found = [f"{name}:{p.line}: {p.message}" for r in records for p in r.problems]
    if not (args.strict and found):
        for issue in validate_history([r.event for r in records]):
            # The issue's path starts with its index in the history ("events[3].parts[1]"); the
            # line number replaces that, and the rest says where inside the line.
            _, _, inside = issue.path.partition(".")
            at = f" at {inside}" if inside else ""
            found.append(f"{name}:{records[issue.index].line}: {issue.message}{at}")
    for text in found[:1] if args.strict else found:
        print(text)
    return 1 if found else 0


def _rewrite(args: argparse.Namespace) -> int:
    name = _display_name(args.src)
    with _input(args.src) as src:
        if args.dst != STDIO:
            try:
                problems = rewrite(src, args.dst)  # atomic, so OUT may be IN
            except OSError as exc:
                raise CommandError(f"cannot write {args.dst}: {exc.strerror or exc}") from exc
        else:
            # rewrite() writes a file atomically; stdout gets a copy of that file.
            with tempfile.TemporaryDirectory(prefix="partwire-") as tmp:
                out = os.path.join(tmp, "out.jsonl")
                problems = rewrite(src, out)
                with open(out, "rb") as handle:
                    shutil.copyfileobj(handle, _stdout_bytes())
                sys.stdout.buffer.flush()
    for problem in problems:
        print(f"{name}:{problem.line}: {problem.message}", file=sys.stderr)
    return 0


def _convert(args: argparse.Namespace) -> int:
    # Imported here: the adapters are only needed by this command.
    from partwire.convert import convert

    with _input(args.file) as stream:
        data = stream.read()
    if args.source != "canonical":
        try:
            data = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CommandError(f"{_display_name(args.file)} is not a JSON body: {exc}") from exc
    try:
        output, losses = convert(data, source=args.source, target=args.target,
                                 model=args.model, strict=args.strict)
    except LossError as exc:
        for loss in exc.losses:  # type: ignore[attr-defined]
            print(f"loss: {_loss_line(loss)}", file=sys.stderr)
        print(f"partwire: error: {len(exc.losses)} loss(es) refused by --strict", file=sys.stderr)  # type: ignore[arg-type]
        return 1
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    for loss in losses:
        print(f"loss: {_loss_line(loss)}", file=sys.stderr)
    out = _stdout_bytes()
    out.write(output if isinstance(output, bytes) else (json.dumps(output, indent=2, ensure_ascii=False) + "\n").encode())
    out.flush()
    return 0


def _loss_line(loss: Any) -> str:
    return f"{loss.path}: {loss.part_type} {loss.action}: {loss.reason}"


# -- input and output -------------------------------------------------------------------------


def _read(name: str, *, strict: bool = False) -> list[Record]:
    with _input(name) as stream:
        return list(iter_records(stream, strict=strict))


@contextlib.contextmanager
def _input(name: str) -> Iterator[IO[bytes]]:
    if name == STDIO:
        yield sys.stdin.buffer
        return
    if os.path.isdir(name):
        raise CommandError(f"{name} is a directory, not a history file")
    with open(name, "rb") as handle:
        yield handle


def _stdout_bytes() -> IO[bytes]:
    sys.stdout.flush()
    return sys.stdout.buffer


def _display_name(name: str) -> str:
    return _STDIN_NAME if name == STDIO else name


def _error_message(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    return str(exc)


def _silence_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        os.dup2(devnull, sys.stdout.fileno())
