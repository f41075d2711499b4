"""Gemini stream -> neutral stream events, on the kernel's :class:`~partwire.adapters._kernel.Translator`.

Input: raw SSE (``streamGenerateContent?alt=sse``, bytes or text, whole or in pieces), the JSON
array that ``streamGenerateContent`` returns without ``alt=sse`` (raw, or parsed), parsed chunks,
or the ``google-genai`` SDK's ``GenerateContentResponse`` chunks. Each chunk holds a delta; they are
merged by :class:`~._decode.ChunkMerger` (text and thought text joined per part, a signature that
arrives on an empty part handed to the part before it, Vertex ``partialArgs`` assembled until
``willContinue`` ends) and every change becomes an event. Usage is the last chunk's (a running
total, never a sum). A ``{"error": ...}`` chunk, or the SDK's exception for it, becomes an error
event and the partial message with ``status="error"``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from partwire import streaming as _streaming
from partwire._json import json_text
from partwire.adapters._kernel import Translator
from partwire.adapters._sse import ServerSentEvent
from partwire.adapters.google._decode import (
    ChunkMerger,
    error_event,
    message_from_response,
    sdk_dump,
)
from partwire.adapters.google._parts import part_from_wire
from partwire.adapters.google._wire import API, ISSUER, usage_from_wire
from partwire.errors import WireFormatError
from partwire.parts import TextPart, ThinkingPart, ToolCallPart
from partwire.streaming import StreamEvent

__all__ = ["GeminiTranslator"]

class GeminiTranslator(Translator):
    """Turns Gemini chunks into stream events, one at a time, and keeps the message they build."""

    __slots__ = ("call_ids", "candidate", "finish_seen", "merger", "model")

    provider = ISSUER
    dicts_are_items = True

    def __init__(self, candidate: int = 0) -> None:
        super().__init__()
        self.candidate = candidate
        self.merger = ChunkMerger(candidate)
        self.model: str | None = None
        self.call_ids: dict[int, str] = {}
        self.finish_seen = False

    # -- readers ----------------------------------------------------------------------------

    @staticmethod
    def from_sse(sse: ServerSentEvent) -> Mapping[str, Any] | None:
        data = sse.data.strip()
        if not data:
            return None
        try:
            item = json.loads(data)
        except json.JSONDecodeError as exc:
            raise WireFormatError(ISSUER, "stream event", f"not JSON: {exc}") from exc
        if not isinstance(item, dict):
            raise WireFormatError(ISSUER, "stream event", "not a JSON object")
        return item

    @staticmethod
    def from_object(item: Any) -> Mapping[str, Any] | None:
        if isinstance(item, Mapping):
            return item
        if hasattr(type(item), "model_fields"):
            dumped = sdk_dump(item)
            return dumped if isinstance(dumped, dict) else None
        raise WireFormatError(ISSUER, "stream event", f"cannot read a {type(item).__name__}")

    @staticmethod
    def error_body(exc: Exception) -> Mapping[str, Any] | None:
        # google.genai.errors.APIError (ClientError / ServerError), read by duck typing.
        if not type(exc).__module__.startswith("google.genai"):
            return None
        code = getattr(exc, "code", None)
        status = getattr(exc, "status", None)
        message = getattr(exc, "message", None)
        if code is None and status is None:
            return None
        return {"error": {"code": code, "status": status, "message": message or str(exc)}}

    def items(self, chunks: Any) -> Iterator[Mapping[str, Any]]:
        """Wire items; a raw body that is a JSON array (no ``alt=sse``) is read as one."""
        if isinstance(chunks, bytes | bytearray | str):
            chunks = (chunks,)
        if isinstance(chunks, list | tuple) and chunks and all(isinstance(c, Mapping) for c in chunks):
            yield from chunks
            return
        iterator = iter(chunks)
        first = next(iterator, None)
        if first is None:
            return
        if isinstance(first, bytes | bytearray | str) and _starts_array(first):
            reader = _ArrayReader()
            yield from reader.feed(first)
            for piece in iterator:
                yield from reader.feed(piece)
            reader.close()
            return
        yield from super().items(_chain(first, iterator))

    async def _aitems(self, chunks: AsyncIterable[Any]) -> AsyncIterator[Mapping[str, Any]]:
        stream = aiter(chunks)
        try:
            first = await anext(stream)
        except StopAsyncIteration:
            return
        if isinstance(first, bytes | bytearray | str) and _starts_array(first):
            reader = _ArrayReader()
            for item in reader.feed(first):
                yield item
            async for piece in stream:
                for item in reader.feed(piece):
                    yield item
            reader.close()
            return
        async for item in super().aitems(_achain(first, stream)):
            yield item

    def aitems(self, chunks: AsyncIterable[Any]) -> AsyncIterator[Mapping[str, Any]]:
        """:meth:`items` over an asynchronous source."""
        return self._aitems(chunks)

    # -- events -----------------------------------------------------------------------------

    def feed(self, item: Mapping[str, Any]) -> Sequence[StreamEvent]:
        if self.finished:
            return ()
        events: list[StreamEvent] = []
        if isinstance(item.get("error"), dict):
            self.finished = True
            events.append(_streaming.StreamErrorEvent(error_event(item)))
            out = self.emit(events)
            return (*out, self.complete(whole=True))
        if not self.started:
            version = item.get("modelVersion")
            self.model = version if isinstance(version, str) and version else None
            response_id = item.get("responseId")
            events.append(self.start_event(
                response_id=response_id if isinstance(response_id, str) else None,
                model=f"{ISSUER}:{self.model}" if self.model else None,
                provider=ISSUER, api=API))
        for change in self.merger.feed(item):
            self._change(change, events)
        for cand in item.get("candidates") or ():
            if isinstance(cand, dict) and cand.get("index", 0) == self.candidate \
                    and cand.get("finishReason") is not None:
                self.finish_seen = True
        usage = item.get("usageMetadata")
        if isinstance(usage, dict):
            events.append(_streaming.UsageEvent(usage_from_wire(usage)))
        return self.emit(events)

    def _change(self, change: tuple[str, int, str], events: list[StreamEvent]) -> None:
        what, index, text = change
        raw = self.merger.parts[index]
        if what == "text":
            if raw.get("thought") is True:
                events.append(_streaming.ThinkingDeltaEvent(index, text))
            else:
                events.append(_streaming.TextDeltaEvent(index, text))
            return
        if what == "sig":
            part = part_from_wire(raw, self.model)
            if isinstance(part, ThinkingPart) and part.signature is not None:
                events.append(_streaming.SignatureEvent(index, part.signature))
            # A signed part keeps no "unsigned" marks: its echo state is what the whole part says.
            events.append(_streaming.PartDataEvent(index, part.provider_data))
            return
        if what == "open":
            call = dict(raw["functionCall"])
            call.pop("willContinue", None)
            call.pop("partialArgs", None)
            head = part_from_wire({**raw, "functionCall": call}, self.model)
            if isinstance(head, ToolCallPart):
                self.call_ids[index] = head.id
                events.append(_streaming.ToolCallStartEvent(index, head.id, head.name, head.provider_ids,
                                                            head.provider_data))
            return
        if what == "call":
            args = raw["functionCall"].get("args")
            if index in self.call_ids:
                events.append(_streaming.ToolCallDeltaEvent(index, json_text(args)))
                events.append(_streaming.ToolCallEndEvent(index))
            else:
                events.append(_streaming.PartEvent(index, part_from_wire(raw, self.model)))
            return
        part = part_from_wire(raw, self.model)
        if isinstance(part, TextPart) and part.text:
            events.append(_streaming.PartEvent(index, part.model_copy(update={"text": ""})))
            events.append(_streaming.TextDeltaEvent(index, part.text))
        elif isinstance(part, ThinkingPart) and part.text:
            events.append(_streaming.PartEvent(index, part.model_copy(update={"text": ""})))
            events.append(_streaming.ThinkingDeltaEvent(index, part.text))
        elif isinstance(part, ToolCallPart):
            self.call_ids[index] = part.id
            events.append(_streaming.ToolCallStartEvent(index, part.id, part.name, part.provider_ids,
                                                        part.provider_data))
            if part.arguments_json:
                events.append(_streaming.ToolCallDeltaEvent(index, part.arguments_json))
            events.append(_streaming.ToolCallEndEvent(index))
        else:
            events.append(_streaming.PartEvent(index, part))

    def finish(self) -> Sequence[StreamEvent]:
        if self.finished:
            return ()
        self.finished = True
        events: list[StreamEvent] = []
        for change in self.merger.finish():
            self._change(change, events)
        merged = message_from_response(
            self.merger.response(), candidate=self.candidate,
            call_ids=[self.call_ids[i] for i in sorted(self.call_ids)])
        if not self.merger.parts:
            # A blocked prompt answers with a refusal and no candidates.
            for index, part in enumerate(merged.parts):
                events.append(_streaming.PartEvent(index, part))
        events.append(_streaming.StopEvent(merged.stop_reason, merged.stop_reason_raw,
                                           merged.provider_data))
        out = self.emit(events)
        return (*out, self.complete(whole=self.finish_seen or not self.merger.parts))


def _starts_array(first: bytes | bytearray | str) -> bool:
    text = first.decode("utf-8", "ignore") if isinstance(first, bytes | bytearray) else first
    return text.lstrip().startswith("[")


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest


async def _achain(first: Any, rest: AsyncIterator[Any]) -> AsyncIterator[Any]:
    yield first
    async for item in rest:
        yield item


class _ArrayReader:
    """Reads the objects of a JSON array as its bytes arrive (``streamGenerateContent``'s body)."""

    def __init__(self) -> None:
        self.buffer = ""
        self.decoder = json.JSONDecoder()
        self.pending = b""
        self.opened = False
        self.closed = False

    def feed(self, piece: bytes | bytearray | str) -> list[Mapping[str, Any]]:
        if isinstance(piece, bytes | bytearray):
            data = self.pending + bytes(piece)
            try:
                text = data.decode("utf-8")
                self.pending = b""
            except UnicodeDecodeError as exc:
                # A character split between pieces: keep its first bytes for the next one.
                text = data[:exc.start].decode("utf-8")
                self.pending = data[exc.start:]
        else:
            text = piece
        self.buffer += text
        out: list[Mapping[str, Any]] = []
        while True:
            rest = self.buffer.lstrip()
            if not self.opened:
                if not rest:
                    break
                if not rest.startswith("["):
                    raise WireFormatError(ISSUER, "stream", "expected a JSON array")
                self.opened = True
                rest = rest[1:]
            rest = rest.lstrip().lstrip(",").lstrip()
            if rest.startswith("]"):
                self.closed = True
                self.buffer = ""
                break
            if not rest:
                self.buffer = ""
                break
            try:
                item, end = self.decoder.raw_decode(rest)
            except json.JSONDecodeError:
                self.buffer = rest  # incomplete: wait for more
                break
            if not isinstance(item, dict):
                raise WireFormatError(ISSUER, "stream", "an array item is not a JSON object")
            out.append(item)
            self.buffer = rest[end:]
        return out

    def close(self) -> None:
        if self.buffer.strip() or self.pending:
            raise WireFormatError(ISSUER, "stream", "the JSON array ends in the middle of an item")
