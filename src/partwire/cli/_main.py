"""The ``partwire`` command: print the example, show, validate and rewrite history files, print the schema.

Every FILE argument takes ``-`` for stdin (and ``rewrite``'s OUT takes ``-`` for stdout). Input
that cannot be used, or a bad command line, ends with one ``partwire: error: FILE[:LINE]: what was
wrong`` line on stderr and exit status 2, never a traceback; ``validate`` and ``show`` exit 1 when
lines have problems. The status survives a reader that closes the pipe early
(``partwire validate FILE | head -1``). Lines and bodies above ``--max-line-bytes`` or nested
deeper than ``--max-depth`` are refused without being read whole or parsed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any, NoReturn

from partwire._cli_cost import add_cost_parsers, show_costs
from partwire._cli_store import add_store_parser
from partwire._example import example_history
from partwire._transcript import printable, render
from partwire.codec import (
    MAX_DEPTH,
    MAX_LINE_BYTES,
    Record,
    ResponseMetadataEvent,
    encode,
    iter_records,
    load,
    replay,
    rewrite,
)
from partwire.codec._limits import TooLong, exceeds_depth, read_body
from partwire.codec.schema import render as render_schema
from partwire.errors import ConversionError, DecodeError, LossError, PartwireError
from partwire.projection import Loss
from partwire.validation import validate_history

__all__ = ["main"]

STDIO = "-"
FORMATS = ("canonical", "anthropic", "openai-chat", "openai-responses", "google")
# Sources only: other libraries' JSON dumps, read through partwire.bridges (convert.BRIDGES; kept
# here so building the parser imports no converter).
BRIDGES = ("pydantic-ai", "langchain")
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
    # A command sets this as soon as it knows its verdict, before it writes its output, so that
    # a reader closing the pipe early (`partwire validate FILE | head -1`) cannot change it.
    args.exit_status = 0
    with _logging(getattr(args, "verbose", 0)):
        try:
            status = run(args)
            sys.stdout.flush()  # inside the try: a closed pipe shows up here at the latest
            return status
        except BrokenPipeError:
            _silence_stdout()
            return int(args.exit_status)
        except KeyboardInterrupt:
            print("partwire: interrupted", file=sys.stderr)
            return 130
        except (PartwireError, OSError) as exc:
            _error(_error_message(exc))
            return 2
        except Exception as exc:  # a bug: still one line, never a traceback
            _error(f"internal error, please report it: {type(exc).__name__}: {_first_line(exc)}")
            return 2


def _parser() -> _Parser:
    parser = _Parser(
        prog="partwire",
        description="Print the bundled example; show, validate and rewrite partwire history files\n"
                    "(JSONL); convert histories and provider request/response bodies between\n"
                    "formats; print the JSON Schema of a history line.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Every FILE may be '-' for stdin. Exit status: 0 ok, 1 problems found (validate, show),\n"
               "2 unusable input or command line. 'partwire COMMAND --help' shows an example.\n\n"
               "example:\n  partwire example | partwire convert --from canonical --to anthropic -",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="show partwire's log records (losses, codec problems) on stderr; -vv for debug")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    limits = _limits_parser()

    example = commands.add_parser("example", help="print the bundled example history as JSONL")
    example.set_defaults(run=_example)

    show = commands.add_parser("show", help="print a readable transcript of a history", parents=[limits])
    show.add_argument("file", metavar="FILE", help="the history (JSONL); '-' reads stdin")
    show.set_defaults(run=_show)

    validate = commands.add_parser(
        "validate", help="report every problem of a history as FILE:LINE: message", parents=[limits]
    )
    validate.add_argument("file", metavar="FILE", help="the history (JSONL); '-' reads stdin")
    validate.add_argument("--strict", action="store_true", help="stop at the first problem")
    validate.set_defaults(run=_validate)

    rewrite_cmd = commands.add_parser(
        "rewrite", help="write a history back in the current version; lines not understood stay byte-identical",
        parents=[limits],
    )
    rewrite_cmd.add_argument("src", metavar="IN", help="the history to read; '-' reads stdin")
    rewrite_cmd.add_argument("dst", metavar="OUT", help="where to write it; '-' writes stdout")
    rewrite_cmd.set_defaults(run=_rewrite)

    convert_cmd = commands.add_parser(
        "convert", help="convert a history or a wire body between formats; losses go to stderr", parents=[limits]
    )
    convert_cmd.add_argument("--from", dest="source", required=True, choices=(*FORMATS, *BRIDGES),
                             help="the input's format (pydantic-ai and langchain read those "
                                  "libraries' JSON dumps)")
    convert_cmd.add_argument("--to", dest="target", required=True, choices=FORMATS, help="the output's format")
    convert_cmd.add_argument(
        "--model", help="model of the request to build, provider:name (default: the input's own, or the "
                        "last assistant message's when the target serves it)")
    convert_cmd.add_argument("--strict", action="store_true", help="fail (exit 1) instead of losing anything")
    convert_cmd.add_argument(
        "--tools", metavar="TOOLS", help="a JSON file of tool definitions to offer: canonical ones, or a "
                                         "provider's own tools array (Anthropic or OpenAI Chat), detected")
    convert_cmd.add_argument(
        "--option", dest="options", action="append", default=[], metavar="KEY=VALUE", type=_option,
        help="an adapter option (e.g. dialect=deepseek for openai-chat); repeatable")
    convert_cmd.add_argument(
        "file", metavar="FILE",
        help="canonical JSONL, or a wire request/response body (JSON); '-' reads stdin",
    )
    convert_cmd.set_defaults(run=_convert)

    schema = commands.add_parser("schema", help="print the JSON Schema of one history line")
    schema.set_defaults(run=_schema)
    add_store_parser(commands)
    add_cost_parsers(commands)
    for name, command in commands.choices.items():
        if name in EXAMPLES and not command.epilog:
            command.epilog = "example:\n" + "\n".join(f"  {line}" for line in EXAMPLES[name])
            command.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


EXAMPLES: dict[str, tuple[str, ...]] = {
    "example": ("partwire example > h.jsonl",),
    "show": ("partwire show h.jsonl",
             "partwire example | partwire show -"),
    "validate": ("partwire validate h.jsonl        # FILE:LINE: problem; exit 1 when there is any",
                 "partwire validate --strict h.jsonl"),
    "rewrite": ("partwire rewrite old.jsonl new.jsonl",
                "partwire rewrite h.jsonl h.jsonl   # in place, atomically"),
    "convert": ("partwire convert --from canonical --to anthropic h.jsonl > request.json",
                "partwire convert --from canonical --to openai-chat --model openai:gpt-5 \\",
                "    --tools tools.json --option dialect=openai h.jsonl",
                "partwire convert --from anthropic --to canonical request.json > h.jsonl"),
    "schema": ("partwire schema > partwire.schema.json",),
    "store": ("partwire store import h.jsonl",
              "partwire store ls"),
    "cost": ("partwire cost h.jsonl",
             "partwire cost --prices prices.toml sessions/*.jsonl"),
    "reprice": ("partwire reprice h.jsonl repriced.jsonl",
                "partwire reprice --at 2026-01-01 h.jsonl -"),
}
"""Examples for each command, shown at the end of its ``--help`` (a command may set its own)."""


def _limits_parser() -> _Parser:
    """The options every command that reads input shares (``-v`` is accepted after the command too)."""
    common = _Parser(add_help=False)
    common.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                        help="show partwire's log records on stderr")
    common.add_argument("--max-line-bytes", type=_positive, default=MAX_LINE_BYTES, metavar="N",
                        help=f"refuse a line (or a wire body) longer than N bytes (default {MAX_LINE_BYTES:,})")
    common.add_argument("--max-depth", type=_positive, default=MAX_DEPTH, metavar="N",
                        help=f"refuse JSON nested deeper than N levels (default {MAX_DEPTH})")
    return common


def _option(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, not {text!r}")
    return key.strip(), value


def _positive(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


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
    records = _read(args.file, args)
    name = _display_name(args.file)
    for record in records:
        for problem in record.problems:
            print(f"{name}:{problem.line}: {problem.message}", file=sys.stderr)
    # Unreadable lines are shown as what could be kept of them; the status says they were there.
    args.exit_status = 1 if any(record.problems for record in records) else 0
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
    if total:
        print("\n" + "\n".join(total))
    return int(args.exit_status)


def _validate(args: argparse.Namespace) -> int:
    name = _display_name(args.file)
    try:
        records = _read(args.file, args, strict=args.strict)
    except DecodeError as exc:
        inner = f" at {exc.path}" if exc.path else ""
        args.exit_status = 1
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
    args.exit_status = 1 if found else 0
    for text in found[:1] if args.strict else found:
        print(text)
    return int(args.exit_status)


def _rewrite(args: argparse.Namespace) -> int:
    name = _display_name(args.src)
    limits = {"max_line_bytes": args.max_line_bytes, "max_depth": args.max_depth}
    with _input(args.src) as src:
        if args.dst != STDIO:
            try:
                problems = rewrite(src, args.dst, **limits)  # atomic, so OUT may be IN
            except OSError as exc:
                raise CommandError(f"cannot write {args.dst}: {exc.strerror or exc}") from exc
        else:
            # rewrite() writes a file atomically; stdout gets a copy of that file.
            with tempfile.TemporaryDirectory(prefix="partwire-") as tmp:
                out = os.path.join(tmp, "out.jsonl")
                problems = rewrite(src, out, **limits)
                with open(out, "rb") as handle:
                    shutil.copyfileobj(handle, _stdout_bytes())
                sys.stdout.buffer.flush()
    for problem in problems:
        print(f"{name}:{problem.line}: {problem.message}", file=sys.stderr)
    return 0


def _convert(args: argparse.Namespace) -> int:
    # Imported here: the adapters are only needed by this command.
    from partwire.convert import convert

    name = _display_name(args.file)
    data: Any
    with _input(args.file) as stream:
        if args.source == "canonical":
            # Strict: a conversion of a damaged history would hide the damage; the error names the
            # line, and `partwire validate` / `rewrite` are the tools for repairing it first.
            data = load(stream, strict=True, max_line_bytes=args.max_line_bytes, max_depth=args.max_depth)
        else:
            data = _read_body(stream, name, args)
    tools = _read_tools(args.tools, args) if args.tools else None
    options = dict(args.options)
    try:
        output, losses = convert(data, source=args.source, target=args.target, model=args.model,
                                 strict=args.strict, tools=tools, options=options or None)
    except LossError as exc:
        refused: tuple[Any, ...] = tuple(exc.losses)  # type: ignore[arg-type]
        for loss in refused:
            _print_loss(loss)
        print(f"partwire: error: {len(refused)} loss(es) refused by --strict", file=sys.stderr)
        return 1
    except DecodeError:
        raise  # it names the file and line itself
    except ConversionError as exc:
        fix = f" (pass --{exc.option.replace('_', '-')})" if exc.option else ""
        raise CommandError(f"{name}: {exc.reason}{fix}") from exc
    except (PartwireError, ValueError) as exc:
        raise CommandError(f"{name}: {exc}") from exc
    for loss in losses:
        _print_loss(loss)
    out = _stdout_bytes()
    out.write(output if isinstance(output, bytes) else (json.dumps(output, indent=2, ensure_ascii=False) + "\n").encode())
    out.flush()
    return 0


def _print_loss(loss: Loss) -> None:
    # str(Loss) is the one format of a loss: in errors, in log records and here.
    print(f"loss: {loss}", file=sys.stderr)


def _read_tools(path: str, args: argparse.Namespace) -> Any:
    from partwire.convert import read_tools

    name = _display_name(path)
    with _input(path) as stream:
        data = _read_body(stream, name, args)
    try:
        return read_tools(data)
    except ConversionError as exc:  # named after the tools file, not the history
        raise CommandError(f"{name}: {exc.reason}") from exc


# -- input and output -------------------------------------------------------------------------


def _read(name: str, args: argparse.Namespace, *, strict: bool = False) -> list[Record]:
    with _input(name) as stream:
        return list(iter_records(stream, strict=strict, max_line_bytes=args.max_line_bytes,
                                 max_depth=args.max_depth))


def _read_body(stream: IO[bytes], name: str, args: argparse.Namespace) -> Any:
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
        raise CommandError(f"{name}: not a JSON body: {_first_line(exc)}") from exc
    if not isinstance(body, dict | list):
        kind = "null" if body is None else {bool: "boolean", str: "string"}.get(type(body), "number")
        raise CommandError(f"{name}: a JSON {kind}, not an object or an array")
    return body


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


def _error(message: str) -> None:
    print(f"partwire: error: {message}", file=sys.stderr)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else "(no message)"


@contextlib.contextmanager
def _logging(verbose: int) -> Iterator[None]:
    """With ``-v``, partwire's WARNING records (losses, codec problems) go to stderr, fields shown."""
    if not verbose:
        yield
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_RecordFormatter())
    root = logging.getLogger("partwire")
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose > 1 else logging.INFO)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


class _RecordFormatter(logging.Formatter):
    """``LEVEL logger: message {field=value, ...}``: the message, then its structured fields."""

    _STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}

    def format(self, record: logging.LogRecord) -> str:
        fields = {k: v for k, v in record.__dict__.items() if k not in self._STANDARD and v is not None}
        extra = " " + json.dumps(fields, default=str, ensure_ascii=False, sort_keys=True) if fields else ""
        return f"{record.levelname} {record.name}: {record.getMessage()}{extra}"


def _error_message(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    return str(exc)


def _silence_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        os.dup2(devnull, sys.stdout.fileno())
