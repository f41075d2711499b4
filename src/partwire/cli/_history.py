"""``partwire example``, ``show``, ``validate``, ``rewrite`` and ``schema``: the history files themselves."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from typing import Any

from partwire.cli._example import example_history
from partwire.cli._io import (
    STDIO,
    CommandError,
    display_name,
    limits_parser,
    open_input,
    read_records,
    stdout_bytes,
)
from partwire.cli._render import add_render_options, write_rendering
from partwire.codec import encode, rewrite
from partwire.codec.schema import render as render_schema
from partwire.errors import DecodeError
from partwire.validation import validate_history

__all__ = ["add_history_parsers", "add_schema_parser"]


def add_history_parsers(commands: Any) -> None:
    """Add ``example``, ``show``, ``validate`` and ``rewrite`` to ``partwire``'s subcommands."""
    limits = limits_parser()

    example = commands.add_parser("example", help="print the bundled example history as JSONL")
    example.set_defaults(run=_example)

    show = commands.add_parser(
        "show", help="print a readable transcript of a history (text, Markdown or an HTML page)",
        parents=[limits])
    show.add_argument("file", metavar="FILE", help="the history (JSONL); '-' reads stdin")
    add_render_options(show)
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


def add_schema_parser(commands: Any) -> None:
    """Add ``schema`` to ``partwire``'s subcommands."""
    schema = commands.add_parser("schema", help="print the JSON Schema of one history line")
    schema.set_defaults(run=_schema)


def _example(args: argparse.Namespace) -> int:
    out = stdout_bytes()
    for event in example_history():
        out.write(encode(event) + b"\n")
    out.flush()
    return 0


def _schema(args: argparse.Namespace) -> int:
    out = stdout_bytes()
    out.write(render_schema().encode("utf-8"))
    out.flush()
    return 0


def _show(args: argparse.Namespace) -> int:
    records = read_records(args.file, args)
    name = display_name(args.file)
    for record in records:
        for problem in record.problems:
            print(f"{name}:{problem.line}: {problem.message}", file=sys.stderr)
    # Unreadable lines are shown as what could be kept of them; the status says they were there.
    args.exit_status = 1 if any(record.problems for record in records) else 0
    title = None if args.file == STDIO else os.path.basename(args.file)
    write_rendering([r.event for r in records], args, title=title)
    return int(args.exit_status)


def _validate(args: argparse.Namespace) -> int:
    name = display_name(args.file)
    try:
        records = read_records(args.file, args, strict=args.strict)
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
    name = display_name(args.src)
    limits = {"max_line_bytes": args.max_line_bytes, "max_depth": args.max_depth}
    with open_input(args.src) as src:
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
                    shutil.copyfileobj(handle, stdout_bytes())
                sys.stdout.buffer.flush()
    for problem in problems:
        print(f"{name}:{problem.line}: {problem.message}", file=sys.stderr)
    return 0
