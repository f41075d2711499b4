"""Converse wire -> canonical: response bodies and the content blocks inside them.

A Converse content block is a union: one key naming its member (``text``, ``image``,
``toolUse``...). What a member carries that has no canonical field goes to the part's
``provider_data`` (issuer ``bedrock``) so the encoder re-emits it exactly:

- ``block``: extra keys of the member (a ``toolUse``'s ``type``, an image's ``error``);
- ``cache_point``: the ``cachePoint`` block that followed the part (Converse puts cache
  breakpoints between blocks, not on them);
- ``guard``: the part was ``guardContent`` (text or image for the guardrail to assess), with the
  member's other keys (``qualifiers``);
- ``s3``: an S3 location's keys besides its ``uri`` (``bucketOwner``);
- ``citations_content``: a ``citationsContent`` block whose typed form would not give it back.

Binary fields (image bytes, redacted reasoning) are read as boto3 gives them (``bytes``) or as
the HTTP body has them (base64 text); canonical form holds base64 text either way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from partwire._base import ProviderData
from partwire._json import SHAPE_ERRORS, json_text, load_json, usage_object
from partwire.adapters._formats import refuse_foreign_response
from partwire.adapters._provenance import shared_provider_data
from partwire.adapters._reading import text_part
from partwire.adapters.bedrock._wire import (
    API,
    AUDIO_FORMATS,
    DOCUMENT_FORMATS,
    IMAGE_FORMATS,
    ISSUER,
    STOP_REASONS,
    blob_text,
    usage_from_wire,
)
from partwire.errors import ProviderError, WireFormatError
from partwire.ids import new_tool_call_id
from partwire.messages import AssistantMessage
from partwire.parts import (
    AudioPart,
    Base64Source,
    Citation,
    DocumentCitation,
    DocumentPart,
    ImagePart,
    MediaSource,
    Opaque,
    Part,
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

if TYPE_CHECKING:
    from partwire.adapters.bedrock import Options

__all__ = [
    "OWN_REASONING",
    "BlobReader",
    "citation_from_wire",
    "citation_to_wire",
    "error_from_wire",
    "from_wire",
    "model_name",
    "parts_from_wire",
]

# Response fields with a canonical home. ResponseMetadata is boto3's transport record (HTTP
# headers, retries), not the API's body: its RequestId becomes the response id, the rest is not
# kept. Everything else (metrics, trace, additionalModelResponseFields...) goes to provider_data.
_RESPONSE_FIELDS = frozenset({"output", "stopReason", "usage", "ResponseMetadata"})

OWN_REASONING = ProviderData(issuer=ISSUER, data={"reasoning": "unsigned"})
"""The mark of reasoning Bedrock itself sent without a signature (models other than Claude):
echoed to Bedrock as it came, where unsigned reasoning from elsewhere is not sent."""

_LOCATIONS: dict[str, Literal["char", "page", "block"]] = {
    "documentChar": "char", "documentPage": "page", "documentChunk": "block"}
_UNIT_LOCATIONS = {unit: key for key, unit in _LOCATIONS.items()}


class BlobReader:
    """Reads binary fields and remembers which form the body used (for re-export)."""

    __slots__ = ("as_bytes", "as_text")

    def __init__(self) -> None:
        self.as_bytes = False
        self.as_text = False

    def read(self, value: Any) -> str:
        if isinstance(value, bytes | bytearray):
            self.as_bytes = True
        elif isinstance(value, str):
            self.as_text = True
        return blob_text(value)


def _pd(data: dict[str, Any]) -> ProviderData | None:
    return shared_provider_data(ISSUER, data) if data else None


def model_name(model_id: str | None) -> str | None:
    """A message's ``model`` for the model id a request named (``bedrock:<id>``)."""
    if not model_id:
        return None
    return model_id if model_id.startswith(f"{ISSUER}:") else f"{ISSUER}:{model_id}"


def from_wire(response: Any, options: Options | None = None) -> AssistantMessage:
    """One Converse response (a dict as boto3 returns it, JSON text or bytes) as a message,
    recorded as answered by ``options.model_id`` (Converse does not say).

    An error body (``{"message": ...}`` without ``output``) raises :class:`ProviderError`.
    """
    model_id = options.model_id if options is not None else None
    body = load_json(response, ISSUER, "response")
    output = body.get("output")
    # Bedrock's error body is {"message": "..."}; Ollama's and Cohere's answers have a message object.
    if output is None and "message" in body and not isinstance(body["message"], dict):
        refuse_foreign_response(body, "bedrock", ISSUER)
        raise error_from_wire(body)
    if not isinstance(output, dict) or not isinstance(output.get("message"), dict):
        refuse_foreign_response(body, "bedrock", ISSUER)
        raise WireFormatError(ISSUER, "response", "it has no output message", "output.message")
    content = output["message"].get("content")
    if not isinstance(content, list):
        raise WireFormatError(ISSUER, "response", "it has no content list",
                              "output.message.content")
    raw_stop = body.get("stopReason")
    usage = usage_object(body, "usage", ISSUER)
    rest = {k: v for k, v in body.items() if k not in _RESPONSE_FIELDS}
    meta = body.get("ResponseMetadata")
    request_id = meta.get("RequestId") if isinstance(meta, dict) else None
    return AssistantMessage(
        parts=parts_from_wire(content, BlobReader()),
        status="complete",
        stop_reason=STOP_REASONS.get(raw_stop) if isinstance(raw_stop, str) else None,
        stop_reason_raw=raw_stop if isinstance(raw_stop, str) else None,
        model=model_name(model_id),
        provider=ISSUER,
        api=API,
        response_id=request_id if isinstance(request_id, str) else None,
        usage=usage_from_wire(usage) if usage is not None else None,
        provider_data=ProviderData(issuer=ISSUER, data={"response": rest}) if rest else None,
    )


def error_from_wire(body: Mapping[str, Any], status: int | None = None) -> ProviderError:
    """The error an error body (``{"message": ...}``, the type in ``__type`` or a header) means."""
    code = body.get("__type") or body.get("code")
    return ProviderError(ISSUER, code if isinstance(code, str) else None,
                         str(body.get("message", "")), status=status, body=dict(body))


# -- blocks -> parts ------------------------------------------------------------------------


def parts_from_wire(content: list[Any], blobs: BlobReader) -> tuple[Part, ...]:
    """A content list as parts: each ``cachePoint`` rides on the part before it."""
    parts: list[Part] = []
    for block in content:
        if type(block) is dict and len(block) == 1:
            text = block.get("text")
            if type(text) is str:
                parts.append(text_part(text))
                continue
            point = block.get("cachePoint")
            if isinstance(point, dict) and parts and _carries_cache_point(parts[-1]):
                parts[-1] = with_data(parts[-1], {"cache_point": point})
                continue
        parts.append(part_from_wire(block, blobs))
    return tuple(parts)


def _carries_cache_point(part: Part) -> bool:
    pd = part.provider_data
    return not isinstance(part, UnknownPart) and (
        pd is None or (pd.issuer == ISSUER and isinstance(pd.data, dict)
                       and "cache_point" not in pd.data))


def with_data(part: Part, data: dict[str, Any]) -> Part:
    """``part`` with ``data`` added to its Bedrock provider data."""
    pd = part.provider_data
    old = pd.data if pd is not None and isinstance(pd.data, dict) else {}
    return part.model_copy(update={"provider_data": shared_provider_data(ISSUER, {**old, **data})})


def part_from_wire(block: Any, blobs: BlobReader) -> Part:
    """One content block as a part; what is not understood becomes an UnknownPart (kept)."""
    if not isinstance(block, dict) or len(block) != 1:
        kind = next(iter(block), None) if isinstance(block, dict) else None
        return UnknownPart(original_type=kind if isinstance(kind, str) else None, raw=_json(block),
                           issuer=ISSUER)
    (kind, member), = block.items()
    try:
        match kind:
            case "text":
                return TextPart(text=member)
            case "toolUse":
                return _tool_use(member)
            case "reasoningContent":
                return _reasoning(member, blobs)
            case "image":
                return _image(member, blobs)
            case "document":
                return _document(member, blobs)
            case "audio":
                return _audio(member, blobs)
            case "citationsContent":
                return _citations_content(member)
            case "guardContent":
                return _guard(member, blobs)
            case "toolResult":
                return _server_result(member)
    except SHAPE_ERRORS:
        pass  # a known member of an unexpected shape is kept whole, like an unknown one
    return UnknownPart(original_type=kind, raw=_json(block), issuer=ISSUER)


def _json(value: Any) -> Any:
    """``value`` with binary fields as base64 text (an UnknownPart's raw is JSON)."""
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json(v) for v in value]
    if isinstance(value, bytes | bytearray):
        return blob_text(value)
    return value


def _tool_use(member: dict[str, Any]) -> ToolCallPart | ServerToolCallPart:
    wire_id, name, arguments = member["toolUseId"], member["name"], member["input"]
    if not isinstance(wire_id, str) or not isinstance(name, str):
        raise TypeError("toolUseId and name must be strings")
    extras = {k: v for k, v in member.items() if k not in ("toolUseId", "name", "input")}
    if extras.get("type") == "server_tool_use":
        del extras["type"]
        return ServerToolCallPart(id=wire_id, name=name, input=arguments, issuer=ISSUER,
                                  provider_data=_pd({"block": extras} if extras else {}))
    return ToolCallPart(id=new_tool_call_id(), name=name, arguments_json=json_text(arguments),
                        provider_ids={ISSUER: wire_id},
                        provider_data=_pd({"block": extras} if extras else {}))


def _server_result(member: dict[str, Any]) -> ServerToolResultPart:
    call_id = member["toolUseId"]
    extras = {k: v for k, v in member.items() if k not in ("toolUseId", "content")}
    return ServerToolResultPart(call_id=call_id, name=str(member.get("type") or "toolResult"),
                                output=_json(member.get("content")), issuer=ISSUER,
                                provider_data=_pd({"block": extras} if extras else {}))


def _reasoning(member: dict[str, Any], blobs: BlobReader) -> ThinkingPart | RedactedThinkingPart:
    if set(member) == {"redactedContent"}:
        return RedactedThinkingPart(data=Opaque(value=blobs.read(member["redactedContent"]),
                                                issuer=ISSUER))
    if set(member) != {"reasoningText"}:
        raise ValueError("not one reasoning member")
    text_block = member["reasoningText"]
    if not set(text_block) <= {"text", "signature"}:
        raise ValueError("unknown reasoningText keys")
    signature = text_block.get("signature")
    if isinstance(signature, str):
        return ThinkingPart(text=text_block["text"], signature=Opaque(value=signature, issuer=ISSUER))
    return ThinkingPart(text=text_block["text"], provider_data=OWN_REASONING)


def _source(source: dict[str, Any], blobs: BlobReader, *, text: bool = False
            ) -> tuple[MediaSource, dict[str, Any]]:
    """A media source and the provider data it needs; raises for a shape with no canonical form."""
    if len(source) != 1:
        raise ValueError("a source is one member")
    (kind, value), = source.items()
    if kind == "bytes":
        return Base64Source(data=blobs.read(value)), {}
    if kind == "s3Location" and isinstance(value, dict) and isinstance(value.get("uri"), str):
        rest = {k: v for k, v in value.items() if k != "uri"}
        return UrlSource(url=value["uri"]), ({"s3": rest} if rest else {})
    if kind == "text" and text and isinstance(value, str):
        return TextSource(text=value), {}
    raise ValueError(f"no canonical form for a {kind!r} source")


def _image(member: dict[str, Any], blobs: BlobReader) -> ImagePart:
    source, data = _source(member["source"], blobs)
    extras = {k: v for k, v in member.items() if k not in ("format", "source")}
    if extras:
        data["block"] = extras
    return ImagePart(source=source, media_type=IMAGE_FORMATS[member["format"]], provider_data=_pd(data))


def _audio(member: dict[str, Any], blobs: BlobReader) -> AudioPart:
    source, data = _source(member["source"], blobs)
    extras = {k: v for k, v in member.items() if k not in ("format", "source")}
    if extras:
        data["block"] = extras
    return AudioPart(source=source, media_type=AUDIO_FORMATS[member["format"]], provider_data=_pd(data))


def _document(member: dict[str, Any], blobs: BlobReader) -> DocumentPart:
    source, data = _source(member["source"], blobs, text=True)
    fmt = member.get("format")
    media_type = DOCUMENT_FORMATS[fmt] if fmt is not None else None
    extras = {k: v for k, v in member.items() if k not in ("format", "source", "name")}
    if extras:
        data["block"] = extras
    return DocumentPart(source=source, media_type=media_type, title=member["name"],
                        provider_data=_pd(data))


def _guard(member: dict[str, Any], blobs: BlobReader) -> TextPart | ImagePart:
    (kind, value), = member.items()
    if kind == "text":
        rest = {k: v for k, v in value.items() if k != "text"}
        return TextPart(text=value["text"], provider_data=_pd({"guard": rest}))
    if kind == "image":
        part = _image(value, blobs)
        return with_data(part, {"guard": {}})  # type: ignore[return-value]
    raise ValueError(f"unknown guardContent member {kind!r}")


def _citations_content(member: dict[str, Any]) -> TextPart:
    content = member.get("content") or []
    text = "".join(c["text"] for c in content)
    raw_citations = member.get("citations") or []
    citations = tuple(citation_from_wire(c) for c in raw_citations)
    rebuilt = {"content": [{"text": text}], "citations": [citation_to_wire(c) for c in citations]}
    if rebuilt == member:
        return TextPart(text=text, citations=citations)
    return TextPart(text=text, citations=citations,
                    provider_data=_pd({"citations_content": _json(member)}))


def citation_from_wire(c: dict[str, Any]) -> Citation:
    """A Converse citation (or a stream's ``citation`` delta) as its typed form; a citation the
    typed form would not give back exactly keeps its raw JSON in the citation's provider data."""
    location = c.get("location") or {}
    (kind, where), = location.items()
    pieces = c.get("sourceContent")
    cited = "".join(p["text"] for p in pieces) if isinstance(pieces, list) else None
    title = c.get("title")
    typed: Citation
    if kind == "web":
        typed = UrlCitation(url=where["url"], title=title, cited_text=cited)
    elif kind in _LOCATIONS:
        typed = DocumentCitation(document_index=where["documentIndex"], document_title=title,
                                 unit=_LOCATIONS[kind], start=where["start"], end=where["end"],
                                 cited_text=cited)
    elif kind == "searchResultLocation":
        typed = SearchResultCitation(source=c["source"], title=title,
                                     search_result_index=where["searchResultIndex"],
                                     start_block=where["start"], end_block=where["end"],
                                     cited_text=cited)
    else:
        raise ValueError(f"unknown citation location {kind!r}")
    if citation_to_wire(typed) != c:
        typed = typed.model_copy(update={"provider_data": ProviderData(issuer=ISSUER, data={"raw": c})})
    return typed


def citation_to_wire(c: Citation) -> dict[str, Any]:
    """A typed citation as Converse spells it (its raw form, when Bedrock gave one)."""
    pd = c.provider_data
    if pd is not None and pd.issuer == ISSUER and isinstance(pd.data, dict) and "raw" in pd.data:
        raw = pd.data["raw"]
        if isinstance(raw, dict):
            return raw
    out: dict[str, Any] = {}
    if isinstance(c, UrlCitation):
        if c.title is not None:
            out["title"] = c.title
        location: dict[str, Any] = {"web": {"url": c.url}}
    elif isinstance(c, DocumentCitation):
        if c.document_title is not None:
            out["title"] = c.document_title
        location = {_UNIT_LOCATIONS[c.unit]: {"documentIndex": c.document_index, "start": c.start,
                                              "end": c.end}}
    else:
        if c.title is not None:
            out["title"] = c.title
        out["source"] = c.source
        location = {"searchResultLocation": {"searchResultIndex": c.search_result_index,
                                             "start": c.start_block, "end": c.end_block}}
    if c.cited_text is not None:
        out["sourceContent"] = [{"text": c.cited_text}]
    out["location"] = location
    return out
