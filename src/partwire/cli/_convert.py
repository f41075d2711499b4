"""``partwire convert``: a history or a wire body from one format to another; losses go to stderr."""

from __future__ import annotations

import argparse
import base64
import json
import sys
from typing import Any

from partwire._base import escape_surrogates
from partwire.adapters import ADAPTER_ALIASES, ADAPTER_NAMES
from partwire.cli._io import (
    CommandError,
    display_name,
    limits_parser,
    open_input,
    read_json_body,
    read_tools_file,
    stdout_bytes,
)
from partwire.codec import load
from partwire.errors import ConversionError, DecodeError, LossError, PartwireError
from partwire.projection import Loss

__all__ = ["BRIDGES", "FORMATS", "SESSION_FILES", "add_convert_parser", "read_session_file"]

FORMATS = ("canonical", "anthropic", "openai-chat", "openai-responses", "google", "bedrock", "cohere",
           "ollama", "otel-genai", "ai-sdk-ui", "ai-sdk-model", "ag-ui")
"""What ``partwire convert`` reads and writes: the canonical JSONL, the adapters built so far,
the OpenTelemetry GenAI span attributes, the AI SDK's UIMessage and ModelMessage lists and AG-UI
messages."""
# Every name partwire.adapters takes for an adapter is taken here too (openai_chat, openai, gemini).
_ALIASES = tuple(sorted({*ADAPTER_ALIASES, *ADAPTER_NAMES} - set(FORMATS)))
# Sources only: other libraries' JSON dumps and agent CLI session files, read through
# partwire.bridges (convert.BRIDGES; kept here so building the parser imports no converter).
BRIDGES = ("pydantic-ai", "langchain", "claude-code", "codex")
SESSION_FILES = ("claude-code", "codex")
"""Sources that are JSONL session files of agent CLIs, read whole rather than as one JSON body."""


def add_convert_parser(commands: Any) -> None:
    """Add ``convert`` to ``partwire``'s subcommands."""
    convert_cmd = commands.add_parser(
        "convert", help="convert a history or a wire body between formats; losses go to stderr",
        parents=[limits_parser()],
    )
    convert_cmd.add_argument("--from", dest="source", required=True, choices=(*FORMATS, *BRIDGES, *_ALIASES),
                             metavar="{" + ",".join((*FORMATS, *BRIDGES)) + "}",
                             help="the input's format (pydantic-ai and langchain read those "
                                  "libraries' JSON dumps; claude-code and codex those agents' session "
                                  "files; otel-genai a span's GenAI attributes; also: "
                                  + ", ".join(_ALIASES) + ")")
    convert_cmd.add_argument("--to", dest="target", required=True, choices=(*FORMATS, *_ALIASES),
                             metavar="{" + ",".join(FORMATS) + "}",
                             help="the output's format (also: " + ", ".join(_ALIASES) + ")")
    convert_cmd.add_argument(
        "--model", type=_model, help="model of the request to build, provider:name (default: the "
                                     "input's own, or the last assistant message's when the target serves it)")
    convert_cmd.add_argument("--strict", action="store_true", help="fail (exit 1) instead of losing anything")
    convert_cmd.add_argument(
        "--tools", metavar="TOOLS", help="a JSON file of tool definitions to offer: canonical ones, or a "
                                         "provider's own tools array (Anthropic or OpenAI Chat), detected")
    convert_cmd.add_argument(
        "--option", dest="options", action="append", default=[], metavar="KEY=VALUE", type=_option,
        help="an adapter option (e.g. dialect=deepseek for openai-chat); repeatable")
    convert_cmd.add_argument(
        "--settings", metavar="SETTINGS", help="a JSON file of generation settings (temperature, "
                                               "tool_choice, reasoning, output_format...) for the request")
    convert_cmd.add_argument(
        "--set", dest="settings_set", action="append", default=[], metavar="KEY=VALUE", type=_option,
        help="one generation setting, over the input's and --settings' (e.g. temperature=0.2, "
             "tool_choice=required, reasoning=high; a JSON value or a plain string); repeatable")
    convert_cmd.add_argument(
        "file", metavar="FILE",
        help="canonical JSONL, a wire request/response body (JSON), a span's attributes (JSON), or a "
             "Claude Code or Codex session file (JSONL); '-' reads stdin",
    )
    convert_cmd.set_defaults(run=_convert)


def _model(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty model; name one (anthropic:claude-sonnet-4-6) or leave "
                                         "--model out to take the input's own")
    return text


def _option(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, not {text!r}")
    return key.strip(), value


def _convert(args: argparse.Namespace) -> int:
    # Imported here: the adapters are only needed by this command.
    from partwire.convert import convert

    name = display_name(args.file)
    data: Any
    with open_input(args.file) as stream:
        if args.source == "canonical":
            # Strict: a conversion of a damaged history would hide the damage; the error names the
            # line, and `partwire validate` / `rewrite` are the tools for repairing it first.
            data = load(stream, strict=True, max_line_bytes=args.max_line_bytes, max_depth=args.max_depth)
        elif args.source in SESSION_FILES:
            data = stream.read()
        else:
            data = read_json_body(stream, name, args)
    tools = read_tools_file(args.tools, args) if args.tools else None
    options = dict(args.options)
    settings = _read_settings(args.settings, args) if args.settings else {}
    settings.update((key, _value(text)) for key, text in args.settings_set)
    try:
        output, losses = convert(data, source=args.source, target=args.target, model=args.model,
                                 strict=args.strict, tools=tools, options=options or None,
                                 settings=settings or None)
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
    out = stdout_bytes()
    # A lone surrogate (read from a JSON escape) is written back as that escape, as the codec does.
    text = "" if isinstance(output, bytes) else escape_surrogates(json.dumps(output, indent=2, ensure_ascii=False, default=_binary))
    out.write(output if isinstance(output, bytes) else (text + "\n").encode())
    out.flush()
    return 0


def read_session_file(path: str, source: str) -> list[Any]:
    """The history of an agent CLI session file (``claude-code`` or ``codex``), for the commands
    that take one (``show``, ``store import``)."""
    import importlib

    name = display_name(path)
    with open_input(path) as stream:
        data = stream.read()
    bridge = importlib.import_module(f"partwire.bridges.{source.replace('-', '_')}")
    try:
        events: list[Any] = bridge.read_dump(data)
    except PartwireError as exc:
        raise CommandError(f"{name}: {exc}") from exc
    return events


def _binary(value: Any) -> str:
    """A binary field of a body (Bedrock's boto3 arguments hold ``bytes``) as the base64 text its
    JSON form carries; ``--from bedrock`` reads it back as such."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"{type(value).__name__} is not JSON")


def _print_loss(loss: Loss) -> None:
    # str(Loss) is the one format of a loss: in errors, in log records and here.
    print(f"loss: {loss}", file=sys.stderr)



def _read_settings(path: str, args: argparse.Namespace) -> dict[str, Any]:
    name = display_name(path)
    with open_input(path) as stream:
        data = read_json_body(stream, name, args)
    if not isinstance(data, dict):
        raise CommandError(f"{name}: settings must be a JSON object of settings")
    return dict(data)


def _value(text: str) -> Any:
    """A ``--set`` value: JSON when it parses (``0.2``, ``true``, ``["END"]``), else the text."""
    try:
        return json.loads(text)
    except ValueError:
        return text
