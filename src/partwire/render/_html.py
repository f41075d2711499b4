"""The HTML transcript: one self-contained page, styles and script inline, nothing fetched.

Every event gets an element with the id ``e<index>`` (its index in the history) and every part
``e<index>p<part>``, which the projection view's losses point at. Tool messages are shown under
the call they answer. Remote media are links, never loaded: the page's Content-Security-Policy
allows data: images and audio, its own inline style and script (by hash), and nothing else.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Sequence
from html import escape
from importlib import resources
from typing import Any, assert_never

from partwire import history as _history
from partwire import messages as _messages
from partwire import parts as _parts
from partwire.codec import InterruptEvent
from partwire.render import _common
from partwire.render._text import usage_line
from partwire.render._walk import Entry, Transcript, walk

__all__ = ["PAGE_SIZE", "to_html"]

PAGE_SIZE = 200
"""Blocks (an event with the tool results shown under it) per page of the transcript."""

_INLINE_IMAGES = re.compile(r"^image/(png|jpeg|gif|webp|bmp|avif)$")
_INLINE_AUDIO = re.compile(r"^audio/(wav|x-wav|wave|mpeg|mp3|ogg|webm|flac|aac|mp4)$")
_MEDIA_TYPE = re.compile(r"^[\w.+-]+/[\w.+-]+$")
_BASE64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")
_FENCE = re.compile(r"^```([\w+-]*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_ESCAPED_LT = "\\u003c"
_INLINE_CODE = re.compile(r"`([^`\n]+)`")


def to_html(history: Sequence[_history.HistoryEvent], *, title: str | None = None,
            adapters: Sequence[str] | None = None, page_size: int = PAGE_SIZE) -> str:
    """The page for ``history``: the transcript, and what each adapter would receive per turn.

    ``adapters`` are the adapters of the projection view (default: every registered one; ``()``
    leaves the view out); ``page_size`` is how many blocks a page of the transcript shows.
    """
    if page_size < 1:
        raise ValueError(f"page_size must be at least 1, not {page_size}")
    transcript = walk(history)
    events = transcript.events
    page = _Page(transcript)
    blocks = page.blocks()
    pages = [blocks[i:i + page_size] for i in range(0, len(blocks), page_size)] or [[]]
    sections = "".join(
        f'<section class="page" data-page="{n}"{" hidden" if n else ""}>{"".join(chunk)}</section>'
        for n, chunk in enumerate(pages))
    if adapters is None:
        from partwire.adapters import ADAPTER_NAMES
        adapters = ADAPTER_NAMES
    data = ""
    if adapters:
        from partwire.render._projections import projection_data
        payload = json.dumps(projection_data(events, adapters), ensure_ascii=False, separators=(",", ":"),
                             default=_json_value)
        # Inside a script element only "</" could end it early; < as \u003c keeps the JSON valid.
        payload = payload.replace("<", _ESCAPED_LT)
        data = f'<script type="application/json" id="partwire-projections">{payload}</script>'
    heading = title or transcript.title or "partwire transcript"
    return _document(heading, _facts(transcript), sections, data)


def _json_value(value: Any) -> Any:
    """What JSON cannot hold, as the page shows it: binary fields (Bedrock's boto3 arguments hold
    ``bytes``) as the base64 text of their JSON form, anything else as its text."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    return str(value)


def _asset(name: str) -> str:
    return (resources.files("partwire.render") / name).read_text(encoding="utf-8")


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def _document(title: str, facts: str, sections: str, data: str) -> str:
    css, js = _asset("page.css"), _asset("page.js")
    unhide = ".page[hidden]{display:block !important}#pager,nav.controls{display:none}"
    policy = (f"default-src 'none'; img-src data:; media-src data:; style-src {_hash(css)} {_hash(unhide)}; "
              f"script-src {_hash(js)}; base-uri 'none'; form-action 'none'")
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        '<meta name="generator" content="partwire">'
        '<link rel="icon" href="data:,">'
        f"<title>{escape(title)}</title><style>{css}</style>"
        f"<noscript><style>{unhide}</style></noscript></head>\n<body>"
        f'<header class="top"><h1>{escape(title)}</h1><div class="facts">{facts}</div>'
        '<nav class="controls">'
        '<button type="button" id="tab-transcript" aria-selected="true">Transcript</button>'
        '<button type="button" id="tab-projection" aria-selected="false">What each provider would receive</button>'
        '<label><input type="checkbox" id="focused"> Focused: hide tool output</label>'
        '<span class="pager" id="pager" hidden>'
        '<button type="button" id="prev">&larr; previous</button><span id="page-info"></span>'
        '<button type="button" id="next">next &rarr;</button><button type="button" id="show-all">show all</button>'
        "</span></nav></header>\n<main>"
        f'<section id="transcript">{sections}</section>\n'
        '<section id="projection" hidden>'
        '<p class="note">The request body each adapter\'s <code>to_wire</code> gives for the messages '
        "a call would send (compaction applied), and what it could not send as it is. Tool "
        "definitions are not part of a history, so no body here offers any. Lost parts are marked "
        "in the transcript.</p>"
        '<div class="choose"><label>Request <select id="turn"></select></label>'
        '<div class="adapters" id="adapters"></div></div>'
        '<p class="note" id="model-note"></p><ul class="losses" id="losses"></ul>'
        '<p class="note"><span id="body-note"></span> <button type="button" id="whole-body" hidden>'
        "show the whole body</button></p>"
        '<pre class="json body" id="body"></pre></section></main>\n'
        f"{data}<script>{js}</script></body></html>\n"
    )


def _facts(transcript: Transcript) -> str:
    events = transcript.events
    messages = [e for e in events if e.type == "message"]
    models = transcript.models
    bits = [f"{len(events):,} events", f"{len(messages):,} messages"]
    if models:
        bits.append("models: " + ", ".join(models))
    if events:
        bits.append(f"{_common.stamp(events[0])} to {_common.stamp(events[-1])}")
    bits += [line.strip() for line in transcript.total]
    return " &middot; ".join(escape(b) for b in bits)


class _Page:
    """The history's events as HTML blocks, tool results under their calls."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript

    def blocks(self) -> list[str]:
        return [self.entry(entry) for entry in self.transcript.blocks()]

    def entry(self, entry: Entry) -> str:
        i, event = entry.index, entry.event
        match event:
            case _messages.SystemMessage() | _messages.DeveloperMessage() | _messages.UserMessage():
                return self._message(i, event, [], self._part_blocks(i, event.parts))
            case _messages.AssistantMessage():
                return self._assistant(entry, event)
            case _messages.ToolMessage():
                return self._message(i, event, [f"<b>{escape(event.tool_name)}</b>"],
                                     self._result_body(i, event, entry.interrupt))
            case _history.ErrorEvent():
                code = f" {event.code}" if event.code else ""
                return _event(i, "error", escape(f"Error{code} ({_common.error_facts(event)}): {event.message}"))
            case _history.RetryEvent():
                return _event(i, "retry", escape(f"Retry: attempt {event.attempt}{_common.retry_delay(event)}: {event.reason}"))
            case _history.ModelSwitchEvent():
                reason = f" ({event.reason})" if event.reason else ""
                return _event(i, "model_switch",
                              escape(f"Model switch: {event.from_model or '?'} \u2192 {event.to_model}{reason}"))
            case _history.CompactionEvent():
                tokens = _common.token_change(event, "\u2192")
                return _event(i, "compaction", escape(f"Compaction: {_common.compaction_scope(event)} summarised{tokens}")
                              + _text_block(event.summary))
            case _history.SubtaskEvent():
                head = escape(f"Subtask {event.child_session_id} ({event.agent or 'agent'}): ") + _badge(event.status)
                body = "".join(f'<div class="text"><b>{label}</b> {_rich(text)}</div>'
                               for label, text in (("Prompt:", event.prompt), ("Result:", event.result)) if text)
                return _event(i, "subtask", head + body)
            case _history.TaskMetadataEvent():
                head = escape(f"Task: {event.title or '(untitled)'}" + (f" [{event.task_id}]" if event.task_id else ""))
                return _event(i, "task", head + (_json_details("data", event.data) if event.data is not None else ""))
            case _history.UnknownEvent():
                kind = f" {event.original_type!r}" if event.original_type else ""
                problem = f": {event.problem}" if event.problem else ""
                return _event(i, "unknown", escape(f"Unknown event{kind}, kept verbatim{problem}")
                              + _json_details("raw", event.raw))
            case _:
                assert_never(event)

    def _message(self, i: int, event: _messages.Message, facts: list[str], body: str) -> str:
        role = event.role
        head = "".join(f"<span>{f}</span>" for f in facts)
        return (f'<article class="msg {role}" id="e{i}"><header><span class="role">{role}</span>{head}'
                f'<time datetime="{event.created_at.isoformat()}">{escape(_common.stamp(event))}</time></header>'
                f"{body}</article>")

    def _assistant(self, entry: Entry, message: _messages.AssistantMessage) -> str:
        i = entry.index
        via, status = _common.served_via(message), _common.shown_status(message)
        facts = [escape(x) for x in (message.model, f"via {via}" if via else None,
                                     f"stop: {message.stop_reason}" if message.stop_reason else None) if x]
        if status:
            facts.append(_badge(status))
        usage = [escape(usage_line(message.usage))] if message.usage is not None else ["no usage recorded"]
        if message.usage is not None and message.usage.cost is None:
            usage.append("no cost")
        usage.append(f'<button type="button" data-turn="{entry.turn}">what each provider would receive</button>')
        footer = '<div class="usage">' + "".join(f"<span>{u}</span>" for u in usage) + "</div>"
        body = self._part_blocks(i, message.parts) + footer
        block = self._message(i, message, facts, body)
        if entry.interrupt is not None:
            block += _interrupt(entry.interrupt)
        return block

    def _part_blocks(self, i: int, parts: Sequence[_parts.Part]) -> str:
        return "".join(f'<div class="part {part.type}" id="e{i}p{j}">{self._part(part)}</div>'
                       for j, part in enumerate(parts))

    def _part(self, part: _parts.Part) -> str:
        match part:
            case _parts.TextPart():
                cites = "".join(f"<li>{_citation(c)}</li>" for c in part.citations)
                return _text_block(part.text) + (f'<ol class="citations">{cites}</ol>' if cites else "")
            case _parts.ImagePart() | _parts.DocumentPart() | _parts.AudioPart():
                return _media(part)
            case _parts.ThinkingPart():
                signed = _common.signer(part)
                if not part.text:
                    return f'<p class="note">Thinking, {escape(signed)}, no readable text</p>'
                return (f'<details class="thinking"><summary>Thinking ({escape(signed)})</summary>'
                        f"{_text_block(part.text)}</details>")
            case _parts.RedactedThinkingPart():
                return (f'<p class="note">Redacted thinking, {len(part.data.value):,} characters, '
                        f"readable by {escape(part.data.issuer)} only</p>")
            case _parts.ToolCallPart():
                return self._call(part)
            case _parts.ServerToolCallPart():
                return (f'<div class="call server"><div class="head"><span>server tool</span><b>{escape(part.name)}</b>'
                        f"<span>{escape(part.id)}</span><span>run by {escape(part.issuer)}</span></div>"
                        f"{_pre_json(part.input)}</div>")
            case _parts.ServerToolResultPart():
                return (f'<div class="call server"><div class="head"><span>server tool result</span>'
                        f"<b>{escape(part.name)}</b><span>answers {escape(part.call_id)}</span>"
                        f'<span>from {escape(part.issuer)}</span></div><div class="tool-output">'
                        f"{_pre_json(part.output)}</div></div>")
            case _parts.RefusalPart():
                return f'<div class="refusal"><b>Refusal</b>{_text_block(part.text)}</div>'
            case _parts.UnknownPart():
                kind = f" {part.original_type!r}" if part.original_type else ""
                origin = f" from {part.issuer}" if part.issuer else ""
                return (f'<p class="note">{escape(f"Unknown part{kind}{origin}, kept verbatim")}</p>'
                        + _json_details("raw", part.raw))
            case _:
                assert_never(part)

    def _call(self, call: _parts.ToolCallPart) -> str:
        ids = "".join(f"<span>{escape(k)} id {escape(v)}</span>" for k, v in call.provider_ids.items())
        try:
            arguments = _pre_json(json.loads(call.arguments_json))
        except ValueError:
            arguments = (f'<pre class="json">{escape(call.arguments_json)}</pre>'
                         '<p class="note">The arguments are not valid JSON; kept as the model wrote them.</p>')
        head = (f'<div class="head"><span>tool call</span><b>{escape(call.name)}</b>'
                f"<span>{escape(call.id)}</span>{ids}</div>")
        found = self.transcript.result(call.id)
        if found is None:
            result = '<div class="result"><div class="head">no result in this history</div></div>'
        else:
            assert isinstance(found.event, _messages.ToolMessage)
            body = self._result_body(found.index, found.event, found.interrupt)
            result = f'<div class="result" id="e{found.index}">{body}</div>'
        return f'<div class="call">{head}{arguments}{result}</div>'

    def _result_body(self, i: int, tool: _messages.ToolMessage, interrupt: InterruptEvent | None) -> str:
        duration = _common.tool_duration(tool)
        took = f"<span>{duration}</span>" if duration else ""
        head = (f'<div class="head"><span>result</span>{_badge(tool.status)}{took}'
                f"<span>answers {escape(tool.call_id)}</span></div>")
        out = [f'<pre class="output">{escape(tool.output_text)}</pre>' if tool.output_text else ""]
        if tool.truncated:
            out.append(f'<p class="note">Output truncated; the full output is at '
                       f"{escape(tool.full_output_ref or 'an unknown place')}</p>")
        if tool.data is not None:
            out.append(_json_details("structured result", tool.data))
        if tool.side_effects is not None:
            out.append(_json_details("side effects", tool.side_effects))
        if tool.ui_extra is not None:
            out.append(_json_details("UI data", tool.ui_extra))
        out.append(self._part_blocks(i, tool.parts))
        block = head + f'<div class="tool-output">{"".join(out)}</div>'
        if interrupt is not None:
            block += _interrupt(interrupt)
        return block


def _interrupt(interrupt: InterruptEvent) -> str:
    match interrupt.source:
        case "assistant":
            return _event(None, "interrupt", "Interrupted: the user stopped this answer")
        case "tool":
            return _event(None, "interrupt", "Interrupted: the user stopped this tool call")
        case _:
            assert_never(interrupt.source)


def _event(i: int | None, kind: str, body: str) -> str:
    ident = f' id="e{i}"' if i is not None else ""
    return f'<div class="event {kind}"{ident}>{body}</div>'


def _badge(text: str) -> str:
    return f'<span class="badge {escape(text)}">{escape(text)}</span>'


def _text_block(text: str) -> str:
    return f'<div class="text">{_rich(text)}</div>'


def _rich(text: str) -> str:
    """Text with its fenced code blocks as ``pre`` and its inline code as ``code``; the rest escaped."""
    out: list[str] = []
    at = 0
    for block in _FENCE.finditer(text):
        out.append(_inline(text[at:block.start()]))
        lang = f' data-lang="{escape(block.group(1))}"' if block.group(1) else ""
        out.append(f"<pre{lang}><code>{escape(block.group(2))}</code></pre>")
        at = block.end()
    out.append(_inline(text[at:]))
    return "".join(out)


def _inline(text: str) -> str:
    return _INLINE_CODE.sub(lambda m: f"<code>{m.group(1)}</code>", escape(text))


def _link(url: str, label: str | None = None) -> str:
    shown = escape(label or url)
    if not url.startswith(("https://", "http://")):
        return shown  # never a javascript: or data: link
    return f'<a href="{escape(url)}" rel="noreferrer noopener" target="_blank">{shown}</a>'


def _citation(citation: _parts.Citation) -> str:
    match citation:
        case _parts.UrlCitation():
            where = _link(citation.url, citation.title)
            if citation.start_index is not None and citation.end_index is not None:
                where += escape(f", characters {citation.start_index}-{citation.end_index}")
        case _parts.DocumentCitation():
            title = f' "{citation.document_title}"' if citation.document_title else ""
            where = escape(f"document {citation.document_index}{title}, {citation.unit}s "
                           f"{citation.start}-{citation.end}")
        case _parts.SearchResultCitation():
            where = escape(f"search result {citation.search_result_index}: ") + _link(citation.source, citation.title)
        case _:
            assert_never(citation)
    quote = f": <q>{escape(citation.cited_text)}</q>" if citation.cited_text else ""
    return where + quote


def _media(part: _parts.ImagePart | _parts.DocumentPart | _parts.AudioPart) -> str:
    kind = part.type
    media_type = part.media_type or ""
    name = ""
    if isinstance(part, _parts.DocumentPart):
        name = " ".join(x for x in (f'"{part.title}"' if part.title else "", part.filename or "") if x)
    detail = f", detail {part.detail}" if isinstance(part, _parts.ImagePart) and part.detail else ""
    caption = escape(" ".join(x for x in (kind, f"({media_type})" if media_type else None, name) if x) + detail)
    source = part.source
    shown = _source(source)
    if isinstance(source, _parts.Base64Source) and _BASE64.match(source.data):
        if kind == "image" and _INLINE_IMAGES.match(media_type):
            shown = f'<img alt="{caption}" src="data:{media_type};base64,{source.data}">'
        elif kind == "audio" and _INLINE_AUDIO.match(media_type):
            shown = f'<audio controls preload="metadata" src="data:{media_type};base64,{source.data}"></audio>'
        elif _MEDIA_TYPE.match(media_type):
            filename = escape(getattr(part, "filename", None) or f"{kind}")
            shown = (f'<a download="{filename}" href="data:{media_type};base64,{source.data}">save '
                     f"({_common.inline_size(source)})</a>")
    elif isinstance(source, _parts.TextSource):
        shown += f'<pre class="output">{escape(source.text)}</pre>'
    return f'<figure class="media"><figcaption>{caption}</figcaption>{shown}</figure>'


def _source(source: _parts.MediaSource) -> str:
    match source:
        case _parts.UrlSource():
            return "remote, not loaded: " + _link(source.url)
        case _parts.Base64Source():
            return escape(f"inline, {_common.inline_size(source)}")
        case _parts.FileRefSource():
            size = f", {source.size:,} bytes" if source.size is not None else ""
            digest = f", sha256 {source.sha256[:12]}" if source.sha256 else ""
            return escape(f"workspace file {source.path}{size}{digest}")
        case _parts.ProviderFileSource():
            return escape(f"{source.issuer} file {source.file_id}")
        case _parts.TextSource():
            return escape(f"inline text, {len(source.text):,} characters")
        case _:
            assert_never(source)


def _pre_json(value: Any) -> str:
    return f'<pre class="json">{escape(json.dumps(value, indent=2, ensure_ascii=False, default=_json_value))}</pre>'


def _json_details(label: str, value: Any) -> str:
    return f'<details class="raw"><summary>{escape(label)}</summary>{_pre_json(value)}</details>'
