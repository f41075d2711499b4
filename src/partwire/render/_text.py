"""The plain-text transcript (``partwire show``'s default): one block per replayed event."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from decimal import Decimal
from typing import assert_never

from partwire import history as _history
from partwire import messages as _messages
from partwire import parts as _parts
from partwire.codec import InterruptEvent
from partwire.render import _common
from partwire.render._walk import walk
from partwire.usage import Usage

__all__ = ["printable", "source_text", "to_text", "usage_line"]


_PREVIEW = 240


def printable(text: str) -> str:
    """``text`` with control characters escaped, so a history cannot drive the terminal."""
    if text.isprintable():
        return text
    return "".join(
        repr(c)[1:-1] if c != "\t" and unicodedata.category(c) == "Cc" else c for c in text
    )


def to_text(history: Sequence[_history.HistoryEvent], *, title: str | None = None) -> str:
    """The transcript of ``history``: ``title`` underlined if given, a block per event, costs priced
    where missing, the total."""
    out: list[str] = []
    if title:
        heading = printable(title)
        out += [heading, "=" * len(heading)]
    transcript = walk(history)
    for entry in transcript.entries:
        if out:
            out.append("")
        out.extend(printable(line) for line in _event(entry.event))
        # Response metadata belongs to the assistant block just printed.
        if entry.response is not None and entry.response.usage is not None:
            out.append(printable(f"  usage: {usage_line(entry.response.usage)}"))
        if entry.interrupt is not None:
            out += ["", printable(_interrupt(entry.interrupt))]
    if transcript.total:
        out.extend(["", *transcript.total])
    return "".join(f"{line}\n" for line in out)


def _interrupt(interrupt: InterruptEvent) -> str:
    match interrupt.source:
        case "tool":
            return f"* interrupt: the user stopped tool call {interrupt.call_id}"
        case "assistant":
            return f"* interrupt: the user stopped the answer of message {interrupt.message_id}"
        case _:
            assert_never(interrupt.source)


def _event(event: _history.HistoryEvent) -> list[str]:
    """The transcript lines of one stored event."""
    match event:
        case _messages.SystemMessage() | _messages.DeveloperMessage() | _messages.UserMessage():
            return [_header(event.role, event=event), *_body(event.parts)]
        case _messages.AssistantMessage():
            return _assistant(event)
        case _messages.ToolMessage():
            return _tool(event)
        case _history.ErrorEvent():
            code = f" {event.code}" if event.code else ""
            return [f"* error{code} ({_common.error_facts(event)}): {event.message}"]
        case _history.RetryEvent():
            return [f"* retry: attempt {event.attempt}{_common.retry_delay(event)}: {event.reason}"]
        case _history.ModelSwitchEvent():
            reason = f" ({event.reason})" if event.reason else ""
            return [f"* model switch: {event.from_model or '?'} -> {event.to_model}{reason}"]
        case _history.CompactionEvent():
            return _compaction(event)
        case _history.SubtaskEvent():
            lines = [f"* subtask {event.child_session_id} ({event.agent or 'agent'}): {event.status}"]
            lines += _indented("prompt: ", event.prompt) + _indented("result: ", event.result)
            return lines
        case _history.TaskMetadataEvent():
            title = event.title or "(untitled)"
            lines = [f"* task: {title}" + (f" [{event.task_id}]" if event.task_id else "")]
            if event.data is not None:
                lines.append(f"  {_json(event.data)}")
            return lines
        case _history.UnknownEvent():
            kind = f" {event.original_type!r}" if event.original_type else ""
            problem = f": {event.problem}" if event.problem else ""
            return [f"* unknown event{kind}, kept verbatim{problem}"]
        case _:
            assert_never(event)


def _header(title: str, *, event: _history.HistoryEvent, extra: Sequence[str | None] = ()) -> str:
    facts = [x for x in extra if x]
    return f"=== {title}" + "".join(f"  {x}" for x in facts) + f"  ({_common.stamp(event)})"


def _assistant(message: _messages.AssistantMessage) -> list[str]:
    via, status = _common.served_via(message), _common.shown_status(message)
    extra = [
        message.model,
        f"via {via}" if via else None,
        f"stop: {message.stop_reason}" if message.stop_reason else None,
        f"status: {status}" if status else None,
    ]
    return [_header("assistant", event=message, extra=extra), *_body(message.parts)]


def _tool(message: _messages.ToolMessage) -> list[str]:
    extra = [message.status, _common.tool_duration(message), f"answers {message.call_id}"]
    lines = [_header(f"tool {message.tool_name}", event=message, extra=extra)]
    lines += [f"  {line}" for line in message.output_text.splitlines()]
    if message.truncated:
        lines.append(f"  [output truncated; full output at {message.full_output_ref or 'unknown'}]")
    if message.data is not None:
        lines.append(f"  data: {_preview(message.data)}")
    if message.side_effects is not None:
        lines.append(f"  side effects: {_preview(message.side_effects)}")
    lines += _body(message.parts)
    return lines


def _compaction(event: _history.CompactionEvent) -> list[str]:
    return [f"* compaction: {_common.compaction_scope(event)} summarised{_common.token_change(event, '->')}",
            *_indented("", event.summary)]


def _body(parts: Sequence[_parts.Part]) -> list[str]:
    return [f"  {line}" for part in parts for line in _part(part)]


def _part(part: _parts.Part) -> list[str]:
    """The lines of one part, unindented."""
    match part:
        case _parts.TextPart():
            return [*part.text.splitlines(), *(_citation(i, c) for i, c in enumerate(part.citations, 1))]
        case _parts.ImagePart():
            detail = f", detail {part.detail}" if part.detail else ""
            return [f"[image {part.media_type or '?'}: {source_text(part.source)}{detail}]"]
        case _parts.DocumentPart():
            title = f' "{part.title}"' if part.title else ""
            filename = f" {part.filename}" if part.filename else ""
            return [f"[document {part.media_type or '?'}{title}{filename}: {source_text(part.source)}]"]
        case _parts.AudioPart():
            return [f"[audio {part.media_type or '?'}: {source_text(part.source)}]"]
        case _parts.ThinkingPart():
            signed = _common.signer(part)
            if not part.text:
                return [f"[thinking, {signed}, no readable text]"]
            return [f"[thinking, {signed}]", *(f"| {line}".rstrip() for line in part.text.splitlines())]
        case _parts.RedactedThinkingPart():
            return [f"[redacted thinking, {len(part.data.value):,} chars, for {part.data.issuer} only]"]
        case _parts.ToolCallPart():
            ids = ", ".join(f"{k} id {v}" for k, v in part.provider_ids.items())
            return [f"-> call {part.name} [{part.id}]" + (f" ({ids})" if ids else ""),
                    f"   {part.arguments_json}"]
        case _parts.ServerToolCallPart():
            return [f"-> server tool {part.name} [{part.id}] run by {part.issuer}", f"   {_preview(part.input)}"]
        case _parts.ServerToolResultPart():
            return [f"<- server tool result {part.name} [{part.call_id}] from {part.issuer}",
                    f"   {_preview(part.output)}"]
        case _parts.RefusalPart():
            return [f"[refusal] {part.text}"]
        case _parts.UnknownPart():
            kind = f" {part.original_type!r}" if part.original_type else ""
            origin = f" from {part.issuer}" if part.issuer else ""
            return [f"[unknown part{kind}{origin}, kept verbatim]"]
        case _:
            assert_never(part)


def _citation(index: int, citation: _parts.Citation) -> str:
    match citation:
        case _parts.UrlCitation():
            where = citation.url + (f' "{citation.title}"' if citation.title else "")
            if citation.start_index is not None and citation.end_index is not None:
                where += f", chars {citation.start_index}-{citation.end_index}"
        case _parts.DocumentCitation():
            title = f' "{citation.document_title}"' if citation.document_title else ""
            where = f"document {citation.document_index}{title}, {citation.unit}s {citation.start}-{citation.end}"
        case _parts.SearchResultCitation():
            where = f"search result {citation.search_result_index} {citation.source}"
        case _:
            assert_never(citation)
    quote = f': "{citation.cited_text}"' if citation.cited_text else ""
    return f"  [{index}] {where}{quote}"


def source_text(source: _parts.MediaSource) -> str:
    """Where a media part's bytes are, in a few words."""
    match source:
        case _parts.UrlSource():
            return source.url
        case _parts.Base64Source():
            return f"inline, {_common.inline_size(source)}"
        case _parts.FileRefSource():
            size = f", {_common.byte_size(source.size)}" if source.size is not None else ""
            digest = f", sha256 {source.sha256[:12]}" if source.sha256 else ""
            return f"file {source.path}{size}{digest}"
        case _parts.ProviderFileSource():
            return f"{source.issuer} file {source.file_id}"
        case _parts.TextSource():
            return f"inline text, {len(source.text):,} chars"
        case _:
            assert_never(source)


def usage_line(usage: Usage) -> str:
    """Tokens, cost with its price version, and latency, on one line."""
    cache = [f"cache read {usage.cache_read_tokens:,}" if usage.cache_read_tokens else "",
             f"cache write {usage.cache_write_tokens:,}" if usage.cache_write_tokens else ""]
    cached = ", ".join(x for x in cache if x)
    bits = [f"in {usage.input_tokens:,}" + (f" ({cached})" if cached else ""),
            f"out {usage.output_tokens:,}"
            + (f" (reasoning {usage.reasoning_tokens:,})" if usage.reasoning_tokens else "")]
    if usage.cost is not None:
        pricing = f" (pricing {usage.pricing_version})" if usage.pricing_version else ""
        bits.append(f"cost ${_decimal(usage.cost)}{pricing}")
    if usage.latency_ms is not None:
        bits.append(f"{usage.latency_ms:,} ms")
    return " | ".join(bits)


def _decimal(value: Decimal) -> str:
    return format(value, "f")


def _indented(label: str, text: str | None) -> list[str]:
    if not text:
        return []
    lines = text.splitlines() or [""]
    pad = " " * len(label)
    return [f"  {label}{lines[0]}", *(f"  {pad}{line}" for line in lines[1:])]


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)


def _preview(value: object) -> str:
    text = _json(value)
    return text if len(text) <= _PREVIEW else text[: _PREVIEW - 3] + "..."
