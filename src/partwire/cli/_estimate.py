"""``partwire estimate``: the input tokens of a history's next request, its bounds, what was guessed.

``estimate FILE --to API [--model M]`` counts the request ``to_wire`` would build for the
history (the latest compaction applied) with :func:`partwire.estimate.estimate`, and prints the
count, its bounds, the media it counted without knowing their size, and the media the request
will not carry. ``--hint PART=SIZE`` gives a size (``640x480``, ``12.5s``, ``3p``) by part path
or by URL / file id; ``--json`` prints the same as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
from dataclasses import asdict
from typing import Any

from partwire.cli._io import CommandError, display_name, limits_parser, open_input, read_tools_file
from partwire.codec import load

__all__ = ["add_estimate_parser", "estimate_command", "parse_hint"]

_TARGETS = ("anthropic", "openai-chat", "openai-responses", "google", "bedrock", "cohere", "ollama")
_SIZE = re.compile(r"^\s*(?:(\d+)\s*x\s*(\d+)|(\d+(?:\.\d+)?)\s*s|(\d+)\s*p(?:ages?)?)\s*$", re.I)


def add_estimate_parser(commands: Any) -> None:
    """Add ``estimate`` to ``partwire``'s subcommands."""
    cmd = commands.add_parser(
        "estimate", help="estimate the input tokens of a history's next request, with bounds",
        parents=[limits_parser()])
    cmd.add_argument("file", metavar="FILE", help="a history (canonical JSONL); '-' reads stdin")
    cmd.add_argument("--to", dest="target", required=True, metavar="API",
                     choices=(*_TARGETS, *(t.replace("-", "_") for t in _TARGETS)),
                     help="the API the request goes to: " + ", ".join(_TARGETS))
    cmd.add_argument("--model", help="the model of the request (it picks the tool prompt, image "
                                     "rule and, on Bedrock, the model family)")
    cmd.add_argument("--tools", metavar="TOOLS", help="a JSON file of the tool definitions to offer")
    cmd.add_argument("--hint", dest="hints", action="append", default=[], metavar="PART=SIZE",
                     type=parse_hint,
                     help="a medium's size, by part path (history[3].parts[1]) or URL / file id: "
                          "WxH pixels, Ns seconds, Np pages; repeatable")
    cmd.add_argument("--json", action="store_true", help="print one JSON object")
    cmd.set_defaults(run=_estimate)


def parse_hint(text: str) -> tuple[str, Any]:
    """``KEY=SIZE`` as ``(key, MediaHint)``; the key is the text before the last ``=``."""
    from partwire.estimate import MediaHint

    key, sep, size = text.rpartition("=")
    found = _SIZE.match(size) if sep else None
    if not key.strip() or found is None:
        raise argparse.ArgumentTypeError(
            f"expected PART=SIZE with SIZE as WxH, Ns or Np (640x480, 12.5s, 3p), not {text!r}")
    width, height, seconds, pages = found.groups()
    if width:
        return key.strip(), MediaHint(width=int(width), height=int(height))
    if seconds:
        return key.strip(), MediaHint(seconds=float(seconds))
    return key.strip(), MediaHint(pages=int(pages))


def estimate_command(path: str, target: str, model: str | None) -> str:
    """The command line that estimates ``path`` (what ``partwire cost`` offers)."""
    words = ["partwire", "estimate", path, "--to", target, *(("--model", model) if model else ())]
    return " ".join(shlex.quote(word) for word in words)


def _estimate(args: argparse.Namespace) -> int:
    from partwire.estimate import estimate

    name = display_name(args.file)
    with open_input(args.file) as stream:
        history = load(stream, strict=True, max_line_bytes=args.max_line_bytes,
                       max_depth=args.max_depth)
    tools = read_tools_file(args.tools, args) if args.tools else ()
    try:
        result = estimate(history, tools, target=args.target, model=args.model,
                          media_hints=dict(args.hints))
    except (ValueError, LookupError) as exc:
        raise CommandError(f"{name}: {exc}") from exc
    if args.json:
        print(json.dumps({"file": name, "model": args.model, **asdict(result)}, indent=2))
        return 0
    bounds = f"{result.low:,} and {result.high:,}"
    print(f"{name}: about {result.tokens:,} input tokens to {result.target}"
          f"{f' ({args.model})' if args.model else ''}; between {bounds}")
    if result.guessed:
        print("guessed (their size is not in the request; give it with --hint PART=SIZE):")
        for part in result.guessed:
            source = part.source if len(part.source) <= 60 else part.source[:57] + "..."
            print(f"  {part.path}  {part.kind}  {source}  counted {part.tokens:,} "
                  f"({part.assumed}); {part.low:,} to {part.high:,}")
    if result.left_out:
        print("not in the request (not counted):")
        for line in result.left_out:
            print(f"  {line}")
    return 0
