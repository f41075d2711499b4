"""Canonical parts -> Cohere v2 content items, per role, with the losses of what a role cannot take.

Cohere's roles take different items: ``user`` text and ``image_url``; ``assistant`` text and
``thinking``; ``system`` text; ``tool`` text and ``document``. Documents outside a tool result go
to the request's top-level ``documents``. An item an import kept in ``provider_data`` (its extra
keys, a document's own form) is written back when the part's fields still say the same.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar, Literal

from partwire import parts as _parts
from partwire._json import parse_object
from partwire._media import data_url
from partwire.adapters._losses import LossCollector, foreign_unknown_reason
from partwire.adapters._provenance import data_of
from partwire.adapters._turns import BlockEncoder, path
from partwire.adapters.cohere._decode import document_fields
from partwire.adapters.cohere._wire import ISSUER, admits_call_id

# The part types every conversion meets, by name; the rarer ones through the module.
from partwire.parts import ImagePart, Part, TextPart, ThinkingPart

__all__ = ["ForeignThinking", "PartEncoder"]

ForeignThinking = Literal["thinking", "text", "drop"]
"""What to do with reasoning: send its text as Cohere ``thinking``, as plain text, or drop it."""

_WHERE = {"user": "a user message", "assistant": "an assistant message", "system": "a system message",
          "tool": "a tool result"}


class PartEncoder(BlockEncoder):
    """Writes parts as content items; keeps the accepted issuers, the losses and the call ids."""

    ISSUER: ClassVar[str] = ISSUER
    WIRE: ClassVar[str] = "Cohere"
    TAKER: ClassVar[str] = "Cohere"

    def __init__(self, *, issuers: Collection[str], losses: LossCollector,
                 foreign_thinking: ForeignThinking = "thinking") -> None:
        super().__init__(issuers=issuers, losses=losses, foreign_thinking=foreign_thinking)
        self.documents: list[Any] = []  # the request's top-level documents, as they are met

    @staticmethod
    def admits_call_id(call_id: str) -> bool:
        """Whether Cohere takes ``call_id`` as a tool call's id."""
        return admits_call_id(call_id)

    def marks(self, part: Part, i: int, j: int, message_id: str) -> Mapping[str, Any]:
        """The marks an accepted issuer left on ``part`` (``{}`` when none); another issuer's
        provider data is reported, not sent."""
        pd = part.provider_data
        if pd is None:
            return {}
        if pd.issuer in self.issuers:
            return pd.data if isinstance(pd.data, dict) else {}
        self.lose(i, j, part.type, "dropped", f"provider data from {pd.issuer} is not sent to Cohere",
                  message_id, ".provider_data")
        return {}

    def item(self, part: Part, role: str, i: int, j: int, message_id: str) -> dict[str, Any] | None:
        """The content item for ``part`` in a message of ``role``; ``None`` (and a loss) when
        that role cannot take it. A document goes to :attr:`documents` (``None`` returned)."""
        if isinstance(part, TextPart):
            return self.text(part, i, j, message_id)
        if isinstance(part, ThinkingPart) and role == "assistant":
            return self.thinking(part, i, j, message_id)
        if isinstance(part, ImagePart) and role == "user":
            return self.image(part, i, j, message_id)
        if isinstance(part, _parts.DocumentPart) and role in ("user", "tool"):
            document = self.document(part, i, j, message_id)
            if document is None or role == "tool":
                return None if document is None else {"type": "document", "document": document}
            self.documents.append(document)
            self.lose(i, j, "document", "rewritten",
                      "Cohere takes documents in the request's documents, not in a message; "
                      "sent there", message_id)
            return None
        if isinstance(part, _parts.UnknownPart):
            if part.issuer in self.issuers and isinstance(part.raw, dict):
                return dict(part.raw)
            self.lose(i, j, "unknown", "dropped", foreign_unknown_reason(part), message_id)
            return None
        self.lose(i, j, part.type, "dropped", f"Cohere takes no {part.type} part in "
                  f"{_WHERE[role]}", message_id)
        return None

    def text(self, part: TextPart, i: int, j: int, message_id: str) -> dict[str, Any]:
        """A text item (its citations go with the message: :meth:`citations`)."""
        extras = self.marks(part, i, j, message_id).get("item") if part.provider_data is not None else None
        if isinstance(extras, dict):
            return {"type": "text", "text": part.text, **extras}
        return {"type": "text", "text": part.text}

    def thinking(self, part: ThinkingPart, i: int, j: int, message_id: str) -> dict[str, Any] | None:
        """A thinking item: its text, by :attr:`foreign_thinking`; a signature is never sent."""
        if not part.text or self.foreign_thinking == "drop":
            self.lose(i, j, "thinking", "dropped", "reasoning with no text has nothing Cohere "
                      "can take" if not part.text else "reasoning is not sent (foreign_thinking=drop)",
                      message_id)
            return None
        if self.foreign_thinking == "text":
            self.lose(i, j, "thinking", "downgraded", "reasoning is sent as plain text "
                      "(foreign_thinking=text)", message_id)
            return {"type": "text", "text": part.text}
        if part.signature is not None:  # Cohere signs no reasoning: any signature stays behind
            self.lose(i, j, "thinking", "rewritten", f"Cohere takes reasoning text only: sent "
                      f"without the signature from {part.signature.issuer}", message_id)
        extras = self.marks(part, i, j, message_id).get("item")
        return {"type": "thinking", "thinking": part.text, **(extras if isinstance(extras, dict) else {})}

    def image(self, part: ImagePart, i: int, j: int, message_id: str) -> dict[str, Any] | None:
        """An ``image_url`` item: a URL, or base64 data as a data URL."""
        source = part.source
        if isinstance(source, _parts.UrlSource):
            url = source.url
        elif isinstance(source, _parts.Base64Source):
            media_type = part.media_type or "image/png"
            url = data_url(media_type, source.data)
        else:
            self.lose(i, j, "image", "dropped", f"Cohere takes images by URL or inline data, not "
                      f"as a {source.type} source", message_id)
            return None
        marks = self.marks(part, i, j, message_id)
        image: dict[str, Any] = {"url": url}
        if part.detail is not None:
            if part.detail == "original":
                self.lose(i, j, "image", "rewritten", "Cohere has no 'original' detail; sent as "
                          "high", message_id, ".detail")
            image["detail"] = "high" if part.detail == "original" else part.detail
        extras = marks.get("image_url")
        if isinstance(extras, dict):
            image.update(extras)
        outer = marks.get("item")
        return {"type": "image_url", "image_url": image, **(outer if isinstance(outer, dict) else {})}

    def document(self, part: _parts.DocumentPart, i: int, j: int, message_id: str) -> Any:
        """A Cohere document (``{"data": {...}}``) for a text document, or ``None`` (a loss)."""
        source = part.source
        if not isinstance(source, _parts.TextSource):
            self.lose(i, j, "document", "dropped", f"Cohere takes documents as text only, not as "
                      f"a {source.type} source", message_id)
            return None
        kept = self.marks(part, i, j, message_id).get("document")
        if kept is not None and _gives(kept, source.text, part):
            return kept
        if part.media_type == "application/json":
            data = parse_object(source.text)
            if data is not None:
                if part.title is not None and "title" not in data:
                    data["title"] = part.title
                return {"data": data}
        data = {"text": source.text}
        if part.title is not None:
            data["title"] = part.title
        elif part.filename is not None:
            data["title"] = part.filename
        return {"data": data}

    def citations(self, part: TextPart, i: int, j: int, message_id: str,
                  content_index: int | None) -> list[dict[str, Any]]:
        """The wire citations of a text part; the ones Cohere cannot read are reported."""
        out: list[dict[str, Any]] = []
        dropped = 0
        for citation in part.citations:
            pd = citation.provider_data
            marks = data_of(pd, self.issuers) if pd is not None else None
            if not isinstance(citation, _parts.DocumentCitation) or marks is None:
                dropped += 1
                continue
            wire: dict[str, Any] = {"start": citation.start, "end": citation.end}
            if citation.cited_text is not None:
                wire["text"] = citation.cited_text
            extras = marks.get("citation")
            if isinstance(extras, dict):
                wire.update(extras)
            out.append(wire)
        if dropped:
            self.losses.add(path(i, j, ".citations"), "text", "dropped",
                            f"{dropped} citation(s) not from Cohere: Cohere cites by answer span "
                            "and source id, which they do not have", message_id)
        return out


def _gives(kept: Any, text: str, part: _parts.DocumentPart) -> bool:
    """Whether a kept wire document still says what the part says."""
    if isinstance(kept, str):
        return kept == text
    try:
        return document_fields(kept) == (text, part.media_type, part.title)
    except (KeyError, TypeError):
        return False

