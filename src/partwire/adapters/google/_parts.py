"""One canonical part <-> one Gemini ``Part``, both directions: text, thoughts, media, calls.

A ``thoughtSignature`` may sit on any part. On a thought part it becomes the
:class:`~partwire.parts.ThinkingPart`'s ``signature`` (an :class:`~partwire.parts.Opaque` naming
the model that issued it); on any other part it goes, with that model, into the part's
``provider_data``: ``{"thoughtSignature": ..., "model": ...}``. Either way it stays on the part it
arrived with and goes back unchanged, to Gemini only, and only to the model that issued it.

Other ``provider_data`` keys written here: ``extra`` (keys beside the data field that partwire
has no field for: ``videoMetadata``, ``mediaResolution``, ...), ``inner`` (keys inside the data
field without a canonical home: ``displayName``, ``willContinue``, ...), and ``no_id`` (a function
call Gemini sent without an id: it goes back without one).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Collection, Mapping
from typing import Any, assert_never

from partwire import parts as _parts
from partwire._base import ProviderData, build, fields_maker, one_field, provider_data
from partwire._json import SHAPE_ERRORS, json_text, parse_json
from partwire._media import sniff_media_type
from partwire._memo import memo
from partwire.adapters._losses import LossCollector
from partwire.adapters._reading import text_part
from partwire.adapters.google._wire import DATA_KEYS, ISSUER, same_model
from partwire.ids import new_tool_call_id

# The part types every conversion meets, by name; the rarer ones through the module.
from partwire.parts import ImagePart, Part, TextPart, ThinkingPart, ToolCallPart

__all__ = [
    "CODE_EXECUTION",
    "CODE_RESULT",
    "PartEncoder",
    "base64_ok",
    "call_identity",
    "kind_of",
    "media_from_wire",
    "part_from_wire",
]

CODE_EXECUTION = "code_execution"
"""The ``name`` of a server tool call decoded from ``executableCode``."""
CODE_RESULT = "code_execution_result"
"""The ``name`` of a server tool result decoded from ``codeExecutionResult``."""

# Uploads to the Gemini Files API are resolvable by Google only: a provider file id.
_FILES_API = re.compile(r"https://generativelanguage\.googleapis\.com/(v1[a-z0-9]*/)?files/")
# A canonical call id (tu_ + ULID) on the wire is partwire's own, echoed by whoever sent it on.
_CANONICAL_ID = re.compile(r"tu_[0-9A-HJKMNP-TV-Z]{26}")
_BESIDE = frozenset({"thought", "thoughtSignature"})


_BASE64 = re.compile(r"[A-Za-z0-9+/_-]*={0,2}")


# An agent resends its whole history every turn, so each signature is checked once, not once
# per turn. Bounded: it is emptied when it grows past the limit.
_CHECKED: dict[str, bool] = memo({})
_CHECKED_LIMIT = 65_536


def base64_ok(value: str) -> bool:
    """Whether ``value`` is base64 the API can read (either alphabet); Gemini's signatures are."""
    known = _CHECKED.get(value)
    if known is None:
        if len(_CHECKED) >= _CHECKED_LIMIT:
            _CHECKED.clear()
        known = _CHECKED[value] = bool(_BASE64.fullmatch(value)) and len(value.rstrip("=")) % 4 != 1
    return known


def _pd(data: dict[str, Any]) -> ProviderData | None:
    return provider_data(ISSUER, data) if data else None


def call_identity(wire_id: Any) -> tuple[str, dict[str, str]]:
    """The canonical id and ``provider_ids`` of a function call with wire id ``wire_id``.

    Gemini's own id is kept under ``google``; a canonical id that partwire put on the wire is
    taken back as the canonical id itself; no id gets a fresh canonical one.
    """
    if isinstance(wire_id, str) and wire_id:
        if _CANONICAL_ID.fullmatch(wire_id):
            return wire_id, {}
        return new_tool_call_id(), {ISSUER: wire_id}
    return new_tool_call_id(), {}


def _kind(raw: Mapping[str, Any]) -> str | None:
    for key in raw:
        if key in DATA_KEYS:
            return key
    return None


def media_from_wire(key: str, data: Mapping[str, Any], pd: ProviderData | None) -> Part | None:
    """The media part of an ``inlineData`` / ``fileData`` object; ``None`` for video and the like."""
    mime = data.get("mimeType")
    media_type = mime if isinstance(mime, str) else None
    source: _parts.MediaSource
    if key == "inlineData":
        raw = data.get("data", "")
        source = _base64_source(raw) if type(raw) is str else _parts.Base64Source(data=raw)
    else:
        uri = data.get("fileUri", "")
        # A Files API URI, or a bare file name ("files/abc"): only Google can resolve it.
        if _FILES_API.match(uri) or "://" not in uri:
            source = _file_source(uri, ISSUER) if type(uri) is str else _parts.ProviderFileSource(
                file_id=uri, issuer=ISSUER)
        else:
            source = _url_source(uri) if type(uri) is str else _parts.UrlSource(url=uri)
    major = (media_type or "").split("/", 1)[0]
    cls: type[ImagePart | _parts.AudioPart | _parts.DocumentPart]
    if major == "image":
        cls = ImagePart
    elif major == "audio":
        cls = _parts.AudioPart
    elif major == "text" or media_type in (None, "application/pdf", "application/json"):
        cls = _parts.DocumentPart
    else:
        return None
    fields = {"source": source, "media_type": media_type, "provider_data": pd}
    # A source just made, a media type read from JSON: nothing left for validation to check.
    return build(cls, fields) if media_type is None or type(media_type) is str else cls(**fields)


# Sources of strings read from JSON, made as validation would make them.
_base64_source = one_field(_parts.Base64Source, "data")
_url_source = one_field(_parts.UrlSource, "url")
_file_source = fields_maker(_parts.ProviderFileSource, "file_id", "issuer")


def part_from_wire(raw: Mapping[str, Any], model: str | None) -> Part:
    """The canonical part of one wire part of a ``model`` (or ``user``) content.

    ``model`` is the model that produced it (``modelVersion``), recorded with its signature.
    """
    if len(raw) == 1 and type(raw) is dict:  # a plain text part, the commonest
        text = raw.get("text")
        if type(text) is str:
            return text_part(text)
    try:
        kind = _kind(raw)
        sig = raw.get("thoughtSignature")
        extra = {k: v for k, v in raw.items() if k != kind and k not in _BESIDE}
        data: dict[str, Any] = {}
        if "thought" in raw and not (kind == "text" and raw["thought"] is True):
            extra["thought"] = raw["thought"]
        if extra:
            data["extra"] = extra
        if kind == "text" and raw.get("thought") is True:
            text = raw["text"]
            signature = _signature(sig, model) if isinstance(sig, str) else None
            if signature is None:
                # Unsigned thought summaries are still Gemini's: only it takes them back.
                data["model"] = model
            thought = {"text": text, "signature": signature,
                       "provider_data": provider_data(ISSUER, data) if data or signature is None else None}
            # A text read from JSON, a signature just made: nothing left for validation to check.
            return build(ThinkingPart, thought) if type(text) is str else ThinkingPart(**thought)
        if isinstance(sig, str):
            data["thoughtSignature"] = sig
            data["model"] = model
        elif sig is not None:
            extra["thoughtSignature"] = sig
            data["extra"] = extra
        value = raw.get(kind) if kind is not None else None
        if kind == "text" and isinstance(value, str):
            text_fields = {"text": value, "provider_data": _pd(data)}
            return build(TextPart, text_fields) if type(value) is str else TextPart(**text_fields)
        if kind == "functionCall" and isinstance(value, dict) and isinstance(value.get("name"), str):
            return _call_from_wire(value, data)
        if kind in ("inlineData", "fileData") and isinstance(value, dict):
            inner = {k: v for k, v in value.items() if k not in ("mimeType", "data", "fileUri")}
            if inner:
                data["inner"] = inner
            media = media_from_wire(kind, value, _pd(data))
            if media is not None:
                return media
        if kind in ("executableCode", "toolCall") and isinstance(value, dict):
            return _server_call(kind, value, data)
        if kind in ("codeExecutionResult", "toolResponse") and isinstance(value, dict):
            return _server_result(kind, value, data)
        return _parts.UnknownPart(original_type=kind or next(iter(raw), None), raw=dict(raw), issuer=ISSUER)
    except SHAPE_ERRORS:
        pass  # a known part of an unexpected shape is kept whole, like an unknown one
    return _parts.UnknownPart(original_type=_kind(raw) or next(iter(raw), None), raw=dict(raw), issuer=ISSUER)


def _signature(sig: str, model: str | None) -> _parts.Opaque:
    """Gemini's ``thoughtSignature`` as an :class:`Opaque` (built when its values are exact
    strings, as read from JSON)."""
    if type(sig) is str and (model is None or type(model) is str):
        return build(_parts.Opaque, {"value": sig, "issuer": ISSUER, "model": model})
    return _parts.Opaque(value=sig, issuer=ISSUER, model=model)


def _call_from_wire(call: Mapping[str, Any], data: dict[str, Any]) -> ToolCallPart:
    wire_id = call.get("id")
    canonical, ids = call_identity(wire_id)
    if not (isinstance(wire_id, str) and wire_id):
        data["no_id"] = True
    inner = {k: v for k, v in call.items() if k not in ("id", "name", "args")}
    if inner:
        data["inner"] = inner
    args = call.get("args")
    fields = {"id": canonical, "name": call["name"],
              "arguments_json": json_text(args) if "args" in call else "",
              "provider_ids": ids, "provider_data": _pd(data)}
    if type(fields["name"]) is str and type(canonical) is str and (not ids or type(wire_id) is str):
        return build(ToolCallPart, fields)  # texts read from JSON: nothing left to validate
    return ToolCallPart(**fields)


def _server_call(kind: str, value: Mapping[str, Any], data: dict[str, Any]) -> _parts.ServerToolCallPart:
    wire_id = value.get("id")
    rest = {k: v for k, v in value.items() if k != "id"}
    if kind == "executableCode":
        name = CODE_EXECUTION
    else:
        tool_type = value.get("toolType")
        name = tool_type if isinstance(tool_type, str) and tool_type != CODE_EXECUTION else "tool_call"
    return _parts.ServerToolCallPart(id=wire_id if isinstance(wire_id, str) else "", name=name, input=rest,
                                     issuer=ISSUER, provider_data=_pd(data))


def _server_result(kind: str, value: Mapping[str, Any], data: dict[str, Any]) -> _parts.ServerToolResultPart:
    wire_id = value.get("id")
    rest = {k: v for k, v in value.items() if k != "id"}
    if kind == "codeExecutionResult":
        name = CODE_RESULT
    else:
        tool_type = value.get("toolType")
        name = tool_type if isinstance(tool_type, str) and tool_type != CODE_RESULT else "tool_response"
    return _parts.ServerToolResultPart(call_id=wire_id if isinstance(wire_id, str) else "", name=name,
                                       output=rest, issuer=ISSUER, provider_data=_pd(data))


def kind_of(mime: Any) -> str:
    """The part type :func:`media_from_wire` makes of a media type."""
    media_type = mime if isinstance(mime, str) else None
    major = (media_type or "").split("/", 1)[0]
    if major in ("image", "audio"):
        return major
    if major == "text" or media_type in (None, "application/pdf", "application/json"):
        return "document"
    return "unknown"


# The fields of Gemini's server-side tool parts; anything else there is not Gemini's.
_SERVER_FIELDS = {"executableCode": frozenset({"language", "code"}),
                  "codeExecutionResult": frozenset({"outcome", "output"}),
                  "toolCall": frozenset({"toolType", "args"}),
                  "toolResponse": frozenset({"toolType", "response"})}


class PartEncoder:
    """Canonical parts -> wire parts for one target model; what cannot go is reported."""

    __slots__ = ("_same", "issuers", "losses", "model")

    def __init__(self, *, issuers: Collection[str], model: str, losses: LossCollector) -> None:
        self.issuers = issuers if type(issuers) is frozenset else frozenset(issuers)
        self.model = model
        self.losses = losses
        self._same: dict[str | None, bool] = {}

    def _data(self, pd: ProviderData | None) -> Mapping[str, Any] | None:
        if pd is None:
            return None
        fields = pd.__dict__
        data = fields["data"]
        return data if type(data) is dict and fields["issuer"] in self.issuers else None

    def same_model(self, issued_by: str | None) -> bool:
        """Whether a signature ``issued_by`` may go to the target model (memoised per model)."""
        known = self._same.get(issued_by)
        if known is None:
            known = self._same[issued_by] = same_model(issued_by, self.model)
        return known

    def _beside(self, out: dict[str, Any], pd: ProviderData | None, path: str, part_type: str,
                message_id: str | None) -> dict[str, Any]:
        """Put the part's signature (same model only) and extra keys next to its data field."""
        data = self._data(pd)
        if data is None:
            if pd is not None and pd.issuer not in self.issuers:
                self.losses.add(f"{path}.provider_data", part_type, "dropped",
                                f"provider data from {pd.issuer} is not sent to Gemini", message_id)
            return out
        extra = data.get("extra")
        if isinstance(extra, dict):
            for key, value in extra.items():
                out.setdefault(key, value)
        sig = data.get("thoughtSignature")
        if isinstance(sig, str) and not base64_ok(sig):
            self.losses.add(f"{path}.provider_data", part_type, "dropped",
                            "its thought signature is not base64, so Gemini cannot read it",
                            message_id)
        elif isinstance(sig, str):
            issued_by = data.get("model")
            if self.same_model(issued_by if isinstance(issued_by, str) else None):
                out["thoughtSignature"] = sig
            else:
                self.losses.add(f"{path}.provider_data", part_type, "dropped",
                                f"its thought signature was issued by {issued_by}, which is not "
                                f"{self.model}; the part is sent without it", message_id)
        return out

    def part(self, part: Part, path: str, message_id: str | None) -> dict[str, Any] | None:
        """The wire part for ``part``, or ``None`` (with a loss) when it cannot be sent."""
        match part:
            case TextPart():
                return self._beside({"text": part.text}, part.provider_data, path, "text", message_id)
            case ThinkingPart():
                return self._thinking(part, path, message_id)
            case _parts.RedactedThinkingPart():
                self.losses.add(path, "redacted_thinking", "dropped",
                                f"encrypted reasoning from {part.data.issuer} cannot go to Gemini",
                                message_id)
                return None
            case ToolCallPart():
                return self.call(part, part.id, path, message_id)
            case ImagePart() | _parts.DocumentPart() | _parts.AudioPart():
                return self.media(part, path, message_id)
            case _parts.ServerToolCallPart() | _parts.ServerToolResultPart() | _parts.UnknownPart():
                return self._provider_part(part, path, message_id)
            case _parts.RefusalPart():
                self.losses.add(path, "refusal", "downgraded",
                                "Gemini has no refusal part; sent as text", message_id)
                return {"text": part.text}
            case _:
                assert_never(part)

    def _thinking(self, part: ThinkingPart, path: str, message_id: str | None) -> dict[str, Any] | None:
        sig = part.signature
        data = self._data(part.provider_data)
        if sig is not None and sig.issuer in self.issuers:
            out: dict[str, Any] = {"text": part.text, "thought": True}
            if not base64_ok(sig.value):
                self.losses.add(path, "thinking", "rewritten",
                                "its thought signature is not base64, so Gemini cannot read it; "
                                "sent without it", message_id)
            elif self.same_model(sig.model):
                out["thoughtSignature"] = sig.value
            else:
                self.losses.add(path, "thinking", "rewritten",
                                f"its thought signature was issued by {sig.model}, which is not "
                                f"{self.model}; sent without it", message_id)
            return self._beside(out, part.provider_data, path, "thinking", message_id)
        if sig is None and data is not None:
            return self._beside({"text": part.text, "thought": True}, part.provider_data, path,
                                "thinking", message_id)
        self.losses.add(path, "thinking", "dropped",
                        "reasoning is verifiable only by the provider that produced it", message_id)
        return None

    def call(self, part: ToolCallPart, wire_id: str | None, path: str,
             message_id: str | None) -> dict[str, Any]:
        """A ``functionCall`` part; ``wire_id`` ``None`` sends it without an id."""
        call: dict[str, Any] = {}
        if wire_id is not None:
            call["id"] = wire_id
        call["name"] = part.name
        text = part.arguments_json
        if text:
            try:
                args = parse_json(text)
            except ValueError:
                args = None
            if type(args) is not dict:
                self.losses.add(path, "tool_call", "rewritten",
                                "the arguments are not a JSON object (truncated or malformed) and "
                                "Gemini takes only an object; sent as {}", message_id)
                args = {}
            call["args"] = args
        data = self._data(part.provider_data)
        if data is not None and isinstance(data.get("inner"), dict):
            for key, value in data["inner"].items():
                call.setdefault(key, value)
        return self._beside({"functionCall": call}, part.provider_data, path, "tool_call", message_id)

    def media(self, part: ImagePart | _parts.DocumentPart | _parts.AudioPart, path: str,
              message_id: str | None) -> dict[str, Any] | None:
        """An ``inlineData`` or ``fileData`` part."""
        source = part.source
        body: dict[str, Any]
        key = "inlineData"
        match source:
            case _parts.Base64Source():
                mime = part.media_type or sniff_media_type(source.data) or "application/octet-stream"
                body = {"mimeType": mime, "data": source.data}
            case _parts.TextSource():
                self.losses.add(path, part.type, "rewritten",
                                "Gemini has no text source; the text is sent as inline "
                                "base64 data", message_id)
                mime = part.media_type or "text/plain"
                body = {"mimeType": mime,
                        "data": base64.b64encode(source.text.encode("utf-8")).decode("ascii")}
            case _parts.UrlSource():
                key = "fileData"
                body = {"fileUri": source.url}
                if part.media_type:
                    body["mimeType"] = part.media_type
            case _parts.ProviderFileSource():
                if source.issuer not in self.issuers:
                    self.losses.add(path, part.type, "dropped",
                                    f"file id {source.file_id} was issued by {source.issuer}; "
                                    "upload it to Gemini first", message_id)
                    return None
                key = "fileData"
                body = {"fileUri": source.file_id}
                if part.media_type:
                    body["mimeType"] = part.media_type
            case _parts.FileRefSource():
                self.losses.add(path, part.type, "dropped",
                                f"workspace file {source.path} must be read and sent as base64 "
                                "(Base64Source) first", message_id)
                return None
            case _:
                assert_never(source)
        kind = kind_of(body.get("mimeType"))
        if kind != part.type:
            media_type = body.get("mimeType")
            said = f"its media type {media_type}" if media_type else "with no media type, it"
            self.losses.add(path, part.type, "rewritten",
                            f"Gemini tells media apart by media type only; {said} is read back as "
                            f"{_article(kind)}, not {_article(part.type)}",
                            message_id)
        data = self._data(part.provider_data)
        if data is not None and isinstance(data.get("inner"), dict):
            for k, v in data["inner"].items():
                body.setdefault(k, v)
        if isinstance(part, _parts.DocumentPart) and (part.title or part.filename):
            # Blob.displayName exists, but the Gemini API refuses it (the SDK raises).
            self.losses.add(f"{path}.title", "document", "dropped",
                            "Gemini takes no document title or file name", message_id)
        return self._beside({key: body}, part.provider_data, path, part.type, message_id)

    def unknown_name(self, part: _parts.UnknownPart, path: str, message_id: str | None) -> None:
        """Report an unknown part's name when the wire cannot carry it (it is echoed as ``raw``).

        Gemini names a part by its data field; :func:`part_from_wire` reads the name back from
        ``raw`` (the data field, or its first key), so any other ``original_type`` is lost.
        """
        raw = part.raw
        if not isinstance(raw, dict):
            return
        said = _kind(raw) or next(iter(raw), None)
        if part.original_type != said:
            self.losses.add(f"{path}.original_type", "unknown", "rewritten",
                            f"a Gemini part is named by its data field; it is read back as "
                            f"{said!r}, not {part.original_type!r}", message_id)

    def _provider_part(self, part: _parts.ServerToolCallPart | _parts.ServerToolResultPart | _parts.UnknownPart,
                       path: str, message_id: str | None) -> dict[str, Any] | None:
        if part.issuer not in self.issuers:
            self.losses.add(path, part.type, "dropped",
                            f"provider-side data from {part.issuer} cannot go to Gemini", message_id)
            return None
        if isinstance(part, _parts.UnknownPart):
            # Gemini parts are keyed by their data field, never tagged with a "type".
            if isinstance(part.raw, dict) and part.raw and "type" not in part.raw:
                self.unknown_name(part, path, message_id)
                return dict(part.raw)
            self.losses.add(path, "unknown", "dropped", "not a Gemini part (a JSON object keyed by "
                            "its data field)", message_id)
            return None
        value = part.input if isinstance(part, _parts.ServerToolCallPart) else part.output
        if isinstance(part, _parts.ServerToolCallPart):
            key = "executableCode" if part.name == CODE_EXECUTION else "toolCall"
        else:
            key = "codeExecutionResult" if part.name == CODE_RESULT else "toolResponse"
        if not isinstance(value, dict) or not set(value) <= _SERVER_FIELDS[key]:
            self.losses.add(path, part.type, "dropped",
                            f"its content is not a Gemini {key} (fields "
                            f"{', '.join(sorted(_SERVER_FIELDS[key]))})", message_id)
            return None
        body: dict[str, Any] = dict(value)
        if key in ("toolCall", "toolResponse"):
            tool_type = body.get("toolType")
            said = tool_type if isinstance(tool_type, str) else (
                "tool_call" if key == "toolCall" else "tool_response")
            if said != part.name:
                self.losses.add(f"{path}.name", part.type, "rewritten",
                                f"a Gemini {key} is named by its toolType; '{part.name}' is not "
                                "sent", message_id)
        wire_id = part.id if isinstance(part, _parts.ServerToolCallPart) else part.call_id
        if wire_id:
            body = {"id": wire_id, **body}
        return self._beside({key: body}, part.provider_data, path, part.type, message_id)


def _article(kind: str) -> str:
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"
