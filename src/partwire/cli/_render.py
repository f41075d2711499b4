"""``--format`` and ``-o`` of ``partwire show`` and ``partwire store show``: the renderings of
:mod:`partwire.render`, written to stdout or a file."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence
from typing import Any

from partwire.cli._io import STDIO, CommandError, stdout_bytes
from partwire.history import HistoryEvent
from partwire.render import FORMATS, render
from partwire.render._common import session_title

__all__ = ["add_render_options", "write_rendering"]


def add_render_options(parser: Any) -> None:
    """Add ``--format`` and ``-o`` to a command that shows a history."""
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="text (the default), markdown, or html: one self-contained page with what "
                             "each provider would receive")
    parser.add_argument("-o", "--output", metavar="OUT", default=STDIO,
                        help="write to OUT instead of stdout")
    parser.add_argument("--adapters", metavar="NAMES", type=_adapters, default=None,
                        help="html: the adapters of the projection view, comma-separated (a dialect as "
                             "openai_chat:NAME); 'none' leaves the view out (default: every adapter)")


def write_rendering(events: Sequence[HistoryEvent], args: argparse.Namespace, *, title: str | None) -> None:
    """Render ``events`` as ``args.format`` to ``args.output``; Markdown and HTML are titled by the
    task's title, else ``title``."""
    # ``show`` prints the text transcript as it always has: its task line names the task, no heading.
    heading = None if args.format == "text" else session_title(events) or title
    text = render(events, args.format, title=heading, adapters=args.adapters)
    if args.output != STDIO:
        _write_file(args.output, text)
        return
    if args.format == "text" and isinstance(sys.stdout, io.TextIOWrapper):
        # A transcript must print whatever the history holds, whatever the terminal's encoding.
        sys.stdout.reconfigure(errors="backslashreplace")
        sys.stdout.write(text)
        return
    out = stdout_bytes()
    out.write(text.encode("utf-8", "backslashreplace"))
    out.flush()


def _adapters(text: str) -> tuple[str, ...]:
    from partwire.adapters import ADAPTER_NAMES, get_adapter

    names = tuple(name.strip().replace("-", "_") for name in text.split(",") if name.strip())
    if names == ("none",):
        return ()
    for name in names:
        head, _, dialect = name.partition(":")
        if head not in ADAPTER_NAMES:
            raise argparse.ArgumentTypeError(f"unknown adapter {head!r}: expected {', '.join(ADAPTER_NAMES)} or none")
        dialects = getattr(get_adapter(head), "DIALECTS", {})
        if dialect and dialect not in dialects:
            known = f"its dialects are {', '.join(sorted(dialects))}" if dialects else "it has no dialects"
            raise argparse.ArgumentTypeError(f"{head} has no dialect {dialect!r}: {known}")
    if not names:
        raise argparse.ArgumentTypeError("name at least one adapter, or none")
    return names


def _write_file(path: str, text: str) -> None:
    try:
        # backslashreplace: a lone surrogate (JSON allows one) is written as its escape.
        with open(path, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as handle:
            handle.write(text)  # rendered whole before the file is opened
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror or exc}") from exc
