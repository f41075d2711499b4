"""What every chat-UI format shares: the result type, the canonical JSON of parts and messages,
where each provider's signatures and item ids ride in the AI SDK's provider metadata, and the
errors of a reader."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from partwire import parts as _parts
from partwire._media import data_url
from partwire.codec import decode, encode
from partwire.errors import DecodeError, WireFormatError
from partwire.history import HistoryEvent
from partwire.ids import new_message_id, now
from partwire.messages import SCHEMA_VERSION
from partwire.projection import Loss, LossAction

__all__ = [
    "CARRIER",
    "UI_ISSUER",
    "Converted",
    "bad",
    "data_url",
    "event_from_json",
    "event_json",
    "json_text",
    "native_signature",
    "part_from_json",
    "part_json",
    "signature_metadata",
    "source_from_url",
]

T = TypeVar("T")

CARRIER = "partwire"
"""The key, in provider metadata and message metadata, under which partwire keeps what the
format has no field for (the rest of a part or message), so that a round trip gives it back."""
UI_ISSUER = "ai-sdk"
"""The issuer of unknown parts read from an AI SDK message or stream: written back as they came."""

_PART: TypeAdapter[_parts.Part] = TypeAdapter(_parts.Part)


@dataclass(frozen=True, slots=True)
class Converted(Generic[T]):
    """A conversion's output, and everything it could not carry as it is."""

    value: T
    """What the conversion made (a list of UI messages, a history, an assistant message...)."""
    losses: tuple[Loss, ...] = ()
    """One :class:`~partwire.projection.Loss` per element not carried as it is, in order."""

    @property
    def lossless(self) -> bool:
        """Whether nothing was lost."""
        return not self.losses


def bad(fmt: str, what: str, reason: str, path: str | None = None) -> WireFormatError:
    """The error of a reader: ``fmt`` (``ai-sdk-ui``), what it read, why, and where."""
    return WireFormatError(fmt, what, reason, path)


def loss(fmt: str, path: str, part_type: str, action: LossAction, reason: str,
         message_id: str | None = None) -> Loss:
    """One loss of a format (its name stands where an adapter's would)."""
    return Loss(path, part_type, action, reason, fmt, message_id)


def _compact(model: BaseModel, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without the top-level fields that hold their plain default (nested values stay
    whole: their ``type`` tags have defaults too and must stay)."""
    fields = type(model).model_fields
    out = {}
    for key, value in data.items():
        field = fields.get(key)
        if key != "type" and field is not None:
            if field.default_factory is not None:
                if value in ([], {}) and not field.default_factory():  # type: ignore[call-arg]
                    continue
            elif value == field.default or (field.default == () and value == []):
                continue
        out[key] = value
    return out


def part_json(part: _parts.Part) -> dict[str, Any]:
    """The canonical JSON of a part (top-level defaults left out; ``type`` always there)."""
    return _compact(part, _PART.dump_python(part, mode="json"))


def part_from_json(data: Mapping[str, Any], fmt: str, path: str) -> _parts.Part:
    """A part from its canonical JSON; a :class:`~partwire.errors.WireFormatError` at ``path``
    when it is not one."""
    try:
        return _PART.validate_python(dict(data))
    except ValidationError as exc:
        raise bad(fmt, "part", _first(exc), path) from exc


def event_json(event: HistoryEvent) -> dict[str, Any]:
    """The canonical JSON of a history event, as the codec writes it (top-level defaults left
    out; ``v``, ``type`` and ``role`` always there)."""
    value: dict[str, Any] = json.loads(encode(event))
    out = _compact(event, value)
    out["v"] = value["v"]
    if "role" in value:
        out["role"] = value["role"]
    return out


def event_from_json(data: Mapping[str, Any], fmt: str, path: str) -> HistoryEvent:
    """A history event from its canonical JSON, read strictly by the codec.

    A message another program wrote carries no partwire id, time or version: it is a new event,
    so it gets a new id and the current time, as one made here would (a stored line without them
    is refused instead, since a file must load the same way every time)."""
    data = dict(data)
    data.setdefault("v", SCHEMA_VERSION)
    if "id" not in data:
        data["id"] = new_message_id()
    if "created_at" not in data:
        data["created_at"] = now().isoformat().replace("+00:00", "Z")
    try:
        return decode(json.dumps(data, ensure_ascii=False), strict=True)
    except DecodeError as exc:
        where = f"{path}.{exc.path}" if exc.path else path
        raise bad(fmt, "message", exc.message, where) from exc


def _first(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(x) for x in err["loc"])
    return f"{err['msg']}" + (f" ({loc})" if loc else "")


def json_text(value: Any) -> str:
    """JSON text as the AI SDK's providers write tool arguments (compact, unicode kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def parsed_or_text(text: str) -> Any:
    """A JSON text parsed, or the text itself when it is not JSON (malformed tool arguments)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


# -- files --------------------------------------------------------------------------------------


def source_url(source: _parts.MediaSource, media_type: str) -> tuple[str, dict[str, str] | None]:
    """The URL a UI file part shows for a media source, and its provider reference, if any."""
    match source:
        case _parts.Base64Source():
            return data_url(media_type, source.data), None
        case _parts.UrlSource():
            return source.url, None
        case _parts.ProviderFileSource():
            return "", {source.issuer: source.file_id}
        case _parts.FileRefSource():
            return f"file:{source.path}", None
        case _parts.TextSource():
            raw = base64.b64encode(source.text.encode("utf-8")).decode("ascii")
            return data_url(media_type, raw), None


def source_from_url(url: str, reference: Mapping[str, str] | None) -> _parts.MediaSource:
    """The media source of a UI file part: base64 data, a provider file, or a URL."""
    if reference:
        issuer, file_id = next(iter(reference.items()))
        return _parts.ProviderFileSource(file_id=file_id, issuer=issuer)
    if url.startswith("data:") and ";base64," in url:
        data = url.split(";base64,", 1)[1]
        try:
            base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            return _parts.UrlSource(url=url)
        return _parts.Base64Source(data=data)
    return _parts.UrlSource(url=url)


# -- signatures in provider metadata ------------------------------------------------------------

# Where each provider's SDK package writes reasoning state in ``providerMetadata`` (and reads it
# from ``providerOptions``): the key of a signature, of redacted data, and of a reasoning item id.
_SIGNATURE_KEY = {"anthropic": "signature", "bedrock": "signature", "google": "thoughtSignature",
                  "vertex": "thoughtSignature", "openai": "reasoningEncryptedContent"}
_REDACTED_KEY = "redactedData"
_ITEM_KEY = "itemId"


def signature_metadata(
    part: _parts.ThinkingPart | _parts.RedactedThinkingPart,
) -> dict[str, dict[str, Any]]:
    """A thinking part's opaque state as its issuer's AI SDK provider writes it."""
    if isinstance(part, _parts.RedactedThinkingPart):
        return {part.data.issuer: {_REDACTED_KEY: part.data.value}}
    out: dict[str, dict[str, Any]] = {}
    if part.signature is not None:
        issuer = part.signature.issuer
        out[issuer] = {_SIGNATURE_KEY.get(issuer, "signature"): part.signature.value}
    if part.id is not None:
        issuer = part.signature.issuer if part.signature is not None else (
            part.provider_data.issuer if part.provider_data is not None else "openai")
        out.setdefault(issuer, {})[_ITEM_KEY] = part.id
    return out


def native_signature(metadata: Mapping[str, Any]) -> tuple[str | None, _parts.Opaque | None, _parts.Opaque | None]:
    """From a reasoning part's provider metadata: its item id, its signature, its redacted data
    (the first issuer that has each, in the metadata's order)."""
    item_id: str | None = None
    signature: _parts.Opaque | None = None
    redacted: _parts.Opaque | None = None
    for issuer, fields in metadata.items():
        if issuer == CARRIER or not isinstance(fields, Mapping):
            continue
        key = _SIGNATURE_KEY.get(issuer, "signature")
        if signature is None and isinstance(fields.get(key), str):
            signature = _parts.Opaque(value=fields[key], issuer=issuer)
        if redacted is None and isinstance(fields.get(_REDACTED_KEY), str):
            redacted = _parts.Opaque(value=fields[_REDACTED_KEY], issuer=issuer)
        if item_id is None and isinstance(fields.get(_ITEM_KEY), str):
            item_id = fields[_ITEM_KEY]
    return item_id, signature, redacted


def merge_metadata(*layers: Mapping[str, Mapping[str, Any]] | None) -> dict[str, dict[str, Any]]:
    """Provider metadata layered issuer by issuer (later layers win key by key)."""
    out: dict[str, dict[str, Any]] = {}
    for layer in layers:
        for issuer, fields in (layer or {}).items():
            out.setdefault(issuer, {}).update(fields)
    return out


def carried(metadata: Any) -> dict[str, Any]:
    """What partwire carried in a provider-metadata (or message-metadata) object, or nothing."""
    if isinstance(metadata, Mapping):
        value = metadata.get(CARRIER)
        if isinstance(value, Mapping):
            return dict(value)
    return {}


def strip(data: dict[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    """``data`` without ``keys``."""
    return {k: v for k, v in data.items() if k not in keys}
