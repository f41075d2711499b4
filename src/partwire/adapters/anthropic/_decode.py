"""Anthropic wire -> canonical: response bodies and the content blocks inside them.

Whatever a block carries that has no canonical field goes to the part's ``provider_data``
(issuer ``anthropic``) as ``{"block": {...}}``, so the encoder re-emits it exactly. A key is
canonical only when it holds a value; an explicit ``null`` is kept as an extra, so ``null`` and
absent stay distinct.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Any

from partwire._base import ProviderData, build, fields_maker
from partwire._json import SHAPE_ERRORS, json_text, load_json, usage_object
from partwire.adapters._formats import refuse_foreign_response
from partwire.adapters._provenance import shared_provider_data
from partwire.adapters._reading import text_part
from partwire.adapters.anthropic._wire import (
    API,
    ISSUER,
    SERVER_CALL_TYPES,
    STOP_REASONS,
    is_server_result,
    usage_from_wire,
)
from partwire.errors import ProviderError, WireFormatError
from partwire.ids import new_tool_call_id
from partwire.messages import AssistantMessage
from partwire.parts import (
    Base64Source,
    Citation,
    DocumentCitation,
    DocumentPart,
    ImagePart,
    MediaSource,
    Opaque,
    Part,
    ProviderFileSource,
    RedactedThinkingPart,
    SearchResultCitation,
    ServerToolCallPart,
    ServerToolResultPart,
    TextPart,
    TextSource,
    ThinkingPart,
    ToolCallPart,
    UnknownPart,
    UrlCitation,
    UrlSource,
)

__all__ = ["citation_from_wire", "error_from_wire", "extras_of", "from_wire", "part_from_wire"]

# Response fields with a canonical home; the rest (stop_sequence, stop_details, container,
# diagnostics, ...) goes to the message's provider_data under "response".
_RESPONSE_FIELDS = frozenset({"id", "type", "role", "model", "content", "stop_reason", "usage"})


def _pd(extras: dict[str, Any]) -> ProviderData | None:
    return shared_provider_data(ISSUER, {"block": extras}) if extras else None


def extras_of(block: Mapping[str, Any], used: Set[str]) -> dict[str, Any]:
    """The keys of ``block`` no canonical field took: they ride along in provider_data."""
    return {k: v for k, v in block.items() if k not in used}


def from_wire(response: Any, options: object = None) -> AssistantMessage:
    """One response body as an assistant message; an error body raises :class:`ProviderError`
    (no option changes how a response reads)."""
    body = load_json(response, ISSUER, "response")
    if body.get("type") == "error":
        raise error_from_wire(body)
    content = body.get("content")
    if not isinstance(content, list):
        refuse_foreign_response(body, "anthropic", ISSUER)
        raise WireFormatError(ISSUER, "response", "it has no content list", "content")
    raw_stop = body.get("stop_reason")
    usage = usage_object(body, "usage", ISSUER)
    model = body.get("model")
    rest = {k: v for k, v in body.items() if k not in _RESPONSE_FIELDS}
    return AssistantMessage(
        parts=tuple(part_from_wire(block) for block in content),
        status="complete",
        stop_reason=STOP_REASONS.get(raw_stop) if isinstance(raw_stop, str) else None,
        stop_reason_raw=raw_stop,
        model=f"{ISSUER}:{model}" if model else None,
        provider=ISSUER,
        api=API,
        response_id=body.get("id"),
        usage=usage_from_wire(usage) if usage is not None else None,
        provider_data=ProviderData(issuer=ISSUER, data={"response": rest}) if rest else None,
    )


def error_from_wire(body: Mapping[str, Any], status: int | None = None) -> ProviderError:
    """The error an error body (``{"type": "error", "error": {...}}``) stands for."""
    error = body.get("error")
    error = error if isinstance(error, dict) else {}
    return ProviderError(
        ISSUER, error.get("type"), str(error.get("message", "")), status=status,
        request_id=body.get("request_id"), body=dict(body),
    )


# -- blocks -> parts ------------------------------------------------------------------------


def part_from_wire(block: Any) -> Part:
    """One content block (any role) as a part; what is not understood becomes an UnknownPart."""
    if not isinstance(block, dict):
        return UnknownPart(original_type=None, raw=block, issuer=ISSUER)
    kind = block.get("type")
    try:
        match kind:
            case "text":
                return _text_from_wire(block)
            case "tool_use":
                return _tool_use_from_wire(block)
            case "thinking":
                return _thinking_from_wire(block)
            case "redacted_thinking":
                return RedactedThinkingPart(data=Opaque(value=block["data"], issuer=ISSUER),
                                            provider_data=_pd(extras_of(block, {"type", "data"})))
            case "image":
                return _image_from_wire(block)
            case "document":
                return _document_from_wire(block)
            case str() if kind in SERVER_CALL_TYPES:
                return _server_call_from_wire(block)
            case str() if is_server_result(kind):
                return _server_result_from_wire(block)
    except SHAPE_ERRORS:
        pass  # a known type with an unexpected shape is kept whole, like an unknown one
    return UnknownPart(original_type=kind if isinstance(kind, str) else None, raw=block, issuer=ISSUER)


def _text_from_wire(block: dict[str, Any]) -> TextPart:
    if len(block) == 2:  # type and text alone, the common block: nothing else to read
        return text_part(block["text"])
    used = _TEXT_KEYS
    citations: tuple[Citation, ...] = ()
    raw = block.get("citations")
    if isinstance(raw, list) and raw:
        try:
            citations = tuple(citation_from_wire(c) for c in raw)
            used = _CITED_TEXT_KEYS
        except SHAPE_ERRORS:
            citations = ()  # kept raw in provider_data instead
    text = block["text"]
    if not citations and type(text) is str:  # a text with extras (cache_control): no validation
        return _text_with_data(text, _pd(extras_of(block, used)))
    return TextPart(text=text, citations=citations, provider_data=_pd(extras_of(block, used)))


_text_with_data = fields_maker(TextPart, "text", "provider_data")
_TEXT_KEYS = frozenset({"type", "text"})
_CITED_TEXT_KEYS = _TEXT_KEYS | {"citations"}


def citation_from_wire(c: dict[str, Any]) -> Citation:
    """A citation as its typed form; raises ``ValueError`` for a kind partwire does not know."""
    kind = c["type"]
    used = {"type", "cited_text"}
    if kind in ("char_location", "page_location", "content_block_location"):
        unit, start, end = {
            "char_location": ("char", "start_char_index", "end_char_index"),
            "page_location": ("page", "start_page_number", "end_page_number"),
            "content_block_location": ("block", "start_block_index", "end_block_index"),
        }[kind]
        used |= {"document_index", "document_title", start, end}
        if c.get("file_id") is not None:
            used.add("file_id")
        return DocumentCitation(
            document_index=c["document_index"], document_title=c["document_title"], unit=unit,
            start=c[start], end=c[end], cited_text=c["cited_text"], file_id=c.get("file_id"),
            provider_data=_pd(extras_of(c, used)),
        )
    if kind == "web_search_result_location":
        used |= {"url", "title"}
        return UrlCitation(url=c["url"], title=c["title"], cited_text=c["cited_text"],
                           provider_data=_pd(extras_of(c, used)))
    if kind == "search_result_location":
        used |= {"source", "title", "search_result_index", "start_block_index", "end_block_index"}
        return SearchResultCitation(
            source=c["source"], title=c["title"], search_result_index=c["search_result_index"],
            start_block=c["start_block_index"], end_block=c["end_block_index"],
            cited_text=c["cited_text"], provider_data=_pd(extras_of(c, used)),
        )
    raise ValueError(f"unknown citation type {kind!r}")


def _thinking_from_wire(block: dict[str, Any]) -> ThinkingPart:
    used = {"type", "thinking"}
    signature = block.get("signature")
    if isinstance(signature, str) and signature:
        used.add("signature")
    if "signature" in used:
        text = block["thinking"]
        if type(text) is str and type(signature) is str:
            # Texts read from JSON: made as validation would make them, without it (as the
            # other readers make their thinking parts).
            return build(ThinkingPart, {
                "text": text, "signature": build(Opaque, {"value": signature, "issuer": ISSUER}),
                "provider_data": _pd(extras_of(block, used))})
        return ThinkingPart(text=text, signature=Opaque(value=signature, issuer=ISSUER),
                            provider_data=_pd(extras_of(block, used)))
    # Unsigned, yet Anthropic's own block (a request can hold one): the block marker, even empty,
    # lets the encoder send it back as it was instead of dropping unverifiable reasoning.
    return ThinkingPart(text=block["thinking"],
                        provider_data=ProviderData(issuer=ISSUER, data={"block": extras_of(block, used)}))


def _tool_use_from_wire(block: dict[str, Any]) -> ToolCallPart:
    wire_id = block["id"]
    if not isinstance(wire_id, str):
        raise TypeError("tool_use id is not a string")
    fields = {"id": new_tool_call_id(), "name": block["name"],
              "arguments_json": json_text(block["input"]), "provider_ids": {ISSUER: wire_id},
              "provider_data": _pd(extras_of(block, _TOOL_USE_KEYS))}
    # Every field is what validation would make of it once the name is a string.
    return build(ToolCallPart, fields) if type(fields["name"]) is str else ToolCallPart(**fields)


_TOOL_USE_KEYS = frozenset({"type", "id", "name", "input"})


def _server_call_from_wire(block: dict[str, Any]) -> ServerToolCallPart:
    used = {"id", "name", "input"}
    if block["type"] == "server_tool_use":
        used.add("type")  # the default; any other call type (mcp_tool_use) is kept as an extra
    return ServerToolCallPart(id=block["id"], name=block["name"], input=block["input"],
                              issuer=ISSUER, provider_data=_pd(extras_of(block, used)))


def _server_result_from_wire(block: dict[str, Any]) -> ServerToolResultPart:
    used = {"type"}
    call_id = block.get("tool_use_id")
    if isinstance(call_id, str) and call_id:
        used.add("tool_use_id")
    if block.get("content") is not None:
        used.add("content")
    return ServerToolResultPart(
        call_id=call_id if "tool_use_id" in used else "", name=block["type"],
        output=block.get("content"), issuer=ISSUER, provider_data=_pd(extras_of(block, used)),
    )


def _source_from_wire(source: dict[str, Any]) -> tuple[MediaSource, str | None]:
    """A media source and its media type; raises for a source kind with no canonical form."""
    kind = source["type"]
    if kind == "base64" and set(source) == {"type", "media_type", "data"}:
        return Base64Source(data=source["data"]), source["media_type"]
    if kind == "url" and set(source) == {"type", "url"}:
        return UrlSource(url=source["url"]), None
    if kind == "file" and set(source) == {"type", "file_id"}:
        return ProviderFileSource(file_id=source["file_id"], issuer=ISSUER), None
    if kind == "text" and set(source) == {"type", "media_type", "data"}:
        return TextSource(text=source["data"]), source["media_type"]
    # A "content" document (nested blocks) or a source with unknown keys: no canonical form.
    raise ValueError(f"no canonical form for a {kind!r} source")


def _image_from_wire(block: dict[str, Any]) -> ImagePart:
    source, media_type = _source_from_wire(block["source"])
    if isinstance(source, TextSource):
        raise ValueError("an image cannot have a text source")
    return ImagePart(source=source, media_type=media_type,
                     provider_data=_pd(extras_of(block, {"type", "source"})))


def _document_from_wire(block: dict[str, Any]) -> DocumentPart:
    source, media_type = _source_from_wire(block["source"])
    used = {"type", "source"}
    if block.get("title") is not None:
        used.add("title")
    return DocumentPart(source=source, media_type=media_type, title=block.get("title"),
                        provider_data=_pd(extras_of(block, used)))
