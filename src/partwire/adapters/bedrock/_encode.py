"""Canonical history -> Converse ``system`` and ``messages``.

Roles: system messages before the first turn are the ``system`` list; a later one is moved
there (``rewritten``) unless an import recorded it as a ``system`` entry of ``messages``.
Consecutive tool results share one user turn (one ``toolResult`` block each); developer
messages join the user turn before them. A cache point recorded on a part becomes a
``cachePoint`` block after it, except where Converse refuses one: right after a reasoning block,
and inside a tool result (whose content union has no such member).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, cast

from partwire.adapters._losses import LossCollector, tool_status_loss
from partwire.adapters._provenance import data_of
from partwire.adapters._turns import Turn, TurnWalk
from partwire.adapters.bedrock._parts import FileResolver, ForeignThinking, PartEncoder
from partwire.adapters.bedrock._wire import Blobs, WireBlock, WireMessage
from partwire.history import (
    History,
)
from partwire.messages import (
    SystemMessage,
    ToolMessage,
)
from partwire.parts import Part, TextPart, ThinkingPart, ToolCallPart, UnknownPart

__all__ = ["Encoder", "tool_result_content"]

_NO_MARKS: Mapping[str, Any] = {}
# The members of Converse's ToolResultContentBlock union (botocore's service model): any other
# block a part maps to cannot go inside a tool result.
TOOL_RESULT_MEMBERS = frozenset({"json", "text", "image", "document", "video", "searchResult"})


class Encoder(TurnWalk, PartEncoder):
    """Projects one history; ``run`` gives ``system`` (or ``None``) and ``messages``."""

    NAME = "Bedrock"
    EMPTY_ASSISTANT = "Converse refuses empty messages"

    def __init__(self, history: History, *, issuers: Collection[str], losses: LossCollector,
                 foreign_thinking: ForeignThinking = "drop", resolve_file: FileResolver | None = None,
                 blobs: Blobs = "bytes") -> None:
        super().__init__(issuers=issuers, losses=losses, foreign_thinking=foreign_thinking,
                         resolve_file=resolve_file, blobs=blobs)
        self.start(history)
        self.system: list[WireBlock] = []
        self.system_seen = False
        self.turns: list[Turn] = []

    def run(self) -> tuple[list[WireBlock] | None, list[WireMessage]]:
        self.walk()
        messages: list[WireMessage] = []
        for turn in self.turns:
            if not turn.blocks:
                # Converse refuses a message without content: it goes, and says so.
                i = turn.origin
                self.losses.add(f"history[{i}]", f"{getattr(self.history[i], 'role', turn.role)}_message", "dropped",
                                "nothing of it can be sent, and Converse refuses an empty message",
                                self.history[i].id)
                continue
            messages.append(cast(WireMessage, turn.message))
        return (self.system if self.system_seen and self.system else None), messages

    def push(self, turn: Turn) -> None:
        self.turns.append(turn)

    def system_message(self, message: SystemMessage, i: int) -> None:
        marks = data_of(message.provider_data, self.issuers)
        if marks and marks.get("turn") == "new":
            # A role "system" entry of messages, as an imported request had it.
            self.parts(self.turn("system", "system", message.provider_data), message.parts,
                       i, message.id, system=True)
            return
        if self.current is not None:
            self.lose(i, -1, "system_message", "rewritten",
                      "Converse takes system text in its system list; a system message "
                      "mid-conversation is moved there", message.id)
        self.system_seen = True
        for j, part in enumerate(message.parts):
            pd_marks = self.marks(part.provider_data, i, j, part.type, message.id)
            if not isinstance(part, TextPart | UnknownPart):
                self.lose(i, j, part.type, "dropped", "Converse's system list takes text only",
                          message.id)
                continue
            if isinstance(part, TextPart) and (part.citations or "citations_content" in pd_marks):
                self.lose(i, j, "text", "dropped", "Converse's system list takes no citations; the "
                          "text is sent", message.id, ".citations")
                pd_marks = {k: v for k, v in pd_marks.items() if k != "citations_content"}
                part = part.model_copy(update={"citations": ()})
            block = self.part(part, i, j, message.id, pd_marks)
            if block is not None:
                self.system.append(block)
                self._cache_point(self.system, block, pd_marks, i, j, message.id)

    def parts(self, turn: Turn, parts: Sequence[Part], i: int, message_id: str,
              system: bool = False) -> None:
        blocks = turn.blocks
        for j, part in enumerate(parts):
            kind = type(part)
            fields = part.__dict__
            if fields["provider_data"] is None and not system:
                # Parts without echo marks, the commonest, skip the marks and the dispatch.
                if kind is TextPart and not fields["citations"]:
                    if fields["text"]:
                        blocks.append({"text": fields["text"]})
                    else:
                        self.lose(i, j, "text", "dropped", "Converse refuses blank text blocks",
                                  message_id)
                    continue
                if kind is ToolCallPart:
                    blocks.append(self.tool_call(part, i, j, message_id, _NO_MARKS))  # type: ignore[arg-type]
                    continue
                if kind is ThinkingPart:
                    block = self.thinking(part, i, j, message_id, _NO_MARKS)  # type: ignore[arg-type]
                    if block is not None:
                        blocks.append(block)
                    continue
            marks = self.marks(part.provider_data, i, j, part.type, message_id)
            if system and not isinstance(part, TextPart | UnknownPart):
                self.lose(i, j, part.type, "dropped", "Converse's system messages take text only",
                          message_id)
                continue
            block = self.part(part, i, j, message_id, marks)
            if block is not None:
                blocks.append(block)
                if marks:
                    self._cache_point(blocks, block, marks, i, j, message_id)

    def _cache_point(self, blocks: list[WireBlock], block: WireBlock, marks: Mapping[str, Any],
                     i: int, j: int, message_id: str) -> None:
        point = marks.get("cache_point")
        if not isinstance(point, dict):
            return
        if "reasoningContent" in block:
            self.lose(i, j, "thinking", "dropped", "Converse refuses a cache point right after a "
                      "reasoning block; the cache point is not sent", message_id, ".cache_point")
            return
        blocks.append({"cachePoint": point})

    # -- tool results -----------------------------------------------------------------------

    def tool_message(self, message: ToolMessage, i: int) -> None:
        fields = message.__dict__
        call_id = fields["call_id"]
        if call_id not in self.wire_ids and self.orphaned(call_id, i, message.id):
            return
        pd = fields["provider_data"]
        turn = self.turn("tool", "user", pd)
        if pd is None and not fields["parts"] and fields["status"] == "success":
            text = fields["output_text"]
            content = [{"text": text}] if text else tool_result_content(text, fields["data"], [])
            turn.blocks.append({"toolResult": {"toolUseId": self.wire_ids.get(call_id, call_id),
                                               "content": content}})
            return
        marks = data_of(pd, self.issuers) or {}
        attachments: list[WireBlock] = []
        for j, part in enumerate(message.parts):
            part_marks = self.marks(part.provider_data, i, j, part.type, message.id)
            block = self.part(part, i, j, message.id, part_marks)
            if block is None:
                continue
            kind = next(iter(block))
            if kind not in TOOL_RESULT_MEMBERS:
                self.lose(i, j, part.type, "dropped", f"a Converse tool result takes no {kind} "
                          f"block (only {', '.join(sorted(TOOL_RESULT_MEMBERS))})", message.id)
                continue
            if "cache_point" in part_marks:
                self.lose(i, j, part.type, "dropped", "Converse refuses a cache point inside a "
                          "tool result; the cache point is not sent", message.id, ".cache_point")
            attachments.append(block)
        member: dict[str, Any] = {"toolUseId": self.wire_ids.get(call_id, call_id),
                                  "content": tool_result_content(message.output_text, message.data,
                                                                 attachments, marks.get("layout"))}
        status = message.status
        if status != "success":
            member["status"] = "error"
            tool_status_loss(self.losses, f"history[{i}]", status, message.id, api="Converse",
                             as_error=True)
        extras = marks.get("block")
        if isinstance(extras, dict) and extras:
            member = {**extras, **member}
        turn.blocks.append({"toolResult": member})
        point = marks.get("cache_point")
        if isinstance(point, dict):
            turn.blocks.append({"cachePoint": point})


def tool_result_content(text: str, data: Any, attachments: list[WireBlock],
                        layout: Any = None) -> list[WireBlock]:
    """A tool result's content: its text (else its structured data as a ``json`` block), then its
    attachments; or the order an imported request recorded (``layout``: ``n`` for a text block of
    ``n`` characters, ``"json"``, ``None`` for the next attachment)."""
    if isinstance(layout, list):
        rebuilt = _apply_layout(text, data, attachments, layout)
        if rebuilt is not None:
            return rebuilt
    out: list[WireBlock] = []
    if text:
        out.append({"text": text})
    elif data is not None:
        out.append({"json": data})
    return out + attachments


def _apply_layout(text: str, data: Any, attachments: list[WireBlock],
                  layout: list[Any]) -> list[WireBlock] | None:
    """Blocks in the recorded order, or ``None`` when the message changed since it was recorded."""
    lengths = [e for e in layout if isinstance(e, int) and not isinstance(e, bool)]
    if sum(lengths) != len(text) or layout.count(None) != len(attachments) or (
            ("json" in layout) != (data is not None)):
        return None
    out: list[WireBlock] = []
    pos = 0
    rest = iter(attachments)
    for entry in layout:
        if entry is None:
            out.append(next(rest))
        elif entry == "json":
            out.append({"json": data})
        elif isinstance(entry, int):
            out.append({"text": text[pos:pos + entry]})
            pos += entry
        else:
            return None
    return out
