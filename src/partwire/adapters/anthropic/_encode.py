"""Canonical -> Anthropic wire: a history becomes ``system`` + ``messages``, with its losses.

The walk keeps the turn state :func:`default_joins` describes: tool results share one user turn,
user text right after them joins it, developer messages join the user or tool turn before them.
Markers a request import left in ``provider_data`` (``turn``, ``content``, ``layout``, ``block``)
are read only from accepted issuers. Parts become blocks in ``_parts``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Literal, assert_never, cast

from partwire._base import ProviderData
from partwire.adapters._common import Losses, OrphanCheck, data_of, orphan_loss, tool_status_loss
from partwire.adapters.anthropic._parts import FileResolver, ForeignThinking, PartEncoder, path
from partwire.adapters.anthropic._wire import WireBlock, WireMessage, default_joins
from partwire.history import (
    CompactionEvent,
    ErrorEvent,
    History,
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
from partwire.parts import Part, RefusalPart, TextPart, ThinkingPart, ToolCallPart, UnknownPart

__all__ = ["Encoder", "FileResolver", "ForeignThinking"]


class _Turn:
    """One wire message being built."""

    __slots__ = ("blocks", "empties", "force_list", "message", "origin", "plain", "role")

    def __init__(self, role: Literal["user", "assistant", "system"]) -> None:
        self.role = role
        self.blocks: list[WireBlock] = []
        # The wire message itself; "content" is replaced at the end if the turn collapses.
        self.message: WireMessage = {"role": role, "content": self.blocks}
        self.plain = False  # its first block is a plain text block (a lone one collapses to a string)
        self.force_list = False
        self.empties: list[tuple[int, int, int, str]] | None = None  # (block, i, j, message id)
        self.origin = -1  # the index of the history message that opened it

    def empty_text(self, i: int, j: int, message_id: str) -> None:
        """Note an empty text block: dropped unless the turn collapses to a string."""
        if self.empties is None:
            self.empties = []
        self.empties.append((len(self.blocks), i, j, message_id))

    def content(self, losses: Losses) -> str | list[WireBlock]:
        blocks = self.blocks
        if len(blocks) == 1 and self.plain and not self.force_list:
            text: str = blocks[0]["text"]
            return text
        if self.empties is None:
            return blocks
        # The API rejects empty text blocks ("text content blocks must be non-empty").
        drop = {k for k, _, _, _ in self.empties}
        for _, i, j, message_id in self.empties:
            losses.add(path(i, j), "text", "dropped", "Anthropic rejects empty text blocks",
                       message_id)
        return [b for k, b in enumerate(blocks) if k not in drop]


class Encoder(PartEncoder):
    """Projects one history; ``run`` gives ``system`` and ``messages``."""

    def __init__(self, history: History, *, issuers: Collection[str], losses: Losses,
                 foreign_thinking: ForeignThinking = "drop", system_in_messages: bool = True,
                 resolve_file: FileResolver | None = None,
                 defined: Collection[Any] | None = None) -> None:
        super().__init__(issuers=issuers, losses=losses, foreign_thinking=foreign_thinking,
                         resolve_file=resolve_file)
        self.defined = defined
        self.history = history
        self.system_in_messages = system_in_messages
        self.system: list[WireBlock] = []
        self.system_plain = False
        self.system_seen = False
        self.system_force_list = False
        # Only the open turn is ever written: each earlier one is closed into ``messages`` when
        # the next opens, while it is still in the processor's cache (a second walk over every
        # turn at the end cost 1.5x more per event at 100,000 events than at 1,000).
        self.turn: _Turn | None = None
        self.opened = 0  # turns opened so far
        self.messages: list[WireMessage] = []
        self.last_kind: str | None = None
        self.at = -1  # the index of the history event being encoded
        self.orphan = OrphanCheck(history)

    # -- the walk ---------------------------------------------------------------------------

    def run(self) -> tuple[str | list[WireBlock] | None, list[WireMessage]]:
        for i, event in enumerate(self.history):
            self.at = i
            # The three commonest classes by identity first: a missed isinstance on a pydantic
            # class goes through ABCMeta and costs more than mapping a whole part.
            if type(event) is ToolMessage:
                self._tool(event, i)
                continue
            if type(event) is AssistantMessage:
                self._assistant(event, i)
                continue
            if type(event) is UserMessage:
                self._user(event, i)
                continue
            if type(event) is SystemMessage:
                self._system(event, i)
                continue
            match event:
                case ToolMessage():
                    self._tool(event, i)
                case AssistantMessage():
                    self._assistant(event, i)
                case UserMessage():
                    self._user(event, i)
                case SystemMessage():
                    self._system(event, i)
                case DeveloperMessage():
                    self._developer(event, i)
                case (ErrorEvent() | TaskMetadataEvent() | CompactionEvent() | RetryEvent()
                      | ModelSwitchEvent() | SubtaskEvent() | UnknownEvent()):
                    continue  # records for the application and for replay; never sent
                case _:
                    assert_never(event)
        if self.turn is not None:
            self._close(self.turn, last=True)
        return self._system_value(), self.messages

    def _open(self, turn: _Turn) -> _Turn:
        before = self.turn
        if before is not None:
            if before.empties is None and not before.plain and before.blocks:
                self.messages.append(before.message)  # its blocks are its content already
            else:
                self._close(before, last=False)
        self.turn = turn
        self.opened += 1
        return turn

    def _close(self, turn: _Turn, *, last: bool) -> None:
        if turn.empties is None and turn.plain and len(turn.blocks) == 1 and not turn.force_list:
            # A lone plain text (the commonest turn): sent as a string, as content() would.
            turn.message["content"] = turn.blocks[0]["text"]
        elif turn.plain or turn.empties is not None:
            turn.message["content"] = turn.content(self.losses)
        if not turn.message["content"] and not (last and turn.role == "assistant"):
            # "all messages must have non-empty content except for the optional final
            # assistant message" (the API's 400): the message goes, and says so.
            i = turn.origin
            self.losses.add(f"history[{i}]", f"{getattr(self.history[i], 'role', turn.role)}_message", "dropped",
                            "nothing of it can be sent, and Anthropic rejects an empty "
                            "message", self.history[i].id)
            return
        self.messages.append(turn.message)

    def _tool(self, message: ToolMessage, i: int) -> None:
        fields = message.__dict__
        call_id = fields["call_id"]
        if call_id not in self.wire_ids and self.orphan(call_id):
            orphan_loss(self.losses, i, call_id, message.id, "Anthropic")
            return
        pd = fields["provider_data"]
        if pd is None and self.last_kind == "tool":
            turn = self.turn  # another result in the same tool turn: the commonest case
            assert turn is not None
        else:
            turn = self._turn("tool", "user", pd)
        block: WireBlock = {"type": "tool_result", "tool_use_id": self.wire_ids.get(call_id, call_id)}
        text = fields["output_text"]
        if fields["parts"] or pd is not None or (not text and fields["data"] is not None):
            self._tool_content(block, message, i)
        elif text:
            block["content"] = text
        status = fields["status"]
        if status != "success":
            block["is_error"] = True
            tool_status_loss(self.losses, f"history[{i}]", status, message.id, api="Anthropic",
                             as_error=True)
        turn.blocks.append(block)

    def _assistant(self, message: AssistantMessage, i: int) -> None:
        fields = message.__dict__
        parts = fields["parts"]
        if not parts and message.status in ("aborted", "error"):
            self._lose(i, -1, "assistant_message", "dropped",
                       f"an {message.status} message with no content; the API rejects empty "
                       "assistant turns", message.id)
            return
        turn = self._turn("assistant", "assistant", fields["provider_data"])
        self._parts(turn, parts, i, fields["id"])

    def _user(self, message: UserMessage, i: int) -> None:
        self._parts(self._turn("user", "user", message.provider_data), message.parts, i, message.id)

    def _developer(self, message: DeveloperMessage, i: int) -> None:
        before = self.opened
        turn = self._turn("developer", "user", message.provider_data)
        if self.opened == before:
            self._lose(i, -1, "developer_message", "attached",
                       "Anthropic has no developer role; its parts join the user or tool turn "
                       "before it", message.id)
        else:
            self._lose(i, -1, "developer_message", "downgraded",
                       "Anthropic has no developer role; sent as a user turn", message.id)
        self._parts(turn, message.parts, i, message.id)

    def _turn(self, kind: str, role: Literal["user", "assistant", "system"],
              pd: ProviderData | None) -> _Turn:
        current = self.turn
        if pd is None and (kind == "assistant" or current is None or current.role != "user"):
            # The common cases: no markers, and nothing to join (only user turns are joined).
            self.last_kind = kind
            turn = self._open(_Turn(role))
            turn.origin = self.at
            return turn
        joins = default_joins(kind, current.role if current is not None else None, self.last_kind)
        marks = data_of(pd, self.issuers) if pd is not None else None
        if marks:
            placed = marks.get("turn")
            if placed == "new":
                joins = False
            elif placed == "join":
                joins = True
        self.last_kind = kind
        if joins and current is not None and current.role == role:
            return current
        turn = _Turn(role)
        turn.origin = self.at
        if marks:
            turn.force_list = marks.get("content") == "blocks"
            extra = marks.get("message")
            if isinstance(extra, dict):
                # Keys of a wire message beyond role and content (beta fields), kept from an import.
                turn.message = cast(WireMessage, {**extra, **turn.message})
        return self._open(turn)

    def _system(self, message: SystemMessage, i: int) -> None:
        marks = data_of(message.provider_data, self.issuers)
        # Leading system messages are the system prompt, unless an import recorded that this one
        # was a role "system" entry of messages.
        in_messages = self.turn is not None or bool(marks and marks.get("turn") == "new")
        if in_messages and self.system_in_messages:
            turn = self._turn("system", "system", message.provider_data)
            self._parts(turn, message.parts, i, message.id, system=True)
            return
        if in_messages:
            self._lose(i, -1, "system_message", "rewritten",
                       "system messages mid-conversation are turned off (system_in_messages=False); "
                       "moved to the system prompt", message.id)
        if marks and marks.get("content") == "blocks":
            self.system_force_list = True
        self.system_seen = True
        for j, part in enumerate(message.parts):
            if not isinstance(part, TextPart):
                self._lose(i, j, part.type, "dropped", "Anthropic's system prompt takes text only",
                           message.id)
                continue
            block, plain = self._text(part, i, j, message.id, system=True)
            if not self.system:
                self.system_plain = plain
            self.system.append(block)

    def _system_value(self) -> str | list[WireBlock] | None:
        if not self.system_seen:
            return None
        if len(self.system) == 1 and self.system_plain and not self.system_force_list:
            text: str = self.system[0]["text"]
            return text
        if not self.system and not self.system_force_list:
            return None
        return self.system

    def _parts(self, turn: _Turn, parts: Sequence[Part], i: int, message_id: str,
               system: bool = False) -> None:
        blocks = turn.blocks
        for j, part in enumerate(parts):
            if type(part) is TextPart:
                fields = part.__dict__
                if fields["provider_data"] is None and not fields["citations"]:
                    block: WireBlock = {"type": "text", "text": fields["text"]}
                    plain = True
                else:
                    block, plain = self._text(part, i, j, message_id, system=system)
                if plain and not block["text"]:
                    turn.empty_text(i, j, message_id)
                if not blocks:
                    turn.plain = plain
                blocks.append(block)
                continue
            if system and type(part) is not UnknownPart:
                # An unknown block is echoed as it came (to its issuer only): it may be a system
                # block type this version does not know.
                self._lose(i, j, part.type, "dropped", "Anthropic's system messages take text only",
                           message_id)
                continue
            # The two commonest non-text parts skip the dispatch.
            if type(part) is ToolCallPart:
                wire: WireBlock | None = self._tool_call(part, i, j, message_id)
            elif type(part) is ThinkingPart:
                wire = self._thinking(part, i, j, message_id)
            elif type(part) is RefusalPart:
                # Sent as the plain text block it becomes (so it collapses and drops like one).
                self._lose(i, j, "refusal", "downgraded", "Anthropic has no refusal block; sent as text",
                           message_id)
                if not part.text:
                    turn.empty_text(i, j, message_id)
                if not blocks:
                    turn.plain = True
                blocks.append({"type": "text", "text": part.text})
                continue
            else:
                wire = self._part(part, i, j, message_id)
            if wire is not None:
                if not blocks:
                    turn.plain = False
                blocks.append(wire)

    def _tool_content(self, block: WireBlock, message: ToolMessage, i: int) -> None:
        marks = data_of(message.provider_data, self.issuers) or {}
        attachments: list[WireBlock] = []
        for j, part in enumerate(message.parts):
            wire = self._part(part, i, j, message.id)
            if wire is not None:
                attachments.append(wire)
        text = message.output_text
        if not text and message.data is not None:
            # Nothing else would tell the model what happened: its structured result as JSON.
            text = json.dumps(message.data, ensure_ascii=False)
        content = _tool_content(text, attachments, marks)
        if content is not None:
            block["content"] = content
        extras = marks.get("block")
        if isinstance(extras, dict) and extras:
            # Recorded keys first; the canonical ones written above win.
            merged = {**extras, **block}
            block.clear()
            block.update(merged)


def _tool_content(text: str, attachments: list[WireBlock],
                  marks: Mapping[str, Any]) -> str | list[WireBlock] | None:
    """A tool result's content: default shape, or the one an imported request recorded."""
    shape = marks.get("content")
    if shape == "string" and not attachments:
        return text
    layout = marks.get("layout")
    if shape == "blocks" and isinstance(layout, list):
        rebuilt = _apply_layout(text, attachments, layout)
        if rebuilt is not None:
            return rebuilt
    if not attachments:
        return text or None
    return ([{"type": "text", "text": text}] if text else []) + attachments


def _apply_layout(text: str, attachments: list[WireBlock], layout: list[Any]) -> list[WireBlock] | None:
    """Blocks in the recorded order, or ``None`` when the message changed since it was recorded."""
    lengths = [e if isinstance(e, int) else e.get("n") if isinstance(e, dict) else None
               for e in layout]
    if sum(n for n in lengths if isinstance(n, int)) != len(text) or (
            layout.count(None) != len(attachments)):
        return None
    out: list[WireBlock] = []
    pos = 0
    parts = iter(attachments)
    for entry, n in zip(layout, lengths, strict=True):
        if entry is None:
            out.append(next(parts))
            continue
        if not isinstance(n, int):
            return None
        block: WireBlock = {"type": "text", "text": text[pos:pos + n]}
        pos += n
        if isinstance(entry, dict) and isinstance(entry.get("block"), dict):
            block = {**entry["block"], **block}
        out.append(block)
    return out
