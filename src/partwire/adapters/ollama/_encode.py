"""Canonical history -> Ollama ``messages``: one wire message per canonical message.

System messages stay where they were said (Ollama's templates take them anywhere); a developer
message, which Ollama has no role for, goes as a system message, or a user one
(``Options.developer_role``), reported ``downgraded``. A tool result is a ``tool`` message naming
its tool in ``tool_name``: Ollama's calls carry no id, so the model pairs a result with a call by
order and name. Where a history's results would be paired with the wrong calls that way (two
calls of one tool, answered out of order), each result that would be misread is an ``id_mapped``
loss; it is sent as it is, in its place. A result whose call the history lacks is left out with
a loss (the model would read it as another call's), unless it was read so from an Ollama body.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, assert_never

from partwire._json import json_text
from partwire.adapters._calls import OrphanCheck, orphan_loss
from partwire.adapters._losses import LossCollector, tool_status_loss
from partwire.adapters._provenance import data_of
from partwire.adapters.ollama._parts import PartEncoder
from partwire.adapters.ollama._wire import WireMessage
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
from partwire.parts import TextPart

__all__ = ["Encoder"]


class Encoder(PartEncoder):
    """Encodes one history for one request."""

    def __init__(self, history: History, *, issuers: Collection[str], losses: LossCollector,
                 developer_role: str = "system") -> None:
        super().__init__(issuers=issuers, losses=losses)
        self.history = history
        self.orphan = OrphanCheck(history)
        self.developer_role = developer_role
        self.messages: list[WireMessage] = []
        # The calls of the latest assistant message not answered yet, in order, as (id, name):
        # what the model pairs the next results with.
        self.open_calls: list[tuple[str, str]] = []
        self.names: dict[str, str] = {}  # every call sent so far: canonical id -> name

    def run(self) -> list[WireMessage]:
        """The ``messages`` list."""
        tool, assistant, event_ = self.tool, self.assistant, self.event
        for i, event in enumerate(self.history):
            # The commonest classes by identity first: a missed class pattern in ``event`` goes
            # through ABCMeta and costs more than encoding a whole part.
            kind = type(event)
            if kind is ToolMessage:
                tool(event, i)  # type: ignore[arg-type]
            elif kind is AssistantMessage:
                assistant(event, i)  # type: ignore[arg-type]
            else:
                event_(event, i)
        return self.messages

    def event(self, event: Any, i: int) -> None:
        """Encode ``history[i]``."""
        match event:
            case UserMessage():
                self.plain(event, "user", i)
            case AssistantMessage():
                self.assistant(event, i)
            case ToolMessage():
                self.tool(event, i)
            case SystemMessage():
                self.plain(event, "system", i)
            case DeveloperMessage():
                self.lose(i, -1, "developer_message", "downgraded",
                          f"Ollama has no developer role; sent as a {self.developer_role} message",
                          event.id)
                self.plain(event, self.developer_role, i)
            case (ErrorEvent() | TaskMetadataEvent() | CompactionEvent() | RetryEvent()
                  | ModelSwitchEvent() | SubtaskEvent() | UnknownEvent()):
                pass  # records for the application and for replay; never sent
            case _:
                assert_never(event)

    def start(self, role: str, pd: Any) -> tuple[dict[str, Any], Mapping[str, Any] | None]:
        """A new wire message, with the keys an imported one had beyond partwire's fields."""
        marks = data_of(pd, self.issuers) if pd is not None else None
        out: dict[str, Any] = {"role": role}
        if marks:
            extra = marks.get("message")
            if isinstance(extra, Mapping):
                out.update(extra)
        return out, marks

    def finish(self, out: dict[str, Any], marks: Mapping[str, Any] | None) -> None:
        """Keep ``out``, shaped as the imported message was (its content left out)."""
        if marks and marks.get("content") == "absent" and out.get("content") == "":
            del out["content"]
        self.messages.append(out)  # type: ignore[arg-type]

    def plain(self, message: UserMessage | SystemMessage | DeveloperMessage, role: str, i: int) -> None:
        """A user, system or developer message."""
        fields = message.__dict__
        if fields["provider_data"] is None:
            parts = fields["parts"]
            if len(parts) == 1:
                part = parts[0].__dict__
                if type(parts[0]) is TextPart and part["provider_data"] is None and not part["citations"]:
                    # The commonest message of all: one plain text.
                    self.messages.append({"role": role, "content": part["text"]})  # type: ignore[typeddict-item]
                    return
            out: dict[str, Any] = {"role": role}
            self.fields(out, parts, i, fields["id"], calls=False)
            if not self.emptied(out, message, i):
                self.messages.append(out)  # type: ignore[arg-type]
            return
        out, marks = self.start(role, message.provider_data)
        self.fields(out, message.parts, i, message.id, calls=False)
        if not self.emptied(out, message, i):
            self.finish(out, marks)

    def emptied(self, out: dict[str, Any], message: UserMessage | SystemMessage | DeveloperMessage,
                i: int) -> bool:
        """Whether every part of ``message`` was dropped (each with its loss), leaving nothing to
        send: the message is left out, named by a loss of its own, rather than sent empty."""
        if out.get("content") or out.get("images") or not message.parts or any(
                isinstance(p, TextPart) and not p.text for p in message.parts):
            return False
        self.lose(i, -1, f"{message.role}_message", "dropped",
                  "none of its parts can be sent to Ollama, and an empty message says nothing",
                  message.id)
        return True

    def assistant(self, message: AssistantMessage, i: int) -> None:
        """An assistant message; its calls become the ones the next results answer."""
        if not message.parts and message.status in ("aborted", "error"):
            self.lose(i, -1, "assistant_message", "dropped",
                      f"an {message.status} message with no content; Ollama takes no empty turn",
                      message.id)
            return
        pd = message.provider_data
        marks: Mapping[str, Any] | None = None
        if pd is None:
            out: dict[str, Any] = {"role": "assistant"}
        else:
            out, marks = self.start("assistant", pd)
        self.fields(out, message.parts, i, message.id, calls=True)
        if "tool_calls" in out:
            # By the part's tag, which a class derived from ToolCallPart keeps (as cheap as the
            # exact class, where isinstance would go through ABCMeta for every other part).
            calls = [(p.id, p.name) for p in message.parts if p.type == "tool_call"]
            self.open_calls = calls
            self.names.update(calls)
        self.finish(out, marks)

    def tool(self, message: ToolMessage, i: int) -> None:
        """A tool result: ``role: tool``, its output as ``content``, its tool as ``tool_name``."""
        fields = message.__dict__
        call_id = fields["call_id"]
        name = self.names.get(call_id)
        if name is None and self.orphan(call_id) and not self.unpaired(fields["provider_data"]):
            # A result of no call of the history: the model would read it as another call's.
            orphan_loss(self.losses, i, call_id, fields["id"], "Ollama")
            return
        text = fields["output_text"]
        if fields["provider_data"] is None and not fields["parts"] and text \
                and fields["status"] == "success":
            # The common result: its text under its tool's name, answering the next open call.
            named = fields["tool_name"] or name
            open_calls = self.open_calls
            if named and open_calls and open_calls[0] == (call_id, named):
                del open_calls[0]
            else:
                self.pair(call_id, named or None, i, fields["id"])
            self.messages.append({"role": "tool", "content": text, "tool_name": named}
                                 if named else {"role": "tool", "content": text})
            return
        out, marks = self.start("tool", message.provider_data)
        tool_status_loss(self.losses, f"history[{i}]", message.status, message.id, api="Ollama",
                         as_error=False)
        self.fields(out, message.parts, i, message.id, calls=False)
        text = message.output_text
        if not text and message.data is not None:
            # Nothing else would tell the model what happened: its structured result as JSON.
            text = json_text(message.data)
        out["content"] = text
        named = message.tool_name or name or ""
        if not (marks and marks.get("tool_name") == "absent") and named:
            out["tool_name"] = named
        self.pair(call_id, out.get("tool_name"), i, message.id)
        self.finish(out, marks)

    def unpaired(self, pd: Any) -> bool:
        """Whether a result was read from a body that held it without its call (it goes back so)."""
        marks = data_of(pd, self.issuers) if pd is not None else None
        return bool(marks and marks.get("unpaired"))

    def pair(self, call_id: str, name: str | None, i: int, message_id: str) -> None:
        """Check that the model pairs this result with its own call (the first open call of its
        tool's name, or the first open call when no name is sent); an ``id_mapped`` loss if not."""
        open_calls = self.open_calls
        taken = next((k for k, (_, n) in enumerate(open_calls) if name is None or n == name), None)
        if taken is None:
            return  # a result of an earlier turn's call, or of one answered already
        paired = open_calls.pop(taken)[0]
        if paired != call_id:
            self.lose(i, -1, "tool_message", "id_mapped",
                      f"Ollama pairs results with calls by order and tool name, and this result of "
                      f"{name or 'a tool'} (for call {call_id}) comes before the result of the "
                      f"earlier call {paired}: Ollama will read it as that call's result",
                      message_id)
