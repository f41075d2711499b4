"""A history as the Vercel AI SDK's ``UIMessage`` list (``ai`` 7), and back: format ``ai-sdk-ui``.

``UIMessage`` is the form the SDK recommends for persisting a chat and what ``useChat`` shows.
One canonical message is one UI message with the same ``id``; a tool message becomes the output
of its call's ``tool-{name}`` part (the SDK has no tool role); a developer message is a
``system`` UI message. Signatures, redacted data and item ids ride in ``providerMetadata`` keyed
by provider, as the SDK's provider packages write them; everything else the UI form has no field
for rides under ``providerMetadata.partwire`` (parts) and ``metadata.partwire`` (messages), so
:func:`to_wire` then :func:`from_wire` gives the history back. What cannot go at all (history
events that are not messages, a tool result with no call) is a :class:`~partwire.projection.Loss`.
The mapping table is in ``docs/chat-ui.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from partwire import messages as _messages
from partwire import parts as _parts
from partwire.history import HistoryEvent
from partwire.projection import Loss
from partwire.ui import _common
from partwire.ui._ai_sdk_parts import (
    call_from_ui,
    call_to_ui,
    file_to_ui,
    part_from_ui,
    reasoning_to_ui,
    text_to_ui,
    unknown_to_ui,
)
from partwire.ui._common import CARRIER, Converted, bad, loss

__all__ = ["FORMAT", "from_wire", "part_to_ui", "to_wire"]

FORMAT = "ai-sdk-ui"
"""The format's name in :func:`partwire.convert.convert`, the CLI and every loss it reports."""

_ROLE = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}
_TOOL_STATES = ("input-streaming", "input-available", "approval-requested", "approval-responded",
                "output-available", "output-error", "output-denied")
# The message fields a UI message holds itself; the rest ride in ``metadata.partwire``.
_HELD = ("id", "parts", "metadata")


def to_wire(history: Sequence[HistoryEvent]) -> Converted[list[dict[str, Any]]]:
    """The history as ``UIMessage`` objects (JSON), and what could not go.

    Messages keep their ids; a tool message becomes its call's output (state
    ``output-available``, ``output-error`` or ``output-denied``) and keeps its own id and fields
    under the call's ``callProviderMetadata.partwire.result``. Events that are not messages are
    losses (a UI message list has no place for them), as are tool results whose call is not in
    an earlier assistant message.
    """
    out: list[dict[str, Any]] = []
    losses: list[Loss] = []
    calls: dict[str, dict[str, Any]] = {}  # call id -> its UI part
    answered: set[str] = set()
    run: list[str] = []  # the calls of the last assistant message still awaiting their result
    for i, event in enumerate(history):
        path = f"history[{i}]"
        if isinstance(event, _messages.ToolMessage):
            ui_part = calls.get(event.call_id)
            if ui_part is None or event.call_id in answered:
                why = "its call was already answered" if ui_part is not None else \
                    "no earlier assistant message holds its call"
                losses.append(loss(FORMAT, path, "tool_message", "dropped",
                                   f"a UI message list carries a tool result as its call's output; {why}",
                                   event.id))
                continue
            if not run or run[0] != event.call_id:
                losses.append(loss(FORMAT, path, "tool_message", "rewritten",
                                   "moved next to the assistant message that calls it (a UI tool "
                                   "part holds its call and its output together)", event.id))
            if event.call_id in run:
                run = run[run.index(event.call_id) + 1:]
            answered.add(event.call_id)
            _attach_result(ui_part, event)
            continue
        run = []
        if not isinstance(event, _messages.SystemMessage | _messages.DeveloperMessage | _messages.UserMessage
                          | _messages.AssistantMessage):
            losses.append(loss(FORMAT, path, event.type, "dropped",
                               "a UI message list holds only messages"))
            continue
        parts = _parts_to_ui(event, path, losses)
        for ui_part in parts:
            if "toolCallId" in ui_part and not ui_part.get("providerExecuted"):
                calls[ui_part["toolCallId"]] = ui_part
                run.append(ui_part["toolCallId"])
        message: dict[str, Any] = {"id": event.id, "role": _ROLE[event.role]}
        extras = _common.strip(_common.event_json(event), _HELD)
        metadata = {**event.metadata, CARRIER: extras}
        message["metadata"] = metadata
        message["parts"] = parts
        out.append(message)
    return Converted(out, tuple(losses))


def part_to_ui(part: _parts.Part) -> dict[str, Any]:
    """One canonical part as a UI part (a tool call without its output)."""
    match part:
        case _parts.TextPart() | _parts.RefusalPart():
            return text_to_ui(part)
        case _parts.ThinkingPart() | _parts.RedactedThinkingPart():
            return reasoning_to_ui(part)
        case _parts.ToolCallPart() | _parts.ServerToolCallPart():
            return call_to_ui(part)
        case _parts.ImagePart() | _parts.DocumentPart() | _parts.AudioPart():
            return file_to_ui(part)
        case _parts.ServerToolResultPart() | _parts.UnknownPart():
            return unknown_to_ui(part)


def _parts_to_ui(message: _messages.Message, path: str, losses: list[Loss]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    server_calls: dict[str, tuple[int, dict[str, Any]]] = {}  # call id -> (part index, UI part)
    for j, part in enumerate(message.parts):
        if isinstance(part, _parts.ServerToolResultPart) and part.call_id in server_calls:
            at, ui_call = server_calls.pop(part.call_id)
            if at != j - 1:
                losses.append(loss(FORMAT, f"{path}.parts[{j}]", part.type, "rewritten",
                                   "moved next to its call (a UI tool part holds a provider-run "
                                   "call and its result together)", message.id))
            _attach_server_result(ui_call, part)
            continue
        ui_part = part_to_ui(part)
        if isinstance(part, _parts.ServerToolCallPart):
            server_calls[part.id] = (j, ui_part)
        out.append(ui_part)
    return out


def _attach_result(ui: dict[str, Any], message: _messages.ToolMessage) -> None:
    """Give a UI tool part its output from a tool message (state by the message's status)."""
    extras = _common.strip(_common.event_json(message), ("call_id", "tool_name"))
    text = message.output_text
    if message.status == "success":
        ui["state"] = "output-available"
        if message.data is not None:
            ui["output"] = message.data
        else:
            ui["output"] = text
            extras.pop("output_text", None)
    elif message.status == "denied":
        ui["state"] = "output-denied"
        ui["approval"] = {"id": message.call_id, "approved": False}
        if text:
            ui["approval"]["reason"] = text
    else:
        ui["state"] = "output-error"
        ui["errorText"] = text or f"the tool call was {message.status}"
        if text:
            extras.pop("output_text", None)
        else:
            extras["output_text"] = ""  # the error text above is a stand-in
    meta = ui.setdefault("callProviderMetadata", {})
    meta.setdefault(CARRIER, {})["result"] = extras


def _attach_server_result(ui: dict[str, Any], part: _parts.ServerToolResultPart) -> None:
    ui["state"] = "output-available"
    ui["output"] = part.output
    extras = _common.strip(_common.part_json(part), ("call_id", "output"))
    meta = ui.setdefault("callProviderMetadata", {})
    meta.setdefault(CARRIER, {})["result"] = extras


# -- reading ------------------------------------------------------------------------------------


def from_wire(messages: Any) -> Converted[list[HistoryEvent]]:
    """A history from ``UIMessage`` objects (JSON, as ``validateUIMessages`` accepts them).

    Messages partwire wrote come back whole. Others are read from their UI fields: reasoning
    signatures from their provider's metadata keys, a tool part's output as a tool message after
    its assistant message, steps (``step-start``) as one assistant message each. A part type
    partwire does not know is kept as an unknown part and written back as it came. A malformed
    message raises :class:`~partwire.errors.WireFormatError` naming its place
    (``messages[2].parts[0]``).
    """
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise bad(FORMAT, "UIMessage list", f"expected a list of UI messages, got {type(messages).__name__}",
                  "messages")
    history: list[HistoryEvent] = []
    losses: list[Loss] = []
    for m, message in enumerate(messages):
        history.extend(_message_from_ui(message, f"messages[{m}]", losses))
    return Converted(history, tuple(losses))


def _message_from_ui(ui: Any, path: str, losses: list[Loss]) -> list[HistoryEvent]:
    if not isinstance(ui, Mapping):
        raise bad(FORMAT, "UIMessage", f"expected an object, got {type(ui).__name__}", path)
    ident, role, parts = ui.get("id"), ui.get("role"), ui.get("parts")
    if not isinstance(ident, str):
        raise bad(FORMAT, "UIMessage", "its id is missing or not a string", f"{path}.id")
    if role not in ("system", "user", "assistant"):
        raise bad(FORMAT, "UIMessage", f"role {role!r} is none of system, user, assistant",
                  f"{path}.role")
    if not isinstance(parts, list):
        raise bad(FORMAT, "UIMessage", "its parts are missing or not a list", f"{path}.parts")
    metadata = ui.get("metadata")
    extras = _common.carried(metadata)
    app = _common.strip(dict(metadata), (CARRIER,)) if isinstance(metadata, Mapping) else {}
    steps: list[list[_parts.Part]] = [[]]
    results: list[list[HistoryEvent]] = [[]]
    for j, part in enumerate(parts):
        where = f"{path}.parts[{j}]"
        if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
            raise bad(FORMAT, "UIMessage", "a part must be an object with a string type", where)
        kind: str = part["type"]
        if kind == "step-start":
            if steps[-1]:
                steps.append([])
                results.append([])
            continue
        if kind.startswith("tool-") or kind == "dynamic-tool":
            name = kind[5:] if kind != "dynamic-tool" else part.get("toolName")
            if not isinstance(name, str) or not isinstance(part.get("toolCallId"), str) or \
                    part.get("state") not in _TOOL_STATES:
                raise bad(FORMAT, "UIMessage", "a tool part needs a toolCallId, a tool name and "
                          f"a state among {', '.join(_TOOL_STATES)}", where)
            call = call_from_ui(part, name, FORMAT, where)
            steps[-1].append(call)
            if isinstance(call, _parts.ServerToolCallPart):
                result = _server_result(part, call, where)
                if result is not None:
                    steps[-1].append(result)
            else:
                tool = _tool_message(part, call, ident, where, losses)
                if tool is not None:
                    results[-1].append(tool)
            continue
        steps[-1].append(part_from_ui(part, FORMAT, where))
    if extras:
        # A message partwire wrote: one message, its own fields back (a developer role too).
        data = {**extras, "id": ident, "metadata": app,
                "parts": [_common.part_json(p) for step in steps for p in step]}
        return [_common.event_from_json(data, FORMAT, path), *(r for rs in results for r in rs)]
    out: list[HistoryEvent] = []
    for n, (step, tools) in enumerate(zip(steps, results, strict=True)):
        step_id = ident if n == 0 else f"{ident}-{n}"
        if role == "assistant":
            out.append(_messages.AssistantMessage(id=step_id, parts=step, metadata=app))
        elif role == "user":
            out.append(_messages.UserMessage(id=step_id, parts=step, metadata=app))
        else:
            out.append(_messages.SystemMessage(id=step_id, parts=step, metadata=app))
        out.extend(tools)
    return out


def _tool_message(ui: Mapping[str, Any], call: _parts.Part, message_id: str, path: str,
                  losses: list[Loss]) -> HistoryEvent | None:
    """The tool message of a UI tool part that has an output, error or denial."""
    assert isinstance(call, _parts.ToolCallPart)
    state = ui["state"]
    if state in ("approval-requested", "approval-responded"):
        losses.append(loss(FORMAT, f"{path}.approval", "tool_call", "dropped",
                           "a tool approval awaiting its output has no canonical form yet",
                           message_id))
    if state not in ("output-available", "output-error", "output-denied"):
        return None
    meta = ui.get("callProviderMetadata")
    result = _common.carried(meta).get("result") if isinstance(meta, Mapping) else None
    native: dict[str, Any] = {"v": 1, "type": "message", "role": "tool", "call_id": call.id,
                              "tool_name": call.name}
    held: tuple[str, ...] = ()
    if state == "output-available":
        output = ui.get("output")
        if isinstance(output, str):
            native["output_text"] = output
            held = ("output_text",)
        else:
            native["output_text"] = _common.json_text(output)
            native["data"] = output
    elif state == "output-error":
        native["status"] = "error"
        if not isinstance(ui.get("errorText"), str):
            raise bad(FORMAT, "UIMessage", "an output-error tool part needs an errorText", path)
        native["output_text"] = ui["errorText"]
        held = ("output_text",)
    else:
        native["status"] = "denied"
        approval = ui.get("approval")
        reason = approval.get("reason") if isinstance(approval, Mapping) else None
        native["output_text"] = reason if isinstance(reason, str) else ""
    if isinstance(result, Mapping):
        data = {**{k: native[k] for k in held}, **result, "call_id": call.id,
                "tool_name": call.name}
    else:
        data = {**native, "id": f"{message_id}-{call.id}"}
    return _common.event_from_json(data, FORMAT, f"{path}.output")


def _server_result(ui: Mapping[str, Any], call: _parts.ServerToolCallPart, path: str) -> _parts.Part | None:
    state = ui["state"]
    if state not in ("output-available", "output-error"):
        return None
    meta = ui.get("callProviderMetadata")
    result = _common.carried(meta).get("result") if isinstance(meta, Mapping) else None
    output = ui.get("output") if state == "output-available" else {"error": ui.get("errorText")}
    data: dict[str, Any] = {"type": "server_tool_result", "call_id": call.id, "name": call.name,
                            "issuer": call.issuer, "output": output}
    if isinstance(result, Mapping):
        data = {**data, **result}
    return _common.part_from_json(data, FORMAT, f"{path}.output")
