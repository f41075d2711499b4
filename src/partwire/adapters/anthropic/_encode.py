"""Canonical -> Anthropic wire: a history becomes ``system`` + ``messages``, with its losses.

The walk keeps the turn state :func:`default_joins` describes: tool results share one user turn,
user text right after them joins it, developer messages join the user or tool turn before them.
Markers a request import left in ``provider_data`` (``turn``, ``content``, ``layout``, ``block``)
are read only from accepted issuers. Parts become blocks in ``_parts``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from partwire.adapters._losses import LossCollector, tool_status_loss
from partwire.adapters._provenance import data_of
from partwire.adapters._turns import Role, Turn, TurnWalk, path
from partwire.adapters.anthropic._parts import FileResolver, ForeignThinking, PartEncoder
from partwire.adapters.anthropic._wire import WireBlock, WireMessage
from partwire.history import History
from partwire.messages import SystemMessage, ToolMessage
from partwire.parts import Part, RefusalPart, TextPart, ThinkingPart, ToolCallPart, UnknownPart

__all__ = ["Encoder", "FileResolver", "ForeignThinking"]


class _Turn(Turn):
    """One wire message being built, with what decides whether its content collapses to a string."""

    __slots__ = ("empties", "force_list", "plain")

    def __init__(self, role: Role, origin: int) -> None:
        # Turn's fields set here rather than by super().__init__: one call less a turn.
        self.role = role
        self.origin = origin
        self.blocks: list[Any] = []
        self.message: dict[str, Any] = {"role": role, "content": self.blocks}
        self.plain = False  # its first block is a plain text block (a lone one collapses to a string)
        self.force_list = False
        self.empties: list[tuple[int, int, int, str, str]] | None = None  # (block, i, j, message id, part type)

    def empty_text(self, i: int, j: int, message_id: str, part_type: str = "text") -> None:
        """Note an empty text block (of a text part, or a refusal sent as text): dropped unless
        the turn collapses to a string."""
        if self.empties is None:
            self.empties = []
        self.empties.append((len(self.blocks), i, j, message_id, part_type))

    def content(self, losses: LossCollector) -> str | list[WireBlock]:
        blocks = self.blocks
        if len(blocks) == 1 and self.plain and not self.force_list:
            text: str = blocks[0]["text"]
            return text
        if self.empties is None:
            return blocks
        # The API rejects empty text blocks ("text content blocks must be non-empty").
        drop = {k for k, _, _, _, _ in self.empties}
        for _, i, j, message_id, part_type in self.empties:
            losses.add(path(i, j), part_type, "dropped", "Anthropic rejects empty text blocks",
                       message_id)
        return [b for k, b in enumerate(blocks) if k not in drop]


class Encoder(TurnWalk, PartEncoder):
    """Projects one history; ``run`` gives ``system`` and ``messages``."""

    NAME = "Anthropic"
    EMPTY_ASSISTANT = "the API rejects empty assistant turns"
    turn_class = _Turn

    def __init__(self, history: History, *, issuers: Collection[str], losses: LossCollector,
                 foreign_thinking: ForeignThinking = "drop", system_in_messages: bool = True,
                 resolve_file: FileResolver | None = None,
                 defined: Collection[Any] | None = None) -> None:
        super().__init__(issuers=issuers, losses=losses, foreign_thinking=foreign_thinking,
                         resolve_file=resolve_file)
        self.start(history)
        self.defined = defined
        self.system_in_messages = system_in_messages
        self.system: list[WireBlock] = []
        self.system_plain = False
        self.system_seen = False
        self.system_force_list = False
        # Only the open turn is ever written: each earlier one is closed into ``messages`` when
        # the next opens, while it is still in the processor's cache (a second walk over every
        # turn at the end cost 1.5x more per event at 100,000 events than at 1,000).
        self.messages: list[WireMessage] = []

    # -- the walk ---------------------------------------------------------------------------

    def run(self) -> tuple[str | list[WireBlock] | None, list[WireMessage]]:
        self.walk()
        if self.current is not None:
            self._close(self.current, last=True)  # type: ignore[arg-type]  # a _Turn
        return self._system_value(), self.messages

    def push(self, turn: Turn) -> None:
        # Every turn of this encoder is a _Turn (turn_class); typing.cast would cost a call.
        before: _Turn | None = self.current  # type: ignore[assignment]
        if before is not None:
            if before.empties is None and not before.plain and before.blocks:
                self.messages.append(before.message)  # type: ignore[arg-type]  # its blocks are its content already
            else:
                self._close(before, last=False)

    def marked(self, turn: Turn, marks: Mapping[str, Any]) -> None:
        turn.force_list = marks.get("content") == "blocks"  # type: ignore[attr-defined]

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
        self.messages.append(turn.message)  # type: ignore[arg-type]

    def tool_message(self, message: ToolMessage, i: int) -> None:
        fields = message.__dict__
        call_id = fields["call_id"]
        if call_id not in self.wire_ids and self.orphaned(call_id, i, message.id):
            return
        pd = fields["provider_data"]
        turn = self.turn("tool", "user", pd)
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

    def system_message(self, message: SystemMessage, i: int) -> None:
        marks = data_of(message.provider_data, self.issuers)
        # Leading system messages are the system prompt, unless an import recorded that this one
        # was a role "system" entry of messages.
        in_messages = self.current is not None or bool(marks and marks.get("turn") == "new")
        if in_messages and self.system_in_messages:
            turn = self.turn("system", "system", message.provider_data)
            self.parts(turn, message.parts, i, message.id, system=True)  # type: ignore[arg-type]
            return
        if in_messages:
            self.lose(i, -1, "system_message", "rewritten",
                      "system messages mid-conversation are turned off (system_in_messages=False); "
                      "moved to the system prompt", message.id)
        if marks and marks.get("content") == "blocks":
            self.system_force_list = True
        self.system_seen = True
        for j, part in enumerate(message.parts):
            if not isinstance(part, TextPart):
                self.lose(i, j, part.type, "dropped", "Anthropic's system prompt takes text only",
                          message.id)
                continue
            block, plain = self.text(part, i, j, message.id, system=True)
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

    def parts(self, turn: _Turn, parts: Sequence[Part], i: int,  # type: ignore[override]
              message_id: str, system: bool = False) -> None:
        blocks = turn.blocks
        for j, part in enumerate(parts):
            if type(part) is TextPart:
                fields = part.__dict__
                if fields["provider_data"] is None and not fields["citations"]:
                    block: WireBlock = {"type": "text", "text": fields["text"]}
                    plain = True
                else:
                    block, plain = self.text(part, i, j, message_id, system=system)
                if plain and not block["text"]:
                    turn.empty_text(i, j, message_id)
                if not blocks:
                    turn.plain = plain
                blocks.append(block)
                continue
            if system and type(part) is not UnknownPart:
                # An unknown block is echoed as it came (to its issuer only): it may be a system
                # block type this version does not know.
                self.lose(i, j, part.type, "dropped", "Anthropic's system messages take text only",
                          message_id)
                continue
            # The two commonest non-text parts skip the dispatch.
            if type(part) is ToolCallPart:
                wire: WireBlock | None = self.tool_call(part, i, j, message_id)
            elif type(part) is ThinkingPart:
                wire = self.thinking(part, i, j, message_id)
            elif type(part) is RefusalPart:
                # Sent as the plain text block it becomes (so it collapses and drops like one).
                self.lose(i, j, "refusal", "downgraded", "Anthropic has no refusal block; sent as text",
                          message_id)
                if not part.text:
                    turn.empty_text(i, j, message_id, "refusal")
                if not blocks:
                    turn.plain = True
                blocks.append({"type": "text", "text": part.text})
                continue
            else:
                wire = self.part(part, i, j, message_id)
            if wire is not None:
                if not blocks:
                    turn.plain = False
                blocks.append(wire)

    def _tool_content(self, block: WireBlock, message: ToolMessage, i: int) -> None:
        marks = data_of(message.provider_data, self.issuers) or {}
        attachments: list[WireBlock] = []
        for j, part in enumerate(message.parts):
            wire = self.part(part, i, j, message.id)
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
