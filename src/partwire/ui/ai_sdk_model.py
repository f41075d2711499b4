"""A history as the Vercel AI SDK's ``ModelMessage`` list (``ai`` 7), and back: ``ai-sdk-model``.

``ModelMessage`` is what the SDK's ``generateText`` and ``streamText`` take as ``messages``. The
parts are those of the ``UIMessage`` format with ``providerOptions`` where a UI part has
``providerMetadata``, so the SDK's provider packages read the signatures and item ids they wrote:
system and developer messages become ``system`` messages (a string), tool messages ``tool``
messages (consecutive ones share one), a tool message's output a ``text``, ``json``,
``error-text``, ``execution-denied`` or ``content`` output. A ModelMessage has no id: the
canonical message's id and other fields ride in its ``providerOptions.partwire``, a tool
message's in its result part's. The mapping table and the differences from the SDK's own
``convertToModelMessages`` are in ``docs/chat-ui.md``.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any

from partwire import messages as _messages
from partwire import parts as _parts
from partwire.history import HistoryEvent
from partwire.projection import Loss
from partwire.ui import _common
from partwire.ui._ai_sdk_parts import DATA_PART, call_from_ui, part_from_ui
from partwire.ui._common import CARRIER, Converted, bad, loss
from partwire.ui.ai_sdk import part_to_ui

__all__ = ["FORMAT", "from_wire", "to_wire"]

FORMAT = "ai-sdk-model"
"""The format's name in :func:`partwire.convert.convert`, the CLI and every loss it reports."""

_CUSTOM_KIND = "partwire.part"
"""The ``kind`` of a ``custom`` part that holds a canonical part the SDK has no part for."""


def to_wire(history: Sequence[HistoryEvent]) -> Converted[list[dict[str, Any]]]:
    """The history as ``ModelMessage`` objects (JSON), and what could not go.

    Losses: events that are not messages; the parts of a system or developer message that are
    not text (its content is a string); a part of a user message with no ModelMessage part
    (an unknown part).
    """
    out: list[dict[str, Any]] = []
    losses: list[Loss] = []
    for i, event in enumerate(history):
        path = f"history[{i}]"
        if isinstance(event, _messages.ToolMessage):
            result = _result(event)
            last = out[-1] if out else None
            if last is not None and last["role"] == "tool" and "providerOptions" not in last:
                last["content"].append(result)
            else:
                out.append({"role": "tool", "content": [result]})
            continue
        if not isinstance(event, _messages.SystemMessage | _messages.DeveloperMessage | _messages.UserMessage
                          | _messages.AssistantMessage):
            losses.append(loss(FORMAT, path, event.type, "dropped",
                               "a ModelMessage list holds only messages"))
            continue
        extras = _common.strip(_common.event_json(event), ("parts",))
        if event.metadata:
            extras["metadata"] = event.metadata
        if isinstance(event, _messages.SystemMessage | _messages.DeveloperMessage):
            # One string; each text part's length and other fields ride along, so the parts
            # come back as they were.
            texts: list[str] = []
            layout: list[Any] = []
            for j, part in enumerate(event.parts):
                if isinstance(part, _parts.TextPart):
                    texts.append(part.text)
                    layout.append([len(part.text), _common.strip(_common.part_json(part), ("text",))])
                else:
                    losses.append(loss(FORMAT, f"{path}.parts[{j}]", part.type, "dropped",
                                       "a system ModelMessage holds one string", event.id))
            extras["parts"] = layout
            out.append({"role": "system", "content": "".join(texts),
                        "providerOptions": {CARRIER: extras}})
            continue
        content = []
        names = {p.id: p.name for p in event.parts if isinstance(p, _parts.ServerToolCallPart)}
        for j, part in enumerate(event.parts):
            model_part = _part_to_model(part, isinstance(event, _messages.AssistantMessage), names)
            if model_part is None:
                losses.append(loss(FORMAT, f"{path}.parts[{j}]", part.type, "dropped",
                                   "a user ModelMessage has no part for it", event.id))
                continue
            content.extend(model_part)
        out.append({"role": event.role, "content": content, "providerOptions": {CARRIER: extras}})
    return Converted(out, tuple(losses))


def _options(ui: Mapping[str, Any], key: str = "providerMetadata") -> dict[str, Any]:
    meta = ui.get(key)
    return {"providerOptions": meta} if isinstance(meta, dict) and meta else {}


def _part_to_model(part: _parts.Part, assistant: bool, names: Mapping[str, str]) -> list[dict[str, Any]] | None:
    """The ModelMessage parts of one canonical part (``None``: it has none); ``names`` are the
    tool names of the message's provider-run calls, which their results take."""
    if isinstance(part, _parts.ServerToolResultPart):
        extras = _common.strip(_common.part_json(part), ("call_id", "output"))
        return [{"type": "tool-result", "toolCallId": part.call_id,
                 "toolName": names.get(part.call_id, part.name),
                 "output": _json_output(part.output), "providerOptions": {CARRIER: {"result": extras}}}]
    ui = part_to_ui(part)
    kind = ui["type"]
    if kind in ("text", "reasoning"):
        return [{"type": kind, "text": ui["text"], **_options(ui)}]
    if kind == "file":
        data: dict[str, Any] = {"type": "url", "url": ui["url"]}
        if "providerReference" in ui:
            data = {"type": "reference", "reference": ui["providerReference"]}
        out = {"type": "file", "mediaType": ui["mediaType"], "data": data, **_options(ui)}
        if "filename" in ui:
            out["filename"] = ui["filename"]
        return [out]
    if "toolCallId" in ui:
        call: dict[str, Any] = {"type": "tool-call", "toolCallId": ui["toolCallId"],
                                "toolName": kind[5:], "input": ui["input"],
                                **_options(ui, "callProviderMetadata")}
        if isinstance(part, _parts.ServerToolCallPart):
            call["providerExecuted"] = True
        return [call]
    if not assistant:
        return None
    return [{"type": "custom", "kind": _CUSTOM_KIND, "providerOptions": {CARRIER: _common.part_json(part)}}]


def _json_output(value: Any) -> dict[str, Any]:
    return {"type": "text", "value": value} if isinstance(value, str) else {"type": "json", "value": value}


def _result(message: _messages.ToolMessage) -> dict[str, Any]:
    """A tool message as a ``tool-result`` part."""
    extras = _common.strip(_common.event_json(message), ("call_id", "tool_name"))
    text = message.output_text
    output: dict[str, Any]
    if message.status == "success" and not message.parts:
        if message.data is not None:
            output = {"type": "json", "value": message.data}
        else:
            output = {"type": "text", "value": text}
            extras.pop("output_text", None)
    elif message.status == "denied":
        output = {"type": "execution-denied"}
        if text:
            output["reason"] = text
            extras.pop("output_text", None)
    elif message.status == "success":
        value: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        for part in message.parts:
            ui = part_to_ui(part)
            if ui["type"] == "file":
                value.append({"type": "file", "data": {"type": "url", "url": ui["url"]},
                              "mediaType": ui["mediaType"]})
        output = {"type": "content", "value": value}
    else:
        output = {"type": "error-text", "value": text or f"the tool call was {message.status}"}
        if text:
            extras.pop("output_text", None)
        else:
            extras["output_text"] = ""
    return {"type": "tool-result", "toolCallId": message.call_id, "toolName": message.tool_name,
            "output": output, "providerOptions": {CARRIER: {"result": extras}}}


# -- reading ------------------------------------------------------------------------------------


def from_wire(messages: Any) -> Converted[list[HistoryEvent]]:
    """A history from ``ModelMessage`` objects (JSON).

    Messages partwire wrote come back whole, with their ids. Others get new ids; a ``tool``
    message gives one tool message per result. Signatures and item ids are read from their
    provider's ``providerOptions`` keys. A malformed message raises
    :class:`~partwire.errors.WireFormatError` naming its place (``messages[1].content[0]``).
    """
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise bad(FORMAT, "ModelMessage list", f"expected a list of ModelMessages, got {type(messages).__name__}",
                  "messages")
    history: list[HistoryEvent] = []
    for m, message in enumerate(messages):
        history.extend(_message_from_model(message, f"messages[{m}]"))
    return Converted(history, ())


def _message_from_model(message: Any, path: str) -> list[HistoryEvent]:
    if not isinstance(message, Mapping):
        raise bad(FORMAT, "ModelMessage", f"expected an object, got {type(message).__name__}", path)
    role, content = message.get("role"), message.get("content")
    if role not in ("system", "user", "assistant", "tool"):
        raise bad(FORMAT, "ModelMessage", f"role {role!r} is none of system, user, assistant, tool",
                  f"{path}.role")
    extras = _common.carried(message.get("providerOptions"))
    if role == "system":
        if not isinstance(content, str):
            raise bad(FORMAT, "ModelMessage", "a system message's content must be a string",
                      f"{path}.content")
        layout = extras.get("parts")
        if isinstance(layout, list) and all(isinstance(x, list) and len(x) == 2 for x in layout):
            texts, at = [], 0
            for length, fields in layout:
                texts.append({**fields, "text": content[at:at + length]})
                at += length
            data = {**extras, "parts": texts}
        else:
            data = {"v": 1, "type": "message", "role": "system",
                    "parts": [{"type": "text", "text": content}]}
        return [_common.event_from_json(data, FORMAT, path)]
    if isinstance(content, str) and role in ("user", "assistant"):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise bad(FORMAT, "ModelMessage", "content must be a string or a list of parts", f"{path}.content")
    if role == "tool":
        return [_tool_message(part, f"{path}.content[{j}]") for j, part in enumerate(content)
                if isinstance(part, Mapping) and part.get("type") != "tool-approval-response"]
    parts: list[_parts.Part] = []
    for j, part in enumerate(content):
        where = f"{path}.content[{j}]"
        if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
            raise bad(FORMAT, "ModelMessage", "a part must be an object with a string type", where)
        parts.append(_part_from_model(part, where))
    data = {**extras, "parts": [_common.part_json(p) for p in parts]} if extras else \
        {"v": 1, "type": "message", "role": role, "parts": [_common.part_json(p) for p in parts]}
    return [_common.event_from_json(data, FORMAT, path)]


def _part_from_model(part: Mapping[str, Any], where: str) -> _parts.Part:
    kind = part["type"]
    options = part.get("providerOptions")
    if kind in ("text", "reasoning"):
        ui = {"type": kind, "text": part.get("text")}
        if isinstance(options, Mapping):
            ui["providerMetadata"] = options
        return part_from_ui(ui, FORMAT, where)
    if kind in ("file", "image"):
        data = part.get("data") if kind == "file" else part.get("image")
        ui = {"type": "file", "mediaType": part.get("mediaType") or "application/octet-stream",
              "url": _url(data, part.get("mediaType"), where)}
        if isinstance(data, Mapping) and data.get("type") == "reference":
            ui["providerReference"] = data.get("reference")
        if isinstance(part.get("filename"), str):
            ui["filename"] = part["filename"]
        if isinstance(options, Mapping):
            ui["providerMetadata"] = options
        return part_from_ui(ui, FORMAT, where)
    if kind == "tool-call":
        if not isinstance(part.get("toolCallId"), str) or not isinstance(part.get("toolName"), str):
            raise bad(FORMAT, "ModelMessage", "a tool-call part needs a toolCallId and a toolName", where)
        ui = {"type": f"tool-{part['toolName']}", "toolCallId": part["toolCallId"],
              "state": "input-available", "input": part.get("input")}
        if part.get("providerExecuted"):
            ui["providerExecuted"] = True
        if isinstance(options, Mapping):
            ui["callProviderMetadata"] = options
        return call_from_ui(ui, part["toolName"], FORMAT, where)
    if kind == "tool-result":
        result = _common.carried(options).get("result")
        output = part.get("output")
        value = output.get("value") if isinstance(output, Mapping) else None
        data = {"type": "server_tool_result", "call_id": part.get("toolCallId"),
                "name": part.get("toolName"), "issuer": "ai-sdk", "output": value}
        if isinstance(result, Mapping):
            data = {**data, **result}
        return part_from_ui({"type": DATA_PART, "data": data}, FORMAT, where)
    if kind == "custom" and part.get("kind") == _CUSTOM_KIND:
        return part_from_ui({"type": DATA_PART, "data": _common.carried(options)}, FORMAT, where)
    return part_from_ui(dict(part), FORMAT, where)  # an unknown part of the SDK, kept


def _url(data: Any, media_type: Any, where: str) -> str:
    if isinstance(data, Mapping):
        if data.get("type") == "url" and isinstance(data.get("url"), str):
            return str(data["url"])
        if data.get("type") == "data" and isinstance(data.get("data"), str):
            return f"data:{media_type or 'application/octet-stream'};base64,{data['data']}"
        if data.get("type") == "reference":
            return ""
        if data.get("type") == "text" and isinstance(data.get("text"), str):
            return f"data:text/plain;base64,{_b64(data['text'])}"
    if isinstance(data, str):
        return data if ":" in data[:12] else f"data:{media_type or 'application/octet-stream'};base64,{data}"
    raise bad(FORMAT, "ModelMessage", "a file part's data must be a URL, base64 text or a reference", where)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _tool_message(part: Mapping[str, Any], where: str) -> HistoryEvent:
    if part.get("type") != "tool-result" or not isinstance(part.get("toolCallId"), str) or \
            not isinstance(part.get("toolName"), str):
        raise bad(FORMAT, "ModelMessage", "a tool message holds tool-result parts with a toolCallId and a toolName",
                  where)
    output = part.get("output")
    if not isinstance(output, Mapping) or not isinstance(output.get("type"), str):
        raise bad(FORMAT, "ModelMessage", "a tool result needs an output with a type", f"{where}.output")
    kind, value = output["type"], output.get("value")
    native: dict[str, Any] = {"v": 1, "type": "message", "role": "tool", "call_id": part["toolCallId"],
                              "tool_name": part["toolName"]}
    held: tuple[str, ...] = ()
    if kind == "text":
        native["output_text"], held = str(value), ("output_text",)
    elif kind == "json":
        native.update(output_text=_common.json_text(value), data=value)
    elif kind in ("error-text", "error-json"):
        native["status"] = "error"
        native["output_text"] = value if isinstance(value, str) else _common.json_text(value)
        held = ("output_text",)
    elif kind == "execution-denied":
        native["status"] = "denied"
        native["output_text"] = str(output.get("reason") or "")
        held = ("output_text",)
    elif kind == "content" and isinstance(value, list):
        native["output_text"] = "".join(str(v.get("text", "")) for v in value
                                        if isinstance(v, Mapping) and v.get("type") == "text")
    else:
        raise bad(FORMAT, "ModelMessage", f"unknown tool output type {kind!r}", f"{where}.output")
    result = _common.carried(part.get("providerOptions")).get("result")
    if isinstance(result, Mapping):
        data = {**{k: native[k] for k in held}, **result, "call_id": part["toolCallId"],
                "tool_name": part["toolName"]}
    else:
        data = native
    return _common.event_from_json(data, FORMAT, where)

