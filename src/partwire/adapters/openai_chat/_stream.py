"""Chat Completions stream -> neutral stream events, folded by the shared accumulator as they go.

Input is raw SSE (bytes or text, whole or in chunks), parsed JSON chunks, or the SDK's
``ChatCompletionChunk`` objects. One choice is followed (index 0 unless asked otherwise).
Reasoning and text stream as deltas; tool calls stream by their wire ``index``, with the id and
name taken once (some servers repeat them in every fragment: they are never concatenated); a
refusal or audio reply is re-sent whole as it grows. The usage-only chunk that
``stream_options.include_usage`` adds overwrites the usage; a ``{"error": ...}`` chunk becomes an
error event plus the partial message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from partwire import streaming as _streaming
from partwire._base import ProviderData
from partwire._json import as_json
from partwire.adapters._kernel import Translator as _KernelTranslator
from partwire.adapters._sse import (
    ServerSentEvent,
)
from partwire.adapters.openai_chat._decode import (
    annotations_from_wire,
    content_part_from_wire,
    detail_from_wire,
    error_retryable,
    thinking_chunk_from_wire,
)
from partwire.adapters.openai_chat._dialects import Dialect
from partwire.adapters.openai_chat._wire import API, stop_reason, usage_from_wire
from partwire.errors import WireFormatError
from partwire.history import ErrorEvent
from partwire.ids import new_tool_call_id
from partwire.parts import AudioPart, Base64Source, Opaque, RefusalPart, ThinkingPart
from partwire.streaming import StreamEvent

__all__ = ["DONE", "Translator"]

DONE: Mapping[str, Any] = {"[DONE]": True}
"""Stands for the ``data: [DONE]`` line that ends a stream."""

# Chunk keys with a home elsewhere; the rest of the chunk is response metadata. "obfuscation"
# is random padding, different in every chunk and meaningless.
_CHUNK_FIELDS = frozenset({"id", "object", "model", "choices", "usage", "obfuscation"})
_CHOICE_FIELDS = frozenset({"index", "delta", "finish_reason", "logprobs"})
_DELTA_FIELDS = frozenset({"role", "content", "refusal", "tool_calls", "audio", "function_call",
                           "annotations", "reasoning_details"})
_NONE: tuple[StreamEvent, ...] = ()
# Azure OpenAI's per-choice moderation verdicts (see _merge_filter_results).
_FILTER_RESULTS = "content_filter_results"


class _Call:
    """A tool call whose fragments are arriving."""

    __slots__ = ("buffer", "custom", "ended", "index", "name", "started", "wire_id")

    def __init__(self) -> None:
        self.index = -1
        self.wire_id: str | None = None
        self.name: str | None = None
        self.custom = False
        self.started = False
        self.ended = False
        self.buffer: list[str] = []


class _Detail:
    """An OpenRouter reasoning detail being streamed (fragments share its ``index``)."""

    __slots__ = ("closed", "index", "raw", "text")

    def __init__(self, index: int, kind: Any) -> None:
        self.index = index
        self.text = kind in ("reasoning.text", "reasoning.summary")  # streams as thinking deltas
        self.raw: dict[str, Any] = {}
        self.closed = False


class _Thinking:
    """A thinking chunk being streamed (Mistral): its part and the keys it came with."""

    __slots__ = ("extras", "index")

    def __init__(self, index: int) -> None:
        self.index = index
        self.extras: dict[str, Any] = {}

    def add(self, part: ThinkingPart) -> None:
        data = part.provider_data.data if part.provider_data is not None else None
        block = data.get("block") if isinstance(data, dict) else None
        if isinstance(block, dict):
            self.extras.update(block)


class Translator(_KernelTranslator):
    """Turns wire chunks into stream events, one at a time, and keeps the message they build."""

    __slots__ = ("audio", "audio_index", "calls", "choice", "details", "dialect", "done",
                 "finish_reason", "issuer", "last_call", "logprobs", "marks_sent",
                 "next_index", "reasoning_field", "reasoning_index", "refusal", "refusal_index",
                 "reply", "rest", "skip", "text_index", "thinking", "top")
    provider = API

    def __init__(self, dialect: Dialect, choice: int = 0) -> None:
        super().__init__()
        self.dialect = dialect
        self.issuer = dialect.issuer
        self.choice = choice
        self.done = False
        self.finish_reason: str | None = None
        self.next_index = 0
        self.text_index: int | None = None
        self.reasoning_index: int | None = None
        self.reasoning_field: str | None = None
        self.details: dict[Any, _Detail] = {}
        self.refusal: list[str] = []
        self.refusal_index: int | None = None
        self.audio: dict[str, Any] = {}
        self.audio_index: int | None = None
        self.calls: dict[Any, _Call] = {}
        self.last_call: Any = None
        self.top: dict[str, Any] = {}
        self.rest: dict[str, Any] = {}
        self.reply: dict[str, Any] = {}
        self.logprobs: dict[str, Any] | None = None
        self.marks_sent: dict[str, Any] | None = None
        self.skip = _CHUNK_FIELDS | dialect.padding_keys
        self.thinking: _Thinking | None = None  # the thinking chunk being streamed (Mistral)

    # -- chunks -----------------------------------------------------------------------------

    @staticmethod
    def from_sse(sse: ServerSentEvent) -> Mapping[str, Any] | None:
        """The wire chunk of one server-sent event (:data:`DONE` for ``[DONE]``)."""
        return _sse_chunk(sse)

    @staticmethod
    def from_object(item: Any) -> Mapping[str, Any] | None:
        """The wire chunk of a parsed JSON chunk or an SDK chunk (``None`` for helper events)."""
        return _object_chunk(item)

    @staticmethod
    def error_body(exc: Exception) -> Mapping[str, Any] | None:
        """The ``{"error": ...}`` chunk of an exception the SDK raised for one."""
        return _error_body(exc)

    def feed(self, chunk: Mapping[str, Any]) -> tuple[StreamEvent, ...]:
        """The stream events one wire chunk stands for (often one, sometimes none)."""
        if self.started and not self.finished:
            hot = self._hot(chunk)
            if hot is not None:
                self.acc.feed(hot)
                return (hot,)
        if self.finished:
            return _NONE
        if chunk is DONE:
            self.done = True
            return self.finish()
        error = chunk.get("error")
        if isinstance(error, dict):
            # The SDK raises on any chunk with an "error", choices or not (OpenRouter sends both).
            return self._error(error)
        if chunk.get("object") == "error" and "choices" not in chunk:
            return self._error(chunk)  # Mistral's error frame is the error object itself
        choices = chunk.get("choices")
        events: list[StreamEvent] = []
        usage = chunk.get("usage")
        if not self.started:
            self._top(chunk)
            if not choices and not chunk.get("id") and usage is None:
                # Azure OpenAI opens with its prompt's filter results alone (no choices, an empty
                # id and model, created 0): the response's identity is in the chunks after it.
                return _NONE
            model = chunk.get("model")
            # The response metadata known up front, so a stream that fails still carries it.
            events.append(self.start_event(
                response_id=chunk.get("id") if isinstance(chunk.get("id"), str) else None,
                model=f"{self.issuer}:{model}" if isinstance(model, str) and model else None,
                provider=self.issuer, api=API,
                provider_data=ProviderData(issuer=self.issuer, data={"response": dict(self.top)})
                if self.top else None))
        elif usage is not None or len(chunk) > 9:
            self._top(chunk)  # metadata repeats in every chunk; the last word is the end's
        if choices:
            for choice in choices:
                if isinstance(choice, dict) and choice.get("index", 0) == self.choice:
                    self._choice(choice, events)
        if isinstance(usage, dict):
            events.append(_streaming.UsageEvent(usage_from_wire(usage, self.issuer)))
        feed = self.acc.feed
        for event in events:
            feed(event)
        return tuple(events)

    def _hot(self, chunk: Mapping[str, Any]) -> StreamEvent | None:
        """The event of one of the two chunks most of a stream is made of, else ``None``.

        A bare text delta, and a bare arguments fragment of a tool call already started: one
        event each, nothing else to look at (metadata repeats what the first chunk said).
        """
        choices = chunk.get("choices")
        if type(choices) is not list or len(choices) != 1 or chunk.get("usage") is not None \
                or "error" in chunk:
            return None
        choice = choices[0]
        if type(choice) is not dict or _has_extras(choice) or choice.get("finish_reason") is not None \
                or choice.get("logprobs") is not None or choice.get("index", 0) != self.choice:
            return None
        delta = choice.get("delta")
        if type(delta) is not dict or len(delta) != 1:
            return None
        content = delta.get("content")
        if content is not None:
            if type(content) is str and content and self.text_index is not None:
                return _streaming.TextDeltaEvent(self.text_index, content)
            return None
        calls = delta.get("tool_calls")
        if type(calls) is list and len(calls) == 1:
            fragment = calls[0]
            if type(fragment) is dict and len(fragment) == 2:
                call = self.calls.get(fragment.get("index"))
                function = fragment.get("function")
                if call is not None and call.started and not call.ended and not call.custom \
                        and type(function) is dict and len(function) == 1:
                    piece = function.get("arguments")
                    if type(piece) is str and piece:
                        return _streaming.ToolCallDeltaEvent(call.index, piece)
        return None

    def finish(self) -> tuple[StreamEvent, ...]:
        """End of input (or ``[DONE]``): the message, complete if the choice finished or the
        server said ``[DONE]``, else the partial message of a stream cut short."""
        if self.finished:
            return _NONE
        self.finished = True
        events: list[StreamEvent] = []
        self._close(events)
        flushed = self._emit(events)
        return (*flushed, self.complete(whole=self.done or self.finish_reason is not None))

    def _emit(self, events: list[StreamEvent]) -> tuple[StreamEvent, ...]:
        return self.emit(events)

    def _open(self) -> int:
        index = self.next_index
        self.next_index += 1
        return index

    def _top(self, chunk: Mapping[str, Any]) -> None:
        for key, value in chunk.items():
            if value is not None and key not in self.skip:
                self.top[key] = value

    def _choice(self, choice: Mapping[str, Any], events: list[StreamEvent]) -> None:
        delta = choice.get("delta")
        if type(delta) is dict:
            content = delta.get("content")
            if len(delta) == 1 and type(content) is str:
                # The hot path: a bare text delta.
                if content:
                    if self.text_index is None:
                        self._end_thinking(events)
                        self.text_index = self._open()
                    events.append(_streaming.TextDeltaEvent(self.text_index, content))
            else:
                self._delta(delta, events)
        if _has_extras(choice) or choice.get("logprobs") is not None:
            self._choice_rest(choice)
        finish = choice.get("finish_reason")
        if finish is not None and isinstance(finish, str):
            self.finish_reason = finish
            self._close(events)

    def _choice_rest(self, choice: Mapping[str, Any]) -> None:
        for key, value in choice.items():
            if value is None or key in _CHOICE_FIELDS:
                continue
            if key == _FILTER_RESULTS and isinstance(value, dict):
                self.rest[key] = _merge_filter_results(self.rest.get(key), value)
                continue
            self.rest[key] = value
        logprobs = choice.get("logprobs")
        if isinstance(logprobs, dict):
            if self.logprobs is None:
                self.logprobs = {}
            for key, value in logprobs.items():
                before = self.logprobs.get(key)
                if isinstance(value, list):
                    self.logprobs[key] = [*(before or []), *value]
                elif key not in self.logprobs:
                    self.logprobs[key] = value

    def _delta(self, delta: Mapping[str, Any], events: list[StreamEvent]) -> None:
        dialect = self.dialect
        details = delta.get("reasoning_details") if dialect.reasoning_details else None
        if isinstance(details, list) and details:
            for detail in details:
                if isinstance(detail, dict):
                    self._detail(detail, events)
        elif dialect.reasoning_fields:
            self._reasoning(delta, events)
        content = delta.get("content")
        if isinstance(content, str) and content:
            if self.text_index is None:
                self._end_thinking(events)
                self.text_index = self._open()
            events.append(_streaming.TextDeltaEvent(self.text_index, content))
        elif isinstance(content, list) and dialect.thinking_chunks:
            for chunk in content:
                self._content_chunk(chunk, events)
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            if self.refusal_index is None:
                self.refusal_index = self._open()
            self.refusal.append(refusal)
            events.append(_streaming.PartEvent(self.refusal_index, RefusalPart(text="".join(self.refusal))))
        audio = delta.get("audio")
        if isinstance(audio, dict):
            self._audio(audio, events)
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            for fragment in calls:
                if isinstance(fragment, dict):
                    self._fragment(fragment, events)
        legacy = delta.get("function_call")
        if isinstance(legacy, dict):
            self._fragment({"index": "function_call", "function": legacy}, events)
        annotations = delta.get("annotations")
        if isinstance(annotations, list) and annotations:
            citations = annotations_from_wire(annotations)
            if citations is not None and self.text_index is not None:
                events.extend(_streaming.CitationEvent(self.text_index, c) for c in citations)
            else:
                self.reply.setdefault("annotations", []).extend(annotations)
        for key, value in delta.items():
            if value is None or key in _DELTA_FIELDS or key in dialect.reasoning_fields:
                continue
            before = self.reply.get(key)
            # Unknown fields accumulate as the SDK's accumulator does: strings concatenate.
            self.reply[key] = before + value if isinstance(before, str) and isinstance(value, str) \
                else value

    def _content_chunk(self, chunk: Any, events: list[StreamEvent]) -> None:
        """One chunk of a list ``content`` delta (Mistral): text, or thinking. Pieces of the same
        kind in a row make one part, as the whole response has one chunk for them."""
        kind = chunk.get("type") if isinstance(chunk, dict) else None
        if kind == "text" and isinstance(chunk.get("text"), str):
            text = chunk["text"]
            if text:
                if self.text_index is None:
                    self._end_thinking(events)
                    self.text_index = self._open()
                events.append(_streaming.TextDeltaEvent(self.text_index, text))
            return
        if kind == "thinking":
            part = thinking_chunk_from_wire(chunk, self.issuer)
            if isinstance(part, ThinkingPart):
                state = self.thinking
                if state is None:
                    self.text_index = None  # text after this thinking is a part of its own
                    state = self.thinking = _Thinking(self._open())
                    events.append(_streaming.PartEvent(state.index, ThinkingPart(provider_data=ProviderData(
                        issuer=self.issuer, data={"field": "content"}))))
                state.add(part)
                if part.text:
                    events.append(_streaming.ThinkingDeltaEvent(state.index, part.text))
                if part.signature is not None:
                    events.append(_streaming.SignatureEvent(state.index, part.signature))
                return
        # Anything else arrives whole, in its place.
        self._end_thinking(events)
        self.text_index = None
        events.append(_streaming.PartEvent(self._open(), content_part_from_wire(chunk, self.issuer)))

    def _end_thinking(self, events: list[StreamEvent]) -> None:
        """Close the thinking chunk being streamed: its echo state, if it has any beyond the field."""
        state = self.thinking
        if state is None:
            return
        self.thinking = None
        if state.extras:
            events.append(_streaming.PartDataEvent(state.index, ProviderData(
                issuer=self.issuer, data={"field": "content", "block": dict(state.extras)})))

    def _reasoning(self, delta: Mapping[str, Any], events: list[StreamEvent]) -> None:
        for name in self.dialect.reasoning_fields:
            text = delta.get(name)
            if not (isinstance(text, str) and text):
                continue
            if self.reasoning_field is None:
                self.reasoning_field = name
                self.reasoning_index = self._open()
                events.append(_streaming.PartEvent(self.reasoning_index, ThinkingPart(
                    provider_data=ProviderData(issuer=self.issuer, data={"field": name}))))
            if name == self.reasoning_field and self.reasoning_index is not None:
                events.append(_streaming.ThinkingDeltaEvent(self.reasoning_index, text))
            return

    def _detail(self, fragment: Mapping[str, Any], events: list[StreamEvent]) -> None:
        key = fragment.get("index", len(self.details))
        state = self.details.get(key)
        if state is None:
            kind = fragment.get("type")
            state = self.details[key] = _Detail(self._open(), kind)
            # A placeholder holds the detail's place among the parts until it is whole.
            opening = detail_from_wire({k: v for k, v in fragment.items()
                                        if k not in ("text", "summary", "signature", "data")},
                                       self.issuer)
            if isinstance(opening, ThinkingPart):
                opening = opening.model_copy(update={"text": "", "signature": None})
            events.append(_streaming.PartEvent(state.index, opening))
        raw = state.raw
        for name, value in fragment.items():
            before = raw.get(name)
            if name in ("text", "summary", "data") and isinstance(value, str):
                raw[name] = before + value if isinstance(before, str) else value
            elif value is not None or name not in raw:
                raw[name] = value
        if state.text:
            text = fragment.get("text" if raw.get("type") == "reasoning.text" else "summary")
            if isinstance(text, str) and text:
                events.append(_streaming.ThinkingDeltaEvent(state.index, text))
            signature = fragment.get("signature")
            if isinstance(signature, str) and signature:
                events.append(_streaming.SignatureEvent(state.index, Opaque(value=signature, issuer=self.issuer)))

    def _audio(self, audio: Mapping[str, Any], events: list[StreamEvent]) -> None:
        for key, value in audio.items():
            if value is None:
                continue
            before = self.audio.get(key)
            self.audio[key] = before + value if key in ("data", "transcript") and isinstance(
                before, str) and isinstance(value, str) else value
        if isinstance(self.audio.get("data"), str):
            if self.audio_index is None:
                self.audio_index = self._open()
            info = {k: v for k, v in self.audio.items() if k != "data"}
            events.append(_streaming.PartEvent(self.audio_index, AudioPart(
                source=Base64Source(data=self.audio["data"]),
                provider_data=ProviderData(issuer=self.issuer, data={"audio": info}))))

    def _fragment(self, fragment: Mapping[str, Any], events: list[StreamEvent]) -> None:
        custom = fragment.get("type") == "custom" or "custom" in fragment
        inner = fragment.get("custom" if custom else "function")
        inner = inner if isinstance(inner, dict) else {}
        name = inner.get("name")
        wire_id = fragment.get("id")
        key = fragment.get("index")
        if not isinstance(key, int | str):
            # Servers that omit the index (Ollama) send each call whole: a fragment that names a
            # call starts a new one; one that does not continues the last.
            key = (-1 - len(self.calls)) if wire_id or name or self.last_call is None else self.last_call
        call = self.calls.get(key)
        if call is None:
            call = self.calls[key] = _Call()
        self.last_call = key
        # Set once: a server that repeats the id or name in every fragment must not see them
        # concatenated ("call_1call_1"), the fault of the SDK's own accumulator.
        if call.wire_id is None and isinstance(wire_id, str) and wire_id:
            call.wire_id = wire_id
        if call.name is None and isinstance(name, str) and name:
            call.name = name
            call.custom = custom
        piece = inner.get("input" if custom else "arguments")
        if call.started:
            if isinstance(piece, str) and piece and not call.ended:
                events.append(_streaming.ToolCallDeltaEvent(call.index, _escape(piece) if call.custom else piece))
            return
        if isinstance(piece, str) and piece:
            call.buffer.append(piece)
        if call.name is not None:
            self._start(call, events)

    def _start(self, call: _Call, events: list[StreamEvent]) -> None:
        call.started = True
        call.index = self._open()
        pd = ProviderData(issuer=self.issuer, data={"kind": "custom"}) if call.custom else None
        events.append(_streaming.ToolCallStartEvent(call.index, new_tool_call_id(), call.name or "",
                                                    {self.issuer: call.wire_id} if call.wire_id else {}, pd))
        if call.custom:
            events.append(_streaming.ToolCallDeltaEvent(call.index, '{"input": "'))
        text = "".join(call.buffer)
        call.buffer = []
        if text:
            events.append(_streaming.ToolCallDeltaEvent(call.index, _escape(text) if call.custom else text))

    def _close(self, events: list[StreamEvent]) -> None:
        """Finish open tool calls and reasoning details; record the stop (again if it changed)."""
        for call in self.calls.values():
            if not call.started:
                self._start(call, events)
            if not call.ended:
                call.ended = True
                if call.custom:
                    events.append(_streaming.ToolCallDeltaEvent(call.index, '"}'))
                events.append(_streaming.ToolCallEndEvent(call.index))
        for state in self.details.values():
            if not state.closed:
                state.closed = True
                events.append(self._detail_end(state))
        self._end_thinking(events)
        if self.finish_reason is None and not self.done:
            return
        marks = self._marks()
        if marks != self.marks_sent:
            self.marks_sent = marks
            events.append(_streaming.StopEvent(
                stop_reason(self.finish_reason, tool_calls=bool(self.calls), refusal=bool(self.refusal)),
                self.finish_reason, ProviderData(issuer=self.issuer, data=marks) if marks else None))

    def _detail_end(self, state: _Detail) -> StreamEvent:
        """The whole detail (encrypted, unknown) or the echo state of a streamed thinking part."""
        part = detail_from_wire(state.raw, self.issuer)
        if state.text and isinstance(part, ThinkingPart):
            return _streaming.PartDataEvent(state.index, part.provider_data)
        return _streaming.PartEvent(state.index, part)

    def _marks(self) -> dict[str, Any]:
        marks: dict[str, Any] = {}
        if self.top:
            marks["response"] = dict(self.top)
        rest = dict(self.rest)
        if self.logprobs is not None:
            rest["logprobs"] = dict(self.logprobs)
        if rest:
            marks["choice"] = rest
        if self.reply:
            marks["reply"] = dict(self.reply)
        return marks

    def _error(self, error: Mapping[str, Any]) -> tuple[StreamEvent, ...]:
        code = error.get("code")
        kind = error.get("type")
        status = code if isinstance(code, int) and not isinstance(code, bool) else None
        name = code if isinstance(code, str) and code else kind if isinstance(kind, str) else (
            str(code) if status is not None else None)
        event = _streaming.StreamErrorEvent(ErrorEvent(
            code=name, message=str(error.get("message", "")), provider=self.issuer,
            # Mistral's code is a number in a string ("1300"); its type says what happened.
            retryable=error_retryable(name, status) or error_retryable(kind if isinstance(kind, str) else None, None),
            status=status,
        ))
        self.finished = True
        first = self._emit([event])
        events: list[StreamEvent] = []
        self._close(events)
        flushed = self._emit(events)
        return (*first, *flushed, self.complete())


def _has_extras(choice: Mapping[str, Any]) -> bool:
    """Whether a chunk's choice holds more than index, delta, finish_reason and logprobs (Azure's
    ``content_filter_results``, whether or not ``logprobs`` is there)."""
    return len(choice) > ("index" in choice) + ("delta" in choice) + ("finish_reason" in choice) \
        + ("logprobs" in choice)


def _merge_filter_results(before: Any, after: dict[str, Any]) -> dict[str, Any]:
    """Azure's content filter results of a stream so far, with one more chunk's.

    Each chunk judges its own stretch of text and the last (the finish) carries ``{}``; the whole
    response carries one verdict per category for the whole completion. So categories add up, and
    a category that a stretch tripped (filtered or detected) stays tripped.
    """
    merged = dict(before) if isinstance(before, dict) else {}
    for category, verdict in after.items():
        earlier = merged.get(category)
        if isinstance(earlier, dict) and (earlier.get("filtered") or earlier.get("detected")) \
                and not (isinstance(verdict, dict) and (verdict.get("filtered") or verdict.get("detected"))):
            continue
        merged[category] = verdict
    return merged


def _escape(text: str) -> str:
    """``text`` as it appears inside a JSON string (a custom tool's input is wrapped as JSON)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


# -- inputs ---------------------------------------------------------------------------------


def _object_chunk(item: Any) -> Mapping[str, Any] | None:
    # The SDK's .stream() helper yields its own events: "chunk" events wrap the wire chunk; the
    # others (content.delta, tool_calls.function.arguments.done, ...) repeat what the chunks
    # say, and folding them too would count everything twice.
    kind = item.get("type") if isinstance(item, dict) else getattr(item, "type", None)
    obj = item.get("object") if isinstance(item, dict) else getattr(item, "object", None)
    if isinstance(kind, str) and obj != "error":  # Mistral's error frame has a "type" too
        if kind != "chunk":
            return None
        item = item["chunk"] if isinstance(item, dict) else item.chunk
    if isinstance(item, dict):
        return item
    wrapped = getattr(item, "data", None)
    if wrapped is not None and getattr(item, "choices", None) is None:
        item = wrapped  # the mistralai SDK's CompletionEvent holds the chunk in .data
    chunk = as_json(item)
    if not isinstance(chunk, dict):
        raise WireFormatError(API, "stream chunk", f"got {type(chunk).__name__}")
    return chunk


def _error_body(exc: Exception) -> dict[str, Any] | None:
    body = getattr(exc, "body", None)
    if isinstance(body, str):
        # The mistralai SDK fails to read Mistral's error frame and raises with the frame's
        # event as JSON text: {"data": {"object": "error", ...}}.
        try:
            body = json.loads(body)
        except ValueError:
            return None
        frame = body.get("data") if isinstance(body, dict) else None
        if isinstance(frame, dict) and frame.get("object") == "error":
            return frame
    if not isinstance(body, dict):
        return None
    if isinstance(body.get("error"), dict):
        return {"error": body["error"]}
    if "message" in body or "code" in body:
        return {"error": body}
    return None


def _sse_chunk(sse: ServerSentEvent) -> Mapping[str, Any] | None:
    data = sse.data
    if not data:
        return None
    if data.startswith("[DONE]"):
        return DONE
    try:
        chunk = json.loads(data)
    except ValueError as exc:
        raise WireFormatError(API, "stream chunk", f"data is not JSON: {data[:80]!r}") from exc
    if not isinstance(chunk, dict):
        raise WireFormatError(API, "stream chunk", f"data is a JSON {type(chunk).__name__}")
    return chunk
