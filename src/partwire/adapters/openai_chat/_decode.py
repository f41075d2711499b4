"""Chat Completions wire -> canonical: response bodies, request bodies, and the parts inside them.

Whatever a wire object carries that has no canonical field goes to the part's or message's
``provider_data`` (issued by the dialect): ``block`` for a part's own extra keys, ``inner`` for
the extra keys of its inner object (``image_url``, ``file``, ``function``), so the encoder
re-emits them exactly. Response-only extras (``service_tier``, ``logprobs``, ...) go under
``response``, ``choice`` and ``reply`` and are never sent back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from partwire._base import ProviderData
from partwire._json import SHAPE_ERRORS, load_json, usage_object
from partwire.adapters._formats import refuse_foreign_response
from partwire.adapters._provenance import shared_provider_data
from partwire.adapters.openai_chat._dialects import Dialect, get_dialect
from partwire.adapters.openai_chat._wire import (
    API,
    AUDIO_MEDIA_TYPES,
    RETRYABLE_ERRORS,
    parse_data_url,
    stop_reason,
    usage_from_wire,
)
from partwire.errors import ProviderError, WireFormatError
from partwire.ids import new_tool_call_id
from partwire.messages import (
    AssistantMessage,
)
from partwire.parts import (
    AudioPart,
    Base64Source,
    DocumentPart,
    ImagePart,
    MediaSource,
    Opaque,
    Part,
    ProviderFileSource,
    RedactedThinkingPart,
    RefusalPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    UnknownPart,
    UrlCitation,
    UrlSource,
)

if TYPE_CHECKING:
    from partwire.adapters.openai_chat import Options

__all__ = [
    "annotations_from_wire",
    "assistant_content_from_wire",
    "content_from_wire",
    "detail_from_wire",
    "error_from_wire",
    "extras_of",
    "from_wire",
    "pd_of",
    "reasoning_from_wire",
    "reply_parts",
    "thinking_chunk_from_wire",
    "tool_call_from_wire",
]

# Keys with a canonical home; the rest is kept (see the module docstring).
_RESPONSE_FIELDS = frozenset({"id", "object", "model", "choices", "usage"})
_CHOICE_FIELDS = frozenset({"index", "message", "finish_reason"})
_REPLY_FIELDS = frozenset({"role", "content", "refusal", "tool_calls", "audio", "function_call",
                           "annotations"})
# Side effects cannot be read off the wire; assume the most a tool may do.
_DETAILS = "reasoning_details"


def pd_of(issuer: str, marks: dict[str, Any]) -> ProviderData | None:
    return shared_provider_data(issuer, marks) if marks else None


def extras_of(obj: Mapping[str, Any], used: set[str] | frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in used}


# -- responses ------------------------------------------------------------------------------


def from_wire(response: Any, options: Options) -> AssistantMessage:
    """One response body, as ``options.dialect`` writes it, as an assistant message (its choice
    ``options.choice``); an error body raises :class:`ProviderError`."""
    dialect, choice = get_dialect(options.dialect), options.choice
    issuer = dialect.issuer
    body = load_json(response, API, "response")
    if "choices" not in body and (isinstance(body.get("error"), dict) or body.get("object") == "error"):
        raise error_from_wire(body, issuer)
    choices = body.get("choices")
    if not isinstance(choices, list):
        refuse_foreign_response(body, "openai_chat", API)
        raise WireFormatError(API, "response", "it has no choices list", "choices")
    # A choice without "index" (some servers leave it out) counts by its position.
    picked = next((c for n, c in enumerate(choices)
                   if isinstance(c, dict) and c.get("index", n) == choice), None)
    if picked is None:
        raise WireFormatError(API, "response", f"it has no choice with index {choice}")
    message = picked.get("message")
    if message is None and picked.get("finish_reason") == "content_filter":
        # Azure OpenAI may withhold the whole message of a completion its filter stopped: the
        # choice holds only the finish reason and the filter's verdict.
        message = {}
    if not isinstance(message, dict):
        raise WireFormatError(API, "response", "it has no message", f"choices[{choice}]")
    parts, used = reply_parts(message, dialect)
    raw_finish = picked.get("finish_reason")
    usage = usage_object(body, "usage", API)
    model = body.get("model")
    marks: dict[str, Any] = {}
    top = {k: v for k, v in body.items() if k not in _RESPONSE_FIELDS and v is not None}
    if top:
        marks["response"] = top
    rest = {k: v for k, v in picked.items() if k not in _CHOICE_FIELDS and v is not None}
    if rest:
        marks["choice"] = rest
    reply = {k: v for k, v in message.items() if k not in used and v is not None}
    if reply:
        marks["reply"] = reply
    return AssistantMessage(
        parts=tuple(parts),
        status="complete",
        stop_reason=stop_reason(raw_finish, tool_calls=any(isinstance(p, ToolCallPart) for p in parts),
                                refusal=any(isinstance(p, RefusalPart) for p in parts)),
        stop_reason_raw=raw_finish if isinstance(raw_finish, str) else None,
        model=f"{issuer}:{model}" if isinstance(model, str) and model else None,
        provider=issuer,
        api=API,
        response_id=body.get("id") if isinstance(body.get("id"), str) else None,
        usage=usage_from_wire(usage, issuer) if usage is not None else None,
        provider_data=pd_of(issuer, marks),
    )


def reply_parts(message: Mapping[str, Any], dialect: Dialect) -> tuple[list[Part], set[str]]:
    """The parts of a response's message, in canonical order, and the keys they came from."""
    issuer = dialect.issuer
    used = set(_REPLY_FIELDS)
    parts, reasoning_used = reasoning_from_wire(message, dialect)
    used |= reasoning_used
    content = message.get("content")
    annotations = message.get("annotations")
    citations = annotations_from_wire(annotations) if isinstance(annotations, list) else ()
    if citations is None:
        used.discard("annotations")  # a kind partwire cannot type: kept raw under "reply"
        citations = ()
    elif isinstance(annotations, list) and annotations and not (isinstance(content, str) and content):
        used.discard("annotations")  # nothing to attach them to
    if isinstance(content, str) and content:
        parts.append(TextPart(text=content, citations=citations))
    elif isinstance(content, list):
        # Some servers answer with a list of parts (Mistral: thinking chunks, then text).
        parts.extend(assistant_content_from_wire(content, dialect))
    elif content is not None and content != "":
        used.discard("content")
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal:
        parts.append(RefusalPart(text=refusal))
    audio = message.get("audio")
    if isinstance(audio, dict) and isinstance(audio.get("data"), str):
        info = {k: v for k, v in audio.items() if k != "data"}
        parts.append(AudioPart(source=Base64Source(data=audio["data"]),
                               provider_data=pd_of(issuer, {"audio": info})))
    function_call = message.get("function_call")
    if isinstance(function_call, dict) and isinstance(function_call.get("name"), str):
        parts.append(ToolCallPart(id=new_tool_call_id(), name=function_call["name"],
                                  arguments_json=str(function_call.get("arguments") or ""),
                                  provider_data=pd_of(issuer, {"kind": "function_call"})))
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        parts.extend(tool_call_from_wire(call, issuer, response=True) for call in calls)
    return parts, used


def reasoning_from_wire(message: Mapping[str, Any], dialect: Dialect) -> tuple[list[Part], set[str]]:
    """The reasoning parts of an assistant message (dialects only) and the keys they came from.

    OpenRouter's typed ``reasoning_details`` win over its plain ``reasoning`` text, which repeats
    them; otherwise the first of the dialect's reasoning fields that holds text is the thinking.
    """
    issuer = dialect.issuer
    details = message.get(_DETAILS) if dialect.reasoning_details else None
    if isinstance(details, list) and details:
        parts = [detail_from_wire(d, issuer) for d in details]
        used = {_DETAILS}
        summary = "".join(p.text for p in parts if isinstance(p, ThinkingPart))
        for name in dialect.reasoning_fields:
            if message.get(name) in (summary, None, ""):
                used.add(name)
        return parts, used
    for name in dialect.reasoning_fields:
        text = message.get(name)
        if isinstance(text, str) and text:
            used = {n for n in dialect.reasoning_fields if message.get(n) in (text, None, "")}
            return [ThinkingPart(text=text, provider_data=pd_of(issuer, {"field": name}))], used
    return [], set()


def detail_from_wire(detail: Any, issuer: str) -> Part:
    """One OpenRouter ``reasoning_details`` entry as a thinking or redacted-thinking part."""
    marks: dict[str, Any] = {"field": _DETAILS}
    if not isinstance(detail, dict):
        return UnknownPart(original_type=None, raw=detail, issuer=issuer, provider_data=pd_of(issuer, marks))
    kind = detail.get("type")
    if kind == "reasoning.encrypted" and isinstance(detail.get("data"), str):
        extras = extras_of(detail, {"type", "data"})
        if extras:
            marks["block"] = extras
        return RedactedThinkingPart(data=Opaque(value=detail["data"], issuer=issuer),
                                    provider_data=pd_of(issuer, marks))
    if kind == "reasoning.text" and isinstance(detail.get("text", ""), str):
        used = {"type", "text"}
        signature = detail.get("signature")
        if isinstance(signature, str) and signature:
            used.add("signature")
        part_id = detail.get("id")
        if isinstance(part_id, str):
            used.add("id")
        extras = extras_of(detail, used)
        if extras:
            marks["block"] = extras
        return ThinkingPart(
            text=detail.get("text", ""),
            signature=Opaque(value=signature, issuer=issuer) if "signature" in used else None,
            id=part_id if "id" in used else None, provider_data=pd_of(issuer, marks))
    if kind == "reasoning.summary" and isinstance(detail.get("summary"), str):
        used = {"summary"}
        part_id = detail.get("id")
        if isinstance(part_id, str):
            used.add("id")
        marks["block"] = extras_of(detail, used)  # keeps "type": a summary, not reasoning text
        return ThinkingPart(text=detail["summary"], id=part_id if "id" in used else None,
                            provider_data=pd_of(issuer, marks))
    return UnknownPart(original_type=kind if isinstance(kind, str) else None, raw=detail,
                       issuer=issuer, provider_data=pd_of(issuer, marks))


def annotations_from_wire(annotations: list[Any]) -> tuple[UrlCitation, ...] | None:
    """URL citations; ``None`` when any annotation is of a kind partwire does not type."""
    out: list[UrlCitation] = []
    for a in annotations:
        inner = a.get("url_citation") if isinstance(a, dict) and a.get("type") == "url_citation" else None
        if not isinstance(inner, dict) or set(a) != {"type", "url_citation"} or not (
                set(inner) <= {"url", "title", "start_index", "end_index"}):
            return None
        try:
            out.append(UrlCitation(url=inner["url"], title=inner.get("title"),
                                   start_index=inner.get("start_index"),
                                   end_index=inner.get("end_index")))
        except (KeyError, ValidationError):
            return None
    return tuple(out)


def tool_call_from_wire(call: Any, issuer: str, *, response: bool = False) -> Part:
    """One ``tool_calls`` entry as a tool call (a custom tool's input is wrapped as ``{"input"}``)."""
    if not isinstance(call, dict):
        return UnknownPart(original_type=None, raw=call, issuer=issuer)
    kind = call.get("type", "function")
    inner_key = "custom" if kind == "custom" else "function"
    inner = call.get(inner_key)
    if kind not in ("function", "custom") or not isinstance(inner, dict) or not isinstance(
            inner.get("name"), str):
        return UnknownPart(original_type=kind if isinstance(kind, str) else None, raw=call,
                           issuer=issuer)
    wire_id = call.get("id")
    used = {"id", "type", inner_key}
    # "index" is a streaming artefact some servers leave in whole responses; never sent back.
    if response:
        used.add("index")
    marks: dict[str, Any] = {}
    block = extras_of(call, used)
    if block:
        marks["block"] = block
    if kind == "custom":
        marks["kind"] = "custom"
        value = inner.get("input")
        arguments = json.dumps({"input": value if isinstance(value, str) else ""}, ensure_ascii=False)
        inner_extras = extras_of(inner, {"name", "input"} if isinstance(value, str) else {"name"})
    else:
        value = inner.get("arguments")
        arguments = value if isinstance(value, str) else ""
        inner_extras = extras_of(inner, {"name", "arguments"} if isinstance(value, str) else {"name"})
    if inner_extras:
        marks["inner"] = inner_extras
    return ToolCallPart(
        id=new_tool_call_id(), name=inner["name"], arguments_json=arguments,
        provider_ids={issuer: wire_id} if isinstance(wire_id, str) and wire_id else {},
        provider_data=pd_of(issuer, marks),
    )


def error_from_wire(body: Mapping[str, Any], issuer: str, status: int | None = None) -> ProviderError:
    """The error an error body (``{"error": {"message", "type", "param", "code"}}``) stands for."""
    error = body.get("error")
    # Mistral's error body is the error itself: {"object": "error", "message", "type", "code"}.
    error = error if isinstance(error, dict) else body if body.get("object") == "error" else {}
    code = error.get("code")
    kind = error.get("type")
    if isinstance(code, int) and status is None:
        status = code  # OpenRouter puts the HTTP status in "code"
    name = code if isinstance(code, str) and code else kind if isinstance(kind, str) else None
    return ProviderError(issuer, name, str(error.get("message", "")), status=status,
                         request_id=body.get("request_id") if isinstance(body.get("request_id"), str) else None,
                         body=dict(body))


def error_retryable(code: str | None, status: int | None) -> bool:
    """Whether a call that failed this way may succeed if simply retried."""
    return code in RETRYABLE_ERRORS or (status is not None and (status == 429 or status >= 500))


# -- content parts of requests --------------------------------------------------------------


def content_from_wire(content: list[Any], issuer: str) -> list[Part]:
    return [content_part_from_wire(item, issuer) for item in content]


def assistant_content_from_wire(content: list[Any], dialect: Dialect) -> list[Part]:
    """The parts of an assistant message's content list; thinking chunks for a dialect that has
    them (Mistral)."""
    issuer = dialect.issuer
    if not dialect.thinking_chunks:
        return content_from_wire(content, issuer)
    return [thinking_chunk_from_wire(item, issuer)
            if isinstance(item, dict) and item.get("type") == "thinking"
            else content_part_from_wire(item, issuer) for item in content]


def thinking_chunk_from_wire(item: dict[str, Any], issuer: str) -> Part:
    """A ``{"type": "thinking", "thinking": [text chunks]}`` chunk as a thinking part.

    The text chunks are joined (their lengths kept as ``layout`` when there are several), a
    ``signature`` is the part's opaque signature, other keys (``closed``) ride along as
    ``block``; a chunk holding anything but text chunks is kept whole as an unknown part.
    """
    inner = item.get("thinking")
    signature = item.get("signature")
    if not isinstance(inner, list) or not all(
            isinstance(t, dict) and t.get("type") == "text" and isinstance(t.get("text"), str)
            and len(t) == 2 for t in inner) or not (signature is None or isinstance(signature, str)):
        return UnknownPart(original_type="thinking", raw=item, issuer=issuer)
    marks: dict[str, Any] = {"field": "content"}
    if len(inner) != 1:
        marks["layout"] = [len(t["text"]) for t in inner]
    used = {"type", "thinking"}
    if isinstance(signature, str):
        used.add("signature")
    extras = extras_of(item, used)
    if extras:
        marks["block"] = extras
    return ThinkingPart(text="".join(t["text"] for t in inner),
                        signature=Opaque(value=signature, issuer=issuer) if isinstance(signature, str) else None,
                        provider_data=pd_of(issuer, marks))


def content_part_from_wire(item: Any, issuer: str) -> Part:
    """One content part of a request message as a part (unknown shapes become UnknownPart)."""
    if not isinstance(item, dict):
        return UnknownPart(original_type=None, raw=item, issuer=issuer)
    kind = item.get("type")
    try:
        match kind:
            case "text" if isinstance(item["text"], str):
                return TextPart(text=item["text"], provider_data=_blockpd_of(issuer, item, {"type", "text"}))
            case "refusal" if isinstance(item["refusal"], str):
                return RefusalPart(text=item["refusal"],
                                   provider_data=_blockpd_of(issuer, item, {"type", "refusal"}))
            case "image_url":
                return _image_from_wire(item, issuer)
            case "input_audio":
                return _audio_from_wire(item, issuer)
            case "file":
                return _file_from_wire(item, issuer)
    except SHAPE_ERRORS:
        pass  # a known type with an unexpected shape is kept whole, like an unknown one
    return UnknownPart(original_type=kind if isinstance(kind, str) else None, raw=item, issuer=issuer)


def _blockpd_of(issuer: str, item: Mapping[str, Any], used: set[str],
              inner: dict[str, Any] | None = None) -> ProviderData | None:
    marks: dict[str, Any] = {}
    block = extras_of(item, used)
    if block:
        marks["block"] = block
    if inner:
        marks["inner"] = inner
    return pd_of(issuer, marks)


def _source_of(url: str) -> tuple[MediaSource, str | None]:
    parsed = parse_data_url(url)
    if parsed is not None:
        return Base64Source(data=parsed[1]), parsed[0]
    return UrlSource(url=url), None


def _image_from_wire(item: dict[str, Any], issuer: str) -> ImagePart:
    image = item["image_url"]
    used = {"url"}
    detail = image.get("detail")
    if detail in ("auto", "low", "high", "original"):
        used.add("detail")
    source, media_type = _source_of(image["url"])
    if isinstance(source, Base64Source) and media_type is not None and not media_type.startswith("image/"):
        raise ValueError("not an image data URL")
    return ImagePart(source=source, media_type=media_type, detail=detail if "detail" in used else None,
                     provider_data=_blockpd_of(issuer, item, {"type", "image_url"}, extras_of(image, used)))


def _audio_from_wire(item: dict[str, Any], issuer: str) -> AudioPart:
    audio = item["input_audio"]
    media_type = AUDIO_MEDIA_TYPES[audio["format"]]
    if not isinstance(audio["data"], str):
        raise TypeError("audio data is not a string")
    return AudioPart(source=Base64Source(data=audio["data"]), media_type=media_type,
                     provider_data=_blockpd_of(issuer, item, {"type", "input_audio"},
                                             extras_of(audio, {"data", "format"})))


def _file_from_wire(item: dict[str, Any], issuer: str) -> DocumentPart:
    file = item["file"]
    used = {"filename"} if isinstance(file.get("filename"), str) else set()
    inner: dict[str, Any] = {}
    source: MediaSource
    media_type: str | None = None
    data = file.get("file_data")
    if isinstance(data, str):
        used.add("file_data")
        parsed = parse_data_url(data)
        if parsed is not None:
            media_type, raw = parsed
            source = Base64Source(data=raw)
        else:
            source = Base64Source(data=data)
            inner["raw"] = True
    elif isinstance(file.get("file_id"), str):
        used.add("file_id")
        source = ProviderFileSource(file_id=file["file_id"], issuer=issuer)
    else:
        raise ValueError("a file part with neither file_data nor file_id")
    inner.update(extras_of(file, used))
    return DocumentPart(source=source, media_type=media_type, filename=file.get("filename"),
                        provider_data=_blockpd_of(issuer, item, {"type", "file"}, inner))
