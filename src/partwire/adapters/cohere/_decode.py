"""Cohere v2 wire -> canonical: response bodies, the content items and citations inside them.

A response's ``message`` holds ``content`` (text and thinking items), ``tool_plan``, ``tool_calls``
and ``citations``. The parts come in that order: the content items, the tool plan (a text part
marked ``{"field": "tool_plan"}``), then the calls. Citations are message-wide on the wire; each
goes onto the text part it cites from (its ``content_index``, or the plan for ``PLAN``), and one
that cites thinking stays in the message's ``provider_data`` under ``citations``. What an item
carries that has no canonical field goes to the part's ``provider_data`` (issuer ``cohere``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from partwire._base import ProviderData
from partwire._json import SHAPE_ERRORS, json_text, load_json, usage_object
from partwire._media import parse_data_url
from partwire.adapters._formats import refuse_foreign_response
from partwire.adapters._provenance import shared_provider_data
from partwire.adapters._reading import text_part
from partwire.adapters.cohere._wire import API, FINISH_REASONS, ISSUER, usage_from_wire
from partwire.errors import ProviderError, WireFormatError
from partwire.ids import new_tool_call_id
from partwire.messages import AssistantMessage
from partwire.parts import (
    Base64Source,
    DocumentCitation,
    DocumentPart,
    ImagePart,
    MediaSource,
    Part,
    TextPart,
    TextSource,
    ThinkingPart,
    ToolCallPart,
    UnknownPart,
    UrlSource,
)

__all__ = [
    "PLAN_MARK",
    "attach_citations",
    "call_from_wire",
    "citation_from_wire",
    "document_fields",
    "error_from_wire",
    "from_wire",
    "message_parts",
    "model_of",
    "part_from_wire",
]

PLAN_MARK = {"field": "tool_plan"}
"""The ``provider_data`` of the text part that holds a tool plan."""
_PLAN_PD = ProviderData(issuer=ISSUER, data=PLAN_MARK)
_RESPONSE_FIELDS = frozenset({"id", "finish_reason", "message", "usage"})
_MESSAGE_FIELDS = frozenset({"role", "content", "tool_plan", "tool_calls", "citations"})
_CITATION_FIELDS = frozenset({"start", "end", "text"})
_CALL_FIELDS = frozenset({"id", "type", "function"})
# The number a source id ends in (``doc:2``, ``doc-2``, ``get_weather_x:0``): Cohere numbers the
# documents of a request and the documents of each tool result from 0.
_INDEX = re.compile(r"(\d+)$")


def from_wire(response: Any, options: Any = None) -> AssistantMessage:
    """One response body as an assistant message, recorded as answered by ``options.model_id``
    (a Cohere answer names no model); an error body raises :class:`ProviderError`."""
    body = load_json(response, ISSUER, "response")
    message = body.get("message")
    if not isinstance(message, dict):
        if isinstance(message, str):
            raise error_from_wire(body)
        refuse_foreign_response(body, "cohere", ISSUER)
        raise WireFormatError(ISSUER, "response", "it has no message object", "message")
    if "finish_reason" not in body:  # every Cohere answer has one; Ollama's has a message too
        refuse_foreign_response(body, "cohere", ISSUER)
    parts, unattached = message_parts(message)
    raw_finish = body.get("finish_reason")
    usage = usage_object(body, "usage", ISSUER)
    data: dict[str, Any] = {}
    rest = {k: v for k, v in body.items() if k not in _RESPONSE_FIELDS}
    if rest:
        data["response"] = rest
    extra = {k: v for k, v in message.items() if k not in _MESSAGE_FIELDS}
    if extra:
        data["message"] = extra
    if unattached:
        data["citations"] = unattached
    return AssistantMessage(
        parts=parts,
        status="complete",
        stop_reason=FINISH_REASONS.get(raw_finish) if isinstance(raw_finish, str) else None,
        stop_reason_raw=raw_finish if isinstance(raw_finish, str) else None,
        model=model_of(options),
        provider=ISSUER,
        api=API,
        response_id=body.get("id"),
        usage=usage_from_wire(usage) if usage is not None else None,
        provider_data=ProviderData(issuer=ISSUER, data=data) if data else None,
    )


def model_of(options: Any) -> str | None:
    """The ``cohere:<id>`` model the options name, if any."""
    model_id = getattr(options, "model_id", None)
    return f"{ISSUER}:{model_id}" if model_id else None


def error_from_wire(body: Mapping[str, Any], status: int | None = None) -> ProviderError:
    """The error an error body (``{"message": "..."}``, maybe with an ``id``) stands for."""
    message = body.get("message")
    return ProviderError(ISSUER, None, str(message if message is not None else body),
                         status=status, request_id=body.get("id"), body=dict(body))


def message_parts(message: Mapping[str, Any]) -> tuple[tuple[Part, ...], list[Any]]:
    """The parts of an assistant wire message, its citations placed on them, and the citations
    no text part takes (kept raw)."""
    content = message.get("content")
    parts: list[Part] = []
    if isinstance(content, str):
        parts.append(text_part(content))
    elif isinstance(content, list):
        parts.extend(map(part_from_wire, content))
    elif content is not None:
        raise WireFormatError(ISSUER, "response", "neither a string nor a list", "message.content")
    plan = message.get("tool_plan")
    plan_at = None
    if isinstance(plan, str) and plan:
        plan_at = len(parts)
        parts.append(TextPart(text=plan, provider_data=_PLAN_PD))
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        parts.extend(map(call_from_wire, calls))
    citations = message.get("citations")
    unattached: list[Any] = []
    if isinstance(citations, list) and citations:
        n_content = len(content) if isinstance(content, list) else 1 if isinstance(content, str) else 0
        unattached = attach_citations(parts, citations, n_content, plan_at)
    return tuple(parts), unattached


def attach_citations(parts: list[Part], citations: list[Any], n_content: int,
                     plan_at: int | None) -> list[Any]:
    """Put each citation on the text part it cites from (in place); the rest, returned raw."""
    placed: dict[int, list[DocumentCitation]] = {}
    unattached: list[Any] = []
    for raw in citations:
        at = citation_target(raw, parts[:n_content], plan_at)
        try:
            citation = citation_from_wire(raw)
        except SHAPE_ERRORS:
            at = None
        if at is None:
            unattached.append(raw)
        else:
            placed.setdefault(at, []).append(citation)
    for at, found in placed.items():
        part = parts[at]
        assert isinstance(part, TextPart)
        parts[at] = part.model_copy(update={"citations": (*part.citations, *found)})
    return unattached


def citation_target(raw: Any, content: list[Part], plan_at: int | None) -> int | None:
    """The index of the part a wire citation belongs to, or ``None`` when no text part does."""
    if not isinstance(raw, dict):
        return None
    kind = raw.get("type")
    if kind == "PLAN":
        return plan_at
    if kind not in (None, "TEXT_CONTENT"):
        return None
    index = raw.get("content_index")
    if index is None:
        index = next((i for i, p in enumerate(content) if isinstance(p, TextPart)), None)
    if isinstance(index, int) and 0 <= index < len(content) and isinstance(content[index], TextPart):
        return index
    return None


def citation_from_wire(raw: dict[str, Any]) -> DocumentCitation:
    """A citation as a :class:`DocumentCitation`: ``start`` and ``end`` are where the citing text
    is in the answer, ``cited_text`` is that text; the sources ride in ``provider_data``."""
    start, end, text = raw["start"], raw["end"], raw.get("text")
    if not (type(start) is int and type(end) is int) or (text is not None and not isinstance(text, str)):
        raise TypeError("a citation's start and end are not integers")
    sources = raw.get("sources")
    first = sources[0] if isinstance(sources, list) and sources and isinstance(sources[0], dict) else {}
    found = _INDEX.search(str(first.get("id", "")))
    document = first.get("document")
    title = document.get("title") if isinstance(document, dict) else None
    extras = {k: v for k, v in raw.items() if k not in _CITATION_FIELDS}
    return DocumentCitation(
        document_index=int(found.group(1)) if found else 0,
        document_title=title if isinstance(title, str) else None,
        unit="char", start=start, end=end, cited_text=text,
        provider_data=shared_provider_data(ISSUER, {"citation": extras}) if extras else None,
    )


# -- content items -> parts -----------------------------------------------------------------


def part_from_wire(item: Any) -> Part:
    """One content item (any role) as a part; what is not understood becomes an UnknownPart."""
    if not isinstance(item, dict):
        return UnknownPart(original_type=None, raw=item, issuer=ISSUER)
    kind = item.get("type")
    try:
        if kind == "text":
            text = item["text"]
            if len(item) == 2 and type(text) is str:
                return text_part(text)
            return TextPart(text=text, provider_data=_item_pd(item, {"type", "text"}))
        if kind == "thinking":
            return ThinkingPart(text=item["thinking"], provider_data=_item_pd(item, {"type", "thinking"}))
        if kind == "image_url":
            return _image_from_wire(item)
        if kind == "document":
            return document_from_wire(item["document"], _item_pd(item, {"type", "document"}))
    except SHAPE_ERRORS:
        pass  # a known type with an unexpected shape is kept whole, like an unknown one
    return UnknownPart(original_type=kind if isinstance(kind, str) else None, raw=item, issuer=ISSUER)


def _item_pd(item: Mapping[str, Any], used: set[str]) -> ProviderData | None:
    extras = {k: v for k, v in item.items() if k not in used}
    return shared_provider_data(ISSUER, {"item": extras}) if extras else None


def _image_from_wire(item: dict[str, Any]) -> ImagePart:
    image = item["image_url"]
    url = image["url"]
    if not isinstance(url, str):
        raise TypeError("image_url.url is not a string")
    detail = image.get("detail")
    source: MediaSource
    parsed = parse_data_url(url)
    media_type = None
    if parsed is not None:
        media_type, data = parsed
        source = Base64Source(data=data)
    else:
        source = UrlSource(url=url)
    extras = {k: v for k, v in image.items() if k not in ("url", "detail")}
    if detail is not None and detail not in ("auto", "low", "high"):
        extras["detail"] = detail
        detail = None
    marks: dict[str, Any] = {}
    if extras:
        marks["image_url"] = extras
    outer = {k: v for k, v in item.items() if k not in ("type", "image_url")}
    if outer:
        marks["item"] = outer
    return ImagePart(source=source, media_type=media_type, detail=detail,
                     provider_data=shared_provider_data(ISSUER, marks) if marks else None)


def document_fields(document: Mapping[str, Any]) -> tuple[str, str, str | None]:
    """The text, media type and title a Cohere document stands for: a document of ``text`` (and
    ``title``) alone is that plain text; any other is its ``data`` as JSON text."""
    data = document["data"]
    if isinstance(data, str):
        return data, "text/plain", None
    if not isinstance(data, dict):
        raise TypeError("a document's data is not an object")
    text, title = data.get("text"), data.get("title")
    if isinstance(text, str) and data.keys() <= {"text", "title"} and (title is None or isinstance(title, str)):
        return text, "text/plain", title
    return json_text(data), "application/json", title if isinstance(title, str) else None


def document_from_wire(document: Any, pd: ProviderData | None = None) -> DocumentPart:
    """A Cohere document (a request's, a user's or a tool result's) as a document part.

    The wire document rides in ``provider_data`` (``document``) whenever the part's fields do
    not give it back alone (an ``id``, JSON data, a title beside JSON).
    """
    if isinstance(document, str):
        return DocumentPart(source=TextSource(text=document), media_type="text/plain",
                            provider_data=shared_provider_data(ISSUER, {"document": document}))
    text, media_type, title = document_fields(document)
    marks = dict(pd.data) if pd is not None and isinstance(pd.data, dict) else {}
    if document.keys() != {"data"} or media_type != "text/plain":
        marks["document"] = document
    return DocumentPart(source=TextSource(text=text), media_type=media_type, title=title,
                        provider_data=shared_provider_data(ISSUER, marks) if marks else None)


def call_from_wire(call: Any) -> ToolCallPart:
    """A ``tool_calls`` entry as a tool call part (a new canonical id, Cohere's kept)."""
    if not isinstance(call, dict):
        raise WireFormatError(ISSUER, "response", "a tool call is not an object")
    wire_id = call.get("id")
    function = call["function"]
    name = function["name"]
    if not isinstance(name, str):
        raise TypeError("a tool call's name is not a string")
    arguments = function.get("arguments")
    marks: dict[str, Any] = {}
    extras = {k: v for k, v in call.items() if k not in _CALL_FIELDS}
    if call.get("type") != "function":
        extras["type"] = call.get("type", None)
    inner = {k: v for k, v in function.items() if k not in ("name", "arguments")}
    if extras:
        marks["call"] = extras
    if inner:
        marks["function"] = inner
    if not isinstance(arguments, str):
        marks["arguments"] = arguments  # not text (absent, null, an object): sent back as it was
        arguments = json_text(arguments) if arguments is not None else ""
    return ToolCallPart(
        id=new_tool_call_id(), name=name, arguments_json=arguments,
        provider_ids={ISSUER: wire_id} if isinstance(wire_id, str) else {},
        provider_data=shared_provider_data(ISSUER, marks) if marks else None)


