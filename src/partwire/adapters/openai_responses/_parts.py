"""One canonical part <-> one Responses content part, both directions.

Input content (``input_text``, ``input_image``, ``input_file``), assistant content
(``output_text`` with its annotations, ``refusal``) and reasoning summaries. Wire keys with no
canonical home (``prompt_cache_breakpoint``, ``logprobs``, an untyped annotation) are kept in
the part's ``provider_data`` under ``extras`` and re-emitted only to an accepted issuer; another
issuer's echo state is not sent, and that is reported.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from partwire._base import ProviderData, build, fields_maker, one_field
from partwire._json import SHAPE_ERRORS
from partwire._media import decode_base64, sniff_media_type
from partwire.adapters._losses import LossCollector, foreign_unknown_reason
from partwire.adapters._provenance import data_of, shared_provider_data
from partwire.adapters.openai_responses._wire import (
    DOCUMENT_MEDIA_TYPES,
    IMAGE_MEDIA_TYPES,
    ISSUER,
    TEXT_FILE,
    data_url,
    parse_data_url,
)
from partwire.parts import (
    AudioPart,
    Base64Source,
    DocumentPart,
    FileRefSource,
    ImagePart,
    MediaSource,
    Part,
    ProviderFileSource,
    RefusalPart,
    TextPart,
    TextSource,
    UnknownPart,
    UrlCitation,
    UrlSource,
)

__all__ = [
    "FileResolver",
    "PartEncoder",
    "annotations_from_wire",
    "citations_to_wire",
    "input_part_from_wire",
    "marks_pd",
    "output_part_from_wire",
    "with_item",
]

FileResolver = Callable[[FileRefSource], bytes]
"""Reads a workspace file reference, so it can be sent inline."""

_URL_CITATION_KEYS = frozenset({"type", "url", "title", "start_index", "end_index"})


def marks_pd(marks: Mapping[str, Any]) -> ProviderData | None:
    """OpenAI's echo state for a part or message, or ``None`` when there is none."""
    if not marks:
        return None
    # A dict is passed as it is: the provider data made of it holds a copy (or an equal one met
    # before), so a copy made here would be thrown away.
    return shared_provider_data(ISSUER, marks if type(marks) is dict else dict(marks))


def _extras(obj: Mapping[str, Any], used: Collection[str]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in used}


def _block_pd(item: Mapping[str, Any], used: Collection[str]) -> ProviderData | None:
    block = _extras(item, used)
    return marks_pd({"extras": block}) if block else None


# -- wire -> canonical ----------------------------------------------------------------------


def annotations_from_wire(annotations: Sequence[Any]) -> tuple[UrlCitation, ...] | None:
    """Typed URL citations; ``None`` when any annotation is of a kind partwire does not type.

    File citations point at OpenAI file ids and have no portable meaning; such a list is kept
    whole in the part's echo state instead.
    """
    out: list[UrlCitation] = []
    for a in annotations:
        if (type(a) is not dict and not isinstance(a, Mapping)) or a.get("type") != "url_citation" or not (
                set(a) <= _URL_CITATION_KEYS) or not isinstance(a.get("url"), str):
            return None
        try:
            out.append(UrlCitation(url=a["url"], title=a.get("title"),
                                   start_index=a.get("start_index"), end_index=a.get("end_index")))
        except SHAPE_ERRORS:
            return None
    return tuple(out)


def citations_to_wire(citations: Sequence[Any]) -> list[dict[str, Any]] | None:
    """``url_citation`` annotations for typed URL citations; ``None`` when another kind is there."""
    out: list[dict[str, Any]] = []
    for c in citations:
        if not isinstance(c, UrlCitation) or c.start_index is None or c.end_index is None:
            return None
        out.append({"type": "url_citation", "end_index": c.end_index, "start_index": c.start_index,
                    "title": c.title or "", "url": c.url})
    return out


def output_part_from_wire(item: Any, message: dict[str, Any] | None = None) -> Part:
    """One part of an assistant ``message`` item: ``output_text`` or ``refusal``. ``message``:
    the fields of that item beside its content (its id, status...), kept in the part's echo
    state under ``item``."""
    # Exact types first: isinstance() against the Mapping ABC goes through ABCMeta's check.
    if type(item) is dict or isinstance(item, Mapping):
        kind = item.get("type")
        if kind == "output_text" and isinstance(item.get("text"), str):
            used = {"type", "text"}
            annotations = item.get("annotations")
            citations: tuple[UrlCitation, ...] = ()
            if isinstance(annotations, list):
                typed = annotations_from_wire(annotations)
                if typed is not None and annotations == citations_to_wire(typed):
                    citations = typed
                    used.add("annotations")
            text = item["text"]
            # The message's fields with the block's own, in one echo state: the commonest part of
            # an answer is made once, not made and then made again with them.
            block = _extras(item, used)
            data: dict[str, Any] = {"extras": block} if block else {}
            if message:
                data["item"] = message
            fields = {"text": text, "citations": citations, "provider_data": marks_pd(data)}
            # A text read from JSON: nothing left for validation to check.
            return build(TextPart, fields) if type(text) is str else TextPart(**fields)
        if kind == "refusal" and isinstance(item.get("refusal"), str):
            return with_item(RefusalPart(text=item["refusal"],
                                         provider_data=_block_pd(item, {"type", "refusal"})), message)
    kind = item.get("type") if isinstance(item, Mapping) else None
    return with_item(UnknownPart(original_type=kind if isinstance(kind, str) else None, raw=item,
                                 issuer=ISSUER), message)


def with_item(part: Part, message: dict[str, Any] | None) -> Part:
    """``part`` with the fields of the output item it came in (``message``) added to its echo
    state under ``item``; ``part`` itself when there are none."""
    if not message:
        return part
    pd = part.provider_data
    data = dict(pd.data) if pd is not None and isinstance(pd.data, dict) else {}
    data["item"] = message
    # model_copy without its cost: the fields the part was given, its echo state replaced (a
    # decoded part has no extra fields).
    values = part.__dict__
    fields = {name: values[name] for name in part.__pydantic_fields_set__}
    fields["provider_data"] = marks_pd(data)
    return build(type(part), fields)


def input_part_from_wire(item: Any) -> Part:
    """One content part of an input message or a tool output (unknown shapes stay whole)."""
    if type(item) is not dict and not isinstance(item, Mapping):
        return UnknownPart(original_type=None, raw=item, issuer=ISSUER)
    kind = item.get("type")
    try:
        if kind == "input_text" and isinstance(item["text"], str):
            text = item["text"]
            pd = _block_pd(item, {"type", "text"})
            return build(TextPart, {"text": text, "provider_data": pd}) if type(text) is str \
                else TextPart(text=text, provider_data=pd)
        if kind == "input_image":
            return _image_from_wire(item)
        if kind == "input_file":
            return _file_from_wire(item)
        if kind in ("output_text", "refusal"):
            return output_part_from_wire(item)
    except SHAPE_ERRORS:
        pass  # a known type with an unexpected shape is kept whole, like an unknown one
    return UnknownPart(original_type=kind if isinstance(kind, str) else None, raw=dict(item),
                       issuer=ISSUER)


def _image_from_wire(item: Mapping[str, Any]) -> ImagePart:
    used = {"type", "detail"}
    source: MediaSource
    media_type: str | None = None
    url = item.get("image_url")
    if isinstance(url, str) and item.get("file_id") is None:
        used.add("image_url")
        parsed = parse_data_url(url)
        if parsed is not None and parsed[0].startswith("image/"):
            media_type, data = parsed
            source = _base64_source(data)  # a slice of the URL: an exact str
        else:
            source = _url_source(url) if type(url) is str else UrlSource(url=url)
    elif isinstance(item.get("file_id"), str) and url is None:
        used.add("file_id")
        source = _file_source(item["file_id"])
    else:
        raise ValueError("an input_image with neither image_url nor file_id")
    detail = item.get("detail")
    if detail not in ("auto", "low", "high", "original"):
        used.discard("detail")
        detail = None
    marks: dict[str, Any] = {}
    block = _extras(item, used)
    if block:
        marks["extras"] = block
    if "detail" not in item:
        marks["detail"] = "absent"  # tool outputs may leave it out (messages should not)
    # Every value is what validation would make of it (a source just made, a media type cut
    # from the URL, a detail of the four): the part is built, not validated.
    return build(ImagePart, {"source": source, "media_type": media_type, "detail": detail,
                             "provider_data": marks_pd(marks)})


def _file_from_wire(item: Mapping[str, Any]) -> DocumentPart:
    used = {"type"}
    source: MediaSource
    media_type: str | None = None
    marks: dict[str, Any] = {}
    data = item.get("file_data")
    if isinstance(data, str):
        used.add("file_data")
        parsed = parse_data_url(data)
        if parsed is not None:
            media_type, raw = parsed
            text = _text_source(raw) if media_type == TEXT_FILE else None
            source = text if text is not None else _base64_source(raw)
        else:
            source = _base64_source(data) if type(data) is str else Base64Source(data=data)
            marks["raw"] = True  # bare base64, sent back bare
    elif isinstance(item.get("file_id"), str):
        used.add("file_id")
        source = _file_source(item["file_id"])
    elif isinstance(item.get("file_url"), str):
        used.add("file_url")
        url = item["file_url"]
        source = _url_source(url) if type(url) is str else UrlSource(url=url)
    else:
        raise ValueError("an input_file with no file_data, file_id or file_url")
    filename = item.get("filename")
    if isinstance(filename, str):
        used.add("filename")
    block = _extras(item, used)
    if block:
        marks["extras"] = block
    fields = {"source": source, "media_type": media_type,
              "filename": filename if isinstance(filename, str) else None,
              "provider_data": marks_pd(marks)}
    return build(DocumentPart, fields) if filename is None or type(filename) is str else DocumentPart(**fields)


# Sources of values read from JSON (exact strings), made as validation would make them.
_base64_source = one_field(Base64Source, "data")
_url_source = one_field(UrlSource, "url")
_provider_file_source = fields_maker(ProviderFileSource, "file_id", "issuer")


def _file_source(file_id: Any) -> ProviderFileSource:
    """An OpenAI file id's source."""
    if type(file_id) is str:
        return _provider_file_source(file_id, ISSUER)
    return ProviderFileSource(file_id=file_id, issuer=ISSUER)


def _text_source(data: str) -> TextSource | None:
    """A plain-text file's data as text, when it is UTF-8 that encodes back to the same base64
    (so the file goes back as it came); ``None`` otherwise."""
    raw = decode_base64(data)
    if raw is None:
        return None
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        return None
    return TextSource(text=text) if base64.b64encode(text.encode()).decode() == data else None


# -- canonical -> wire ----------------------------------------------------------------------


class PartEncoder:
    """Encodes content parts for one set of accepted issuers, recording losses."""

    def __init__(self, *, issuers: Collection[str], losses: LossCollector,
                 resolve_file: FileResolver | None) -> None:
        self.issuers = issuers if type(issuers) is frozenset else frozenset(issuers)
        self.losses = losses
        self.resolve_file = resolve_file

    def marks(self, pd: ProviderData | None) -> Mapping[str, Any]:
        """The echo state of a part or message when an accepted issuer wrote it."""
        return data_of(pd, self.issuers) or {}

    def block(self, pd: ProviderData | None, path: str, part_type: str,
              message_id: str) -> dict[str, Any]:
        """The wire keys a part brought along, from an accepted issuer (else reported)."""
        if pd is None:
            return {}
        if pd.issuer in self.issuers:
            marks = data_of(pd, self.issuers) or {}
            block = marks.get("extras")
            return dict(block) if isinstance(block, dict) else {}
        self.losses.add(f"{path}.provider_data", part_type, "dropped",
                        f"provider data from {pd.issuer} is not sent to OpenAI", message_id)
        return {}

    def own_unknown(self, part: UnknownPart) -> bool:
        """Whether an unknown part is an accepted issuer's whole wire object (sent back as is)."""
        return part.issuer in self.issuers and isinstance(part.raw, dict)

    def input_text(self, part: TextPart, path: str, message_id: str) -> dict[str, Any]:
        """``input_text`` for a text part (citations cannot go in input)."""
        if part.citations:
            self.losses.add(f"{path}.citations", "text", "dropped",
                            "Responses input text cannot carry citations", message_id)
        block = self.block(part.provider_data, path, "text", message_id)
        item = {"type": "input_text", "text": part.text}
        return {**item, **block} if block else item

    def input_part(self, part: Part, path: str, message_id: str) -> dict[str, Any] | None:
        """A part as input content (``None``, with a loss, when it cannot be sent)."""
        match part:
            case TextPart():
                return self.input_text(part, path, message_id)
            case ImagePart():
                return self.image(part, path, message_id)
            case DocumentPart():
                return self.document(part, path, message_id)
            case AudioPart():
                self.losses.add(path, "audio", "dropped",
                                "Responses message content takes no audio (input_audio is Chat "
                                "Completions only in SDK 3.54)", message_id)
                return None
            case RefusalPart():
                self.losses.add(path, "refusal", "downgraded",
                                "only assistant messages hold refusals; sent as text", message_id)
                return {"type": "input_text", "text": part.text}
            case UnknownPart():
                if self.own_unknown(part):
                    return dict(part.raw)  # type: ignore[arg-type]
                self.losses.add(path, "unknown", "dropped",
                                foreign_unknown_reason(part),
                                message_id)
                return None
            case _:
                self.losses.add(path, part.type, "dropped",
                                f"a {part.type} part is sent only inside assistant output",
                                message_id)
                return None

    def _inline(self, part: ImagePart | DocumentPart, path: str,
                message_id: str) -> tuple[str, str | None] | None:
        source = part.source
        if isinstance(source, Base64Source):
            return source.data, part.media_type
        if isinstance(source, FileRefSource):
            if self.resolve_file is None:
                self.losses.add(path, part.type, "dropped",
                                f"workspace file {source.path} needs resolve_file= to be sent",
                                message_id)
                return None
            return base64.b64encode(self.resolve_file(source)).decode("ascii"), part.media_type
        return None

    def image(self, part: ImagePart, path: str, message_id: str) -> dict[str, Any] | None:
        """``input_image``: by URL, as a data URL, or by an OpenAI file id."""
        source = part.source
        marks = self.marks(part.provider_data)
        item: dict[str, Any] = {"type": "input_image"}
        if isinstance(source, UrlSource):
            item["image_url"] = source.url
        elif isinstance(source, ProviderFileSource):
            if source.issuer not in self.issuers:
                self.losses.add(path, "image", "dropped",
                                f"file {source.file_id} was uploaded to {source.issuer}; OpenAI "
                                "cannot read it", message_id)
                return None
            item["file_id"] = source.file_id
        elif isinstance(source, TextSource):
            self.losses.add(path, "image", "dropped", "an image cannot have a text source",
                            message_id)
            return None
        else:
            found = self._inline(part, path, message_id)
            if found is None:
                return None
            data, media_type = found
            media_type = media_type or sniff_media_type(data)
            if media_type not in IMAGE_MEDIA_TYPES:
                self.losses.add(path, "image", "dropped",
                                f"Responses does not take {media_type or 'untyped'} images (it "
                                f"takes {', '.join(sorted(IMAGE_MEDIA_TYPES))})", message_id)
                return None
            item["image_url"] = data_url(media_type, data)
        # "detail" is required in message content; "auto" is what the API assumes without one.
        # An imported part that had none is sent back without one.
        if part.detail is not None or marks.get("detail") != "absent":
            item["detail"] = part.detail or "auto"
        block = self.block(part.provider_data, path, "image", message_id)
        return {**item, **{k: v for k, v in block.items() if k not in item}}

    def document(self, part: DocumentPart, path: str, message_id: str) -> dict[str, Any] | None:
        """``input_file``: inline data (PDF or plain text), an OpenAI file id or a URL; other text
        documents as text."""
        source = part.source
        marks = self.marks(part.provider_data)
        item: dict[str, Any] = {"type": "input_file"}
        if isinstance(source, TextSource):
            if (part.media_type or TEXT_FILE) != TEXT_FILE:
                return self._as_text(part, source.text, path, message_id)
            item["file_data"] = data_url(TEXT_FILE, base64.b64encode(source.text.encode()).decode())
        elif isinstance(source, UrlSource):
            item["file_url"] = source.url
        elif isinstance(source, ProviderFileSource):
            if source.issuer not in self.issuers:
                self.losses.add(path, "document", "dropped",
                                f"file {source.file_id} was uploaded to {source.issuer}; OpenAI "
                                "cannot read it", message_id)
                return None
            item["file_id"] = source.file_id
        else:
            found = self._inline(part, path, message_id)
            if found is None:
                return None
            data, media_type = found
            if media_type is None and marks.get("raw") is True:
                item["file_data"] = data
            else:
                media_type = media_type or sniff_media_type(data) or "application/pdf"
                if media_type.startswith("text/") and media_type != TEXT_FILE:
                    raw = decode_base64(data)
                    if raw is not None:
                        return self._as_text(part, raw.decode("utf-8", errors="replace"), path,
                                             message_id)
                if media_type not in DOCUMENT_MEDIA_TYPES:
                    self.losses.add(path, "document", "dropped",
                                    f"Responses files take {', '.join(sorted(DOCUMENT_MEDIA_TYPES))}"
                                    f", not {media_type}", message_id)
                    return None
                item["file_data"] = data_url(media_type, data)
        filename = part.filename
        if part.title is not None:
            if filename is None or filename == part.title:
                filename = part.title
                self.losses.add(f"{path}.title", "document", "rewritten",
                                "Responses files have a filename but no title; the title is sent "
                                "as the filename", message_id)
            else:
                self.losses.add(f"{path}.title", "document", "dropped",
                                "Responses files have a filename but no title", message_id)
        if filename is not None:
            item["filename"] = filename
        block = self.block(part.provider_data, path, "document", message_id)
        return {**item, **{k: v for k, v in block.items() if k not in item}}

    def _as_text(self, part: DocumentPart, text: str, path: str, message_id: str) -> dict[str, Any]:
        self.losses.add(path, "document", "downgraded",
                        f"Responses files take PDF and plain text, not {part.media_type}; the "
                        "document is sent as text", message_id)
        return {"type": "input_text", "text": text}
