"""Parts: the typed pieces of content inside a message, discriminated by ``type``.

Every part is immutable and may carry ``provider_data``. Opaque reasoning state is an
:class:`Opaque` that remembers who issued it, so an adapter echoes it only to that issuer.
"""

from __future__ import annotations

import json
import mimetypes
import os
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import ConfigDict, Field, JsonValue, TypeAdapter

from partwire._base import CanonicalModel, ProviderData
from partwire.errors import ArgumentError, ToolArgumentsError
from partwire.ids import new_tool_call_id

__all__ = [
    "AudioPart",
    "Base64Source",
    "Citation",
    "DocumentCitation",
    "DocumentPart",
    "FileRefSource",
    "ImagePart",
    "MediaSource",
    "Opaque",
    "Part",
    "ProviderFileSource",
    "RedactedThinkingPart",
    "RefusalPart",
    "SearchResultCitation",
    "ServerToolCallPart",
    "ServerToolResultPart",
    "TextPart",
    "TextSource",
    "ThinkingPart",
    "ToolCallPart",
    "UnknownPart",
    "UrlCitation",
    "UrlSource",
]


class Opaque(CanonicalModel):
    """A value only its issuer can verify (a thinking signature, encrypted reasoning)."""

    value: str
    """The exact string as received; re-emitted byte for byte."""
    issuer: str
    """Who can verify it: ``anthropic``, ``openai``, ``google``, ``openrouter``, ``bedrock``, ..."""
    model: str | None = None
    """The model that issued it, where the issuer ties the value to one model."""


def _require_type(schema: dict[str, Any]) -> None:
    # A part's tag is what its union tells it apart by: required on the wire (the JSON Schema of
    # every part says so) although the constructors fill it in.
    schema["required"] = sorted({*schema.get("required", ()), "type"})


class _PartBase(CanonicalModel):
    model_config = ConfigDict(json_schema_extra=_require_type)

    type: str
    """The part's tag."""
    provider_data: ProviderData | None = None
    """Echo state for the issuing provider only; ignored by equality."""


# -- media sources --------------------------------------------------------------------------


class UrlSource(CanonicalModel):
    """Media fetched by the provider from a URL."""

    type: Literal["url"] = "url"
    """The source's tag."""
    url: str
    """The URL, ``https:`` (or ``gs:`` for Gemini) as given by the user."""


class Base64Source(CanonicalModel):
    """Media carried inline as base64."""

    type: Literal["base64"] = "base64"
    """The source's tag."""
    data: str
    """Base64 text, without a ``data:`` prefix."""


class FileRefSource(CanonicalModel):
    """Media stored beside the history, in the workspace."""

    type: Literal["file_ref"] = "file_ref"
    """The source's tag."""
    path: str
    """Workspace-relative path of the file."""
    size: int | None = None
    """Size in bytes when the reference was made."""
    sha256: str | None = None
    """Hex SHA-256 of the file when the reference was made, to detect a changed file."""


class ProviderFileSource(CanonicalModel):
    """Media uploaded to a provider's file store; only that provider can resolve the id."""

    type: Literal["provider_file"] = "provider_file"
    """The source's tag."""
    file_id: str
    """The provider's file id (``file_...``, ``files/...``)."""
    issuer: str
    """The provider that issued the id."""


class TextSource(CanonicalModel):
    """A plain-text document carried inline."""

    type: Literal["text"] = "text"
    """The source's tag."""
    text: str
    """The document's text."""


MediaSource = Annotated[
    UrlSource | Base64Source | FileRefSource | ProviderFileSource | TextSource,
    Field(discriminator="type"),
]
"""Where the bytes of an image, document or audio part are."""


# -- citations ------------------------------------------------------------------------------


class UrlCitation(CanonicalModel):
    """A citation of a web page (web search results)."""

    type: Literal["url"] = "url"
    """The citation's tag."""
    url: str
    """The cited page."""
    title: str | None = None
    """The page title, when given."""
    cited_text: str | None = None
    """The quoted passage, when given."""
    start_index: int | None = None
    """Start of the citing span in the part's text (OpenAI annotations), when given."""
    end_index: int | None = None
    """End of the citing span in the part's text, when given."""
    provider_data: ProviderData | None = None
    """Opaque extras such as Anthropic's ``encrypted_index``; ignored by equality."""


class DocumentCitation(CanonicalModel):
    """A citation of a span in a document the user supplied."""

    type: Literal["document"] = "document"
    """The citation's tag."""
    document_index: int
    """Index of the cited document among the documents of the request."""
    document_title: str | None = None
    """Title of the cited document, when given."""
    unit: Literal["char", "page", "block"]
    """What ``start``/``end`` count: characters, pages or content blocks."""
    start: int
    """First cited unit (0-based characters and blocks, 1-based pages, as the provider says)."""
    end: int
    """End of the cited range (exclusive)."""
    cited_text: str | None = None
    """The quoted passage."""
    file_id: str | None = None
    """Provider file id of the document, when it was one."""
    provider_data: ProviderData | None = None
    """Provider extras; ignored by equality."""


class SearchResultCitation(CanonicalModel):
    """A citation of a search result block supplied in the request."""

    type: Literal["search_result"] = "search_result"
    """The citation's tag."""
    source: str
    """The search result's source (usually a URL)."""
    title: str | None = None
    """Its title."""
    search_result_index: int
    """Index of the cited search result in the request."""
    start_block: int
    """First cited block of the result."""
    end_block: int
    """End of the cited blocks (exclusive)."""
    cited_text: str | None = None
    """The quoted passage."""
    provider_data: ProviderData | None = None
    """Provider extras; ignored by equality."""


Citation = Annotated[UrlCitation | DocumentCitation | SearchResultCitation, Field(discriminator="type")]
"""A typed citation attached to a text part."""


# -- parts ----------------------------------------------------------------------------------


class TextPart(_PartBase):
    """Plain text, with the citations that back it."""

    type: Literal["text"] = "text"
    text: str
    """The text."""
    citations: tuple[Citation, ...] = ()
    """Sources the text cites, in provider order."""


if TYPE_CHECKING:
    from pydantic._internal._model_construction import ModelMetaclass as _ModelMeta
else:
    _ModelMeta = type(CanonicalModel)


class _MediaMeta(_ModelMeta):
    """Lets a media part take ``url=`` or ``file=`` in place of a ``source``.

    ``ImagePart(url="https://example.com/cat.png")`` is ``ImagePart(source=UrlSource(url=...))``;
    ``ImagePart(file="shots/bug.png")`` is ``ImagePart(source=FileRefSource(path=...))``, a file
    beside the history that the adapters read through their ``resolve_file`` option. Either also
    guesses ``media_type`` from the name's extension when none is given. On the metaclass, as
    messages take their content, so loading a history never goes through it.
    """

    def __call__(cls, **data: Any) -> Any:
        url, file = data.pop("url", None), data.pop("file", None)
        if url is not None or file is not None:
            if "source" in data or (url is not None and file is not None):
                raise ArgumentError("source", "give one of source=, url= or file=", function=cls.__name__)
            if not isinstance(url if url is not None else file, str | os.PathLike):
                raise ArgumentError("url" if url is not None else "file", "a URL or a path, as text",
                                    function=cls.__name__)
            name = str(url) if url is not None else os.fspath(file)
            data["source"] = UrlSource(url=name) if url is not None else FileRefSource(path=name)
            if "media_type" not in data:
                guessed = mimetypes.guess_type(name.split("?", 1)[0])[0]
                if guessed is not None:
                    data["media_type"] = guessed
        return super().__call__(**data)


class ImagePart(_PartBase, metaclass=_MediaMeta):
    """An image: ``ImagePart(url=...)`` or ``ImagePart(file=...)`` for short (see ``_MediaMeta``)."""

    if TYPE_CHECKING:  # the signature _MediaMeta gives it: source=, or url= or file= (see there)
        def __init__(self, **data: Any) -> None: ...

    type: Literal["image"] = "image"
    source: MediaSource
    """Where the image is."""
    media_type: str | None = None
    """IANA media type (``image/png``); may be unknown for a URL."""
    detail: Literal["auto", "low", "high", "original"] | None = None
    """Resolution hint, where the provider takes one (OpenAI; ``original`` keeps full size)."""


class DocumentPart(_PartBase, metaclass=_MediaMeta):
    """A document: PDF or text."""

    if TYPE_CHECKING:  # the signature _MediaMeta gives it: source=, or url= or file= (see there)
        def __init__(self, **data: Any) -> None: ...

    type: Literal["document"] = "document"
    source: MediaSource
    """Where the document is."""
    media_type: str | None = None
    """IANA media type (``application/pdf``, ``text/plain``)."""
    title: str | None = None
    """A title shown to the model, where the provider takes one."""
    filename: str | None = None
    """The original file name, where the provider takes one."""


class AudioPart(_PartBase, metaclass=_MediaMeta):
    """A sound clip."""

    if TYPE_CHECKING:  # the signature _MediaMeta gives it: source=, or url= or file= (see there)
        def __init__(self, **data: Any) -> None: ...

    type: Literal["audio"] = "audio"
    source: MediaSource
    """Where the audio is."""
    media_type: str | None = None
    """IANA media type (``audio/wav``, ``audio/mpeg``)."""


class ThinkingPart(_PartBase):
    """Reasoning the model produced, with the signature that lets its issuer verify it."""

    type: Literal["thinking"] = "thinking"
    text: str = ""
    """The reasoning text or summary; empty when the provider only gave encrypted state."""
    signature: Opaque | None = None
    """The issuer's signature or encrypted reasoning; replaced, never appended, while streaming."""
    id: str | None = None
    """The provider's id for this reasoning item (OpenAI ``rs_...``); meaningful to its issuer only."""


class RedactedThinkingPart(_PartBase):
    """Reasoning the provider encrypted; echoed byte-exact to its issuer and nowhere else."""

    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: Opaque
    """The encrypted blob."""


class ToolCallPart(_PartBase):
    """A call of a tool the application runs."""

    type: Literal["tool_call"] = "tool_call"
    id: str
    """Canonical id (``tu_<ULID>``); tool messages point at it."""
    name: str
    """Name of the tool."""
    arguments_json: str
    """The arguments as the exact JSON text the model produced, malformed or truncated included."""
    provider_ids: dict[str, str] = Field(default_factory=dict)
    """The id each issuer gave this call (``{"anthropic": "toolu_..."}``), to echo it back exactly."""

    @classmethod
    def create(
        cls, name: str, arguments: dict[str, Any] | None = None, *, id: str | None = None,
        provider_ids: dict[str, str] | None = None,
    ) -> ToolCallPart:
        """A call with a fresh canonical id and the arguments serialised compactly.

        ``arguments`` is the parsed object (a dict); to keep a model's exact JSON text, construct
        the part with ``arguments_json=`` instead.
        """
        if arguments is not None and not isinstance(arguments, dict):
            hint = " (JSON text goes in ToolCallPart(arguments_json=...))" if isinstance(arguments, str) else ""
            raise ArgumentError("arguments", f"expected a dict of the call's arguments, not "
                                f"{type(arguments).__name__}{hint}", function="ToolCallPart.create")
        return cls(
            id=id or new_tool_call_id(),
            name=name,
            arguments_json=json.dumps(arguments or {}, ensure_ascii=False, separators=(",", ":")),
            provider_ids=provider_ids or {},
        )

    @property
    def arguments(self) -> dict[str, Any]:
        """The arguments parsed; raises :class:`ToolArgumentsError` if they are not a JSON object."""
        try:
            value = json.loads(self.arguments_json) if self.arguments_json.strip() else {}
        except json.JSONDecodeError as exc:
            raise ToolArgumentsError(self.id, self.name, str(exc)) from exc
        if not isinstance(value, dict):
            raise ToolArgumentsError(self.id, self.name, f"got a JSON {type(value).__name__}")
        return value

    def id_for(self, issuer: str) -> str:
        """The id to send to ``issuer``: its own id when it issued one, else the canonical id."""
        return self.provider_ids.get(issuer, self.id)


class ServerToolCallPart(_PartBase):
    """A call of a tool the provider runs itself (web search, code execution)."""

    type: Literal["server_tool_call"] = "server_tool_call"
    id: str
    """The provider's id of the call."""
    name: str
    """The server tool's name (``web_search``, ``code_execution``)."""
    input: JsonValue = None
    """The input the provider gave it."""
    issuer: str
    """The provider that ran it; the part is replayed to that provider only."""


class ServerToolResultPart(_PartBase):
    """The result of a server tool call."""

    type: Literal["server_tool_result"] = "server_tool_result"
    call_id: str
    """The provider's id of the call this answers."""
    name: str
    """The result kind as the provider names it (``web_search_tool_result``)."""
    output: JsonValue = None
    """The result content, exactly as received."""
    issuer: str
    """The provider that produced it; the part is replayed to that provider only."""


class RefusalPart(_PartBase):
    """The model declined to answer."""

    type: Literal["refusal"] = "refusal"
    text: str
    """The refusal text."""


class UnknownPart(_PartBase):
    """A part nobody here understood; kept whole and re-emitted, never dropped in silence."""

    type: Literal["unknown"] = "unknown"
    original_type: str | None = None
    """The ``type`` the part claimed, when it had one."""
    raw: JsonValue = None
    """The part exactly as it arrived (a wire block, or a line from a newer history)."""
    issuer: str | None = None
    """The provider whose wire format it came from; ``None`` when it came from a stored history."""


Part = Annotated[
    TextPart
    | ImagePart
    | DocumentPart
    | AudioPart
    | ThinkingPart
    | RedactedThinkingPart
    | ToolCallPart
    | ServerToolCallPart
    | ServerToolResultPart
    | RefusalPart
    | UnknownPart,
    Field(discriminator="type"),
]
"""Any part."""

PART_CLASSES: dict[str, type[CanonicalModel]] = {
    "text": TextPart, "image": ImagePart, "document": DocumentPart, "audio": AudioPart,
    "thinking": ThinkingPart, "redacted_thinking": RedactedThinkingPart,
    "tool_call": ToolCallPart, "server_tool_call": ServerToolCallPart,
    "server_tool_result": ServerToolResultPart, "refusal": RefusalPart, "unknown": UnknownPart,
}
"""Each part class by its ``type``: the one table for code that picks a class by tag."""
SOURCE_CLASSES: dict[str, type[CanonicalModel]] = {
    "url": UrlSource, "base64": Base64Source, "file_ref": FileRefSource,
    "provider_file": ProviderFileSource, "text": TextSource,
}
"""Each media source class by its ``type``."""
PART_TYPES: frozenset[str] = frozenset(PART_CLASSES)
"""Every part tag this version understands."""

PART_ADAPTER: TypeAdapter[Part] = TypeAdapter(Part)
"""Validates and serialises one part."""
