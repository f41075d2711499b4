"""The Markdown transcript: every text of the history, readable as plain text and rendered.

Text parts go in as they are (models write Markdown); tool arguments and output, JSON and code
go in fences longer than any run of backticks inside them. Nothing is embedded: media are named,
remote ones as links, so a Markdown viewer fetches nothing when the file is opened.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, assert_never

from partwire import history as _history
from partwire import messages as _messages
from partwire import parts as _parts
from partwire.codec import InterruptEvent
from partwire.render import _common
from partwire.render._text import printable, source_text, usage_line
from partwire.render._walk import Entry, Transcript, walk

__all__ = ["to_markdown"]

_TICKS = re.compile(r"`+")


def to_markdown(history: Sequence[_history.HistoryEvent], *, title: str | None = None) -> str:
    """The Markdown transcript of ``history``: a section per message, events as notes."""
    transcript = walk(history)
    events, total = transcript.events, transcript.total
    out = [f"# {printable(title or transcript.title or 'partwire transcript')}", ""]
    models = transcript.models
    facts = [f"{len(events):,} events"] + ([f"models: {', '.join(models)}"] if models else [])
    out += [" · ".join(facts) + ("  " if total else ""), *(line.strip() for line in total), ""]
    for entry in transcript.blocks():
        out += _entry(entry, transcript)
    return "\n".join(printable(line) for line in "\n".join(out).split("\n")).rstrip("\n") + "\n"


def _entry(entry: Entry, transcript: Transcript) -> list[str]:
    event = entry.event
    match event:
        case _messages.SystemMessage() | _messages.DeveloperMessage() | _messages.UserMessage():
            return [_heading(event.role.capitalize(), event), "", *_part_lines(event.parts, transcript)]
        case _messages.AssistantMessage():
            return _assistant(event, entry.interrupt, transcript)
        case _messages.ToolMessage():
            return [_heading(f"Tool {event.tool_name}", event), "", *_result(event, entry.interrupt)]
        case _history.ErrorEvent():
            code = f" {event.code}" if event.code else ""
            return [f"**Error{code}** ({_common.error_facts(event)}): {event.message}", ""]
        case _history.RetryEvent():
            return [f"**Retry**: attempt {event.attempt}{_common.retry_delay(event)}: {event.reason}", ""]
        case _history.ModelSwitchEvent():
            reason = f" ({event.reason})" if event.reason else ""
            return ["---", "", f"**Model switch**: {event.from_model or '?'} → {event.to_model}{reason}", ""]
        case _history.CompactionEvent():
            tokens = _common.token_change(event, "→")
            return ["---", "", f"**Compaction**: the messages before were summarised{tokens}:", "",
                    *_quoted(event.summary), ""]
        case _history.SubtaskEvent():
            lines = [f"**Subtask** {event.child_session_id} ({event.agent or 'agent'}): {event.status}", ""]
            for label, text in (("Prompt", event.prompt), ("Result", event.result)):
                if text:
                    lines += [f"*{label}:*", "", *_quoted(text), ""]
            return lines
        case _history.TaskMetadataEvent():
            task = f" [{event.task_id}]" if event.task_id else ""
            lines = [f"**Task**: {event.title or '(untitled)'}{task}", ""]
            return lines + (_fenced(_json(event.data), "json") if event.data is not None else [])
        case _history.UnknownEvent():
            kind = f" `{event.original_type}`" if event.original_type else ""
            problem = f": {event.problem}" if event.problem else ""
            return [f"**Unknown event**{kind}, kept verbatim{problem}", "", *_fenced(_json(event.raw), "json")]
        case _:
            assert_never(event)


def _heading(title: str, event: _history.HistoryEvent, facts: Sequence[str | None] = ()) -> str:
    return "## " + " · ".join([title, *(x for x in facts if x), _common.stamp(event)])


def _assistant(message: _messages.AssistantMessage, interrupt: InterruptEvent | None, transcript: Transcript) -> list[str]:
    status = _common.shown_status(message)
    facts = [message.model, f"stop: {message.stop_reason}" if message.stop_reason else None,
             f"status: {status}" if status else None]
    lines = [_heading("Assistant", message, facts), "", *_part_lines(message.parts, transcript)]
    if message.usage is not None:
        lines += [f"*{usage_line(message.usage)}*", ""]
    if interrupt is not None:
        lines += [_interrupt(interrupt), ""]
    return lines


def _interrupt(interrupt: InterruptEvent) -> str:
    match interrupt.source:
        case "assistant":
            return "**Interrupted**: the user stopped this answer."
        case "tool":
            return "**Interrupted**: the user stopped this tool call."
        case _:
            assert_never(interrupt.source)


def _part_lines(parts: Sequence[_parts.Part], transcript: Transcript | None) -> list[str]:
    lines: list[str] = []
    for part in parts:
        lines += _part(part, transcript)
    return lines


def _part(part: _parts.Part, transcript: Transcript | None) -> list[str]:
    """The lines of one part; a tool call's result under it when ``transcript`` holds one."""
    match part:
        case _parts.TextPart():
            cites = [f"{n}. {_citation(c)}" for n, c in enumerate(part.citations, 1)]
            return [part.text.rstrip("\n"), "", *cites, *([""] if cites else [])]
        case _parts.ImagePart() | _parts.DocumentPart() | _parts.AudioPart():
            return _media(part)
        case _parts.ThinkingPart():
            signed = _common.signer(part)
            if not part.text:
                return [f"*Thinking ({signed}), no readable text*", ""]
            return [f"> *Thinking ({signed})*", ">", *_quoted(part.text), ""]
        case _parts.RedactedThinkingPart():
            return [f"*Redacted thinking, {len(part.data.value):,} characters, readable by "
                    f"{part.data.issuer} only*", ""]
        case _parts.ToolCallPart():
            ids = ", ".join(f"{k} id {v}" for k, v in part.provider_ids.items())
            lines = [f"**Tool call `{part.name}`** {part.id}" + (f" ({ids})" if ids else ""), ""]
            try:
                lines += _fenced(_json(json.loads(part.arguments_json)), "json")
            except ValueError:
                lines += [*_fenced(part.arguments_json, "text"), "*(not valid JSON; kept as written)*", ""]
            found = transcript.result(part.id) if transcript is not None else None
            if found is not None:
                assert isinstance(found.event, _messages.ToolMessage)
                lines += _result(found.event, found.interrupt)
            return lines
        case _parts.ServerToolCallPart():
            return [f"**Server tool `{part.name}`** {part.id}, run by {part.issuer}", "",
                    *_fenced(_json(part.input), "json")]
        case _parts.ServerToolResultPart():
            return [f"**Server tool result `{part.name}`** for {part.call_id}, from {part.issuer}", "",
                    *_fenced(_json(part.output), "json")]
        case _parts.RefusalPart():
            return ["> **Refusal**", ">", *_quoted(part.text), ""]
        case _parts.UnknownPart():
            kind = f" `{part.original_type}`" if part.original_type else ""
            origin = f" from {part.issuer}" if part.issuer else ""
            return [f"*Unknown part{kind}{origin}, kept verbatim*", "", *_fenced(_json(part.raw), "json")]
        case _:
            assert_never(part)


def _result(tool: _messages.ToolMessage, interrupt: InterruptEvent | None) -> list[str]:
    took = _common.tool_duration(tool)
    lines = [f"**Result** of {tool.tool_name} ({tool.call_id}): {tool.status}{f' · {took}' if took else ''}", ""]
    if tool.output_text:
        lines += _fenced(tool.output_text, "text")
    if tool.truncated:
        lines += [f"*Output truncated; the full output is at {tool.full_output_ref or 'an unknown place'}*", ""]
    for label, value in (("Structured result", tool.data), ("Side effects", tool.side_effects),
                         ("UI data", tool.ui_extra)):
        if value is not None:
            lines += [f"*{label}:*", "", *_fenced(_json(value), "json")]
    # A tool message's own parts show no call results: those stand under the assistant's calls.
    lines += _part_lines(tool.parts, None)
    if interrupt is not None:
        lines += [_interrupt(interrupt), ""]
    return lines


def _media(part: _parts.ImagePart | _parts.DocumentPart | _parts.AudioPart) -> list[str]:
    what = part.type + (f" ({part.media_type})" if part.media_type else "")
    if isinstance(part, _parts.DocumentPart):
        what += "".join(f" {x}" for x in (f'"{part.title}"' if part.title else None, part.filename) if x)
    if isinstance(part, _parts.ImagePart) and part.detail:
        what += f", detail {part.detail}"
    source = part.source
    if isinstance(source, _parts.UrlSource):
        lines = [f"*[{what}]* remote, not loaded: <{source.url}>", ""]
    else:
        lines = [f"*[{what}: {source_text(source)}]*", ""]
    if isinstance(source, _parts.TextSource):
        lines += _fenced(source.text, "text")
    return lines


def _citation(citation: _parts.Citation) -> str:
    match citation:
        case _parts.UrlCitation():
            where = f"[{citation.title or citation.url}](<{citation.url}>)"
            if citation.start_index is not None and citation.end_index is not None:
                where += f", characters {citation.start_index}-{citation.end_index}"
        case _parts.DocumentCitation():
            title = f' "{citation.document_title}"' if citation.document_title else ""
            where = f"document {citation.document_index}{title}, {citation.unit}s {citation.start}-{citation.end}"
        case _parts.SearchResultCitation():
            where = f"search result {citation.search_result_index}: [{citation.title or citation.source}](<{citation.source}>)"
        case _:
            assert_never(citation)
    return where + (f': "{citation.cited_text}"' if citation.cited_text else "")


def _quoted(text: str) -> list[str]:
    return [f"> {line}".rstrip() for line in text.split("\n")]


def _fenced(text: str, lang: str) -> list[str]:
    longest = max((len(m) for m in _TICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{lang}", text.rstrip("\n"), fence, ""]


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)
