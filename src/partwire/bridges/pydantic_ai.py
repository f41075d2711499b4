"""Bridge to pydantic-ai: its ``list[ModelMessage]`` <-> canonical history events, both ways.

The mapping table and what each direction keeps are in ``docs/migrate/pydantic-ai.md``.

A ``ModelRequest`` becomes one canonical message per part (system prompt, user prompt, tool
return); a ``ModelResponse`` becomes one assistant message. Every field the canonical form has no
place for is kept in ``provider_data`` (issuer ``pydantic-ai``), checked at import time by
rebuilding the part, so ``to_messages(from_messages(m))`` serialises exactly as ``m`` does.
Parts this bridge does not know (compaction, speech, tool search, ...) are kept verbatim as
``unknown`` parts or events. Ids are derived from the messages (import the same list twice,
get the same ids).

Requires ``pydantic-ai-slim`` (``pip install 'partwire[pydantic-ai]'``); imported on first call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar, assert_never

from partwire import messages as _messages
from partwire import parts as _parts
from partwire._base import CanonicalModel, ProviderData, replace
from partwire.bridges import _common
from partwire.bridges._common import UNKNOWN_FIELDS, Export, LossLog
from partwire.history import HistoryEvent, NonMessageEvent, UnknownEvent
from partwire.ids import derive_id
from partwire.usage import Usage

if TYPE_CHECKING:
    from pydantic import TypeAdapter
    from pydantic_ai.messages import ModelMessage

__all__ = ["ISSUER", "NAME", "from_messages", "read_dump", "to_messages"]

NAME = "pydantic_ai"
"""The bridge's name, as losses name it."""
ISSUER = "pydantic-ai"
"""The issuer of the ``provider_data`` this bridge writes and reads back."""

# pydantic-ai's finish reasons <-> ours; the pairs that do not map back are kept as extras.
_FINISH_TO_STOP: dict[str, _messages.StopReason] = {
    "stop": "stop", "length": "length", "content_filter": "content_filter",
    "tool_call": "tool_use", "error": "error",
}
_STOP_TO_FINISH: dict[str, str] = {str(v): k for k, v in _FINISH_TO_STOP.items()} | {"refusal": "content_filter"}
_OUTCOME_TO_STATUS: dict[str, _messages.ToolStatus] = {
    "success": "success", "failed": "error", "denied": "denied", "interrupted": "aborted",
    "retried": "error",
}
_STATUS_TO_OUTCOME = {"success": "success", "error": "failed", "denied": "denied",
                      "aborted": "interrupted"}
# pydantic-ai names providers by their API flavour; partwire by who issues ids and signatures.
_ISSUERS = {"google-gla": "google", "google-vertex": "google", "openai-responses": "openai"}
# Anthropic's redacted thinking, as pydantic-ai's Anthropic model stores it.
_REDACTED_ID = "redacted_thinking"


def from_messages(messages: Sequence[ModelMessage]) -> list[HistoryEvent]:
    """Import pydantic-ai messages (``result.all_messages()``) as canonical history events."""
    types = _Types()
    return _Importer(types).run(types.messages.dump_python(list(messages), mode="json"))


def read_dump(data: bytes | str | Sequence[Mapping[str, Any]]) -> list[HistoryEvent]:
    """Import a JSON dump of pydantic-ai messages (``ModelMessagesTypeAdapter.dump_json``)."""
    types = _Types()
    if isinstance(data, bytes | bytearray | str):
        messages = types.messages.validate_json(data)
    else:
        messages = types.messages.validate_python(list(data))
    return from_messages(messages)


def to_messages(history: Sequence[HistoryEvent], *, strict: bool = False) -> Export[ModelMessage]:
    """Export canonical events as pydantic-ai messages, with a loss for what they cannot hold.

    ``strict=True`` raises :class:`~partwire.errors.LossError` instead of losing anything.
    """
    types = _Types()
    log = LossLog(NAME)
    dumped = _Exporter(log).run(history)
    messages: list[ModelMessage] = types.messages.validate_python(dumped)
    return log.finish(messages, strict=strict)


class _Types:
    """pydantic-ai's type adapters, imported on first use."""

    def __init__(self) -> None:
        _common.require("pydantic_ai", "pydantic-ai")
        from pydantic import TypeAdapter
        from pydantic_ai.messages import (
            ModelMessagesTypeAdapter,
            ModelRequest,
            ModelRequestPart,
            ModelResponse,
            ModelResponsePart,
        )

        self.messages = ModelMessagesTypeAdapter
        self.request_part: TypeAdapter[Any] = TypeAdapter(ModelRequestPart)
        self.response_part: TypeAdapter[Any] = TypeAdapter(ModelResponsePart)
        self.request: TypeAdapter[Any] = TypeAdapter(ModelRequest)
        self.response: TypeAdapter[Any] = TypeAdapter(ModelResponse)

    def extras(self, adapter: TypeAdapter[Any], original: Mapping[str, Any],
               rebuilt: Mapping[str, Any]) -> dict[str, Any]:
        """The fields of ``original`` that rebuilding from the canonical form does not reproduce."""
        again = adapter.dump_python(adapter.validate_python(dict(rebuilt)), mode="json")
        return _common.differences(original, again)


# ---------------------------------------------------------------------------------------------
# pydantic-ai -> canonical


def _issuer(provider_name: Any) -> str:
    return _ISSUERS.get(provider_name, provider_name) if isinstance(provider_name, str) else ISSUER


def _call_id(tool_call_id: str) -> str:
    """The canonical id of a pydantic-ai tool call id: derived, so calls and returns agree."""
    return derive_id(ISSUER, tool_call_id, prefix="tu_")


# Canonical fields pydantic-ai has no place for, carried in its messages' ``metadata`` (which it
# never sends to a model) under "partwire", and only where they differ from what import derives.
_CARRIED = ("id", "metadata", "parent_id", "status", "api", "routing", "started_at", "finished_at",
            "truncated", "full_output_ref", "ui_extra", "side_effects", "stop_reason_raw")


def _carried(event: Any, derived_id: str) -> dict[str, Any]:
    """The canonical fields of ``event`` that only ``metadata["partwire"]`` can take there."""
    out: dict[str, Any] = {}
    fields = type(event).model_fields
    dumped = event.model_dump(mode="json", include=set(_CARRIED) & set(fields))
    for name, value in dumped.items():
        if name == "id":
            if value != derived_id:
                out[name] = value
        elif name == "status" and isinstance(event, _messages.ToolMessage):
            continue  # the tool return's outcome says it
        elif value != fields[name].get_default(call_default_factory=True):
            out[name] = value
    if unknown := _common.unknown_fields(event):
        out[UNKNOWN_FIELDS] = unknown
    return out


M = TypeVar("M", bound=CanonicalModel)


def _with_carried(event: M, carried: Any) -> M:
    if not isinstance(carried, dict) or not carried:
        return event
    return type(event).model_validate(_common.with_unknown_fields(event.model_dump(), carried))


def _identity(metadata: Any) -> dict[str, Any]:
    found = metadata.get("partwire") if isinstance(metadata, dict) else None
    return dict(found) if isinstance(found, dict) else {}  # a copy: readers pop what they take


class _Importer:
    def __init__(self, types: _Types) -> None:
        self.types = types
        self.events: list[HistoryEvent] = []
        self.previous: str | None = None
        # Canonical call id -> pydantic-ai's, for the calls seen so far (as the exporter sees them).
        self.ids: dict[str, str] = {}
        self.canonical: dict[str, str] = {}  # and back

    def run(self, dumped: list[dict[str, Any]]) -> list[HistoryEvent]:
        for i, message in enumerate(dumped):
            if message["kind"] == "request":
                self._request(i, message)
            else:
                self.events.append(self._response(i, message))
            self.previous = message["kind"]
        return self.events

    def _request(self, i: int, message: dict[str, Any]) -> None:
        start = len(self.events)
        self._request_parts(i, message)
        fields = {k: v for k, v in message.items() if k != "parts"}
        rebuilt = _request_fields(self.events[start:], i, self.ids) if message["parts"] else {}
        extras = self.types.extras(self.types.request, fields, {**rebuilt, "parts": []})
        # A marker only where grouping by position would be wrong: a request after a request.
        if message["parts"] and (extras or self.previous == "request"):
            self.events[start] = _mark(self.events[start], {"request": extras})

    def _request_parts(self, i: int, message: dict[str, Any]) -> None:
        if not message["parts"]:
            self.events.append(UnknownEvent(
                id=derive_id(ISSUER, str(i), at=_time(message.get("timestamp"))),
                original_type=f"{ISSUER}:request", raw=message))
            return
        carried = _identity(message.get("metadata")).get("parts")
        for j, part in enumerate(message["parts"]):
            self.events.append(self._request_part(
                i, j, part, carried[j] if isinstance(carried, list) and j < len(carried) else None))

    def _request_part(self, i: int, j: int, part: dict[str, Any], carried: Any) -> HistoryEvent:
        kind = part["part_kind"]
        when = _time(part.get("timestamp"))
        common: dict[str, Any] = {"id": derive_id(ISSUER, str(i), str(j), at=when)}
        if when is not None:
            common["created_at"] = when
        event: HistoryEvent
        if kind == "system-prompt":
            event = _messages.SystemMessage(parts=self._user_content(part["content"]), **common)
        elif kind == "user-prompt":
            event = _messages.UserMessage(parts=self._user_content(part["content"]), **common)
        elif kind in ("tool-return", "retry-prompt") and part.get("tool_name") is not None:
            content = part["content"]
            text = content if isinstance(content, str) else _common.compact_json(content)
            outcome = part.get("outcome", "retried" if kind == "retry-prompt" else "success")
            wire = part["tool_call_id"]
            event = _messages.ToolMessage(call_id=self.canonical.get(wire) or _call_id(wire), tool_name=part["tool_name"],
                                          status=_OUTCOME_TO_STATUS.get(outcome, "error"), output_text=text,
                                          data=None if isinstance(content, str) else content, **common)
        elif kind == "retry-feedback" and isinstance(part["content"], str):
            event = _messages.UserMessage(parts=(_parts.TextPart(text=part["content"]),), **common)
        else:
            return _with_carried(UnknownEvent(original_type=f"{ISSUER}:{kind}", raw=part, **common), carried)
        # The carried fields first: the part is checked against what export makes of the event
        # as it will be (a carried call id changes the tool_call_id it writes).
        event = _with_carried(event, carried)
        rebuilt = _request_part_to_dict(event, self.ids, None)
        extras = self.types.extras(self.types.request_part, part, rebuilt)
        return _mark(event, {"part": extras}) if extras else event

    def _user_content(self, content: str | list[Any]) -> tuple[_parts.Part, ...]:
        if isinstance(content, str):
            return (_parts.TextPart(text=content),)
        return tuple(_item_from_dict(item) for item in content)

    def _response(self, i: int, message: dict[str, Any]) -> _messages.AssistantMessage:
        issuer = _issuer(message.get("provider_name"))
        carried = _identity(message.get("metadata"))
        calls = carried.pop("calls", {})
        parts = tuple(self._response_part(p, issuer, calls) for p in message["parts"])
        provider = issuer if message.get("provider_name") else None
        model_name = message.get("model_name")
        finish = message.get("finish_reason")
        when = _time(message.get("timestamp"))
        msg = _messages.AssistantMessage(
            id=derive_id(ISSUER, str(i), at=when),
            **({"created_at": when} if when is not None else {}),
            parts=parts,
            model=_common.model_id(provider, model_name),
            provider=provider,
            response_id=message.get("provider_response_id"),
            stop_reason=_FINISH_TO_STOP.get(finish) if isinstance(finish, str) else None,
            usage=_usage_from_dict(message.get("usage")),
        )
        msg = _with_carried(msg, carried)
        fields = {k: v for k, v in message.items() if k != "parts"}
        rebuilt = _response_fields(msg, i)
        extras = self.types.extras(self.types.response, fields, {**rebuilt, "parts": []})
        if isinstance(extras.get("usage"), dict) and "usage" in rebuilt:
            # Only the usage fields the canonical counts do not carry (details, audio, cost).
            again = self.types.response.dump_python(
                self.types.response.validate_python({**rebuilt, "parts": []}), mode="json")["usage"]
            extras["usage"] = _common.differences(extras["usage"], again)
        return _mark(msg, {"response": extras}) if extras else msg

    def _response_part(self, part: dict[str, Any], issuer: str, calls: Any) -> _parts.Part:
        kind = part["part_kind"]
        own = _issuer(part.get("provider_name")) if part.get("provider_name") else issuer
        result: _parts.Part
        if kind == "text":
            result = _parts.TextPart(text=part["content"])
        elif kind == "thinking":
            signature = part.get("signature")
            if part.get("id") == _REDACTED_ID and not part["content"] and signature is not None:
                result = _parts.RedactedThinkingPart(data=_parts.Opaque(value=signature, issuer=own))
            else:
                result = _parts.ThinkingPart(text=part["content"], id=part.get("id"),
                                      # An empty signature is still one: exported as "", it
                                      # comes back as "" (None is the absent one).
                                             signature=_parts.Opaque(value=signature, issuer=own)
                                             if signature is not None else None)
        elif kind == "tool-call":
            args = part.get("args")
            wire = part["tool_call_id"]
            canonical = calls.get(wire) if isinstance(calls, dict) else None
            result = _parts.ToolCallPart(
                id=canonical if isinstance(canonical, str) else _call_id(wire), name=part["tool_name"],
                arguments_json=args if isinstance(args, str) else ("" if args is None else _common.compact_json(args)),
                # A call sent under its canonical id has no provider id to remember.
                provider_ids={} if canonical == wire else {issuer: wire})
            self.ids[result.id] = wire
            self.canonical[wire] = result.id
        elif kind == "builtin-tool-call":
            result = _parts.ServerToolCallPart(id=part["tool_call_id"], name=part["tool_name"],
                                               input=part.get("args"), issuer=own)
        elif kind == "builtin-tool-return":
            result = _parts.ServerToolResultPart(call_id=part["tool_call_id"], name=part["tool_name"],
                                                 output=part.get("content"), issuer=own)
        elif kind == "file":
            result = _item_from_dict(part["content"])
        else:
            return _parts.UnknownPart(original_type=f"{ISSUER}:{kind}", raw=part, issuer=ISSUER)
        rebuilt = _response_part_to_dict(result, {}, issuer, {}, None)
        if rebuilt is None:  # pragma: no cover - every kind above exports
            return _parts.UnknownPart(original_type=f"{ISSUER}:{kind}", raw=part, issuer=ISSUER)
        extras = self.types.extras(self.types.response_part, part, rebuilt)
        return _mark(result, {"part": extras}) if extras else result


def _time(value: Any) -> datetime | None:
    return datetime.fromisoformat(value) if isinstance(value, str) else None


def _mark(model: Any, data: dict[str, Any]) -> Any:
    merged = {**_common.extras_of(model.provider_data, ISSUER), **data}
    return replace(model, provider_data=ProviderData(issuer=ISSUER, data=merged))


def _item_from_dict(item: Any) -> _parts.Part:
    """A user-content item (or a FilePart's content) as a canonical part."""
    if isinstance(item, str):
        return _parts.TextPart(text=item)
    kind = item.get("kind") if isinstance(item, dict) else None
    media_type = item.get("media_type") if isinstance(item, dict) else None
    vendor = item.get("vendor_metadata") if isinstance(item, dict) else None
    # OpenAI's image detail hint, where pydantic-ai's OpenAI model reads it.
    detail = vendor.get("detail") if isinstance(vendor, dict) else None
    image: dict[str, Any] = {"detail": detail} if detail in ("auto", "low", "high", "original") else {}
    if kind == "binary" and isinstance(media_type, str):
        source = _parts.Base64Source(data=item["data"])
        match _binary_part_type(media_type):
            case "image":
                return _parts.ImagePart(source=source, media_type=media_type, **image)
            case "audio":
                return _parts.AudioPart(source=source, media_type=media_type)
            case _:
                return _parts.DocumentPart(source=source, media_type=media_type)
    if kind in ("image-url", "document-url", "audio-url"):
        url = _parts.UrlSource(url=item["url"])
        if media_type == _inferred_media_type(kind, item["url"]):
            media_type = None  # pydantic-ai guesses it from the URL again; canonical keeps none
        if kind == "image-url":
            return _parts.ImagePart(source=url, media_type=media_type, **image)
        if kind == "audio-url":
            return _parts.AudioPart(source=url, media_type=media_type)
        return _parts.DocumentPart(source=url, media_type=media_type)
    return _parts.UnknownPart(original_type=f"{ISSUER}:{kind}", raw=item, issuer=ISSUER)


def _binary_part_type(media_type: str) -> str:
    """The canonical part type inline bytes import as: pydantic-ai's binary content has no kind of
    its own, only a media type, so the media type decides (as pydantic-ai's is_image/is_audio do)."""
    if media_type.startswith("image/"):
        return "image"
    if media_type.startswith("audio/"):
        return "audio"
    return "document"


def _binary_mismatch(part: _parts.ImagePart | _parts.AudioPart | _parts.DocumentPart, log: LossLog | None,
                     path: str, message_id: str | None) -> None:
    """Report a part whose media type makes its inline bytes read back as another part type."""
    assert part.media_type is not None
    again = _binary_part_type(part.media_type)
    if again != part.type and log is not None:
        log.add(path, part.type, "rewritten",
                f"pydantic-ai binary content has no part type, only a media type; "
                f"{part.media_type} reads back as a {again} part", message_id)


def _inferred_media_type(kind: str, url: str) -> str | None:
    """The media type pydantic-ai infers from a URL, or None when it cannot."""
    from pydantic_ai import messages

    cls = {"image-url": messages.ImageUrl, "document-url": messages.DocumentUrl,
           "audio-url": messages.AudioUrl}[kind]
    try:
        return str(cls(url=url).media_type)
    except Exception:  # an unknown extension: pydantic-ai raises when asked
        return None


def _usage_from_dict(usage: Any) -> Usage | None:
    if not isinstance(usage, dict):
        return None
    found = Usage(input_tokens=usage.get("input_tokens", 0), output_tokens=usage.get("output_tokens", 0),
                 cache_read_tokens=usage.get("cache_read_tokens", 0),
                 cache_write_tokens=usage.get("cache_write_tokens", 0),
                 reasoning_tokens=usage.get("output_reasoning_tokens", 0))
    return None if found == Usage() else found


# ---------------------------------------------------------------------------------------------
# canonical -> pydantic-ai


def _iso(when: datetime) -> str:
    return when.isoformat()


def _request_fields(events: Sequence[HistoryEvent], i: int, ids: Mapping[str, str]) -> dict[str, Any]:
    """A request's ``metadata`` carrying what its parts' canonical events cannot say otherwise."""
    carried = [_carried(e, derive_id(ISSUER, str(i), str(j), at=getattr(e, "created_at", None)))
               for j, e in enumerate(events)]
    for found, event in zip(carried, events, strict=True):
        # A result whose call is not in the history: its canonical id cannot be derived back.
        if isinstance(event, _messages.ToolMessage) and event.call_id not in ids \
                and _call_id(event.call_id) != event.call_id:
            found["call_id"] = event.call_id
        # pydantic-ai holds one content: the data; a text that is not its JSON rides along.
        if isinstance(event, _messages.ToolMessage) and event.data is not None \
                and event.output_text != _common.compact_json(event.data):
            found["output_text"] = event.output_text
        if isinstance(event, _messages.ToolMessage) and isinstance(event.data, str):
            found["data"] = event.data  # a string content reads back as text, not data
    return {"metadata": {"partwire": {"parts": carried}}} if any(carried) else {}


def _response_fields(msg: _messages.AssistantMessage, i: int) -> dict[str, Any]:
    model_name = msg.model
    if msg.provider and model_name and model_name.startswith(f"{msg.provider}:"):
        model_name = model_name.split(":", 1)[1]
    out: dict[str, Any] = {"kind": "response", "model_name": model_name,
                           "provider_name": msg.provider, "timestamp": _iso(msg.created_at),
                           "provider_response_id": msg.response_id,
                           "finish_reason": _STOP_TO_FINISH.get(msg.stop_reason or "")}
    carried = _carried(msg, derive_id(ISSUER, str(i), at=msg.created_at))
    stop = msg.stop_reason
    if stop is not None and _FINISH_TO_STOP.get(_STOP_TO_FINISH.get(stop, "")) != stop:
        carried["stop_reason"] = stop  # refusal, pause, aborted: finish reasons cannot say them
    usage = msg.usage
    if usage is not None and (usage == Usage() or usage.cost is not None
                              or usage.pricing_version is not None or usage.latency_ms is not None):
        # Counts travel in pydantic-ai's usage; zero counts import as none, and cost or latency
        # have no place there.
        carried["usage"] = usage.model_dump(mode="json")
    calls = {c.provider_ids[msg.provider or ISSUER]: c.id for c in msg.parts
             if isinstance(c, _parts.ToolCallPart) and (msg.provider or ISSUER) in c.provider_ids
             and c.id != _call_id(c.provider_ids[msg.provider or ISSUER])}
    calls |= {c.id: c.id for c in msg.parts
              if isinstance(c, _parts.ToolCallPart) and (msg.provider or ISSUER) not in c.provider_ids
              and c.id != _call_id(c.id)}
    if calls:
        carried["calls"] = calls
    if carried:
        out["metadata"] = {"partwire": carried}
    if msg.usage is not None:
        out["usage"] = {"input_tokens": msg.usage.input_tokens,
                        "output_tokens": msg.usage.output_tokens,
                        "cache_read_tokens": msg.usage.cache_read_tokens,
                        "cache_write_tokens": msg.usage.cache_write_tokens,
                        "output_reasoning_tokens": msg.usage.reasoning_tokens}
    return out


def _item_to_dict(part: _parts.Part, log: LossLog | None, path: str, message_id: str | None) -> Any:
    """A canonical user part as a pydantic-ai user-content item (None: it cannot be one)."""
    match part:
        case _parts.TextPart():
            if part.citations and log is not None:
                log.add(path, "text", "dropped", "pydantic-ai user content has no citations",
                        message_id)
            return part.text
        case _parts.ImagePart() | _parts.AudioPart() | _parts.DocumentPart():
            kind = {"image": "image-url", "audio": "audio-url", "document": "document-url"}[part.type]
            vendor = ({"vendor_metadata": {"detail": part.detail}}
                      if isinstance(part, _parts.ImagePart) and part.detail is not None else {})
            if isinstance(part, _parts.DocumentPart) and log is not None:
                for name in ("title", "filename"):
                    if getattr(part, name) is not None:
                        log.add(f"{path}.{name}", "document", "dropped",
                                f"pydantic-ai content has no document {name}", message_id)
            if isinstance(part.source, _parts.UrlSource):
                out: dict[str, Any] = {"kind": kind, "url": part.source.url, **vendor}
                if part.media_type:
                    out["media_type"] = part.media_type
                    if part.media_type == _inferred_media_type(kind, part.source.url) and log is not None:
                        log.add(path, part.type, "rewritten",
                                "pydantic-ai infers this media type from the URL; it reads back as "
                                "none", message_id)
                return out
            if isinstance(part.source, _parts.Base64Source) and part.media_type:
                _binary_mismatch(part, log, path, message_id)
                return {"kind": "binary", "data": part.source.data, "media_type": part.media_type,
                        **vendor}
            if log is not None:
                log.add(path, part.type, "dropped",
                        f"pydantic-ai content takes URLs and inline bytes with a media type, "
                        f"not a {part.source.type} source", message_id)
            return None
        case _parts.UnknownPart() if part.issuer == ISSUER and isinstance(part.raw, dict):
            return part.raw
        case _:
            if log is not None:
                log.add(path, part.type, "dropped", f"pydantic-ai user content has no {part.type} part",
                        message_id)
            return None


def _request_part_to_dict(event: HistoryEvent, ids: Mapping[str, str],
                          log: LossLog | None, path: str = "", ) -> dict[str, Any]:
    """One canonical request-side event as a pydantic-ai request part dict (without extras)."""
    mid = getattr(event, "id", None)
    match event:
        case _messages.SystemMessage():
            texts = []
            for j, part in enumerate(event.parts):
                if isinstance(part, _parts.TextPart):
                    texts.append(part.text)
                    if part.citations and log is not None:
                        log.add(f"{path}.parts[{j}]", "text", "dropped",
                                "a pydantic-ai system prompt has no citations", mid)
                elif log is not None:
                    log.add(f"{path}.parts[{j}]", part.type, "dropped",
                            "a pydantic-ai system prompt holds text only", mid)
            if not event.parts and log is not None:
                log.add(path, "system_message", "rewritten",
                        "an empty system message becomes a system prompt of empty text", mid)
            if len(texts) > 1 and log is not None:
                log.add(path, "system_message", "rewritten",
                        "several text parts joined into one system prompt", mid)
            return {"part_kind": "system-prompt", "content": "\n\n".join(texts),
                    "timestamp": _iso(event.created_at)}
        case _messages.UserMessage() | _messages.DeveloperMessage():
            items = [x for j, p in enumerate(event.parts)
                     if (x := _item_to_dict(p, log, f"{path}.parts[{j}]", mid)) is not None]
            only_text = len(items) == 1 and isinstance(items[0], str)
            return {"part_kind": "user-prompt", "content": items[0] if only_text else items,
                    "timestamp": _iso(event.created_at)}
        case _messages.ToolMessage():
            if log is not None:
                for j, part in enumerate(event.parts):
                    log.add(f"{path}.parts[{j}]", part.type, "dropped",
                            "a pydantic-ai tool return carries its content only", mid)
            return {"part_kind": "tool-return", "tool_name": event.tool_name,
                    "content": event.data if event.data is not None else event.output_text,
                    "tool_call_id": ids.get(event.call_id, event.call_id),
                    "outcome": _STATUS_TO_OUTCOME[event.status],
                    "timestamp": _iso(event.created_at)}
        case _:  # pragma: no cover - the exporter routes only the cases above here
            raise TypeError(f"not a request event: {type(event).__name__}")


def _args_to_wire(arguments_json: str) -> Any:
    """Compact JSON objects go as dicts (as pydantic-ai's Anthropic and Gemini models store them),
    anything else as the exact text (as its OpenAI models do, and as malformed JSON must)."""
    if not arguments_json:
        return None
    try:
        value = json.loads(arguments_json)
    except json.JSONDecodeError:
        return arguments_json
    return value if isinstance(value, dict) and _common.compact_json(value) == arguments_json else arguments_json


def _opaque_model(opaque: _parts.Opaque, log: LossLog | None, path: str, message_id: str | None) -> None:
    if opaque.model is not None and log is not None:
        log.add(path, "opaque", "dropped",
                f"pydantic-ai keeps no model beside a signature ({opaque.model})", message_id)


def _response_part_to_dict(part: _parts.Part, ids: dict[str, str], issuer: str,
                           accepted: Mapping[str, str], log: LossLog | None,
                           path: str = "", message_id: str | None = None) -> dict[str, Any] | None:
    """One canonical assistant part as a pydantic-ai response part dict (without extras)."""
    match part:
        case _parts.TextPart():
            if part.citations and log is not None:
                log.add(path, "text", "dropped", "citations have no canonical place in pydantic-ai",
                        message_id)
            return {"part_kind": "text", "content": part.text}
        case _parts.ThinkingPart():
            out: dict[str, Any] = {"part_kind": "thinking", "content": part.text, "id": part.id}
            if part.signature is not None:
                _opaque_model(part.signature, log, path, message_id)
                out["signature"] = part.signature.value
                out["provider_name"] = accepted.get(part.signature.issuer, part.signature.issuer)
            return out
        case _parts.RedactedThinkingPart():
            _opaque_model(part.data, log, path, message_id)
            return {"part_kind": "thinking", "content": "", "id": _REDACTED_ID,
                    "signature": part.data.value,
                    "provider_name": accepted.get(part.data.issuer, part.data.issuer)}
        case _parts.ToolCallPart():
            wire = part.provider_ids.get(issuer)
            if wire is None and part.provider_ids and log is not None:
                log.add(path, "tool_call", "id_mapped",
                        f"no id from {issuer}; the canonical id {part.id} replaces "
                        f"{sorted(part.provider_ids.values())}", message_id)
            ids[part.id] = wire or part.id
            return {"part_kind": "tool-call", "tool_name": part.name,
                    "args": _args_to_wire(part.arguments_json), "tool_call_id": wire or part.id}
        case _parts.ServerToolCallPart():
            args = part.input
            if args is not None and not isinstance(args, dict):
                if log is not None:
                    log.add(path, "server_tool_call", "rewritten",
                            "pydantic-ai holds built-in tool arguments as an object or text; "
                            "this JSON goes as text", message_id)
                args = _common.compact_json(args)
            return {"part_kind": "builtin-tool-call", "tool_name": part.name, "args": args,
                    "tool_call_id": part.id, "provider_name": accepted.get(part.issuer, part.issuer)}
        case _parts.ServerToolResultPart():
            return {"part_kind": "builtin-tool-return", "tool_name": part.name,
                    "content": part.output, "tool_call_id": part.call_id,
                    "provider_name": accepted.get(part.issuer, part.issuer)}
        case _parts.ImagePart() | _parts.AudioPart() | _parts.DocumentPart():
            if isinstance(part.source, _parts.Base64Source) and part.media_type:
                _binary_mismatch(part, log, path, message_id)
                return {"part_kind": "file", "content": {"kind": "binary", "data": part.source.data,
                                                         "media_type": part.media_type}}
            if log is not None:
                log.add(path, part.type, "dropped",
                        "a pydantic-ai file part holds inline bytes with a media type only",
                        message_id)
            return None
        case _parts.RefusalPart():
            if log is not None:
                log.add(path, "refusal", "downgraded", "pydantic-ai has no refusal part; sent as text",
                        message_id)
            return {"part_kind": "text", "content": part.text}
        case _parts.UnknownPart():
            if part.issuer == ISSUER and isinstance(part.raw, dict):
                return dict(part.raw)
            _common.drop_unknown(part, log, path, message_id, "pydantic-ai")
            return None
        case _:
            assert_never(part)


class _Exporter:
    def __init__(self, log: LossLog) -> None:
        self.log = log
        self.out: list[dict[str, Any]] = []
        self.request: dict[str, Any] | None = None
        self.request_events: list[HistoryEvent] = []
        self.ids: dict[str, str] = {}

    def run(self, history: Sequence[HistoryEvent]) -> list[dict[str, Any]]:
        for i, event in enumerate(history):
            self._event(i, event)
        self._flush()
        return self.out

    def _flush(self) -> None:
        if self.request is not None:
            # Fields the import kept (the marker) win over those rebuilt from the events.
            self.out.append({**_request_fields(self.request_events, len(self.out), self.ids),
                             **self.request})
            self.request = None
            self.request_events = []

    def _open(self, fields: dict[str, Any] | None) -> dict[str, Any]:
        if fields is not None:
            self._flush()
        if self.request is None:
            self.request = {"kind": "request", "parts": [], **(fields or {})}
        return self.request

    def _event(self, i: int, event: HistoryEvent) -> None:
        path = f"history[{i}]"
        match event:
            case _messages.AssistantMessage():
                self._flush()
                self.out.append(self._response(event, path))
            case (_messages.SystemMessage() | _messages.UserMessage() | _messages.DeveloperMessage()
                  | _messages.ToolMessage()):
                own = _common.extras_of(event.provider_data, ISSUER)
                if event.provider_data is not None and event.provider_data.issuer != ISSUER:
                    self.log.add(path, f"{event.role}_message", "dropped",
                                 f"provider data from {event.provider_data.issuer} has no place in "
                                 "pydantic-ai", event.id)
                if isinstance(event, _messages.DeveloperMessage):
                    self.log.add(path, "developer_message", "attached",
                                 "pydantic-ai has no developer role; sent as a user prompt", event.id)
                for j, each in enumerate(event.parts):
                    if reason := _common.unknown_fields_reason(each, "pydantic-ai"):
                        self.log.add(f"{path}.parts[{j}]", each.type, "dropped", reason, event.id)
                part = {**_request_part_to_dict(event, self.ids, self.log, path), **own.get("part", {})}
                self._open(own.get("request"))["parts"].append(part)
                self.request_events.append(event)
            case UnknownEvent() if event.original_type == f"{ISSUER}:request":
                self._flush()
                self.out.append(dict(event.raw) if isinstance(event.raw, dict) else {})
            case UnknownEvent() if (event.original_type or "").startswith(f"{ISSUER}:") \
                    and isinstance(event.raw, dict):
                self._open(None)["parts"].append(dict(event.raw))
                self.request_events.append(event)
            case NonMessageEvent():
                self.log.add(path, event.type, "dropped",
                             f"pydantic-ai message history has no {event.type} event", event.id)
            case _:
                assert_never(event)

    def _response(self, msg: _messages.AssistantMessage, path: str) -> dict[str, Any]:
        issuer = msg.provider or ISSUER
        own = _common.extras_of(msg.provider_data, ISSUER)
        if msg.provider_data is not None and msg.provider_data.issuer != ISSUER:
            self.log.add(path, "assistant_message", "dropped",
                         f"provider data from {msg.provider_data.issuer} has no place in pydantic-ai",
                         msg.id)
        # pydantic-ai names the provider the way the response did; the canonical issuer maps back.
        accepted = {issuer: own.get("response", {}).get("provider_name", issuer)} if msg.provider else {}
        parts: list[dict[str, Any]] = []
        for j, part in enumerate(msg.parts):
            ppath = f"{path}.parts[{j}]"
            if part.provider_data is not None and part.provider_data.issuer != ISSUER:
                self.log.add(ppath, part.type, "dropped",
                             f"provider data from {part.provider_data.issuer} has no place in "
                             "pydantic-ai", msg.id)
            if reason := _common.unknown_fields_reason(part, "pydantic-ai"):
                self.log.add(ppath, part.type, "dropped", reason, msg.id)
            wire = _response_part_to_dict(part, self.ids, issuer, accepted, self.log, ppath, msg.id)
            if wire is not None:
                parts.append({**wire, **_common.extras_of(part.provider_data, ISSUER).get("part", {})})
        fields = _response_fields(msg, len(self.out))
        extra = dict(own.get("response", {}))
        if isinstance(extra.get("usage"), dict) and "usage" in fields:
            fields["usage"] = {**fields["usage"], **extra.pop("usage")}
        return {**fields, **extra, "parts": parts}

