"""Canonical parts -> Chat Completions content parts: text, images, files, audio.

The part of the encoder a user, developer or tool message needs: every part a content list can
hold, with the losses of what it cannot. Wire keys a request import left in a part's
``provider_data`` (``block`` for the part, ``inner`` for its inner object) are read only from
accepted issuers; another issuer's echo state is not sent, and that is reported.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping, Sequence
from typing import Any, assert_never

from partwire import parts as _parts
from partwire._base import ProviderData
from partwire._media import decode_base64, sniff_media_type
from partwire.adapters._losses import LossCollector, foreign_unknown_reason
from partwire.adapters._provenance import data_of
from partwire.adapters.openai_chat._dialects import Dialect
from partwire.adapters.openai_chat._wire import (
    AUDIO_FORMATS,
    DOCUMENT_MEDIA_TYPES,
    IMAGE_MEDIA_TYPES,
    WirePart,
    data_url,
)

# The part types every conversion meets, by name; the rarer ones through the module.
from partwire.parts import ImagePart, Part, TextPart, ThinkingPart, ToolCallPart

__all__ = ["FileResolver", "PartEncoder", "as_dict"]

FileResolver = Callable[[_parts.FileRefSource], bytes]
"""Reads a workspace file reference, so it can be sent inline."""


def as_dict(value: Any) -> dict[str, Any] | None:
    """``value`` when it is a dict (echo state may hold anything), else ``None``."""
    return value if isinstance(value, dict) else None


class PartEncoder:
    """Encodes content parts for one dialect and one set of accepted issuers, recording losses."""

    def __init__(self, *, dialect: Dialect, issuers: frozenset[str], losses: LossCollector,
                 resolve_file: FileResolver | None) -> None:
        self.dialect = dialect
        self.issuers = issuers
        self.losses = losses
        self.resolve_file = resolve_file

    def _marks(self, pd: ProviderData | None) -> Mapping[str, Any]:
        return data_of(pd, self.issuers) or {}

    def _content(self, parts: Sequence[Part], path: str, message_id: str) -> list[tuple[WirePart, bool]]:
        items: list[tuple[WirePart, bool]] = []
        for j, part in enumerate(parts):
            where = f"{path}.parts[{j}]"
            if type(part) is TextPart:
                items.append(self._text(part, where, message_id))
                continue
            item = self._part(part, where, message_id)
            if item is not None:
                items.append((item, False))
        return items

    def _text_only(self, parts: Sequence[Part], path: str, message_id: str) -> list[tuple[WirePart, bool]]:
        items: list[tuple[WirePart, bool]] = []
        for j, part in enumerate(parts):
            where = f"{path}.parts[{j}]"
            if isinstance(part, TextPart):
                items.append(self._text(part, where, message_id))
            elif isinstance(part, _parts.UnknownPart) and self._own_unknown(part):
                items.append((dict(part.raw), False))  # type: ignore[arg-type]
            else:
                self.losses.add(where, part.type, "dropped", "a system message takes text only",
                                message_id)
        return items

    def _block(self, pd: ProviderData | None, path: str, part_type: str,
               message_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """The wire keys a part brought along (outer, inner object), from an accepted issuer."""
        if pd is None:
            return {}, {}
        if pd.issuer in self.issuers:
            data = as_dict(pd.data) or {}
            return as_dict(data.get("block")) or {}, as_dict(data.get("inner")) or {}
        self.losses.add(f"{path}.provider_data", part_type, "dropped",
                        f"provider data from {pd.issuer} is not sent to {self.dialect.name}",
                        message_id)
        return {}, {}

    def _text(self, part: TextPart, path: str, message_id: str) -> tuple[WirePart, bool]:
        item: WirePart = {"type": "text", "text": part.text}
        if part.citations:
            self.losses.add(f"{path}.citations", "text", "dropped",
                            "a Chat Completions request cannot carry citations", message_id)
        if part.provider_data is None:
            return item, True
        block, _ = self._block(part.provider_data, path, "text", message_id)
        if block:
            return {**block, **item}, False
        return item, True

    def _part(self, part: Part, path: str, message_id: str) -> WirePart | None:
        """A non-text part as a user content item (``None`` when it cannot be sent)."""
        match part:
            case TextPart():
                return self._text(part, path, message_id)[0]
            case ImagePart():
                if not self._takes(part, path, message_id):
                    return None
                return self._image(part, path, message_id)
            case _parts.DocumentPart():
                if not self._takes(part, path, message_id):
                    return None
                return self._document(part, path, message_id)
            case _parts.AudioPart():
                if not self._takes(part, path, message_id):
                    return None
                return self._audio(part, path, message_id)
            case _parts.RefusalPart():
                self.losses.add(path, "refusal", "downgraded",
                                "only assistant messages hold refusals; sent as text", message_id)
                return {"type": "text", "text": part.text}
            case _parts.UnknownPart():
                if self._own_unknown(part):
                    return dict(part.raw)  # type: ignore[arg-type]
                self.losses.add(path, "unknown", "dropped",
                                foreign_unknown_reason(part),
                                message_id)
                return None
            case ThinkingPart() | _parts.RedactedThinkingPart():
                self.losses.add(path, part.type, "dropped",
                                "reasoning is sent only inside assistant messages", message_id)
                return None
            case ToolCallPart():
                self.losses.add(path, "tool_call", "dropped",
                                "tool calls are sent only inside assistant messages", message_id)
                return None
            case _parts.ServerToolCallPart() | _parts.ServerToolResultPart():
                self.losses.add(path, part.type, "dropped",
                                f"Chat Completions has no provider-run tools; a {part.type} from "
                                f"{part.issuer} can only be replayed to {part.issuer}", message_id)
                return None
            case _:
                assert_never(part)

    def _takes(self, part: ImagePart | _parts.DocumentPart | _parts.AudioPart, path: str, message_id: str) -> bool:
        """Whether the dialect's server takes this kind of media at all (else: dropped, reported).

        A text document still goes, as text, to a server that takes no documents.
        """
        caps = self.dialect.capabilities
        allowed = {"image": caps.images, "document": caps.documents, "audio": caps.audio}[part.type]
        if allowed or (isinstance(part, _parts.DocumentPart) and (isinstance(part.source, _parts.TextSource) or (
                part.media_type or "").startswith("text/"))):
            return True
        self.losses.add(path, part.type, "dropped",
                        f"{self.dialect.name} takes no {part.type} input", message_id)
        return False

    def _own_unknown(self, part: _parts.UnknownPart) -> bool:
        return (part.issuer in self.issuers and isinstance(part.raw, dict)
                and (data_of(part.provider_data, self.issuers) or {}).get("field") is None)

    def _media_data(self, part: ImagePart | _parts.DocumentPart | _parts.AudioPart, path: str,
                    message_id: str) -> tuple[str, str | None] | None:
        """Base64 data and media type of an inline or workspace source; ``None`` when neither."""
        source = part.source
        if isinstance(source, _parts.Base64Source):
            return source.data, part.media_type
        if isinstance(source, _parts.FileRefSource):
            if self.resolve_file is None:
                self.losses.add(path, part.type, "dropped",
                                f"workspace file {source.path} needs resolve_file= to be sent",
                                message_id)
                return None
            return base64.b64encode(self.resolve_file(source)).decode("ascii"), part.media_type
        return None

    def _image(self, part: ImagePart, path: str, message_id: str) -> WirePart | None:
        source = part.source
        if isinstance(source, _parts.UrlSource):
            url = source.url
        elif isinstance(source, _parts.Base64Source | _parts.FileRefSource):
            found = self._media_data(part, path, message_id)
            if found is None:
                return None
            data, media_type = found
            media_type = media_type or sniff_media_type(data)
            if media_type not in IMAGE_MEDIA_TYPES:
                self.losses.add(path, "image", "dropped",
                                f"Chat Completions does not take {media_type or 'untyped'} images "
                                f"(it takes {', '.join(sorted(IMAGE_MEDIA_TYPES))})", message_id)
                return None
            url = data_url(media_type, data)
        else:
            self.losses.add(path, "image", "dropped", self._unreadable(source), message_id)
            return None
        block, inner = self._block(part.provider_data, path, "image", message_id)
        image: dict[str, Any] = {"url": url}
        if part.detail is not None:
            image["detail"] = part.detail
        if inner:
            image.update({k: v for k, v in inner.items() if k not in image})
        item: WirePart = {"type": "image_url", "image_url": image}
        return {**block, **item} if block else item

    def _unreadable(self, source: Any) -> str:
        if isinstance(source, _parts.ProviderFileSource):
            return (f"file {source.file_id} from {source.issuer} cannot be sent as an image; Chat "
                    "Completions takes images by URL or inline")
        return f"Chat Completions cannot read a {source.type} source here"

    def _document(self, part: _parts.DocumentPart, path: str, message_id: str) -> WirePart | None:
        source = part.source
        block, inner = self._block(part.provider_data, path, "document", message_id)
        file: dict[str, Any] = {}
        if isinstance(source, _parts.TextSource):
            return self._document_as_text(part, source.text, path, message_id)
        if isinstance(source, _parts.ProviderFileSource):
            if source.issuer not in self.issuers:
                self.losses.add(path, "document", "dropped",
                                f"file {source.file_id} was uploaded to {source.issuer}; "
                                f"{self.dialect.name} cannot read it", message_id)
                return None
            file["file_id"] = source.file_id
        elif isinstance(source, _parts.Base64Source | _parts.FileRefSource):
            found = self._media_data(part, path, message_id)
            if found is None:
                return None
            data, media_type = found
            if media_type is None and inner.get("raw") is True:
                file["file_data"] = data  # an import that sent bare base64
            else:
                media_type = media_type or sniff_media_type(data) or "application/pdf"
                if media_type.startswith("text/"):
                    raw = decode_base64(data)
                    if raw is not None:
                        return self._document_as_text(part, raw.decode("utf-8", errors="replace"),
                                                      path, message_id)
                if media_type not in DOCUMENT_MEDIA_TYPES:
                    self.losses.add(path, "document", "dropped",
                                    f"Chat Completions files take {', '.join(sorted(DOCUMENT_MEDIA_TYPES))},"
                                    f" not {media_type}", message_id)
                    return None
                file["file_data"] = data_url(media_type, data)
        else:
            self.losses.add(path, "document", "dropped",
                            "Chat Completions files cannot be fetched from a URL", message_id)
            return None
        filename = part.filename
        if part.title is not None:
            if filename is None or filename == part.title:  # as Responses: the title is the name sent
                filename = part.title
                self.losses.add(f"{path}.title", "document", "rewritten",
                                "Chat Completions files have a filename but no title; the title "
                                "is sent as the filename", message_id)
            else:
                self.losses.add(f"{path}.title", "document", "dropped",
                                "Chat Completions files have a filename but no title", message_id)
        if filename is not None:
            file["filename"] = filename
        file.update({k: v for k, v in inner.items() if k not in file and k != "raw"})
        item: WirePart = {"type": "file", "file": file}
        return {**block, **item} if block else item

    def _document_as_text(self, part: _parts.DocumentPart, text: str, path: str,
                          message_id: str) -> WirePart:
        self.losses.add(path, "document", "downgraded",
                        "Chat Completions files take PDFs only; the text document is sent as a "
                        "text part", message_id)
        return {"type": "text", "text": text}

    def _audio(self, part: _parts.AudioPart, path: str, message_id: str) -> WirePart | None:
        found = self._media_data(part, path, message_id) if not isinstance(
            part.source, _parts.UrlSource | _parts.ProviderFileSource | _parts.TextSource) else None
        if found is None:
            if not isinstance(part.source, _parts.FileRefSource):
                self.losses.add(path, "audio", "dropped",
                                "Chat Completions takes audio input only inline (base64)", message_id)
            return None
        data, media_type = found
        audio_format = AUDIO_FORMATS.get(media_type or "")
        if audio_format is None:
            self.losses.add(path, "audio", "dropped",
                            f"Chat Completions takes WAV and MP3 audio, not {media_type or 'untyped'} audio",
                            message_id)
            return None
        block, inner = self._block(part.provider_data, path, "audio", message_id)
        audio: dict[str, Any] = {"data": data, "format": audio_format}
        audio.update({k: v for k, v in inner.items() if k not in audio})
        item: WirePart = {"type": "input_audio", "input_audio": audio}
        return {**block, **item} if block else item
