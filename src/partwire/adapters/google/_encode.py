"""Canonical -> Gemini ``contents`` and ``systemInstruction``, with the losses.

- System messages join ``systemInstruction`` (one Content); one said mid-conversation moves
  there too (``rewritten``).
- Developer messages: Gemini has no developer role; their parts join the user turn before them,
  or start one (``attached``).
- Assistant messages become ``model`` contents, parts in order. Tool results become
  ``functionResponse`` parts, all the results of one batch in one ``user`` content.
- Call ids: Gemini's own id when it issued one; none when it sent the call without one (the
  mapping to the canonical ``tu_`` id is undone); another provider's id when Gemini's id rules
  admit it (so a call sent A -> Gemini -> A keeps A's id); otherwise the canonical id
  (``id_mapped``). A result carries the id its call was sent with; when its
  batch has calls without ids, results go in the order of their calls (Gemini then pairs by order
  and name).
- Thought signatures go back on the part they came with, to the model that issued them. The first
  function call of a model turn that has no valid signature gets Google's placeholder when the
  target model requires signatures (``rewritten``); the other calls of a parallel batch never get
  one.

Marks a request import left in ``provider_data`` (read from accepted issuers only): ``join`` (the
message continues the previous content), ``content`` (extra keys of its Content), and on tool
messages ``id`` (the response's own id), ``shape`` (``whole``: ``data`` is the whole response
object), ``inner`` / ``extra`` (keys inside / beside ``functionResponse``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, assert_never

from partwire.adapters._common import Losses, first_accepted, tool_status_loss
from partwire.adapters.google._parts import PartEncoder
from partwire.adapters.google._wire import ISSUER, PLACEHOLDER_SIGNATURE, admits_call_id
from partwire.history import (
    CompactionEvent,
    ErrorEvent,
    History,
    HistoryEvent,
    ModelSwitchEvent,
    RetryEvent,
    SubtaskEvent,
    TaskMetadataEvent,
    UnknownEvent,
)
from partwire.messages import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from partwire.parts import AudioPart, DocumentPart, ImagePart, Part, ToolCallPart, UnknownPart

__all__ = ["Encoder"]


class Encoder(PartEncoder):
    """Projects one history onto ``contents``; :meth:`run` returns them, losses go to ``losses``."""

    def __init__(self, history: History, *, issuers: Collection[str], model: str, losses: Losses,
                 require_signatures: bool) -> None:
        super().__init__(issuers=issuers, model=model, losses=losses)
        self.history = history
        own = ISSUER
        self.issuer_order = ([own] if own in self.issuers else []) + sorted(self.issuers - {own})
        self.require_signatures = require_signatures
        self.contents: list[dict[str, Any]] = []
        self.system: dict[str, Any] | None = None
        self.started = False
        # Canonical call id -> the id its functionCall went with (None: sent without one).
        self.wire_ids: dict[str, str | None] = {}
        # Canonical call id -> (position in its model turn, turn number), for ordering results.
        self.call_order: dict[str, tuple[int, int]] = {}
        self.turn = 0
        self.tool_run: list[tuple[ToolMessage, dict[str, Any]]] | None = None
        self._run_content: dict[str, Any] = {}

    def run(self) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """The wire contents and the system instruction of the whole history."""
        for i, event in enumerate(self.history):
            self.event(event, i)
        self._close_run()
        return self.contents, self.system

    def event(self, event: HistoryEvent, i: int) -> None:
        """Append the wire content of one history event."""
        path = f"history[{i}]"
        match event:
            case ToolMessage():
                self._tool(event, path)
                self.started = True
            case AssistantMessage():
                self._close_run()
                self._assistant(event, path)
                self.started = True
            case UserMessage():
                self._close_run()
                self._user(event, path)
                self.started = True
            case SystemMessage():
                self._system(event, path)
            case DeveloperMessage():
                self._close_run()
                self._developer(event, path)
                self.started = True
            case (ErrorEvent() | TaskMetadataEvent() | CompactionEvent() | RetryEvent()
                  | ModelSwitchEvent() | SubtaskEvent() | UnknownEvent()):
                return  # records for the application and for replay; never sent
            case _:
                assert_never(event)

    # -- messages ---------------------------------------------------------------------------

    def _marks(self, event: Any) -> Mapping[str, Any]:
        return self._data(event.provider_data) or {}

    def _parts(self, parts: tuple[Part, ...], path: str, message_id: str) -> list[dict[str, Any]]:
        out = []
        for j, part in enumerate(parts):
            wire = self.part(part, f"{path}.parts[{j}]", message_id)
            if wire is not None:
                out.append(wire)
        return out

    def _system(self, event: SystemMessage, path: str) -> None:
        if self.started:
            self.losses.add(path, "system_message", "rewritten",
                            "google takes no system message mid-conversation; it moves to the "
                            "system prompt", event.id)
        parts = self._parts(event.parts, path, event.id)
        if self.system is None:
            self.system = {"parts": parts}
            content = self._marks(event).get("content")
            if isinstance(content, dict):
                for key, value in content.items():
                    self.system.setdefault(key, value)
        else:
            self.system["parts"].extend(parts)

    def _content(self, role: str, parts: list[dict[str, Any]], marks: Mapping[str, Any]) -> None:
        last = self.contents[-1] if self.contents else None
        if marks.get("join") and last is not None and last.get("role", "user") == role:
            last["parts"].extend(parts)
            return
        content: dict[str, Any] = {"role": role, "parts": parts}
        extra = marks.get("content")
        if isinstance(extra, dict):
            for key, value in extra.items():
                if value is None:
                    content.pop(key, None)  # a key the original did not have (a missing role)
                else:
                    content[key] = value
        self.contents.append(content)

    def _user(self, event: UserMessage, path: str) -> None:
        parts = self._parts(event.parts, path, event.id)
        if not parts and event.parts:
            self.losses.add(path, "user_message", "dropped",
                            "none of its parts can be sent, and Gemini rejects an empty content",
                            event.id)
            return
        self._content("user", parts, self._marks(event))

    def _developer(self, event: DeveloperMessage, path: str) -> None:
        self.losses.add(path, "developer_message", "attached",
                        "google has no developer role; its parts join a user turn", event.id)
        parts = self._parts(event.parts, path, event.id)
        if not parts:
            return
        last = self.contents[-1] if self.contents else None
        if last is not None and last.get("role", "user") == "user":
            last["parts"].extend(parts)
        else:
            self.contents.append({"role": "user", "parts": parts})

    def _assistant(self, event: AssistantMessage, path: str) -> None:
        self.turn += 1
        parts: list[dict[str, Any]] = []
        position = 0
        for j, part in enumerate(event.parts):
            where = f"{path}.parts[{j}]"
            if isinstance(part, ToolCallPart):
                wire_id = self._wire_id(part, where, event.id)
                self.wire_ids[part.id] = wire_id
                self.call_order[part.id] = (self.turn, position)
                position += 1
                parts.append(self.call(part, wire_id, where, event.id))
                continue
            wire = self.part(part, where, event.id)
            if wire is not None:
                parts.append(wire)
        if not parts:
            if event.parts:
                self.losses.add(path, "assistant_message", "dropped",
                                "none of its parts can be sent, and Gemini rejects an empty "
                                "content", event.id)
            return
        self._placeholder(parts, event, path)
        self._content("model", parts, self._marks(event))

    def _placeholder(self, parts: list[dict[str, Any]], event: AssistantMessage, path: str) -> None:
        if not self.require_signatures:
            return
        for j, wire in enumerate(parts):
            if "functionCall" in wire:
                if "thoughtSignature" not in wire:
                    wire["thoughtSignature"] = PLACEHOLDER_SIGNATURE
                    index = next((k for k, p in enumerate(event.parts)
                                  if isinstance(p, ToolCallPart)), j)
                    self.losses.add(f"{path}.parts[{index}]", "tool_call", "rewritten",
                                    f"{self.model} requires a thought signature on the first "
                                    "function call of a turn and none valid for it was kept; "
                                    "sent with Google's placeholder signature", event.id)
                return

    def _wire_id(self, part: ToolCallPart, path: str, message_id: str) -> str | None:
        ids = part.provider_ids
        if ids:
            accepted = first_accepted(ids, self.issuer_order, admits_call_id)
            if accepted is not None:
                return accepted
            self.losses.add(path, "tool_call", "id_mapped",
                            f"the call id from {', '.join(sorted(ids))} breaks Gemini's id rules; "
                            f"the canonical id {part.id} is sent", message_id)
            return part.id
        data = self._data(part.provider_data)
        if data is not None and data.get("no_id") is True:
            return None
        return part.id

    # -- tool results -----------------------------------------------------------------------

    def _tool(self, event: ToolMessage, path: str) -> None:
        marks = self._marks(event)
        if marks.get("split"):
            self._close_run()  # a new content of results, as the imported request had it
        response = self._function_response(event, path, marks)
        if self.tool_run is None:
            last = self.contents[-1] if self.contents else None
            if marks.get("join") and last is not None and last.get("role", "user") == "user":
                self.tool_run = []
                self._run_content = last
            else:
                self.tool_run = []
                self._run_content = {"role": "user", "parts": []}
                extra = marks.get("content")
                if isinstance(extra, dict):
                    for key, value in extra.items():
                        if value is None:
                            self._run_content.pop(key, None)
                        else:
                            self._run_content[key] = value
                self.contents.append(self._run_content)
        self.tool_run.append((event, response))

    def _close_run(self) -> None:
        run = self.tool_run
        if run is None:
            return
        self.tool_run = None
        # Without ids Gemini pairs results with calls by order and name: put them in call order.
        if any(self.wire_ids.get(m.call_id, "") is None for m, _ in run):
            far = (1 << 30, 0)
            run = sorted(run, key=lambda item: self.call_order.get(item[0].call_id, far))
        self._run_content["parts"].extend(wire for _, wire in run)

    def _function_response(self, event: ToolMessage, path: str,
                           marks: Mapping[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if "id" in marks:
            if isinstance(marks["id"], str):
                body["id"] = marks["id"]
        else:
            wire_id = self.wire_ids.get(event.call_id, event.call_id)
            if wire_id is not None:
                body["id"] = wire_id
        body["name"] = event.tool_name
        data = event.data
        if marks.get("shape") == "whole" and isinstance(data, dict):
            body["response"] = data
        else:
            value = data if data is not None else event.output_text
            key = "output" if event.status == "success" else "error"
            tool_status_loss(self.losses, path, event.status, event.id, api="Gemini",
                             as_error=True)
            body["response"] = {key: value}
        media: list[dict[str, Any]] = []
        for j, part in enumerate(event.parts):
            where = f"{path}.parts[{j}]"
            if isinstance(part, ImagePart | DocumentPart | AudioPart):
                wire = self.media(part, where, event.id)
                if wire is not None:
                    wire.pop("thoughtSignature", None)
                    media.append(wire)
            elif isinstance(part, UnknownPart) and part.issuer in self.issuers \
                    and isinstance(part.raw, dict) and part.raw and "type" not in part.raw:
                media.append(dict(part.raw))  # a Gemini part partwire has no type for (video)
            else:
                self.losses.add(where, part.type, "dropped",
                                "a Gemini function response takes only media parts beside its "
                                "output", event.id)
        if media:
            body["parts"] = media
        inner = marks.get("inner")
        if isinstance(inner, dict):
            for key, value in inner.items():
                body.setdefault(key, value)
        out: dict[str, Any] = {"functionResponse": body}
        extra = marks.get("extra")
        if isinstance(extra, dict):
            for key, value in extra.items():
                out.setdefault(key, value)
        return out
