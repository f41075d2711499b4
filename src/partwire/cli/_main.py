"""The ``partwire`` command: its parser, built from each verb group's module, and :func:`main`."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from partwire.cli._conformance import add_conformance_parser
from partwire.cli._convert import add_convert_parser
from partwire.cli._cost import add_cost_parsers
from partwire.cli._datasets import add_dataset_parsers
from partwire.cli._estimate import add_estimate_parser
from partwire.cli._history import add_history_parsers, add_schema_parser
from partwire.cli._io import CommandError, Parser, first_line
from partwire.cli._store import add_store_parser
from partwire.errors import PartwireError

__all__ = ["main"]


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
    with _logging(getattr(args, "verbose", 0)), _closed_streams():
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
            _error(f"internal error, please report it: {type(exc).__name__}: {first_line(exc)}")
            return 2


def _parser() -> Parser:
    parser = Parser(
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
    add_history_parsers(commands)
    add_convert_parser(commands)
    add_schema_parser(commands)
    add_store_parser(commands)
    add_cost_parsers(commands)
    add_dataset_parsers(commands)
    add_estimate_parser(commands)
    add_conformance_parser(commands)
    for name, command in commands.choices.items():
        if name in EXAMPLES and not command.epilog:
            command.epilog = "example:\n" + "\n".join(f"  {line}" for line in EXAMPLES[name])
            command.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


EXAMPLES: dict[str, tuple[str, ...]] = {
    "example": ("partwire example > h.jsonl",),
    "show": ("partwire show h.jsonl",
             "partwire example | partwire show -",
             "partwire show h.jsonl --format html -o h.html   # the page of docs/viewing.md"),
    "validate": ("partwire validate h.jsonl        # FILE:LINE: problem; exit 1 when there is any",
                 "partwire validate --strict h.jsonl"),
    "rewrite": ("partwire rewrite old.jsonl new.jsonl",
                "partwire rewrite h.jsonl h.jsonl   # in place, atomically"),
    "convert": ("partwire convert --from canonical --to anthropic h.jsonl > request.json",
                "partwire convert --from canonical --to openai-chat --model openai:gpt-5 \\",
                "    --tools tools.json --option dialect=openai h.jsonl",
                "partwire convert --from openai-chat --to google --model google:gemini-2.5-flash \\",
                "    --set temperature=0.2 --set reasoning=high request.json",
                "partwire convert --from anthropic --to canonical request.json > h.jsonl"),
    "schema": ("partwire schema > partwire.schema.json",),
    "store": ("partwire store import h.jsonl",
              "partwire store ls",
              "partwire store show SESSION_ID --format html -o session.html"),
    "cost": ("partwire cost h.jsonl",
             "partwire cost --prices prices.toml sessions/*.jsonl"),
    "estimate": ("partwire estimate h.jsonl --to anthropic --model claude-sonnet-4-5",
                 "partwire estimate h.jsonl --to google --hint 'history[1].parts[0]=12.5s' --json"),
    "reprice": ("partwire reprice h.jsonl repriced.jsonl",
                "partwire reprice --at 2026-01-01 h.jsonl -"),
    "export": ("partwire export --format parquet -o sessions.parquet a.jsonl b.jsonl",
               "partwire export --format parquet -o recent.parquet --store --limit 100"),
    "import": ("partwire import sessions.parquet -o histories/",
               "partwire import sessions.parquet --store"),
    "conformance": ("partwire conformance run --cmd 'partwire conformance serve'",
                    "partwire conformance run --cmd 'node impl.js' --cases '*/openai_chat' --json",
                    "partwire conformance list --cases 'validate_*'"),
}
"""Examples for each command, shown at the end of its ``--help`` (a command may set its own)."""


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


class _ClosedStream:
    """Stands for standard input or output when the command was started without it (``<&-``,
    ``>&-``): using it is one clear error; flushing it, which every run does, is nothing."""

    def __init__(self, name: str) -> None:
        self._name = name

    def flush(self) -> None:
        return None

    def __getattr__(self, attribute: str) -> Any:
        raise CommandError(f"standard {self._name} is closed, and this command needs it")


class _Discard:
    """Stands for a closed standard error: messages go nowhere (``print(file=None)`` would put
    them on standard output, among the command's output)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        return None


@contextlib.contextmanager
def _closed_streams() -> Iterator[None]:
    """Python sets a standard stream that was closed when it started to ``None``: each stands in
    as a :class:`_ClosedStream` (or :class:`_Discard`) for the run, then is ``None`` again."""
    closed = {name: getattr(sys, name) is None for name in ("stdin", "stdout", "stderr")}
    stand_ins = {"stdin": _ClosedStream("input"), "stdout": _ClosedStream("output"), "stderr": _Discard()}
    for name, is_closed in closed.items():
        if is_closed:
            setattr(sys, name, stand_ins[name])
    try:
        yield
    finally:
        for name, is_closed in closed.items():
            if is_closed:
                setattr(sys, name, None)


def _error(message: str) -> None:
    print(f"partwire: error: {message}", file=sys.stderr)


def _error_message(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    return str(exc)


def _silence_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        os.dup2(devnull, sys.stdout.fileno())
