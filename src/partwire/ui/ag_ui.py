"""A history as AG-UI messages, and a provider stream as AG-UI events, both ways: format ``ag-ui``.

AG-UI (``@ag-ui/core``, ``ag-ui-protocol``) is the agent–UI event protocol of CopilotKit and
others. Its assistant message holds one content string and its tool calls; reasoning is a
message of its own (role ``reasoning``) whose ``encryptedValue`` carries the signature. So a
canonical assistant message becomes its reasoning messages (ids ``<message id>-reasoning-<n>``)
then one assistant message with the same id; the order and fields of its parts ride in the
message's ``metadata.partwire``, which is how :func:`from_wire` gives the history back.

:func:`to_stream` turns one provider stream's :class:`~partwire.streaming.StreamEvent` into AG-UI
events (``RUN_STARTED``, ``TEXT_MESSAGE_*``, ``REASONING_*`` with ``REASONING_ENCRYPTED_VALUE``,
``TOOL_CALL_*``, ``MESSAGES_SNAPSHOT`` when given the history, ``RUN_FINISHED`` with usage, or
``RUN_ERROR``); :func:`from_stream` reads such events back. The mapping table is in
``docs/chat-ui.md``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping, Sequence
from typing import Any

from partwire import messages as _messages
from partwire import parts as _parts
from partwire import streaming as _streaming
from partwire.history import ErrorEvent, HistoryEvent, UnknownEvent
from partwire.projection import Loss
from partwire.ui import _common
from partwire.ui._common import CARRIER, Converted, bad, loss

__all__ = ["FORMAT", "ISSUER", "afrom_stream", "ato_stream", "from_stream", "from_wire", "message_to_wire",
           "to_stream", "to_wire", "tool_result"]

FORMAT = "ag-ui"
"""The format's name in every loss and error it reports."""
ISSUER = "ag-ui"
"""The issuer of an ``encryptedValue`` read from AG-UI data partwire did not write (its real
issuer is unknown, so no adapter sends it to a provider)."""

_MEDIA = {"image": "image", "document": "document", "audio": "audio"}


# -- messages out -------------------------------------------------------------------------------


def to_wire(history: Sequence[HistoryEvent]) -> Converted[list[dict[str, Any]]]:
    """The history as AG-UI messages (JSON, camelCase as the protocol has it), and what could
    not go: history events that are not messages (AG-UI messages hold none)."""
    out: list[dict[str, Any]] = []
    losses: list[Loss] = []
    for i, event in enumerate(history):
        if isinstance(event, _messages.SystemMessage | _messages.DeveloperMessage | _messages.UserMessage | _messages.AssistantMessage | _messages.ToolMessage):
            out.extend(message_to_wire(event))
        else:
            losses.append(loss(FORMAT, f"history[{i}]", event.type, "dropped",
                               "AG-UI messages hold only messages"))
    return Converted(out, tuple(losses))


def message_to_wire(message: _messages.SystemMessage | _messages.DeveloperMessage
                    | _messages.UserMessage | _messages.AssistantMessage
                    | _messages.ToolMessage) -> list[dict[str, Any]]:
    """One canonical message as AG-UI messages (an assistant message's reasoning comes first)."""
    extras = _common.strip(_common.event_json(message), ("metadata",))
    meta: dict[str, Any] = {**message.metadata}
    if isinstance(message, _messages.ToolMessage):
        extras = _common.strip(extras, ("call_id",))  # its parts (attachments) stay in the extras
        out: dict[str, Any] = {"id": message.id, "role": "tool", "toolCallId": message.call_id,
                               "content": message.output_text}
        if message.status == "error":
            out["error"] = message.output_text
        extras.pop("output_text", None)
        meta[CARRIER] = extras
        out["metadata"] = meta
        return [out]
    layout: list[dict[str, Any]] = []
    texts: list[str] = []
    content: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    reasoning: list[dict[str, Any]] = []
    user = isinstance(message, _messages.UserMessage)
    for part in message.parts:
        fields = _common.part_json(part)
        if isinstance(part, _parts.TextPart | _parts.RefusalPart) and not user:
            texts.append(part.text)
            layout.append({"text": len(part.text), "part": _common.strip(fields, ("text",))})
        elif isinstance(part, _parts.TextPart) and user:
            layout.append({"content": len(content), "part": _common.strip(fields, ("text",))})
            content.append({"type": "text", "text": part.text})
        elif isinstance(part, _parts.ImagePart | _parts.DocumentPart | _parts.AudioPart) and user:
            layout.append({"content": len(content), "part": _common.strip(fields, ("source",))
                           | {"source": _common.strip(fields["source"], ("data",))}})
            content.append({"type": part.type, "source": _source(part)})
        elif isinstance(part, _parts.ThinkingPart | _parts.RedactedThinkingPart) and isinstance(message, _messages.AssistantMessage):
            rid = f"{message.id}-reasoning-{len(reasoning)}"
            reasoning.append(_reasoning_message(rid, part))
            layout.append({"reasoning": rid, "part": _trim_reasoning(fields)})
        elif isinstance(part, _parts.ToolCallPart) and isinstance(message, _messages.AssistantMessage):
            call: dict[str, Any] = {"id": part.id, "type": "function",
                                    "function": {"name": part.name, "arguments": part.arguments_json}}
            sig = _call_signature(part)
            if sig is not None:
                call["encryptedValue"] = sig
            layout.append({"tool": len(calls), "part": _common.strip(fields, ("id", "name", "arguments_json"))})
            calls.append(call)
        else:
            layout.append({"part": fields})  # AG-UI has no place for it: carried whole
    meta[CARRIER] = {**_common.strip(extras, ("parts",)), "parts": layout}
    main: dict[str, Any] = {"id": message.id, "role": message.role}
    if user:
        main["content"] = content if content or not texts else "".join(texts)
    elif isinstance(message, _messages.AssistantMessage):
        if texts:
            main["content"] = "".join(texts)
        if calls:
            main["toolCalls"] = calls
    else:
        main["content"] = "".join(texts)
    main["metadata"] = meta
    return [*reasoning, main]


def _source(part: _parts.ImagePart | _parts.DocumentPart | _parts.AudioPart) -> dict[str, Any]:
    media_type = part.media_type or "application/octet-stream"
    source = part.source
    if isinstance(source, _parts.Base64Source):
        return {"type": "data", "value": source.data, "mimeType": media_type}
    if isinstance(source, _parts.ProviderFileSource):
        return {"type": "file", "value": source.file_id, "provider": source.issuer, "mimeType": media_type}
    if isinstance(source, _parts.UrlSource):
        return {"type": "url", "value": source.url, "mimeType": media_type}
    # a workspace file or inline text: shown as a URL-like value, kept whole in the layout
    value = getattr(source, "path", None) or getattr(source, "text", "")
    return {"type": "url", "value": f"file:{value}" if hasattr(source, "path") else value,
            "mimeType": media_type}


def _reasoning_message(rid: str,
                       part: _parts.ThinkingPart | _parts.RedactedThinkingPart) -> dict[str, Any]:
    out: dict[str, Any] = {"id": rid, "role": "reasoning",
                           "content": part.text if isinstance(part, _parts.ThinkingPart) else ""}
    secret = part.data if isinstance(part, _parts.RedactedThinkingPart) else part.signature
    if secret is not None:
        out["encryptedValue"] = secret.value
    return out


def _trim_reasoning(fields: dict[str, Any]) -> dict[str, Any]:
    out = _common.strip(fields, ("text",))
    for key in ("signature", "data"):
        if isinstance(out.get(key), dict):
            out[key] = _common.strip(out[key], ("value",))
    return out


def _call_signature(part: _parts.ToolCallPart) -> str | None:
    pd = part.provider_data
    if pd is not None and isinstance(pd.data, Mapping) and isinstance(pd.data.get("thoughtSignature"), str):
        return str(pd.data["thoughtSignature"])
    return None


# -- messages in --------------------------------------------------------------------------------


def from_wire(messages: Any) -> Converted[list[HistoryEvent]]:
    """A history from AG-UI messages.

    Messages partwire wrote come back whole. Others are read field by field: reasoning messages
    become thinking parts of the assistant message after them (their ``encryptedValue`` a
    signature of issuer :data:`ISSUER`), tool messages take their tool name from their call; a
    message of a role partwire has no message for (``activity``) is kept as an unknown event. A
    malformed message raises :class:`~partwire.errors.WireFormatError` naming its place.
    """
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise bad(FORMAT, "message list", f"expected a list of AG-UI messages, got {type(messages).__name__}",
                  "messages")
    for m, message in enumerate(messages):
        if not isinstance(message, Mapping) or not isinstance(message.get("id"), str) or \
                not isinstance(message.get("role"), str):
            raise bad(FORMAT, "message", "a message must be an object with a string id and role",
                      f"messages[{m}]")
    reasoning = {m["id"]: m for m in messages if m["role"] == "reasoning"}
    used: set[str] = set()
    for message in messages:
        for entry in _layout(message) or ():
            if isinstance(entry, Mapping) and isinstance(entry.get("reasoning"), str):
                used.add(entry["reasoning"])
    history: list[HistoryEvent] = []
    pending: list[_parts.Part] = []
    names: dict[str, str] = {}
    for m, message in enumerate(messages):
        path = f"messages[{m}]"
        role = message["role"]
        if role == "reasoning":
            if message["id"] not in used:
                pending.append(_thinking(message, path))
            continue
        if pending and role != "assistant":
            history.append(_messages.AssistantMessage(parts=pending, id=f"{pending_id(messages, m)}"))
            pending = []
        if role == "assistant":
            event = _assistant(message, reasoning, pending, path)
            pending = []
            for part in event.parts:
                if isinstance(part, _parts.ToolCallPart):
                    names[part.id] = part.name
            history.append(event)
        elif role in ("system", "developer", "user"):
            history.append(_plain(message, path))
        elif role == "tool":
            history.append(_tool(message, names, path))
        else:
            history.append(UnknownEvent(original_type=role, raw=dict(message)))
    if pending:
        history.append(_messages.AssistantMessage(parts=pending, id=pending_id(messages, len(messages))))
    return Converted(history, ())


def pending_id(messages: Sequence[Mapping[str, Any]], end: int) -> str:
    """The id of an assistant message made of reasoning messages alone: the last one's."""
    for message in reversed(messages[:end]):
        if message["role"] == "reasoning":
            return str(message["id"])
    return "reasoning"


def _layout(message: Mapping[str, Any]) -> list[Any] | None:
    extras = _common.carried(message.get("metadata"))
    layout = extras.get("parts")
    return layout if isinstance(layout, list) else None


def _app_metadata(message: Mapping[str, Any]) -> dict[str, Any]:
    meta = message.get("metadata")
    return _common.strip(dict(meta), (CARRIER,)) if isinstance(meta, Mapping) else {}


def _thinking(message: Mapping[str, Any], path: str) -> _parts.Part:
    content = message.get("content")
    if not isinstance(content, str):
        raise bad(FORMAT, "message", "a reasoning message's content must be a string", f"{path}.content")
    secret = message.get("encryptedValue")
    signature = _parts.Opaque(value=secret, issuer=ISSUER) if isinstance(secret, str) else None
    return _parts.ThinkingPart(text=content, signature=signature)


def _assistant(message: Mapping[str, Any], reasoning: Mapping[str, Mapping[str, Any]],
               pending: list[_parts.Part], path: str) -> _messages.AssistantMessage:
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise bad(FORMAT, "message", "an assistant message's content must be a string", f"{path}.content")
    calls = message.get("toolCalls") or []
    if not isinstance(calls, list) or not all(
            isinstance(c, Mapping) and isinstance(c.get("id"), str) and isinstance(c.get("function"), Mapping)
            and isinstance(c["function"].get("name"), str) and isinstance(c["function"].get("arguments"), str)
            for c in calls):
        raise bad(FORMAT, "message", "toolCalls must be function calls with an id, a name and arguments",
                  f"{path}.toolCalls")
    layout = _layout(message)
    if layout is None:
        parts: list[_parts.Part] = list(pending)
        if content:
            parts.append(_parts.TextPart(text=content))
        parts += [_parts.ToolCallPart(id=c["id"], name=c["function"]["name"], arguments_json=c["function"]["arguments"])
                  for c in calls]
        return _messages.AssistantMessage(id=message["id"], parts=parts, metadata=_app_metadata(message))
    parts_json: list[dict[str, Any]] = []
    at = 0
    for n, entry in enumerate(layout):
        where = f"{path}.metadata.partwire.parts[{n}]"
        if not isinstance(entry, Mapping) or not isinstance(entry.get("part"), Mapping):
            raise bad(FORMAT, "message", "a layout entry must hold a part", where)
        fields = dict(entry["part"])
        if isinstance(entry.get("text"), int):
            fields["text"] = (content or "")[at:at + entry["text"]]
            at += entry["text"]
        elif isinstance(entry.get("reasoning"), str):
            source = reasoning.get(entry["reasoning"])
            if source is None:
                raise bad(FORMAT, "message", f"no reasoning message {entry['reasoning']!r}", where)
            fields = _fill_reasoning(fields, source)
        elif isinstance(entry.get("tool"), int):
            if not 0 <= entry["tool"] < len(calls):
                raise bad(FORMAT, "message", "a layout entry names a tool call that is not there", where)
            call = calls[entry["tool"]]
            fields.update(id=call["id"], name=call["function"]["name"],
                          arguments_json=call["function"]["arguments"])
        parts_json.append(fields)
    data = {**_common.carried(message.get("metadata")), "id": message["id"],
            "metadata": _app_metadata(message), "parts": parts_json}
    event = _common.event_from_json(data, FORMAT, path)
    assert isinstance(event, _messages.AssistantMessage)
    return event


def _fill_reasoning(fields: dict[str, Any], source: Mapping[str, Any]) -> dict[str, Any]:
    secret = source.get("encryptedValue")
    if fields.get("type") == "redacted_thinking":
        fields["data"] = {**fields.get("data", {}), "value": secret}
    else:
        fields["text"] = source.get("content", "")
        if isinstance(fields.get("signature"), dict):
            fields["signature"] = {**fields["signature"], "value": secret}
    return fields


def _plain(message: Mapping[str, Any], path: str) -> HistoryEvent:
    role, content = message["role"], message.get("content")
    layout = _layout(message)
    items: list[Any]
    if isinstance(content, str):
        items = [{"type": "text", "text": content}]
    elif isinstance(content, list) and role == "user":
        items = content
    else:
        raise bad(FORMAT, "message", "content must be a string (or, for a user, a list of parts)",
                  f"{path}.content")
    if layout is None:
        parts = [_content_part(item, f"{path}.content[{k}]") for k, item in enumerate(items)
                 if not (isinstance(content, str) and not content)]
        data: dict[str, Any] = {"v": 1, "type": "message", "role": role, "id": message["id"],
                                "metadata": _app_metadata(message),
                                "parts": [_common.part_json(p) for p in parts]}
        return _common.event_from_json(data, FORMAT, path)
    parts_json = []
    at = 0
    for n, entry in enumerate(layout):
        where = f"{path}.metadata.partwire.parts[{n}]"
        if not isinstance(entry, Mapping) or not isinstance(entry.get("part"), Mapping):
            raise bad(FORMAT, "message", "a layout entry must hold a part", where)
        fields = dict(entry["part"])
        if isinstance(entry.get("text"), int) and isinstance(content, str):
            fields["text"] = content[at:at + entry["text"]]
            at += entry["text"]
        elif isinstance(entry.get("content"), int) and isinstance(content, list) and \
                0 <= entry["content"] < len(content):
            item = content[entry["content"]]
            native = _common.part_json(_content_part(item, where))
            if "text" in native:
                fields["text"] = native["text"]
            if isinstance(native.get("source"), dict) and isinstance(fields.get("source"), dict):
                fields["source"] = {**native["source"], **fields["source"]} \
                    if native["source"].get("type") == fields["source"].get("type") else fields["source"]
        parts_json.append(fields)
    data = {**_common.carried(message.get("metadata")), "id": message["id"],
            "metadata": _app_metadata(message), "parts": parts_json}
    return _common.event_from_json(data, FORMAT, path)


def _content_part(item: Any, where: str) -> _parts.Part:
    if not isinstance(item, Mapping) or not isinstance(item.get("type"), str):
        raise bad(FORMAT, "message", "a content part must be an object with a string type", where)
    kind = item["type"]
    if kind == "text" and isinstance(item.get("text"), str):
        return _parts.TextPart(text=item["text"])
    source = item.get("source")
    if kind in _MEDIA and isinstance(source, Mapping) and isinstance(source.get("value"), str):
        mime = source.get("mimeType") if isinstance(source.get("mimeType"), str) else None
        if source.get("type") == "data":
            src: dict[str, Any] = {"type": "base64", "data": source["value"]}
        elif source.get("type") == "file":
            src = {"type": "provider_file", "file_id": source["value"],
                   "issuer": source.get("provider") or ISSUER}
        else:
            src = {"type": "url", "url": source["value"]}
        return _common.part_from_json({"type": _MEDIA[kind], "source": src, "media_type": mime}, FORMAT, where)
    return _common.part_from_json({"type": "unknown", "original_type": kind, "raw": dict(item), "issuer": ISSUER},
                                  FORMAT, where)


def _tool(message: Mapping[str, Any], names: Mapping[str, str], path: str) -> HistoryEvent:
    call_id, content = message.get("toolCallId"), message.get("content")
    if not isinstance(call_id, str):
        raise bad(FORMAT, "message", "a tool message needs a toolCallId", f"{path}.toolCallId")
    if isinstance(content, list):
        content = "".join(str(c.get("text", "")) for c in content if isinstance(c, Mapping))
    if not isinstance(content, str):
        raise bad(FORMAT, "message", "a tool message's content must be a string", f"{path}.content")
    extras = _common.carried(message.get("metadata"))
    data: dict[str, Any]
    if extras:
        data = {**extras, "id": message["id"], "call_id": call_id, "output_text": content,
                "metadata": _app_metadata(message)}
    else:
        data = {"v": 1, "type": "message", "role": "tool", "id": message["id"], "call_id": call_id,
                "tool_name": names.get(call_id, ""), "output_text": content,
                "metadata": _app_metadata(message)}
        if message.get("error") is not None:
            data["status"] = "error"
    return _common.event_from_json(data, FORMAT, path)


# -- events out ---------------------------------------------------------------------------------


def to_stream(events: Iterable[_streaming.StreamEvent], *, thread_id: str, run_id: str,
              history: Sequence[HistoryEvent] | None = None) -> Iterator[dict[str, Any]]:
    """AG-UI events for one provider stream, as one run of a thread.

    ``history`` (the conversation before this answer), when given, makes the run end with a
    ``MESSAGES_SNAPSHOT`` of it and the new message, which a client takes as the whole thread.
    """
    writer = _Writer(thread_id, run_id, history)
    for event in events:
        yield from writer.feed(event)
    yield from writer.close()


async def ato_stream(events: AsyncIterable[_streaming.StreamEvent], *, thread_id: str, run_id: str,
                     history: Sequence[HistoryEvent] | None = None) -> AsyncIterator[dict[str, Any]]:
    """:func:`to_stream` over an asynchronous stream of events."""
    writer = _Writer(thread_id, run_id, history)
    async for event in events:
        for out in writer.feed(event):
            yield out
    for out in writer.close():
        yield out


def tool_result(message: _messages.ToolMessage) -> dict[str, Any]:
    """The ``TOOL_CALL_RESULT`` event of a tool message, for an agent that runs the tool (the
    message's own fields ride in its ``metadata.partwire``)."""
    wire = message_to_wire(message)[0]
    return {"type": "TOOL_CALL_RESULT", "messageId": message.id, "toolCallId": message.call_id,
            "content": message.output_text, "role": "tool", "metadata": wire["metadata"]}


class _Writer:
    """The events of one run, stream event by stream event."""

    def __init__(self, thread_id: str, run_id: str, history: Sequence[HistoryEvent] | None) -> None:
        self.thread_id, self.run_id, self.history = thread_id, run_id, history
        self.acc = _streaming.Accumulator()
        self.started = False
        self.done = False
        self.text: str | None = None  # the text sent so far, once the text message started
        self.text_id = ""  # the id the text message started with
        self.reasoning: dict[int, str] = {}  # stream index -> reasoning message id
        self.thought: dict[str, str] = {}  # reasoning message id -> its text sent so far
        self.args: dict[str, str] = {}  # tool call id -> its arguments sent so far
        self.tools: dict[int, str] = {}  # stream index -> id of a tool call not ended yet
        self.error: str | None = None
        self.sent: list[dict[str, Any]] = []

    def out(self, event: dict[str, Any]) -> dict[str, Any]:
        self.sent.append(event)
        return event

    def begin(self) -> Iterator[dict[str, Any]]:
        if not self.started:
            self.started = True
            yield self.out({"type": "RUN_STARTED", "threadId": self.thread_id, "runId": self.run_id})

    def feed(self, event: _streaming.StreamEvent) -> Iterator[dict[str, Any]]:
        if self.done:
            return
        self.acc.feed(event)
        yield from self.begin()
        mid = self.acc.message_id
        match event:
            case _streaming.TextDeltaEvent():
                yield from self.say(mid, event.text)
            case _streaming.ThinkingDeltaEvent():
                yield from self.think(self.rid(mid, event.index), event.text)
            case _streaming.SignatureEvent():
                yield from self.think(self.rid(mid, event.index), "")
            case _streaming.ToolCallStartEvent():
                yield from self.call(mid, event.id, event.name)
                self.tools[event.index] = event.id
            case _streaming.ToolCallDeltaEvent() if event.index in self.tools:
                yield from self.more_args(self.tools[event.index], event.arguments_delta)
            case _streaming.ToolCallEndEvent() if event.index in self.tools:
                yield self.out({"type": "TOOL_CALL_END", "toolCallId": self.tools.pop(event.index)})
            case _streaming.PartEvent():
                part = event.part
                if isinstance(part, _parts.TextPart):
                    yield from self.say(mid, part.text)
                elif isinstance(part, _parts.ThinkingPart):
                    yield from self.think(self.rid(mid, event.index), part.text)
                elif isinstance(part, _parts.ToolCallPart) and part.id not in self.args:
                    yield from self.call(mid, part.id, part.name)
                    yield from self.more_args(part.id, part.arguments_json)
                    self.tools[event.index] = part.id
            case _streaming.StreamErrorEvent():
                self.error = event.error.message
            case _streaming.MessageCompleteEvent():
                yield from self.finish(event.message)
            case _:
                pass

    def say(self, mid: str, delta: str) -> Iterator[dict[str, Any]]:
        if self.text is None:
            self.text, self.text_id = "", mid
            yield self.out({"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant"})
        if delta:  # AG-UI refuses an empty delta
            self.text += delta
            yield self.out({"type": "TEXT_MESSAGE_CONTENT", "messageId": self.text_id, "delta": delta})

    def rid(self, mid: str, index: int) -> str:
        if index not in self.reasoning:
            self.reasoning[index] = f"{mid}-reasoning-{len(self.reasoning)}"
        return self.reasoning[index]

    def think(self, rid: str, delta: str) -> Iterator[dict[str, Any]]:
        if rid not in self.thought:
            self.thought[rid] = ""
            yield self.out({"type": "REASONING_START", "messageId": rid})
            yield self.out({"type": "REASONING_MESSAGE_START", "messageId": rid, "role": "reasoning"})
        if delta:
            self.thought[rid] += delta
            yield self.out({"type": "REASONING_MESSAGE_CONTENT", "messageId": rid, "delta": delta})

    def call(self, mid: str, call_id: str, name: str) -> Iterator[dict[str, Any]]:
        self.args[call_id] = ""
        yield self.out({"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": name,
                        "parentMessageId": mid})

    def more_args(self, call_id: str, delta: str) -> Iterator[dict[str, Any]]:
        if delta:
            self.args[call_id] += delta
            yield self.out({"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": delta})

    def finish(self, message: _messages.AssistantMessage) -> Iterator[dict[str, Any]]:
        """Send what the stream did not (a part that came whole or changed), end what is open,
        then the snapshot and the end of the run."""
        self.done = True
        yield from self.begin()
        wire = message_to_wire(message)
        main = wire[-1]
        content = main.get("content")
        sent_text = self.text or ""
        if isinstance(content, str) and content != sent_text and content.startswith(sent_text):
            yield from self.say(self.text_id or message.id, content[len(sent_text):])
        if self.text is not None:
            yield self.out({"type": "TEXT_MESSAGE_END", "messageId": self.text_id})
        for reasoning in wire[:-1]:
            rid = reasoning["id"]
            sent = self.thought.get(rid)
            if sent is None or (reasoning["content"] != sent and reasoning["content"].startswith(sent)):
                yield from self.think(rid, reasoning["content"][len(sent or ""):])
            yield self.out({"type": "REASONING_MESSAGE_END", "messageId": rid})
            if "encryptedValue" in reasoning:
                yield self.out({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message",
                                "entityId": rid, "encryptedValue": reasoning["encryptedValue"]})
            yield self.out({"type": "REASONING_END", "messageId": rid})
        open_calls = set(self.tools.values())
        for call in main.get("toolCalls", ()):
            call_id, arguments = call["id"], call["function"]["arguments"]
            if call_id not in self.args:
                yield from self.call(message.id, call_id, call["function"]["name"])
                open_calls.add(call_id)
            sent = self.args[call_id]
            if arguments != sent and arguments.startswith(sent):
                yield from self.more_args(call_id, arguments[len(sent):])
            if call_id in open_calls:
                open_calls.discard(call_id)
                yield self.out({"type": "TOOL_CALL_END", "toolCallId": call_id})
            if "encryptedValue" in call:
                yield self.out({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "tool-call",
                                "entityId": call_id, "encryptedValue": call["encryptedValue"]})
        for call_id in open_calls:
            yield self.out({"type": "TOOL_CALL_END", "toolCallId": call_id})
        if self.history is not None:
            yield self.out({"type": "MESSAGES_SNAPSHOT", "messages": to_wire([*self.history, message]).value})
        metadata = main["metadata"]
        # What a reader would make of the events: when it is not the message (a part that
        # changed after it was sent), the end of the run carries the parts whole.
        probe = _Folder()
        for n, sent_event in enumerate(self.sent):
            probe.feed(sent_event, n)
        probe.metadata = metadata
        read = [e for e in probe.result().value if isinstance(e, _messages.AssistantMessage)]
        if not read or [_common.part_json(p) for p in read[-1].parts] != [_common.part_json(p) for p in message.parts]:
            metadata = {**metadata, CARRIER: {**metadata[CARRIER],
                                              "exact": [_common.part_json(p) for p in message.parts]}}
        if self.error is not None:
            yield self.out({"type": "RUN_ERROR", "message": self.error, "metadata": metadata})
            return
        end: dict[str, Any] = {"type": "RUN_FINISHED", "threadId": self.thread_id, "runId": self.run_id,
                               "metadata": metadata}
        if message.usage is not None:
            u = message.usage
            end["usage"] = [{"model": message.model or "", "inputTokens": u.input_tokens,
                             "outputTokens": u.output_tokens,
                             "totalTokens": u.input_tokens + u.output_tokens,
                             "reasoningTokens": u.reasoning_tokens,
                             "cachedInputTokens": u.cache_read_tokens,
                             "cacheWriteInputTokens": u.cache_write_tokens}]
        yield self.out(end)

    def close(self) -> Iterator[dict[str, Any]]:
        if not self.done:
            yield from self.finish(self.acc.message)


# -- events in ----------------------------------------------------------------------------------


def from_stream(events: Iterable[Any]) -> Converted[list[HistoryEvent]]:
    """The canonical messages of a run's AG-UI events (dicts, or their JSON text).

    A run partwire wrote gives back its assistant message whole (from the ``metadata.partwire`` of
    ``RUN_FINISHED`` or ``RUN_ERROR``). Others: text, reasoning and tool-call events fold into
    AG-UI messages, read as :func:`from_wire` reads them; ``MESSAGES_SNAPSHOT`` replaces what came
    before it; ``STATE_*``, ``CUSTOM`` and ``RAW`` events, which no message holds, are kept as
    unknown events. A malformed event raises :class:`~partwire.errors.WireFormatError` naming it.
    """
    folder = _Folder()
    for n, event in enumerate(events):
        folder.feed(_event(event, n), n)
    return folder.result()


async def afrom_stream(events: AsyncIterable[Any]) -> Converted[list[HistoryEvent]]:
    """:func:`from_stream` over an asynchronous stream of events."""
    folder = _Folder()
    n = 0
    async for event in events:
        folder.feed(_event(event, n), n)
        n += 1
    return folder.result()


def _event(value: Any, n: int) -> dict[str, Any]:
    if isinstance(value, str | bytes):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise bad(FORMAT, "event", f"not JSON ({exc})", f"events[{n}]") from exc
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        raise bad(FORMAT, "event", "an event must be an object with a string type", f"events[{n}]")
    return value


def _need(event: Mapping[str, Any], key: str, n: int) -> str:
    value = event.get(key)
    if not isinstance(value, str):
        raise bad(FORMAT, "event", f"a {event['type']} event needs a string {key}", f"events[{n}].{key}")
    return value


class _Folder:
    """AG-UI events folded into AG-UI messages."""

    def __init__(self) -> None:
        self.messages: dict[str, dict[str, Any]] = {}
        self.calls: dict[str, dict[str, Any]] = {}
        self.others: list[HistoryEvent] = []
        self.metadata: dict[str, Any] | None = None  # of the run's end: partwire's message fields
        self.last_assistant: str | None = None

    def message(self, mid: str, role: str) -> dict[str, Any]:
        if mid not in self.messages:
            self.messages[mid] = {"id": mid, "role": role}
        return self.messages[mid]

    def feed(self, event: dict[str, Any], n: int) -> None:
        kind = event["type"]
        if kind == "TEXT_MESSAGE_START":
            mid = _need(event, "messageId", n)
            self.message(mid, str(event.get("role") or "assistant")).setdefault("content", "")
            self.last_assistant = mid
        elif kind in ("TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK"):
            mid = _need(event, "messageId", n) if kind == "TEXT_MESSAGE_CONTENT" else \
                str(event.get("messageId") or self.last_assistant or "message")
            m = self.message(mid, str(event.get("role") or "assistant"))
            m["content"] = m.get("content", "") + str(event.get("delta") or "")
        elif kind in ("REASONING_MESSAGE_START", "REASONING_START"):
            self.message(_need(event, "messageId", n), "reasoning").setdefault("content", "")
        elif kind in ("REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_CHUNK"):
            m = self.message(_need(event, "messageId", n), "reasoning")
            m["content"] = m.get("content", "") + str(event.get("delta") or "")
        elif kind == "REASONING_ENCRYPTED_VALUE":
            entity = _need(event, "entityId", n)
            target = self.calls.get(entity) if event.get("subtype") == "tool-call" else \
                self.message(entity, "reasoning")
            if target is not None:
                target["encryptedValue"] = _need(event, "encryptedValue", n)
        elif kind in ("TOOL_CALL_START", "TOOL_CALL_CHUNK"):
            call_id = _need(event, "toolCallId", n)
            if call_id not in self.calls:
                name = _need(event, "toolCallName", n)
                parent = str(event.get("parentMessageId") or self.last_assistant or call_id)
                call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
                self.calls[call_id] = call
                self.message(parent, "assistant").setdefault("toolCalls", []).append(call)
            if kind == "TOOL_CALL_CHUNK":
                self.calls[call_id]["function"]["arguments"] += str(event.get("delta") or "")
        elif kind == "TOOL_CALL_ARGS":
            call_id = _need(event, "toolCallId", n)
            if call_id not in self.calls:
                raise bad(FORMAT, "event", "arguments for a tool call that never started", f"events[{n}]")
            self.calls[call_id]["function"]["arguments"] += str(event.get("delta") or "")
        elif kind == "TOOL_CALL_RESULT":
            mid = _need(event, "messageId", n)
            self.messages[mid] = {"id": mid, "role": "tool", "toolCallId": _need(event, "toolCallId", n),
                                  "content": event.get("content", "")}
            if isinstance(event.get("metadata"), dict):
                self.messages[mid]["metadata"] = event["metadata"]
        elif kind == "MESSAGES_SNAPSHOT":
            snapshot = event.get("messages")
            if not isinstance(snapshot, list):
                raise bad(FORMAT, "event", "a MESSAGES_SNAPSHOT needs a list of messages", f"events[{n}]")
            self.messages = {str(m.get("id")): dict(m) for m in snapshot if isinstance(m, Mapping)}
        elif kind in ("RUN_FINISHED", "RUN_ERROR"):
            carrier = _common.carried(event.get("metadata"))
            if carrier:
                self.metadata = dict(event["metadata"])
            if kind == "RUN_ERROR" and not carrier:
                self.others.append(ErrorEvent(message=str(event.get("message", "")),
                                              code=event.get("code") if isinstance(event.get("code"), str) else None))
        elif kind in ("RUN_STARTED", "TEXT_MESSAGE_END", "REASONING_MESSAGE_END", "REASONING_END",
                      "TOOL_CALL_END", "STEP_STARTED", "STEP_FINISHED"):
            pass
        else:
            self.others.append(UnknownEvent(original_type=kind, raw=dict(event)))

    def result(self) -> Converted[list[HistoryEvent]]:
        messages = list(self.messages.values())
        carrier = _common.carried(self.metadata)
        ident = carrier.get("id")
        if self.metadata is not None and isinstance(ident, str):
            main = next((m for m in messages if m["id"] == ident and m["role"] == "assistant"), None)
            if main is None:
                main = {"id": ident, "role": "assistant"}
                messages.append(main)
            main["metadata"] = {**self.metadata, CARRIER: _common.strip(carrier, ("exact",))}
        read = from_wire(messages)
        history = list(read.value)
        exact = carrier.get("exact")
        if isinstance(exact, list):
            for i, event in enumerate(history):
                if isinstance(event, _messages.AssistantMessage) and event.id == ident:
                    data = _common.event_json(event)
                    data["parts"] = exact
                    history[i] = _common.event_from_json(data, FORMAT, "RUN_FINISHED.metadata.partwire.exact")
        return Converted([*history, *self.others], read.losses)
