"""Bridge to the Model Context Protocol: tool results and sampling messages, both ways.

An MCP server answers ``tools/call`` with a ``CallToolResult``: content blocks (text, image,
audio, ``resource_link``, embedded ``resource``), ``structuredContent`` and ``isError``. Agents
turn it into their provider's tool result by hand and lose pieces; here it becomes one
:class:`~partwire.messages.ToolMessage` that every adapter sends (and names what it cannot):

- text blocks and resource links (as ``<title or name>: <uri>`` lines, so every provider's model
  reads them) make ``output_text``, one line per block;
- images and audio are image and audio parts; an embedded resource is a document part (a text
  resource inline, a blob as base64; an image or audio blob as an image or audio part);
- ``structuredContent`` is ``data``, ``isError`` the ``error`` status.

What the canonical form has no field for (each block's kind, annotations and ``_meta``, a link's
description, a resource's uri) is kept as the message's ``provider_data`` (issuer ``mcp``), so
:func:`to_call_tool_result` gives the same result back as long as the message says the same.
Sampling messages (``sampling/createMessage``) cross as messages: :func:`from_sampling_messages`,
:func:`to_sampling_messages`, :func:`from_create_message_result`. The mapping is in
``docs/migrate/mcp.md``.

Results and messages are read from the ``mcp`` package's types or from their JSON (dicts);
writing the ``mcp`` types needs ``mcp`` (``pip install 'partwire[mcp]'``), imported on call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from partwire import messages as _messages
from partwire import parts as _parts
from partwire._base import ProviderData
from partwire._media import sniff_media_type
from partwire.bridges._common import LossLog, compact_json, extras_of, require
from partwire.errors import LossError, WireFormatError
from partwire.history import HistoryEvent
from partwire.ids import derive_id
from partwire.projection import Loss, log_losses

__all__ = [
    "ISSUER",
    "NAME",
    "SamplingExport",
    "ToolResultExport",
    "from_call_tool_result",
    "from_create_message_result",
    "from_sampling_messages",
    "to_call_tool_result",
    "to_sampling_messages",
]

NAME = "mcp"
"""The bridge's name, as losses name it."""
ISSUER = "mcp"
"""The issuer of the ``provider_data`` this bridge writes and reads back."""

# Lines of output_text: one per text block or resource link.
_SEP = "\n"
_STOP: dict[str, _messages.StopReason] = {"endTurn": "stop", "stopSequence": "stop", "maxTokens": "length",
                                          "toolUse": "tool_use"}
_STOP_BACK = {"stop": "endTurn", "length": "maxTokens", "tool_use": "toolUse"}


@dataclass(frozen=True, slots=True)
class ToolResultExport:
    """A tool message as an MCP ``CallToolResult``, and what the result could not hold."""

    result: Any
    """A ``mcp.types.CallToolResult``, or its JSON (a dict) with ``as_dict=True``."""
    losses: tuple[Loss, ...] = ()
    """Everything not carried as it is."""

    @property
    def lossless(self) -> bool:
        """Whether nothing was lost."""
        return not self.losses


@dataclass(frozen=True, slots=True)
class SamplingExport:
    """A history as MCP sampling messages, its system prompt, and what they could not hold."""

    messages: list[Any]
    """``mcp.types.SamplingMessage`` objects, or their JSON (dicts) with ``as_dict=True``."""
    system_prompt: str | None = None
    """The text of the history's system messages, for ``CreateMessageRequestParams.systemPrompt``."""
    losses: tuple[Loss, ...] = ()
    """Everything not carried as it is, in history order."""

    @property
    def lossless(self) -> bool:
        """Whether nothing was lost."""
        return not self.losses


def _json(obj: Any, what: str) -> dict[str, Any]:
    """An MCP object's JSON as the protocol writes it (camelCase, ``_meta``)."""
    if callable(getattr(obj, "model_dump", None)):
        dumped: dict[str, Any] = obj.model_dump(mode="json", by_alias=True, exclude_unset=True)
        return dumped
    if isinstance(obj, Mapping):
        return dict(obj)
    raise WireFormatError(NAME, what, f"a {type(obj).__name__}, not an MCP {what} or its JSON")


# -- tool results: MCP -> canonical -----------------------------------------------------------


def from_call_tool_result(result: Any, *, call_id: str, tool_name: str) -> _messages.ToolMessage:
    """The tool message of an MCP ``CallToolResult`` (the ``mcp`` type or its JSON), answering
    the call ``call_id`` (a canonical id) of tool ``tool_name``."""
    body = _json(result, "CallToolResult")
    content = body.get("content", [])
    if not isinstance(content, list):
        raise WireFormatError(NAME, "CallToolResult", "content is not a list", "content")
    fields = _content_from_mcp(content, "content")
    rest = {k: v for k, v in body.items() if k not in ("content", "structuredContent", "isError")}
    if "isError" in body and not isinstance(body["isError"], bool):
        raise WireFormatError(NAME, "CallToolResult", "isError is not a boolean", "isError")
    layout: dict[str, Any] = {"content": fields.pop("layout")}
    if rest:
        layout["result"] = rest
    if "isError" in body:
        layout["is_error"] = body["isError"]
    return _messages.ToolMessage(call_id=call_id, tool_name=tool_name,
                                 status="error" if body.get("isError") else "success",
                                 data=body.get("structuredContent"), provider_data=ProviderData(issuer=ISSUER, data=layout),
                                 **fields)


def _content_from_mcp(content: list[Any], path: str) -> dict[str, Any]:
    """``output_text``, ``parts`` and the layout that puts the blocks back together."""
    lines: list[str] = []
    parts: list[_parts.Part] = []
    layout: list[dict[str, Any]] = []
    for k, block in enumerate(content):
        where = f"{path}[{k}]"
        if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
            raise WireFormatError(NAME, "content block", "not an object with a type", where)
        kind = block["type"]
        try:
            entry: dict[str, Any] = {"type": kind}
            if kind == "text":
                lines.append(_str(block, "text"))
                # Its length, not a line count: a block's text may hold newlines of its own.
                entry["line"] = _extras(block, "type", "text")
                entry["length"] = len(lines[-1])
            elif kind == "resource_link":
                lines.append(_link_line(block))
                entry["block"] = dict(block)
            elif kind in ("image", "audio"):
                parts.append(_media(kind, _str(block, "data"), _str(block, "mimeType")))
                entry["part"] = _extras(block, "type", "data", "mimeType")
            elif kind == "resource":
                resource = block["resource"]
                if not isinstance(resource, Mapping):
                    raise TypeError("resource is not an object")
                parts.append(_resource_part(resource))
                entry["part"] = {**_extras(block, "type", "resource"),
                                 "resource": _extras(resource, "text", "blob")}
            else:
                # A block kind newer than this bridge: kept whole, outside the text the model sees.
                entry["block"] = dict(block)
        except (KeyError, TypeError) as exc:
            raise WireFormatError(NAME, "content block", f"a {kind} block of the wrong shape: {exc}", where) from exc
        layout.append(entry)
    return {"output_text": _SEP.join(lines), "parts": tuple(parts), "layout": layout}


def _str(block: Mapping[str, Any], key: str) -> str:
    value = block[key]
    if not isinstance(value, str):
        raise TypeError(f"{key} is not a string")
    return value


def _extras(block: Mapping[str, Any], *known: str) -> dict[str, Any]:
    return {k: v for k, v in block.items() if k not in known}


def _media(kind: str, data: str, media_type: str | None) -> _parts.Part:
    if kind == "image":
        return _parts.ImagePart(source=_parts.Base64Source(data=data), media_type=media_type)
    return _parts.AudioPart(source=_parts.Base64Source(data=data), media_type=media_type)


def _resource_part(resource: Mapping[str, Any]) -> _parts.Part:
    media_type = resource.get("mimeType")
    uri = _str(resource, "uri")
    if "text" in resource:
        return _parts.DocumentPart(source=_parts.TextSource(text=_str(resource, "text")),
                                   media_type=media_type or "text/plain", title=uri)
    data = _str(resource, "blob")
    if isinstance(media_type, str) and media_type.split("/")[0] in ("image", "audio"):
        return _media(media_type.split("/")[0], data, media_type)
    return _parts.DocumentPart(source=_parts.Base64Source(data=data), media_type=media_type, title=uri)


# -- tool results: canonical -> MCP -----------------------------------------------------------


def to_call_tool_result(message: _messages.ToolMessage, *, strict: bool = False, as_dict: bool = False) -> ToolResultExport:
    """An MCP ``CallToolResult`` of ``message``, with a loss for what it cannot hold.

    A message imported by :func:`from_call_tool_result` and not changed since gives the same
    result back. ``as_dict=True`` gives the result's JSON and needs no ``mcp`` package;
    ``strict=True`` raises :class:`~partwire.errors.LossError` instead of losing anything.
    """
    log = LossLog(NAME)
    layout = extras_of(message.provider_data, ISSUER)
    content = _kept_content(message, layout.get("content"))
    if content is None:
        content = _content_to_mcp(message, "", log, message.id)
    body: dict[str, Any] = dict(layout.get("result", {})) if isinstance(layout.get("result"), dict) else {}
    body["content"] = content
    if message.data is not None:
        body["structuredContent"] = message.data
    if message.status != "success":
        body["isError"] = True
        if message.status != "error":
            log.add("status", "tool_message", "downgraded",
                    f"MCP knows success and error: {message.status!r} is sent as an error", message.id)
    elif layout.get("is_error") is False:
        body["isError"] = False
    found = tuple(log.losses)
    if found and strict:
        raise LossError(found, NAME)
    log_losses(found)
    if as_dict:
        return ToolResultExport(result=body, losses=found)
    require("mcp", "mcp")
    from mcp.types import CallToolResult

    return ToolResultExport(result=CallToolResult.model_validate(body), losses=found)


def _kept_content(message: _messages.ToolMessage, layout: Any) -> list[dict[str, Any]] | None:
    """The blocks the layout describes, if the message still says exactly what they say."""
    if not isinstance(layout, list) or not all(isinstance(e, dict) for e in layout):
        return None
    parts = list(message.parts)
    if sum(1 for e in layout if "part" in e) != len(parts):
        return None
    text = message.output_text
    out: list[dict[str, Any]] = []
    at = part_at = 0
    first_line = True
    for entry in layout:
        if "line" in entry or _is_link(entry):
            if not first_line:
                if text[at:at + len(_SEP)] != _SEP:
                    return None
                at += len(_SEP)
            first_line = False
            if "line" in entry:
                length = entry.get("length")
                if not isinstance(length, int) or at + length > len(text):
                    return None
                out.append({"type": "text", "text": text[at:at + length], **entry["line"]})
                at += length
            else:
                line = _link_line(entry["block"])
                if text[at:at + len(line)] != line:
                    return None
                out.append(dict(entry["block"]))
                at += len(line)
        elif "part" in entry:
            block = _part_block(entry, parts[part_at])
            if block is None:
                return None
            out.append(block)
            part_at += 1
        elif isinstance(entry.get("block"), dict):
            out.append(dict(entry["block"]))
        else:
            return None
    return out if at == len(text) else None


def _link_line(block: Mapping[str, Any]) -> str:
    """The line a resource link is to the model: its title or name, and its uri."""
    return f"{block.get('title') or _str(block, 'name')}: {_str(block, 'uri')}"


def _is_link(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("type") == "resource_link" and isinstance(entry.get("block"), dict)


def _part_block(entry: dict[str, Any], part: _parts.Part) -> dict[str, Any] | None:
    """The block a layout entry and the part now in its place make, or ``None`` if they differ."""
    kind, extras = entry.get("type"), entry["part"]
    if kind in ("image", "audio") and isinstance(part, _parts.ImagePart | _parts.AudioPart) and part.type == kind \
            and isinstance(part.source, _parts.Base64Source) and part.media_type is not None:
        return {"type": kind, "data": part.source.data, "mimeType": part.media_type, **extras}
    if kind != "resource" or not isinstance(part, _parts.DocumentPart | _parts.ImagePart
                                            | _parts.AudioPart):
        return None
    resource = dict(extras.get("resource", {}))
    if isinstance(part, _parts.DocumentPart) and part.title != resource.get("uri"):
        return None
    if isinstance(part.source, _parts.TextSource):
        resource["text"] = part.source.text
    elif isinstance(part.source, _parts.Base64Source):
        resource["blob"] = part.source.data
    else:
        return None
    return {**{k: v for k, v in extras.items() if k != "resource"}, "type": "resource", "resource": resource}


def _content_to_mcp(message: _messages.ToolMessage, path: str, log: LossLog, message_id: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if message.output_text:
        out.append({"type": "text", "text": message.output_text})
    for j, part in enumerate(message.parts):
        block = _part_to_mcp(part, j, f"{path}parts[{j}]", log, message_id)
        if block is not None:
            out.append(block)
    return out


def _part_to_mcp(part: _parts.Part, j: int, path: str, log: LossLog, message_id: str) -> dict[str, Any] | None:
    if isinstance(part, _parts.TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, _parts.ImagePart | _parts.AudioPart):
        source = part.source
        if isinstance(source, _parts.Base64Source):
            media_type = part.media_type or sniff_media_type(source.data)
            if media_type is not None:
                return {"type": part.type, "data": source.data, "mimeType": media_type}
            log.add(path, part.type, "dropped", "MCP needs the media type of inline data, and it is unknown",
                    message_id)
            return None
        if isinstance(source, _parts.UrlSource):
            log.add(path, part.type, "rewritten", "MCP carries media by value: the URL is sent as a resource link",
                    message_id)
            link: dict[str, Any] = {"type": "resource_link", "uri": source.url,
                                    "name": source.url.rstrip("/").rsplit("/", 1)[-1] or source.url}
            if part.media_type:
                link["mimeType"] = part.media_type
            return link
    if isinstance(part, _parts.DocumentPart) \
            and isinstance(part.source, _parts.TextSource | _parts.Base64Source):
        uri = part.title or part.filename or f"attachment:{j}"
        resource: dict[str, Any] = {"uri": uri}
        if part.media_type:
            resource["mimeType"] = part.media_type
        if isinstance(part.source, _parts.TextSource):
            resource["text"] = part.source.text
        else:
            resource["blob"] = part.source.data
        if part.title is None:
            log.add(path, "document", "rewritten", f"an MCP resource needs a uri: it is named {uri!r}", message_id)
        return {"type": "resource", "resource": resource}
    log.add(path, part.type, "dropped", f"MCP has no content block for a {part.type} part of this source",
            message_id)
    return None


# -- sampling ---------------------------------------------------------------------------------


def _call_id(mcp_id: str) -> str:
    """The canonical id of an MCP tool use id: derived, so uses and results agree across imports."""
    return derive_id(ISSUER, mcp_id, prefix="tu_")


def from_sampling_messages(messages: Sequence[Any], *, system_prompt: str | None = None) -> list[HistoryEvent]:
    """Import MCP sampling messages (``mcp.types.SamplingMessage`` or their JSON) as canonical
    events; ``system_prompt`` (the request's ``systemPrompt``) becomes a system message first."""
    history: list[HistoryEvent] = []
    if system_prompt is not None:
        history.append(_messages.SystemMessage(system_prompt))
    names: dict[str, str] = {}
    for i, raw in enumerate(messages):
        body = _json(raw, "SamplingMessage")
        role, content = body.get("role"), body.get("content")
        blocks = content if isinstance(content, list) else [content]
        if role not in ("user", "assistant") or not all(isinstance(b, Mapping) for b in blocks):
            raise WireFormatError(NAME, "SamplingMessage", "a message needs role user or assistant and "
                                  "content blocks", f"messages[{i}]")
        marks: dict[str, Any] = {k: v for k, v in body.items() if k not in ("role", "content")}
        if isinstance(content, list) and len(content) == 1:
            marks["content"] = "list"
        pd = ProviderData(issuer=ISSUER, data=marks) if marks else None
        history.extend(_sampling_message(role, blocks, pd, names, f"messages[{i}].content"))
    return history


def _sampling_message(role: str, blocks: list[Any], pd: ProviderData | None,
                      names: dict[str, str], path: str) -> list[HistoryEvent]:
    parts: list[_parts.Part] = []
    out: list[_messages.ToolMessage] = []
    for k, block in enumerate(blocks):
        kind = block.get("type")
        where = f"{path}[{k}]"
        try:
            if kind == "text":
                parts.append(_parts.TextPart(text=_str(block, "text")))
            elif kind in ("image", "audio"):
                parts.append(_media(str(kind), _str(block, "data"), _str(block, "mimeType")))
            elif kind == "tool_use" and role == "assistant":
                name = _str(block, "name")
                names[_str(block, "id")] = name
                parts.append(_parts.ToolCallPart(id=_call_id(block["id"]), name=name,
                                                 arguments_json=compact_json(block.get("input", {})),
                                                 provider_ids={ISSUER: block["id"]}))
            elif kind == "tool_result" and role == "user":
                use_id = _str(block, "toolUseId")
                fields = _content_from_mcp(list(block.get("content", [])), f"{where}.content")
                layout: dict[str, Any] = {"content": fields.pop("layout")}
                rest = _extras(block, "type", "toolUseId", "content", "structuredContent", "isError")
                if rest:
                    layout["result"] = rest
                if "isError" in block:
                    layout["is_error"] = block["isError"]
                layout["tool_use_id"] = use_id
                out.append(_messages.ToolMessage(call_id=_call_id(use_id), tool_name=names.get(use_id, ""),
                                                 status="error" if block.get("isError") else "success",
                                                 data=block.get("structuredContent"),
                                                 provider_data=ProviderData(issuer=ISSUER, data=layout), **fields))
            else:
                raise TypeError(f"no {kind!r} block in a {role} sampling message")
        except (KeyError, TypeError) as exc:
            raise WireFormatError(NAME, "SamplingMessage", str(exc), where) from exc
    if parts or not out:
        cls = _messages.AssistantMessage if role == "assistant" else _messages.UserMessage
        message: HistoryEvent = cls(parts=tuple(parts), provider_data=pd)
        return [message, *out]
    if pd is not None:
        # A message of tool results alone: its own marks ride on its first result.
        first = out[0]
        layout = {**extras_of(first.provider_data, ISSUER), "message": pd.data}
        out[0] = first.model_copy(update={"provider_data": ProviderData(issuer=ISSUER, data=layout)})
    return list(out)


def from_create_message_result(result: Any) -> _messages.AssistantMessage:
    """The assistant message of a ``sampling/createMessage`` result (the ``mcp`` type or its JSON)."""
    body = _json(result, "CreateMessageResult")
    if body.get("role") != "assistant":
        raise WireFormatError(NAME, "CreateMessageResult", "the result's role is not assistant", "role")
    content = body.get("content")
    (message,) = _sampling_message("assistant", content if isinstance(content, list) else [content], None,
                                   {}, "content")
    assert isinstance(message, _messages.AssistantMessage)
    raw_stop = body.get("stopReason")
    marks = {k: v for k, v in body.items() if k not in ("role", "content", "model", "stopReason")}
    return message.model_copy(update={
        "model": body.get("model"), "stop_reason": _STOP.get(raw_stop) if isinstance(raw_stop, str) else None,
        "stop_reason_raw": raw_stop, "provider_data": ProviderData(issuer=ISSUER, data=marks) if marks else None})


def to_sampling_messages(history: Sequence[HistoryEvent], *, strict: bool = False,
                         as_dict: bool = False) -> SamplingExport:
    """The history as MCP sampling messages, its system messages as the system prompt, with a
    loss for everything sampling messages cannot hold (reasoning, server tool blocks, events...).

    Tool messages become ``tool_result`` blocks of a user message (consecutive ones share it);
    developer messages are sent as user messages (``attached``). ``as_dict=True`` gives the
    messages' JSON and needs no ``mcp`` package.
    """
    log = LossLog(NAME)
    system: list[str] = []
    out: list[tuple[dict[str, Any], dict[str, Any]]] = []  # each message and its marks
    calls: dict[str, str] = {}  # canonical call id -> the id MCP knows it by
    open_results: list[dict[str, Any]] | None = None
    for i, event in enumerate(history):
        path = f"history[{i}]"
        if isinstance(event, _messages.SystemMessage):
            system.append(event.text)
            if any(not isinstance(p, _parts.TextPart) for p in event.parts):
                log.add(path, "system_message", "dropped", "the system prompt holds text only", event.id)
            open_results = None
            continue
        if isinstance(event, _messages.ToolMessage):
            block = _tool_result_block(event, calls, path, log)
            if open_results is None:
                open_results = []
                marks = extras_of(event.provider_data, ISSUER).get("message")
                out.append(({"role": "user", "content": open_results}, marks if isinstance(marks, dict) else {}))
            open_results.append(block)
            continue
        open_results = None
        if not isinstance(event, _messages.UserMessage | _messages.AssistantMessage
                          | _messages.DeveloperMessage):
            log.add(path, event.type, "dropped", "sampling messages hold messages only", event.id)
            continue
        role: Literal["user", "assistant"] = "assistant" if isinstance(event, _messages.AssistantMessage) else "user"
        if isinstance(event, _messages.DeveloperMessage):
            log.add(path, "developer_message", "attached", "MCP sampling has no developer role: sent as user",
                    event.id)
        blocks = [b for j, p in enumerate(event.parts)
                  if (b := _sampling_block(p, role, calls, f"{path}.parts[{j}]", log, event.id)) is not None]
        if not blocks:
            log.add(path, f"{event.role}_message", "dropped", "nothing in it is a sampling content block", event.id)
            continue
        out.append(({"role": role, "content": blocks}, extras_of(event.provider_data, ISSUER)))
    messages: list[dict[str, Any]] = []
    for message, marks in out:
        blocks = message["content"]
        if len(blocks) == 1 and marks.get("content") != "list":
            message["content"] = blocks[0]  # one block is sent bare unless it came as a list
        message.update({k: v for k, v in marks.items() if k != "content"})
        messages.append(message)
    found = tuple(log.losses)
    if found and strict:
        raise LossError(found, NAME)
    log_losses(found)
    prompt = "\n\n".join(system) if system else None
    if as_dict:
        return SamplingExport(messages=messages, system_prompt=prompt, losses=found)
    require("mcp", "mcp")
    from mcp.types import SamplingMessage

    return SamplingExport(messages=[SamplingMessage.model_validate(m) for m in messages],
                          system_prompt=prompt, losses=found)


def _tool_result_block(event: _messages.ToolMessage, calls: dict[str, str], path: str, log: LossLog) -> dict[str, Any]:
    exported = to_call_tool_result(event, as_dict=True)
    for loss in exported.losses:
        log.add(f"{path}.{loss.path}", loss.part_type, loss.action, loss.reason, event.id)
    use_id = calls.get(event.call_id, event.call_id)
    return {"type": "tool_result", "toolUseId": use_id, **exported.result}


def _sampling_block(part: _parts.Part, role: str, calls: dict[str, str], path: str, log: LossLog,
                    message_id: str) -> dict[str, Any] | None:
    if isinstance(part, _parts.TextPart):
        if part.citations:
            log.add(path, "text", "dropped", "sampling messages have no citations", message_id)
        return {"type": "text", "text": part.text}
    if isinstance(part, _parts.ImagePart | _parts.AudioPart) \
            and isinstance(part.source, _parts.Base64Source):
        media_type = part.media_type or sniff_media_type(part.source.data)
        if media_type is not None:
            return {"type": part.type, "data": part.source.data, "mimeType": media_type}
    if isinstance(part, _parts.ToolCallPart) and role == "assistant":
        try:
            arguments = json.loads(part.arguments_json) if part.arguments_json.strip() else {}
        except json.JSONDecodeError:
            arguments = None
        if not isinstance(arguments, dict):
            log.add(path, "tool_call", "rewritten", "MCP tool input is an object: malformed arguments are sent as {}",
                    message_id)
            arguments = {}
        calls[part.id] = part.provider_ids.get(ISSUER, part.id)
        return {"type": "tool_use", "id": calls[part.id], "name": part.name, "input": arguments}
    log.add(path, part.type, "dropped", f"sampling messages have no {part.type} block of this kind", message_id)
    return None
