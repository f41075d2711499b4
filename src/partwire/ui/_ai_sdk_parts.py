"""One canonical part to one AI SDK UI part and back; shared by the UIMessage and stream formats.

A UI part holds what the SDK has a field for: text, reasoning text, a tool's input and output, a
file's URL. Signatures, redacted data and item ids go where the SDK's own provider packages put
them (``providerMetadata.anthropic.signature``, ``.openai.itemId``, ``.google.thoughtSignature``).
The rest of the canonical part (provider echo state, citations, provider call ids, the exact
bytes of tool arguments...) rides under ``providerMetadata.partwire``: the part's canonical JSON
without the fields the UI part already holds. A reader rebuilds the part from that when it is
there, and from the UI fields alone when it is not (a message the SDK or an app wrote).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from partwire import parts as _parts
from partwire.ui._common import (
    CARRIER,
    UI_ISSUER,
    carried,
    json_text,
    merge_metadata,
    native_signature,
    parsed_or_text,
    part_from_json,
    part_json,
    signature_metadata,
    source_from_url,
    source_url,
    strip,
)

__all__ = ["DATA_PART", "call_to_ui", "file_to_ui", "native_metadata", "part_from_ui",
           "reasoning_to_ui", "text_to_ui", "tool_name"]

DATA_PART = "data-partwire-part"
"""The UI part type that carries a canonical part the SDK has no part for, whole."""
_FALLBACK_MEDIA_TYPE = "application/octet-stream"


def native_metadata(part: _parts.Part) -> dict[str, dict[str, Any]]:
    """A part's opaque state as the AI SDK's provider packages write it in provider metadata."""
    if isinstance(part, _parts.ThinkingPart | _parts.RedactedThinkingPart):
        return signature_metadata(part)
    pd = part.provider_data
    if pd is None or not isinstance(pd.data, Mapping):
        return {}
    out: dict[str, Any] = {}
    sig = pd.data.get("thoughtSignature")
    if isinstance(sig, str):
        out["thoughtSignature"] = sig
    item = pd.data.get("item")
    if isinstance(item, Mapping) and isinstance(item.get("id"), str):
        out["itemId"] = item["id"]
    return {pd.issuer: out} if out else {}


def _with_carrier(native: dict[str, dict[str, Any]], extras: dict[str, Any]) -> dict[str, Any]:
    return merge_metadata(native, {CARRIER: extras} if extras else None)


def text_to_ui(part: _parts.TextPart | _parts.RefusalPart) -> dict[str, Any]:
    """A text or refusal part as a UI ``text`` part."""
    extras = strip(part_json(part), ("text",))
    if extras == {"type": "text"}:
        extras = {}
    ui: dict[str, Any] = {"type": "text", "text": part.text, "state": "done"}
    meta = _with_carrier(native_metadata(part), extras)
    if meta:
        ui["providerMetadata"] = meta
    return ui


def reasoning_to_ui(part: _parts.ThinkingPart | _parts.RedactedThinkingPart) -> dict[str, Any]:
    """A thinking or redacted thinking part as a UI ``reasoning`` part."""
    extras = part_json(part)
    if isinstance(part, _parts.ThinkingPart):
        extras = strip(extras, ("text",))
        if "signature" in extras:
            extras["signature"] = strip(extras["signature"], ("value",))
        text = part.text
    else:
        extras["data"] = strip(extras["data"], ("value",))
        text = ""
    if extras == {"type": "thinking"}:
        extras = {}
    ui: dict[str, Any] = {"type": "reasoning", "text": text, "state": "done"}
    meta = _with_carrier(native_metadata(part), extras)
    if meta:
        ui["providerMetadata"] = meta
    return ui


def tool_name(name: str) -> str:
    """The UI part type of a tool's calls."""
    return f"tool-{name}"


def call_to_ui(part: _parts.ToolCallPart | _parts.ServerToolCallPart) -> dict[str, Any]:
    """A tool call, or a provider-run tool call, as a UI ``tool-{name}`` part awaiting output."""
    extras = part_json(part)
    if isinstance(part, _parts.ToolCallPart):
        value = parsed_or_text(part.arguments_json)
        keep_args = json_text(value) != part.arguments_json
        extras = strip(extras, ("id", "name") if keep_args else ("id", "name", "arguments_json"))
        if extras == {"type": "tool_call"}:
            extras = {}
        ui: dict[str, Any] = {"type": tool_name(part.name), "toolCallId": part.id,
                              "state": "input-available", "input": value}
    else:
        extras = strip(extras, ("id", "name", "input"))
        ui = {"type": tool_name(part.name), "toolCallId": part.id, "state": "input-available",
              "input": part.input, "providerExecuted": True}
    meta = _with_carrier(native_metadata(part), extras)
    if meta:
        ui["callProviderMetadata"] = meta
    return ui


def file_to_ui(part: _parts.ImagePart | _parts.DocumentPart | _parts.AudioPart) -> dict[str, Any]:
    """A media part as a UI ``file`` part (base64 data as a ``data:`` URL)."""
    media_type = part.media_type or _FALLBACK_MEDIA_TYPE
    url, reference = source_url(part.source, media_type)
    ui: dict[str, Any] = {"type": "file", "mediaType": media_type, "url": url}
    filename = getattr(part, "filename", None)
    if filename:
        ui["filename"] = filename
    if reference:
        ui["providerReference"] = reference
    extras = part_json(part)
    if extras["source"]["type"] == "base64":
        extras["source"] = {"type": "base64"}
    meta = _with_carrier(native_metadata(part), extras)
    ui["providerMetadata"] = meta
    return ui


def unknown_to_ui(part: _parts.Part) -> dict[str, Any]:
    """A part the SDK has no part for: a ``data-partwire-part`` holding it whole, or, for an
    unknown part read from a UI message, that UI part again as it came."""
    if isinstance(part, _parts.UnknownPart) and part.issuer == UI_ISSUER and isinstance(part.raw, dict) \
            and part.provider_data is None:
        return dict(part.raw)
    return {"type": DATA_PART, "data": part_json(part)}


# -- reading ------------------------------------------------------------------------------------


def _fill(extras: dict[str, Any], native: dict[str, Any], held: tuple[str, ...]) -> dict[str, Any]:
    """The canonical JSON of a part: partwire's carried fields when there are any, with the
    fields the UI part holds (``held``) put back, else what the UI part alone says."""
    if not extras:
        return native
    out = {key: native[key] for key in held if key in native}
    for key, value in extras.items():
        inner = out.get(key)
        # a nested value partwire trimmed (a signature without its value, base64 without its
        # data) takes the UI's piece back; one of another type is the whole value
        if isinstance(value, dict) and isinstance(inner, dict) and \
                value.get("type", inner.get("type")) == inner.get("type"):
            out[key] = {**inner, **value}
        else:
            out[key] = value
    return out


def part_from_ui(ui: Mapping[str, Any], fmt: str, path: str) -> _parts.Part:
    """The canonical part of a UI text, reasoning, file or data part (tool parts are read by
    their callers, with their output); anything else comes back as an unknown part of the SDK."""
    kind = ui.get("type")
    meta = ui.get("providerMetadata")
    meta = meta if isinstance(meta, Mapping) else {}
    extras = carried(meta)
    if kind == "text" and isinstance(ui.get("text"), str):
        native: dict[str, Any] = {"type": "text", "text": ui["text"]}
        return part_from_json(_fill(extras, native, ("text",)), fmt, path)
    if kind == "reasoning" and isinstance(ui.get("text"), str):
        item_id, signature, redacted = native_signature(meta)
        if extras.get("type") == "redacted_thinking" or (redacted is not None and not extras):
            native = {"type": "redacted_thinking",
                      "data": redacted.model_dump(mode="json") if redacted else {}}
        else:
            native = {"type": "thinking", "text": ui["text"]}
            if signature is not None:
                native["signature"] = signature.model_dump(mode="json")
            if item_id is not None:
                native["id"] = item_id
        return part_from_json(_fill(extras, native, ("text", "signature", "data")), fmt, path)
    if kind == "file" and isinstance(ui.get("url"), str) and isinstance(ui.get("mediaType"), str):
        reference = ui.get("providerReference")
        source = source_from_url(ui["url"], reference if isinstance(reference, Mapping) else None)
        if extras.get("source") == {"type": "base64"} and ";base64," in ui["url"]:
            # partwire wrote the data into the URL as it was, valid base64 or not
            source = _parts.Base64Source(data=ui["url"].split(";base64,", 1)[1])
        media_type: str = ui["mediaType"]
        part_type = "image" if media_type.startswith("image/") else \
            "audio" if media_type.startswith("audio/") else "document"
        native = {"type": part_type, "source": source.model_dump(mode="json"),
                  "media_type": media_type}
        if isinstance(ui.get("filename"), str) and part_type == "document":
            native["filename"] = ui["filename"]
        return part_from_json(_fill(extras, native, ("source",)), fmt, path)
    if kind == DATA_PART and isinstance(ui.get("data"), Mapping):
        return part_from_json(ui["data"], fmt, f"{path}.data")
    return _parts.UnknownPart(original_type=kind if isinstance(kind, str) else None, raw=dict(ui),
                              issuer=UI_ISSUER)


def call_from_ui(ui: Mapping[str, Any], name: str, fmt: str, path: str) -> _parts.Part:
    """The call of a UI tool part: a tool call, or a provider-run tool call."""
    meta = ui.get("callProviderMetadata")
    meta = meta if isinstance(meta, Mapping) else {}
    extras = strip(carried(meta), ("result",))
    call_id = ui["toolCallId"]
    value = ui.get("input")
    if ui.get("providerExecuted") is True:
        issuer = extras.get("issuer") or next((k for k in meta if k != CARRIER), UI_ISSUER)
        native: dict[str, Any] = {"type": "server_tool_call", "id": call_id, "name": name,
                                  "input": value, "issuer": issuer}
        held: tuple[str, ...] = ("id", "name", "input")
    else:
        raw = ui.get("rawInput")
        if ui.get("state") == "input-streaming" and value is None:
            arguments = raw if isinstance(raw, str) else ""  # nothing streamed yet
        else:
            arguments = json_text(value)
        native = {"type": "tool_call", "id": call_id, "name": name, "arguments_json": arguments}
        held = ("id", "name", "arguments_json")
        ids = _native_ids(meta)
        if ids:
            native["provider_data"] = ids
    return part_from_json(_fill(extras, native, held), fmt, path)


def _native_ids(meta: Mapping[str, Any]) -> dict[str, Any] | None:
    """Provider data for a call read from a foreign UI part: Gemini's thought signature and a
    Responses item id, as those adapters keep them."""
    for issuer, fields in meta.items():
        if issuer == CARRIER or not isinstance(fields, Mapping):
            continue
        data: dict[str, Any] = {}
        if isinstance(fields.get("thoughtSignature"), str):
            data["thoughtSignature"] = fields["thoughtSignature"]
        if isinstance(fields.get("itemId"), str):
            data["item"] = {"id": fields["itemId"]}
        if data:
            return {"issuer": issuer, "data": data}
    return None
