"""Canonical parts -> Anthropic content blocks, with the losses of each.

:class:`PartEncoder` holds what every part mapping needs (accepted issuers, options, the losses
and the wire id of each call sent so far); the history walk in ``_encode`` builds on it. Loss
paths are formatted only when a loss happens: building ``history[i].parts[j]`` for every part
would cost more than the mapping itself. Hot paths read fields from the model's ``__dict__``:
pydantic models define ``__getattr__``, which routes every attribute read through a slow hook,
while pydantic v2 keeps the fields in ``__dict__``.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Collection, Mapping
from typing import Any, Literal, assert_never

from partwire import parts as _parts
from partwire._base import ProviderData
from partwire._media import decode_base64, sniff_media_type
from partwire.adapters._calls import missing_definition_reason
from partwire.adapters._losses import LossCollector, foreign_unknown_reason, known_loss
from partwire.adapters._provenance import data_of
from partwire.adapters._turns import BlockEncoder, path
from partwire.adapters.anthropic._wire import (
    DOCUMENT_MEDIA_TYPES,
    IMAGE_MEDIA_TYPES,
    ISSUER,
    WireBlock,
    admits_call_id,
)

# The part types every conversion meets, by name; the rarer ones through the module.
from partwire.parts import ImagePart, Part, TextPart, ThinkingPart, ToolCallPart

__all__ = ["FileResolver", "ForeignThinking", "PartEncoder", "path"]

FileResolver = Callable[[_parts.FileRefSource], bytes]
"""Reads a workspace file reference, so it can be sent inline."""
ForeignThinking = Literal["drop", "text"]
"""What to do with reasoning Anthropic cannot verify: drop it, or send its text as plain text."""

_UNITS = {"char": ("char_location", "start_char_index", "end_char_index"),
          "page": ("page_location", "start_page_number", "end_page_number"),
          "block": ("content_block_location", "start_block_index", "end_block_index")}


class PartEncoder(BlockEncoder):
    """Maps parts to content blocks for one projection, reporting what it cannot send."""

    ISSUER = ISSUER
    WIRE = "Anthropic"
    TAKER = "the API"
    admits_call_id = staticmethod(admits_call_id)

    def __init__(self, *, issuers: Collection[str], losses: LossCollector,
                 foreign_thinking: ForeignThinking = "drop",
                 resolve_file: FileResolver | None = None) -> None:
        super().__init__(issuers=issuers, losses=losses, foreign_thinking=foreign_thinking,
                         resolve_file=resolve_file)
        # The names of the tools the request defines (None: not checked), for each call to find.
        self.defined: Collection[Any] | None = None

    def _extras(self, pd: ProviderData, i: int, j: int, part_type: str,
                message_id: str) -> Mapping[str, Any] | None:
        """The wire keys a part brought along, when its issuer is accepted; reports the others."""
        if pd.issuer in self.issuers:
            data = pd.data
            block = data.get("block") if isinstance(data, dict) else None
            return block if isinstance(block, dict) else None
        self.lose(i, j, part_type, "dropped",
                  f"provider data from {pd.issuer} is not sent to Anthropic", message_id,
                  ".provider_data")
        return None

    def _with(self, block: WireBlock, pd: ProviderData | None, i: int, j: int,
              message_id: str) -> WireBlock:
        if pd is None:
            return block
        # A loss names the canonical part type, not the wire block's.
        part_type = str(block["type"])
        part_type = _PART_TYPES.get(part_type, part_type)
        extras = self._extras(pd, i, j, part_type, message_id)
        return {**extras, **block} if extras else block

    def text(self, part: TextPart, i: int, j: int, message_id: str,
              system: bool = False) -> tuple[WireBlock, bool]:
        block: WireBlock = {"type": "text", "text": part.text}
        if part.provider_data is None and not part.citations:
            return block, True
        extras = (self._extras(part.provider_data, i, j, "text", message_id)
                  if part.provider_data is not None else None)
        if part.citations:
            citations = [c for c in (self._citation(c, i, j, message_id, system)
                                     for c in part.citations) if c is not None]
            if citations:
                block["citations"] = citations
        if extras:
            block = {**extras, **block}
        return block, len(block) == 2

    def _citation(self, c: _parts.Citation, i: int, j: int, message_id: str,
                  system: bool = False) -> WireBlock | None:
        extras = data_of(c.provider_data, self.issuers)
        extra: Mapping[str, Any] = extras.get("block", {}) if extras else {}
        match c:
            case _parts.DocumentCitation():
                kind, start, end = _UNITS[c.unit]
                out: WireBlock = {"type": kind, "cited_text": c.cited_text or "",
                                  "document_index": c.document_index,
                                  "document_title": c.document_title, start: c.start, end: c.end}
                if c.file_id is not None:
                    if system:
                        # Echoed on a response's own blocks, but a system block's citation
                        # (the SDK's TextBlockParam) has no file_id.
                        self.lose(i, j, "text", "dropped", "a system block's citations carry "
                                  "no file_id", message_id, ".citations")
                    else:
                        out["file_id"] = c.file_id
            case _parts.SearchResultCitation():
                out = {"type": "search_result_location", "cited_text": c.cited_text or "",
                       "search_result_index": c.search_result_index, "source": c.source,
                       "title": c.title, "start_block_index": c.start_block,
                       "end_block_index": c.end_block}
            case _parts.UrlCitation():
                if "encrypted_index" not in extra:
                    self.lose(i, j, "text", "dropped",
                              f"a web citation of {c.url} lacks Anthropic's encrypted_index, which "
                              "the API requires", message_id, ".citations")
                    return None
                out = {"type": "web_search_result_location", "cited_text": c.cited_text or "",
                       "url": c.url, "title": c.title}
            case _:
                assert_never(c)
        return {**extra, **out} if extra else out

    def part(self, part: Part, i: int, j: int, message_id: str) -> WireBlock | None:
        match part:
            case ToolCallPart():
                return self.tool_call(part, i, j, message_id)
            case ThinkingPart():
                return self.thinking(part, i, j, message_id)
            case TextPart():
                return self.text(part, i, j, message_id)[0]
            case ImagePart():
                return self._image(part, i, j, message_id)
            case _parts.DocumentPart():
                return self._document(part, i, j, message_id)
            case _parts.RedactedThinkingPart():
                if part.data.issuer not in self.issuers:
                    self.lose(i, j, "redacted_thinking", "dropped",
                              f"encrypted reasoning from {part.data.issuer} cannot be verified by "
                              "Anthropic", message_id)
                    return None
                block: WireBlock = {"type": "redacted_thinking", "data": part.data.value}
                return self._with(block, part.provider_data, i, j, message_id)
            case _parts.ServerToolCallPart():
                if not self.own(part.issuer, part.type, i, j, message_id):
                    return None
                extras = (self._extras(part.provider_data, i, j, part.type, message_id)
                          if part.provider_data is not None else None) or {}
                return {"type": "server_tool_use", **extras, "id": part.id, "name": part.name,
                        "input": part.input}
            case _parts.ServerToolResultPart():
                if not self.own(part.issuer, part.type, i, j, message_id):
                    return None
                block = {"type": part.name}
                if part.call_id:
                    block["tool_use_id"] = part.call_id
                if part.output is not None:
                    block["content"] = part.output
                return self._with(block, part.provider_data, i, j, message_id)
            case _parts.UnknownPart():
                raw = part.raw
                if part.issuer not in self.issuers:
                    self.lose(i, j, "unknown", "dropped",
                              foreign_unknown_reason(part),
                              message_id)
                    return None
                if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
                    self.lose(i, j, "unknown", "dropped",
                              "an unrecognised part that is not a typed block cannot be sent",
                              message_id)
                    return None
                return dict(raw)
            case _parts.RefusalPart():
                self.lose(i, j, "refusal", "downgraded", "Anthropic has no refusal block; sent as text",
                          message_id)
                return {"type": "text", "text": part.text}
            case _parts.AudioPart():
                self.lose(i, j, "audio", "dropped", "Anthropic takes no audio input", message_id)
                return None
            case _:
                assert_never(part)

    def tool_call(self, part: ToolCallPart, i: int, j: int, message_id: str) -> WireBlock:
        fields = part.__dict__
        wire_id = self.call_id(fields["provider_ids"], fields["id"], i, j, message_id)
        defined = self.defined
        if defined is not None and fields["name"] not in defined:
            # Remembered: a resumed agent resends every undefined call each turn.
            # The call itself goes out whole; what the request lacks is its tool's definition,
            # so the API will refuse it: a poorer request, named on the call it concerns.
            self.losses.items.append(known_loss(i, j, "tool_call", "downgraded",
                                                missing_definition_reason(fields["name"]),
                                                self.losses.adapter, message_id))
        text = fields["arguments_json"]
        arguments = self.call_input(text, i, j, message_id)
        block: WireBlock = {"type": "tool_use", "id": wire_id, "name": fields["name"],
                            "input": arguments}
        pd = fields["provider_data"]
        return block if pd is None else self._with(block, pd, i, j, message_id)

    def thinking(self, part: ThinkingPart, i: int, j: int, message_id: str) -> WireBlock | None:
        fields = part.__dict__
        signature = fields["signature"]
        if signature is not None and signature.issuer in self.issuers:
            block: WireBlock = {"type": "thinking", "thinking": fields["text"],
                                "signature": signature.value}
            pd = fields["provider_data"]
            return block if pd is None else self._with(block, pd, i, j, message_id)
        marks = data_of(part.provider_data, self.issuers) if signature is None else None
        if marks is not None and isinstance(marks.get("block"), dict):
            # An unsigned block Anthropic itself sent (or a request held): echo it as it was.
            return {**marks["block"], "type": "thinking", "thinking": part.text}
        who = f"from {signature.issuer}" if signature is not None else "without a signature"
        if self.foreign_thinking == "text" and part.text:
            self.lose(i, j, "thinking", "downgraded",
                      f"reasoning {who} cannot be verified by Anthropic; sent as text", message_id)
            return {"type": "text", "text": part.text}
        self.lose(i, j, "thinking", "dropped", f"reasoning {who} cannot be verified by Anthropic",
                  message_id)
        return None

    def _image(self, part: ImagePart, i: int, j: int, message_id: str) -> WireBlock | None:
        source = self.source(part, i, j, message_id, IMAGE_MEDIA_TYPES)
        if source is None:
            return None
        if part.detail is not None:
            self.lose(i, j, "image", "dropped", "Anthropic takes no image detail hint", message_id,
                      ".detail")
        return self._with({"type": "image", "source": source}, part.provider_data, i, j, message_id)

    def _document(self, part: _parts.DocumentPart, i: int, j: int, message_id: str) -> WireBlock | None:
        source = self.source(part, i, j, message_id, DOCUMENT_MEDIA_TYPES)
        if source is None:
            return None
        block: WireBlock = {"type": "document", "source": source}
        if part.title is not None:
            block["title"] = part.title
        if part.filename is not None:
            self.lose(i, j, "document", "dropped",
                      "Anthropic documents have a title but no file name", message_id, ".filename")
        return self._with(block, part.provider_data, i, j, message_id)

    def _as_plain_text(self, media_type: str | None, i: int, j: int, message_id: str) -> None:
        if media_type not in (None, "text/plain"):
            self.lose(i, j, "document", "rewritten",
                      f"Anthropic takes text documents as text/plain; the {media_type} text is sent "
                      "as text/plain",
                      message_id, ".media_type")

    def source(self, part: ImagePart | _parts.DocumentPart, i: int, j: int, message_id: str,
                accepted: frozenset[str]) -> WireBlock | None:
        kind = part.type
        source = part.source
        match source:
            case _parts.Base64Source():
                data, media_type = source.data, part.media_type or sniff_media_type(source.data)
            case _parts.UrlSource():
                return {"type": "url", "url": source.url}
            case _parts.ProviderFileSource():
                if source.issuer in self.issuers:
                    return {"type": "file", "file_id": source.file_id}
                self.lose(i, j, kind, "dropped",
                          f"file {source.file_id} was uploaded to {source.issuer}; Anthropic cannot "
                          "read it", message_id)
                return None
            case _parts.TextSource():
                if kind == "document":
                    self._as_plain_text(part.media_type, i, j, message_id)
                    return {"type": "text", "media_type": "text/plain", "data": source.text}
                self.lose(i, j, kind, "dropped", "an image cannot come from text", message_id)
                return None
            case _parts.FileRefSource():
                if self.resolve_file is None:
                    self.lose(i, j, kind, "dropped",
                              f"workspace file {source.path} needs resolve_file= to be sent",
                              message_id)
                    return None
                data = base64.b64encode(self.resolve_file(source)).decode("ascii")
                media_type = part.media_type or sniff_media_type(data)
            case _:
                assert_never(source)
        if kind == "document" and media_type is not None and media_type.startswith("text/"):
            raw = decode_base64(data)
            if raw is not None:
                # Anthropic takes plain text inline, not base64; same content, other encoding.
                self._as_plain_text(media_type, i, j, message_id)
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    text = raw.decode("utf-8", errors="replace")
                    self.lose(i, j, kind, "rewritten", "the text is not UTF-8; bytes that are not "
                              "were replaced by U+FFFD", message_id, ".source")
                return {"type": "text", "media_type": "text/plain", "data": text}
        if kind == "document" and media_type is None:
            # Anthropic needs a media type; the bytes are not recognisably anything else.
            media_type = "application/pdf"
            self.lose(i, j, kind, "rewritten", "the document has no media type and its bytes "
                      "name none; sent as application/pdf", message_id, ".media_type")
        if media_type not in accepted:
            self.lose(i, j, kind, "dropped",
                      f"Anthropic does not take {media_type or 'untyped'} {kind}s inline (it takes "
                      f"{', '.join(sorted(accepted))})", message_id)
            return None
        return {"type": "base64", "media_type": media_type, "data": data}


_PART_TYPES = {"tool_use": "tool_call", "server_tool_use": "server_tool_call"}
