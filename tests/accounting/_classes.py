"""The estimate's error on every recorded request with usage, per wire format and request class.

A request's class is the first of these that it holds anywhere (tool results and function
responses included):

- ``compaction``: an Anthropic ``compaction`` block or a Responses ``compaction`` item;
- ``media``: an image, PDF, audio clip or video whose bytes are in the body;
- ``media by reference``: media given only by URL or file id (the API reads bytes the request
  does not hold, so the estimate uses the documented default);
- ``structured``: a JSON-schema (or JSON) output format;
- ``tools``: tool definitions, tool calls or tool results;
- ``plain``: anything else.

``render_table`` gives the Markdown table that docs/accounting.md holds;
``python -m tests.accounting._classes`` prints it, and with ``--write`` puts it in the page.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from partwire.adapters import _estimate
from partwire.adapters.bedrock._tokens import estimate_request_tokens as estimate_bedrock_body
from tests.accounting._corpus import ALL_PROVIDERS, Sample, samples

__all__ = ["BEGIN", "CLASSES", "DOCS", "END", "ClassErrors", "class_of", "errors_by_class",
           "measure", "render_table", "write_table"]

CLASSES = ("compaction", "media", "media by reference", "structured", "tools", "plain")

ESTIMATORS: dict[str, Callable[[Mapping[str, Any]], int]] = {
    "anthropic": _estimate.estimate_anthropic_body,
    "openai-chat": _estimate.estimate_openai_chat_body,
    "openai-responses": _estimate.estimate_openai_responses_body,
    "google": _estimate.estimate_google_body,
    "bedrock": estimate_bedrock_body,
}

_MEDIA_TYPES = frozenset({"image", "document", "image_url", "input_image", "file", "input_file",
                          "input_audio", "audio", "video"})
_GEMINI_MEDIA = frozenset({"inlineData", "inline_data", "fileData", "file_data"})
_TOOL_TYPES = frozenset({"tool_use", "tool_result", "function_call", "function_call_output",
                         "custom_tool_call", "custom_tool_call_output", "mcp_tool_use",
                         "mcp_tool_result", "server_tool_use"})
_GEMINI_TOOL = frozenset({"functionCall", "functionResponse", "function_call",
                          "function_response"})
# Converse content blocks are keyed by kind: {"image": {"source": {"bytes" | "s3Location"}}}.
_CONVERSE_MEDIA = frozenset({"image", "document", "video", "audio"})
_CONVERSE_TOOL = frozenset({"toolUse", "toolResult"})


def _nodes(value: Any) -> Iterator[Mapping[str, Any]]:
    """Every JSON object inside ``value``, depth first."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def _has_bytes(node: Mapping[str, Any]) -> bool:
    """Whether a media object carries its data (base64 or a ``data:`` URL) in the body."""
    for item in _nodes(node):
        for key in ("data", "file_data", "url", "image_url"):
            value = item.get(key)
            if isinstance(value, str) and (key == "data" or value.startswith("data:")) \
                    and len(value) > 40:
                return True
    return False


def _structured(request: Mapping[str, Any]) -> bool:
    fmt = request.get("response_format")
    text = request.get("text")
    inner = text.get("format") if isinstance(text, dict) else None
    config = request.get("generationConfig")
    config = config if isinstance(config, dict) else {}
    output = request.get("output_config")
    converse = request.get("outputConfig")
    return ((isinstance(converse, dict) and bool(converse.get("textFormat")))
            or (isinstance(fmt, dict) and fmt.get("type") in ("json_schema", "json_object"))
            or (isinstance(inner, dict) and inner.get("type") in ("json_schema", "json_object"))
            or bool(request.get("output_format"))
            or (isinstance(output, dict) and bool(output.get("format")))
            or bool(config.get("responseSchema") or config.get("responseJsonSchema"))
            or config.get("responseMimeType") == "application/json")


def class_of(request: Mapping[str, Any]) -> str:
    """The class of one request body (the first of ``CLASSES`` it holds)."""
    media = by_reference = tools = False
    for node in _nodes(request):
        kind = node.get("type")
        if kind == "compaction" and ("content" in node or "encrypted_content" in node):
            return "compaction"
        if kind in _MEDIA_TYPES:
            if _has_bytes(node):
                media = True
            else:
                by_reference = True
        for key in _GEMINI_MEDIA.intersection(node):
            if isinstance(node[key], dict) and _has_bytes(node[key]):
                media = True
            else:
                by_reference = True
        for key in _CONVERSE_MEDIA.intersection(node):
            source = node[key].get("source") if isinstance(node[key], dict) else None
            if isinstance(source, dict) and "bytes" in source:
                media = True
            elif isinstance(source, dict) and "s3Location" in source:
                by_reference = True
        if (kind in _TOOL_TYPES or "tool_calls" in node or not _GEMINI_TOOL.isdisjoint(node)
                or not _CONVERSE_TOOL.isdisjoint(node)):
            tools = True
    if media:
        return "media"
    if by_reference:
        return "media by reference"
    if _structured(request):
        return "structured"
    if tools or request.get("tools") or request.get("toolConfig"):
        return "tools"
    return "plain"


@dataclass(frozen=True)
class ClassErrors:
    """The error distribution of one wire format's requests of one class."""

    provider: str
    klass: str
    errors: tuple[float, ...]
    """Signed ``(estimate - real) / real`` of each request, sorted by size."""

    @property
    def n(self) -> int:
        return len(self.errors)

    def _absolute(self) -> list[float]:
        return sorted(abs(e) for e in self.errors)

    @property
    def median(self) -> float:
        return statistics.median(self._absolute())

    @property
    def p90(self) -> float:
        absolute = self._absolute()
        return absolute[round(0.9 * (len(absolute) - 1))]

    @property
    def worst(self) -> float:
        return max(abs(e) for e in self.errors)

    @property
    def signed_median(self) -> float:
        return statistics.median(self.errors)


def errors_by_class(provider: str) -> dict[str, ClassErrors]:
    """Every recorded request of ``provider`` with usage, its error, grouped by class."""
    estimate = ESTIMATORS[provider]
    chosen: list[Sample] = samples(provider, held_back=True) + samples(provider, held_back=False)
    grouped: dict[str, list[float]] = {name: [] for name in CLASSES}
    seen: set[str] = set()
    for sample in chosen:
        # samples() deduplicates within each part; a body recorded in both (a sync and a
        # stream test sending the same request) is one request, counted once.
        key = json.dumps(sample.request, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        grouped[class_of(sample.request)].append((estimate(sample.request) - sample.real)
                                                 / sample.real)
    return {name: ClassErrors(provider, name, tuple(sorted(errs, key=abs)))
            for name, errs in grouped.items()}


def measure() -> dict[str, dict[str, ClassErrors]]:
    """The error of every wire format's recorded requests, by class."""
    return {provider: errors_by_class(provider) for provider in ALL_PROVIDERS}


def render_table(results: Mapping[str, Mapping[str, ClassErrors]]) -> str:
    """The Markdown error table, one row per wire format and class (no data: no bounds)."""
    lines = ["| wire format | class | requests | median | p90 | max | signed median |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for provider in ALL_PROVIDERS:
        for name in CLASSES:
            row = results[provider][name]
            if not row.n:
                lines.append(f"| {provider} | {name} | 0 | no data | | | |")
                continue
            lines.append(f"| {provider} | {name} | {row.n} | {row.median:.1%} | {row.p90:.1%} "
                         f"| {row.worst:.0%} | {row.signed_median:+.1%} |")
    return "\n".join(lines)


DOCS = Path(__file__).resolve().parents[2] / "docs" / "accounting.md"
BEGIN = "<!-- error table: python -m tests.accounting._classes -->"
END = "<!-- end of error table -->"


def write_table(table: str) -> None:
    """Replace the table between the markers of docs/accounting.md with ``table``."""
    text = DOCS.read_text()
    head, rest = text.split(BEGIN + "\n", 1)
    _, tail = rest.split(END, 1)
    DOCS.write_text(f"{head}{BEGIN}\n{table}\n{END}{tail}")


if __name__ == "__main__":
    import sys

    measured = render_table(measure())
    if "--write" in sys.argv[1:]:
        write_table(measured)
    print(measured)
