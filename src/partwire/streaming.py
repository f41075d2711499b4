"""Streaming: the provider-neutral ``StreamEvent`` union and the one accumulator (DESIGN §9).

Every adapter's ``stream()`` turns its provider's chunks into these events; :class:`Accumulator`
folds the events of every adapter the same way:

- text and thinking deltas append; a signature *replaces* the previous one;
- tool-call arguments arrive in fragments and are kept as the exact text the model produced,
  truncated or malformed included;
- blocks that arrive complete come as one :class:`PartEvent`; a ``PartEvent`` may also open a
  part with its initial state (a thinking item id, provider data) that later deltas extend;
- usage updates carry provider *totals*: each one overwrites the last, nothing is added;
- :meth:`Accumulator.abort` gives the partial message with ``stop_reason="aborted"``, and a
  :class:`StreamErrorEvent` gives it with ``status="error"``: what arrived is never thrown away.

An adapter's stream ends with exactly one :class:`MessageCompleteEvent` carrying the final
message (its ``status`` says whether it is whole); an accumulator that receives it adopts it.
Parts are addressed by ``index`` and kept in the order their index first appeared. Events are
never persisted; only the message they build is.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import ClassVar, Literal, assert_never

from partwire._base import ProviderData
from partwire.errors import StreamProtocolError
from partwire.history import ErrorEvent
from partwire.ids import new_message_id, now
from partwire.messages import AssistantMessage, AssistantStatus, StopReason
from partwire.parts import Citation, Opaque, Part, TextPart, ThinkingPart, ToolCallPart
from partwire.usage import Usage

__all__ = [
    "Accumulator",
    "CitationEvent",
    "MessageCompleteEvent",
    "MessageStartEvent",
    "PartDataEvent",
    "PartEvent",
    "SignatureEvent",
    "StopEvent",
    "StreamErrorEvent",
    "StreamEvent",
    "StreamProtocolError",
    "TextDeltaEvent",
    "ThinkingDeltaEvent",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolCallStartEvent",
    "UsageEvent",
    "aaccumulate",
    "accumulate",
]


# -- events ---------------------------------------------------------------------------------
# Slotted dataclasses rather than pydantic models: a stream makes one per token, and they are
# never validated from or written to JSON. Not frozen either: a frozen dataclass takes three
# times as long to build. Treat them as immutable all the same.


@dataclass(slots=True)
class MessageStartEvent:
    """A response began; carries what is known of it up front."""

    type: ClassVar[Literal["message_start"]] = "message_start"
    response_id: str | None = None
    """The provider's id of the response."""
    model: str | None = None
    """The model, ``provider:model``."""
    provider: str | None = None
    """Who serves the call."""
    api: str | None = None
    """The wire API (``anthropic``, ``openai_chat``, ...)."""
    provider_data: ProviderData | None = None
    """Message-level echo state known at the start; merged with later :class:`StopEvent` data."""
    message_id: str | None = None
    """The id the message of this stream has from its first event to its last (DESIGN §9)."""
    created_at: datetime | None = None
    """When the message of this stream was created; with :attr:`message_id`, its identity."""


@dataclass(slots=True)
class TextDeltaEvent:
    """More text for the text part at ``index``."""

    type: ClassVar[Literal["text_delta"]] = "text_delta"
    index: int
    """The part it extends."""
    text: str
    """The text to append."""


@dataclass(slots=True)
class ThinkingDeltaEvent:
    """More reasoning text for the thinking part at ``index``."""

    type: ClassVar[Literal["thinking_delta"]] = "thinking_delta"
    index: int
    """The part it extends."""
    text: str
    """The reasoning text to append."""


@dataclass(slots=True)
class SignatureEvent:
    """The signature of the thinking part at ``index``; replaces any earlier one, never appends."""

    type: ClassVar[Literal["signature"]] = "signature"
    index: int
    """The thinking part it signs."""
    signature: Opaque
    """The opaque signature, with its issuer."""


@dataclass(slots=True)
class CitationEvent:
    """A citation for the text part at ``index``, appended to its citations."""

    type: ClassVar[Literal["citation"]] = "citation"
    index: int
    """The text part it backs."""
    citation: Citation
    """The citation."""


@dataclass(slots=True)
class ToolCallStartEvent:
    """A tool call begins at ``index``; its arguments follow as :class:`ToolCallDeltaEvent`."""

    type: ClassVar[Literal["tool_call_start"]] = "tool_call_start"
    index: int
    """The part it opens."""
    id: str
    """Canonical id of the call (``tu_<ULID>``), made by the adapter when the call starts."""
    name: str
    """Name of the tool."""
    provider_ids: Mapping[str, str] = field(default_factory=dict)
    """The provider's own id of the call, per issuer."""
    provider_data: ProviderData | None = None
    """Echo state of the call for its issuer."""


@dataclass(slots=True)
class ToolCallDeltaEvent:
    """A fragment of a tool call's arguments, appended to the exact JSON text."""

    type: ClassVar[Literal["tool_call_delta"]] = "tool_call_delta"
    index: int
    """The tool call it extends."""
    arguments_delta: str
    """The fragment, exactly as the model produced it."""


@dataclass(slots=True)
class ToolCallEndEvent:
    """The tool call at ``index`` has all its arguments."""

    type: ClassVar[Literal["tool_call_end"]] = "tool_call_end"
    index: int
    """The tool call that ended."""


@dataclass(slots=True)
class PartEvent:
    """The part at ``index`` is now ``part``: a block that arrived complete, or an opening state."""

    type: ClassVar[Literal["part"]] = "part"
    index: int
    """Where the part goes."""
    part: Part
    """The part; text, thinking and tool-call parts may still be extended by deltas."""


@dataclass(slots=True)
class PartDataEvent:
    """Replaces the ``provider_data`` of the part at ``index`` (echo state that came mid-part)."""

    type: ClassVar[Literal["part_data"]] = "part_data"
    index: int
    """The part it belongs to."""
    provider_data: ProviderData | None
    """The part's echo state."""


@dataclass(slots=True)
class UsageEvent:
    """The provider's usage totals so far; overwrites the previous usage, never adds to it."""

    type: ClassVar[Literal["usage"]] = "usage"
    usage: Usage
    """Normalised totals."""


@dataclass(slots=True)
class StopEvent:
    """Why generation stopped, with message-level echo state that arrives at the end."""

    type: ClassVar[Literal["stop"]] = "stop"
    stop_reason: StopReason | None
    """Normalised stop reason."""
    stop_reason_raw: str | None
    """The provider's own value."""
    provider_data: ProviderData | None = None
    """Message-level echo state (stop sequence, details); merged over the start's."""


@dataclass(slots=True)
class StreamErrorEvent:
    """The provider reported an error in the stream; the message so far is kept with status error."""

    type: ClassVar[Literal["error"]] = "error"
    error: ErrorEvent
    """The error, ready to be stored in the history beside the partial message."""


@dataclass(slots=True)
class MessageCompleteEvent:
    """The stream is over; carries the final message (``status`` says whether it is whole)."""

    type: ClassVar[Literal["message_complete"]] = "message_complete"
    message: AssistantMessage
    """The message the stream built."""


StreamEvent = (
    MessageStartEvent
    | TextDeltaEvent
    | ThinkingDeltaEvent
    | SignatureEvent
    | CitationEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
    | PartEvent
    | PartDataEvent
    | UsageEvent
    | StopEvent
    | StreamErrorEvent
    | MessageCompleteEvent
)
"""Any stream event."""


# -- part builders --------------------------------------------------------------------------


# A delta is a few characters, and a string of a few characters weighs about 50 bytes more than
# its text: kept one by one until the end, a streamed text held 11x its size. Every _PENDING
# deltas are joined into a block, so what is held is the text, about 50 bytes per block, and at
# most _PENDING small strings: under 3x the text while the final join runs, at no cost per delta
# beyond a length check.
_PENDING = 256


class _Pieces:
    """Text that arrives in pieces: ``chunks`` the pieces not yet joined, ``blocks`` the joined."""

    __slots__ = ("blocks", "chunks")

    def __init__(self, text: str = "") -> None:
        self.chunks: list[str] = [text] if text else []
        self.blocks: list[str] = []

    def fold(self) -> None:
        """Join the pending pieces into one block (the feed's call every ``_PENDING`` pieces)."""
        self.blocks.append("".join(self.chunks))
        self.chunks.clear()

    def text(self) -> str:
        """The text so far, joined once and kept: a snapshot after every delta stays linear."""
        blocks = self.blocks
        if blocks:
            blocks.extend(self.chunks)
            text = "".join(blocks)
            self.blocks = []
        else:
            text = "".join(self.chunks)
        self.chunks = [text] if text else []
        return text


class _TextBuilder(_Pieces):
    __slots__ = ("base", "citations", "provider_data")

    def __init__(self, base: TextPart | None) -> None:
        super().__init__(base.text if base is not None else "")
        self.base = base
        self.citations: list[Citation] = []
        self.provider_data = base.provider_data if base is not None else None

    def build(self) -> TextPart:
        text = self.text()
        base = self.base
        if base is None or not (base.citations or base.model_extra):
            # Building anew validates faster than model_copy copies.
            return TextPart(text=text, citations=tuple(self.citations), provider_data=self.provider_data)
        return base.model_copy(update={
            "text": text, "citations": base.citations + tuple(self.citations),
            "provider_data": self.provider_data,
        })


class _ThinkingBuilder(_Pieces):
    __slots__ = ("base", "provider_data", "signature")

    def __init__(self, base: ThinkingPart | None) -> None:
        super().__init__(base.text if base is not None else "")
        self.base = base
        self.signature = base.signature if base is not None else None
        self.provider_data = base.provider_data if base is not None else None

    def build(self) -> ThinkingPart:
        text = self.text()
        base = self.base
        if base is None or not base.model_extra:
            return ThinkingPart(text=text, signature=self.signature, provider_data=self.provider_data,
                                id=base.id if base is not None else None)
        return base.model_copy(update={
            "text": text, "signature": self.signature, "provider_data": self.provider_data,
        })


class _ToolCallBuilder(_Pieces):
    __slots__ = ("ended", "id", "name", "provider_data", "provider_ids")

    def __init__(self, id: str, name: str, provider_ids: Mapping[str, str],
                 provider_data: ProviderData | None, arguments: str = "") -> None:
        super().__init__(arguments)
        self.id = id
        self.name = name
        self.provider_ids = dict(provider_ids)
        self.provider_data = provider_data
        self.ended = False

    def build(self) -> ToolCallPart:
        arguments = self.text()
        return ToolCallPart(id=self.id, name=self.name, arguments_json=arguments,
                            provider_ids=self.provider_ids, provider_data=self.provider_data)


class _WholeBuilder:
    __slots__ = ("part", "provider_data")

    def __init__(self, part: Part) -> None:
        self.part = part
        self.provider_data = part.provider_data

    def build(self) -> Part:
        if self.provider_data is self.part.provider_data:
            return self.part
        return self.part.model_copy(update={"provider_data": self.provider_data})


_Builder = _TextBuilder | _ThinkingBuilder | _ToolCallBuilder | _WholeBuilder

_KIND = {_TextBuilder: "text", _ThinkingBuilder: "thinking", _ToolCallBuilder: "tool_call",
         _WholeBuilder: "whole"}


# -- the accumulator ------------------------------------------------------------------------


class Accumulator:
    """Folds stream events, from any adapter, into one :class:`AssistantMessage`.

    ``feed`` every event; read :attr:`message` at any time for a snapshot (status ``partial``
    until the stream completes). :meth:`abort` ends it as a user interrupt.
    """

    __slots__ = ("_aborted", "_created_at", "_error", "_final", "_id", "_parts", "_provider_data",
                 "_start", "_status", "_stop_reason", "_stop_reason_raw", "_usage")

    def __init__(self) -> None:
        self._parts: dict[int, _Builder] = {}
        self._start = MessageStartEvent()
        self._usage: Usage | None = None
        self._stop_reason: StopReason | None = None
        self._stop_reason_raw: str | None = None
        self._provider_data: ProviderData | None = None
        self._status: AssistantStatus = "partial"
        self._error: ErrorEvent | None = None
        self._final: AssistantMessage | None = None
        self._aborted = False
        self._id = new_message_id()
        self._created_at = now()

    @property
    def message_id(self) -> str:
        """The id of the message being built (the stream's, once its start event came)."""
        return self._id

    @property
    def created_at(self) -> datetime:
        """When the message being built was created (the stream's, once its start event came)."""
        return self._created_at

    @property
    def error(self) -> ErrorEvent | None:
        """The error the stream reported, if it reported one."""
        return self._error

    @property
    def done(self) -> bool:
        """Whether the stream completed, failed or was aborted."""
        return self._final is not None or self._status != "partial"

    def feed(self, event: StreamEvent) -> None:
        """Fold one event in. Events after :meth:`abort` are ignored: the user stopped listening."""
        if self._aborted:
            return
        parts = self._parts
        # Deltas dominate every stream: the two commonest take a shortcut past the match.
        if type(event) is TextDeltaEvent:
            b = parts.get(event.index)
            if type(b) is _TextBuilder:
                chunks = b.chunks
                chunks.append(event.text)
                if len(chunks) >= _PENDING:
                    b.fold()
                return
        elif type(event) is ToolCallDeltaEvent:
            b = parts.get(event.index)
            if type(b) is _ToolCallBuilder:
                chunks = b.chunks
                chunks.append(event.arguments_delta)
                if len(chunks) >= _PENDING:
                    b.fold()
                return
        match event:
            case TextDeltaEvent():
                b = parts.get(event.index)
                if b is None:
                    b = parts[event.index] = _TextBuilder(None)
                elif type(b) is not _TextBuilder:
                    raise StreamProtocolError(event.index, event.type, _KIND[type(b)])
                chunks = b.chunks
                chunks.append(event.text)
                if len(chunks) >= _PENDING:
                    b.fold()
            case ToolCallDeltaEvent():
                b = parts.get(event.index)
                if type(b) is not _ToolCallBuilder:
                    kind = "nothing" if b is None else _KIND[type(b)]
                    raise StreamProtocolError(event.index, event.type, kind)
                chunks = b.chunks
                chunks.append(event.arguments_delta)
                if len(chunks) >= _PENDING:
                    b.fold()
            case ThinkingDeltaEvent():
                b = parts.get(event.index)
                if b is None:
                    b = parts[event.index] = _ThinkingBuilder(None)
                elif type(b) is not _ThinkingBuilder:
                    raise StreamProtocolError(event.index, event.type, _KIND[type(b)])
                chunks = b.chunks
                chunks.append(event.text)
                if len(chunks) >= _PENDING:
                    b.fold()
            case SignatureEvent():
                b = parts.get(event.index)
                if b is None:
                    b = parts[event.index] = _ThinkingBuilder(None)
                elif type(b) is not _ThinkingBuilder:
                    raise StreamProtocolError(event.index, event.type, _KIND[type(b)])
                b.signature = event.signature
            case CitationEvent():
                b = parts.get(event.index)
                if b is None:
                    b = parts[event.index] = _TextBuilder(None)
                elif type(b) is not _TextBuilder:
                    raise StreamProtocolError(event.index, event.type, _KIND[type(b)])
                b.citations.append(event.citation)
            case ToolCallStartEvent():
                parts[event.index] = _ToolCallBuilder(
                    event.id, event.name, event.provider_ids, event.provider_data)
            case ToolCallEndEvent():
                b = parts.get(event.index)
                if type(b) is not _ToolCallBuilder:
                    kind = "nothing" if b is None else _KIND[type(b)]
                    raise StreamProtocolError(event.index, event.type, kind)
                b.ended = True
            case PartEvent():
                parts[event.index] = _builder_for(event.part)
            case PartDataEvent():
                b = parts.get(event.index)
                if b is None:
                    raise StreamProtocolError(event.index, event.type, "nothing")
                b.provider_data = event.provider_data
            case UsageEvent():
                self._usage = event.usage
            case StopEvent():
                self._stop_reason = event.stop_reason
                self._stop_reason_raw = event.stop_reason_raw
                self._provider_data = _merge(self._provider_data, event.provider_data)
            case MessageStartEvent():
                self._start = event
                # The stream's identity: every accumulator fed this stream builds the same message.
                if event.message_id is not None:
                    self._id = event.message_id
                if event.created_at is not None:
                    self._created_at = event.created_at
                self._provider_data = _merge(self._provider_data, event.provider_data)
            case StreamErrorEvent():
                self._error = event.error
                self._status = "error"
                self._stop_reason = "error"
            case MessageCompleteEvent():
                self._final = event.message
                self._status = event.message.status
            case _:
                assert_never(event)

    def part(self, index: int) -> Part | None:
        """The part at a stream index as it stands, or ``None`` when nothing opened it."""
        builder = self._parts.get(index)
        return None if builder is None else builder.build()

    @property
    def message(self) -> AssistantMessage:
        """The message so far: the final one once the stream completed, else a snapshot."""
        if self._final is not None:
            return self._final
        return self._build(self._status, self._stop_reason)

    def complete(self) -> AssistantMessage:
        """The message marked whole (what an adapter puts in its :class:`MessageCompleteEvent`)."""
        if self._final is None:
            self._final = self._build(
                "error" if self._status == "error" else "complete", self._stop_reason)
        return self._final

    def abort(self) -> AssistantMessage:
        """End the stream as a user interrupt: the partial message with ``stop_reason="aborted"``.

        A local interrupt wins over whatever the provider said; the provider's own value stays in
        ``stop_reason_raw``.
        """
        if not self._aborted:
            self._aborted = True
            base = self._final
            if base is not None:
                self._final = base.model_copy(update={"status": "aborted", "stop_reason": "aborted"})
            else:
                self._final = self._build("aborted", "aborted")
            self._status = "aborted"
        assert self._final is not None
        return self._final

    def _build(self, status: AssistantStatus, stop_reason: StopReason | None) -> AssistantMessage:
        start = self._start
        return AssistantMessage(
            id=self._id,
            created_at=self._created_at,
            parts=tuple(b.build() for b in self._parts.values()),
            status=status,
            stop_reason=stop_reason,
            stop_reason_raw=self._stop_reason_raw,
            model=start.model,
            provider=start.provider,
            api=start.api,
            response_id=start.response_id,
            usage=self._usage,
            provider_data=self._provider_data,
        )


def _builder_for(part: Part) -> _Builder:
    if isinstance(part, TextPart):
        return _TextBuilder(part)
    if isinstance(part, ThinkingPart):
        return _ThinkingBuilder(part)
    if isinstance(part, ToolCallPart):
        return _ToolCallBuilder(part.id, part.name, part.provider_ids, part.provider_data,
                                part.arguments_json)
    return _WholeBuilder(part)


def _merge(old: ProviderData | None, new: ProviderData | None) -> ProviderData | None:
    """Message-level echo state from the start and the stop of one response, as one object."""
    if new is None:
        return old
    if old is None or old.issuer != new.issuer:
        return new
    if isinstance(old.data, dict) and isinstance(new.data, dict):
        merged = dict(old.data)
        for key, value in new.data.items():
            inner = merged.get(key)
            merged[key] = {**inner, **value} if isinstance(inner, dict) and isinstance(value, dict) else value
        return ProviderData(issuer=new.issuer, data=merged)
    return new


def accumulate(events: Iterable[StreamEvent]) -> AssistantMessage:
    """Fold a whole stream into its message."""
    acc = Accumulator()
    for event in events:
        acc.feed(event)
    return acc.message


async def aaccumulate(events: AsyncIterable[StreamEvent]) -> AssistantMessage:
    """Fold a whole asynchronous stream into its message."""
    acc = Accumulator()
    async for event in events:
        acc.feed(event)
    return acc.message
