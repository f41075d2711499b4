"""Canonical parts -> Converse content blocks, with the losses of each.

:class:`PartEncoder` holds what every part mapping needs (accepted issuers, options, the losses,
the wire id and name of each call sent so far); the history walk in ``_encode`` builds on it.
A part maps to one block, and a cache point recorded on it (``provider_data["cache_point"]``)
to a ``cachePoint`` block right after it, where Converse takes one.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any, Literal, assert_never

from partwire import parts as _parts
from partwire._base import ProviderData
from partwire._media import decode_base64, sniff_media_type
from partwire.adapters._losses import LossCollector, foreign_unknown_reason
from partwire.adapters._turns import BlockEncoder, path
from partwire.adapters.bedrock._decode import citation_to_wire
from partwire.adapters.bedrock._wire import (
    AUDIO_FORMATS,
    DOCUMENT_FORMATS,
    IMAGE_FORMATS,
    ISSUER,
    Blobs,
    WireBlock,
    admits_call_id,
    admits_tool_name,
    tool_name_for,
)

# The part types every conversion meets, by name; the rarer ones through the module.
from partwire.parts import ImagePart, Part, TextPart, ThinkingPart, ToolCallPart

__all__ = ["FileResolver", "ForeignThinking", "PartEncoder", "path"]

FileResolver = Callable[[_parts.FileRefSource], bytes]
"""Reads a workspace file reference, so it can be sent inline."""
ForeignThinking = Literal["drop", "text"]
"""What to do with reasoning Bedrock cannot verify: drop it, or send its text as plain text."""

_IMAGE_TYPES = {v: k for k, v in IMAGE_FORMATS.items()}
_DOCUMENT_TYPES = {v: k for k, v in DOCUMENT_FORMATS.items()}
_AUDIO_TYPES = {v: k for k, v in AUDIO_FORMATS.items()} | {"audio/mp3": "mp3", "audio/x-wav": "wav"}
# A document's name: "alphanumeric characters, whitespace characters, hyphens, parentheses, and
# square brackets", no two whitespace characters in a row (Converse's DocumentBlock).
_NAME_REFUSED = re.compile(r"[^A-Za-z0-9\s\-()\[\]]")
_SPACES = re.compile(r"\s{2,}")
# Members whose source may hold bytes, in a block kept whole (an UnknownPart): a video above all.
_MEDIA_MEMBERS = frozenset({"video", "image", "document", "audio"})


def document_name(name: str) -> str:
    """A document name as Converse takes it: refused characters become ``-``, runs of spaces one."""
    return _SPACES.sub(" ", _NAME_REFUSED.sub("-", name))[:200]


class PartEncoder(BlockEncoder):
    """Maps parts to content blocks for one projection, reporting what it cannot send."""

    ISSUER = ISSUER
    WIRE = "Converse"
    TAKER = "Converse"
    admits_call_id = staticmethod(admits_call_id)

    def __init__(self, *, issuers: Collection[str], losses: LossCollector,
                 foreign_thinking: ForeignThinking = "drop",
                 resolve_file: FileResolver | None = None, blobs: Blobs = "bytes") -> None:
        super().__init__(issuers=issuers, losses=losses, foreign_thinking=foreign_thinking,
                         resolve_file=resolve_file)
        self.blobs: Blobs = blobs
        self.documents = 0
        self.names_ok: set[str] = set()  # tool names already checked against Converse's rule

    def marks(self, pd: ProviderData | None, i: int, j: int, part_type: str,
              message_id: str) -> Mapping[str, Any]:
        """The Bedrock marks a part carries when its issuer is accepted; reports the others."""
        if pd is None:
            return {}
        if pd.issuer in self.issuers:
            return pd.data if isinstance(pd.data, dict) else {}
        self.lose(i, j, part_type, "dropped",
                  f"provider data from {pd.issuer} is not sent to Bedrock", message_id, ".provider_data")
        return {}

    # -- one part ---------------------------------------------------------------------------

    def part(self, part: Part, i: int, j: int, message_id: str,
             marks: Mapping[str, Any]) -> WireBlock | None:
        """The block for ``part`` (``marks``: its accepted provider data), or ``None`` (a loss)."""
        match part:
            case TextPart():
                return self.text(part, i, j, message_id, marks)
            case ToolCallPart():
                return self.tool_call(part, i, j, message_id, marks)
            case ThinkingPart():
                return self.thinking(part, i, j, message_id, marks)
            case _parts.RedactedThinkingPart():
                if part.data.issuer not in self.issuers:
                    self.lose(i, j, "redacted_thinking", "dropped",
                              f"encrypted reasoning from {part.data.issuer} cannot be verified by "
                              "Bedrock", message_id)
                    return None
                value = part.data.value
                raw = decode_base64(value) if self.blobs == "bytes" else value
                if raw is None:
                    self.lose(i, j, "redacted_thinking", "dropped", "its data is not valid base64",
                              message_id)
                    return None
                return {"reasoningContent": {"redactedContent": raw}}
            case ImagePart():
                return self._media(part, "image", _IMAGE_TYPES, i, j, message_id, marks)
            case _parts.AudioPart():
                return self._media(part, "audio", _AUDIO_TYPES, i, j, message_id, marks)
            case _parts.DocumentPart():
                return self._document(part, i, j, message_id, marks)
            case _parts.ServerToolCallPart():
                if not self.own(part.issuer, part.type, i, j, message_id):
                    return None
                return {"toolUse": {"toolUseId": part.id, "name": part.name, "input": part.input,
                                    "type": "server_tool_use", **marks.get("block", {})}}
            case _parts.ServerToolResultPart():
                if not self.own(part.issuer, part.type, i, j, message_id):
                    return None
                return {"toolResult": {"toolUseId": part.call_id, "content": part.output,
                                       **marks.get("block", {})}}
            case _parts.UnknownPart():
                return self._unknown(part, i, j, message_id)
            case _parts.RefusalPart():
                self.lose(i, j, "refusal", "downgraded", "Converse has no refusal block; sent as text",
                          message_id)
                return {"text": part.text} if part.text else None
            case _:
                assert_never(part)

    def text(self, part: TextPart, i: int, j: int, message_id: str,
             marks: Mapping[str, Any]) -> WireBlock | None:
        raw = marks.get("citations_content")
        if isinstance(raw, dict):
            return {"citationsContent": raw}
        if not part.text:
            self.lose(i, j, "text", "dropped", "Converse refuses blank text blocks", message_id)
            return None
        guard = marks.get("guard")
        if isinstance(guard, dict):
            return {"guardContent": {"text": {"text": part.text, **guard}}}
        if not part.citations:
            return {"text": part.text}
        citations = []
        for c in part.citations:
            pd = c.provider_data
            if pd is not None and pd.issuer not in self.issuers:
                self.lose(i, j, "text", "dropped",
                          f"a citation's provider data from {pd.issuer} is not sent to Bedrock",
                          message_id, ".citations")
            citations.append(citation_to_wire(c))
        return {"citationsContent": {"content": [{"text": part.text}], "citations": citations}}

    def tool_call(self, part: ToolCallPart, i: int, j: int, message_id: str,
                  marks: Mapping[str, Any]) -> WireBlock:
        fields = part.__dict__
        wire_id = self.call_id(fields["provider_ids"], fields["id"], i, j, message_id)
        name = fields["name"]
        if name not in self.names_ok and not admits_tool_name(name):
            sent = tool_name_for(name)
            self.lose(i, j, "tool_call", "rewritten",
                      f"the tool name {name!r} breaks Converse's name rule [a-zA-Z0-9_-]{{1,64}}; "
                      f"sent as {sent!r}", message_id, ".name")
            name = sent
        else:
            self.names_ok.add(name)
        arguments = self.call_input(fields["arguments_json"], i, j, message_id)
        block = {"toolUseId": wire_id, "name": name, "input": arguments}
        extras = marks.get("block")
        return {"toolUse": {**block, **extras} if extras else block}

    def thinking(self, part: ThinkingPart, i: int, j: int, message_id: str,
                  marks: Mapping[str, Any]) -> WireBlock | None:
        signature = part.signature
        if signature is not None and signature.issuer in self.issuers:
            return {"reasoningContent": {"reasoningText": {"text": part.text,
                                                           "signature": signature.value}}}
        if signature is None and marks.get("reasoning") == "unsigned":
            return {"reasoningContent": {"reasoningText": {"text": part.text}}}
        who = f"from {signature.issuer}" if signature is not None else "without a signature"
        if self.foreign_thinking == "text" and part.text:
            self.lose(i, j, "thinking", "downgraded",
                      f"reasoning {who} cannot be verified by Bedrock; sent as text", message_id)
            return {"text": part.text}
        self.lose(i, j, "thinking", "dropped", f"reasoning {who} cannot be verified by Bedrock",
                  message_id)
        return None

    def _unknown(self, part: _parts.UnknownPart, i: int, j: int, message_id: str) -> WireBlock | None:
        raw = part.raw
        if part.issuer not in self.issuers:
            self.lose(i, j, "unknown", "dropped", foreign_unknown_reason(part), message_id)
            return None
        if not isinstance(raw, dict) or len(raw) != 1:
            self.lose(i, j, "unknown", "dropped",
                      "an unrecognised part that is not one content-block member cannot be sent",
                      message_id)
            return None
        (kind, member), = raw.items()
        if self.blobs == "bytes" and kind in _MEDIA_MEMBERS and isinstance(member, dict):
            source = member.get("source")
            text = source.get("bytes") if isinstance(source, dict) else None
            if isinstance(source, dict) and isinstance(text, str):
                data = decode_base64(text)
                if data is not None:
                    return {kind: {**member, "source": {**source, "bytes": data}}}
        return dict(raw)

    # -- media ------------------------------------------------------------------------------

    def source(self, part: ImagePart | _parts.DocumentPart | _parts.AudioPart, i: int, j: int, message_id: str,
               marks: Mapping[str, Any]) -> dict[str, Any] | None:
        """The ``source`` member, or ``None`` (reported) when Converse cannot take this one."""
        source = part.source
        kind = part.type
        match source:
            case _parts.Base64Source():
                return self._bytes(source.data, kind, i, j, message_id)
            case _parts.UrlSource():
                if source.url.startswith("s3://"):
                    return {"s3Location": {"uri": source.url, **marks.get("s3", {})}}
                self.lose(i, j, kind, "dropped", "Converse takes media as bytes or an S3 location, "
                          "not a URL", message_id)
                return None
            case _parts.TextSource():
                if isinstance(part, _parts.DocumentPart):
                    return {"text": source.text}
                self.lose(i, j, kind, "dropped", f"an {kind} cannot have a text source", message_id)
                return None
            case _parts.FileRefSource():
                if self.resolve_file is None:
                    self.lose(i, j, kind, "dropped", f"a workspace file ({source.path}) needs "
                              "resolve_file to be sent inline", message_id)
                    return None
                raw = self.resolve_file(source)
                return {"bytes": raw if self.blobs == "bytes" else base64.b64encode(raw).decode("ascii")}
            case _parts.ProviderFileSource():
                self.lose(i, j, kind, "dropped", f"a file id from {source.issuer} means nothing to "
                          "Bedrock (it reads S3 locations)", message_id)
                return None
            case _:
                assert_never(source)

    def _bytes(self, data: str, kind: str, i: int, j: int, message_id: str) -> dict[str, Any] | None:
        if self.blobs == "base64":
            return {"bytes": data}
        raw = decode_base64(data)
        if raw is None:
            self.lose(i, j, kind, "dropped", "its data is not valid base64, and Converse takes the "
                      "bytes it stands for", message_id)
            return None
        return {"bytes": raw}

    def _format(self, part: ImagePart | _parts.DocumentPart | _parts.AudioPart, table: Mapping[str, str],
                i: int, j: int, message_id: str) -> str | None:
        media_type = part.media_type
        if media_type is None and isinstance(part.source, _parts.Base64Source):
            media_type = sniff_media_type(part.source.data)
        fmt = table.get(media_type) if media_type is not None else None
        if fmt is None:
            self.lose(i, j, part.type, "dropped",
                      f"Converse takes no {part.type} of type {media_type or 'unknown'}", message_id)
        return fmt

    def _media(self, part: ImagePart | _parts.AudioPart, member: str, table: Mapping[str, str], i: int,
               j: int, message_id: str, marks: Mapping[str, Any]) -> WireBlock | None:
        fmt = self._format(part, table, i, j, message_id)
        if fmt is None:
            return None
        source = self.source(part, i, j, message_id, marks)
        if source is None:
            return None
        if isinstance(part, ImagePart) and part.detail is not None:
            self.lose(i, j, "image", "dropped", "Converse takes no image detail hint", message_id,
                      ".detail")
        block = {"format": fmt, "source": source, **marks.get("block", {})}
        if "guard" in marks and isinstance(part, ImagePart):
            return {"guardContent": {"image": block}}
        return {member: block}

    def _document(self, part: _parts.DocumentPart, i: int, j: int, message_id: str,
                  marks: Mapping[str, Any]) -> WireBlock | None:
        fmt: str | None = None
        if part.media_type is not None or not isinstance(part.source, _parts.TextSource):
            fmt = self._format(part, _DOCUMENT_TYPES, i, j, message_id)
            if fmt is None:
                return None
        source = self.source(part, i, j, message_id, marks)
        if source is None:
            return None
        name = part.title if part.title is not None else part.filename
        if name is None:
            self.documents += 1
            name = f"document {self.documents}"
            self.lose(i, j, "document", "rewritten", f"Converse requires a document name; "
                      f"{name!r} is sent", message_id, ".title")
        elif part.title is not None and part.filename is not None:
            self.lose(i, j, "document", "dropped", "Converse documents have one name; the title is "
                      "sent, not the file name", message_id, ".filename")
        sent = document_name(name)
        if not sent.strip():
            # Converse requires a name of at least one character, and not blank: an empty title
            # or file name gets a numbered one, as a missing name does.
            self.documents += 1
            sent = f"document {self.documents}"
        if sent != name:
            self.lose(i, j, "document", "rewritten", f"Converse refuses the document name {name!r}; "
                      f"sent as {sent!r}", message_id, ".title")
        block: dict[str, Any] = {"name": sent, "source": source, **marks.get("block", {})}
        if fmt is not None:
            block = {"format": fmt, **block}
        return {"document": block}
