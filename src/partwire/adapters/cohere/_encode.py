"""Canonical -> Cohere v2 wire: a history becomes ``messages`` (and ``documents``), with its losses.

One wire message per canonical message, in order: Cohere takes ``system`` messages anywhere and a
``tool`` message per result, as the canonical history holds them. An assistant message's text
and thinking parts are its ``content``, a text part marked as the tool plan its ``tool_plan``,
its calls ``tool_calls`` and its text parts' citations ``citations``. Marks a request import left
in ``provider_data`` (``content``, ``message``, ``documents``) are read only from accepted
issuers, and say how the imported body wrote what the canonical form says once.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from types import MappingProxyType
from typing import Any, assert_never

from partwire._json import json_text
from partwire.adapters._calls import OrphanCheck, orphan_loss, tool_calls_by_id
from partwire.adapters._losses import LossCollector, tool_status_loss
from partwire.adapters._provenance import data_of
from partwire.adapters.cohere._decode import PLAN_MARK, document_fields
from partwire.adapters.cohere._parts import ForeignThinking, PartEncoder
from partwire.adapters.cohere._wire import ISSUER, WireMessage
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
from partwire.parts import DocumentPart, TextPart, ThinkingPart, ToolCallPart

__all__ = ["Encoder", "tool_text"]

_NO_MARKS: Mapping[str, Any] = MappingProxyType({})  # a message with no marks (read-only)


def tool_text(content: list[Any]) -> str:
    """The output text a tool result's content list stands for: each item's text (a document's
    text, or its data as JSON), one per line."""
    texts: list[str] = []
    for item in content:
        if item.get("type") == "text":
            texts.append(item["text"])
        else:
            texts.append(document_fields(item["document"])[0])
    return "\n".join(texts)


class Encoder(PartEncoder):
    """Projects one history onto ``messages`` and ``documents``; losses go to ``losses``."""

    def __init__(self, history: History, *, issuers: Collection[str], losses: LossCollector,
                 foreign_thinking: ForeignThinking = "thinking") -> None:
        super().__init__(issuers=issuers, losses=losses, foreign_thinking=foreign_thinking)
        self.history = history
        self.orphan = OrphanCheck(history)
        self.calls: dict[str, ToolCallPart] | None = None
        self.messages: list[WireMessage] = []
        # Whether a part with nothing of its own to carry goes out as it is: the calls under
        # Cohere's own ids, reasoning as thinking items (the walk's inline path needs both).
        self.as_is = self.only_own and foreign_thinking == "thinking"

    def run(self) -> tuple[list[WireMessage], list[Any]]:
        """The wire messages of the whole history, and the request's documents."""
        # The hot path of every request: exact types are told by identity (isinstance on a
        # pydantic model costs more than mapping a part), fields are read from __dict__, where
        # pydantic keeps them, and the common messages are written inline: a plain tool result,
        # a one-text user or system message, an assistant message of plain text, unsigned
        # reasoning and calls with Cohere's ids. The assistant's written here, not in a method
        # (whose call and set-up cost more than its parts), took cohere.to_wire.1000 from 1.58x
        # to 1.33x the bench's plain dict walk.
        wire_ids = self.wire_ids
        append = self.messages.append
        as_is = self.as_is
        for i, event in enumerate(self.history):
            kind = type(event)
            if kind is ToolMessage:
                fields = event.__dict__
                wire_id = wire_ids.get(fields["call_id"])
                if wire_id is not None and fields["provider_data"] is None and not fields["parts"] \
                        and fields["status"] == "success" and (fields["output_text"] or fields["data"] is None):
                    append({"role": "tool", "tool_call_id": wire_id, "content": fields["output_text"]})
                else:
                    self.tool(event, i)  # type: ignore[arg-type]
                continue
            if kind is AssistantMessage:
                fields = event.__dict__
                if as_is and fields["provider_data"] is None:
                    parts = fields["parts"]
                    items: list[dict[str, Any]] = []
                    calls: list[dict[str, Any]] = []
                    # Written here when every part goes out as it is; the first that does not
                    # sends the whole message to assistant() (nothing written here is kept but
                    # the calls' ids, which it sets again alike).
                    for part in parts:
                        part_kind = type(part)
                        part_fields = part.__dict__
                        if part_fields["provider_data"] is not None:
                            break
                        if part_kind is ToolCallPart:
                            wire_id = part_fields["provider_ids"].get(ISSUER)
                            if wire_id is None:
                                break
                            wire_ids[part_fields["id"]] = wire_id
                            calls.append({"id": wire_id, "type": "function", "function": {
                                "name": part_fields["name"], "arguments": part_fields["arguments_json"]}})
                        elif part_kind is TextPart and not part_fields["citations"]:
                            items.append({"type": "text", "text": part_fields["text"]})
                        elif part_kind is ThinkingPart and part_fields["signature"] is None \
                                and part_fields["text"]:
                            items.append({"type": "thinking", "thinking": part_fields["text"]})
                        else:
                            break
                    else:
                        if parts:
                            message: dict[str, Any] = {"role": "assistant"}
                            if items:  # a lone text as a string, as _content() gives it
                                first = items[0]
                                message["content"] = first["text"] if len(items) == 1 \
                                    and first["type"] == "text" else items
                            if calls:
                                message["tool_calls"] = calls
                            append(message)  # type: ignore[arg-type]
                            continue
                self.assistant(event, i)  # type: ignore[arg-type]
                continue
            if kind is UserMessage or kind is SystemMessage:
                fields = event.__dict__
                parts = fields["parts"]
                if fields["provider_data"] is None and len(parts) == 1 and type(parts[0]) is TextPart:
                    part = parts[0].__dict__
                    if part["provider_data"] is None and not part["citations"]:
                        append({"role": fields["role"], "content": part["text"]})
                        continue
            match event:
                case ToolMessage():
                    self.tool(event, i)
                case AssistantMessage():
                    self.assistant(event, i)
                case UserMessage():
                    self.plain("user", event, i)
                case SystemMessage():
                    self.plain("system", event, i)
                case DeveloperMessage():
                    self.lose(i, -1, "developer_message", "downgraded",
                              "Cohere has no developer role; sent as a system message", event.id)
                    self.plain("system", event, i)
                case (ErrorEvent() | TaskMetadataEvent() | CompactionEvent() | RetryEvent()
                      | ModelSwitchEvent() | SubtaskEvent() | UnknownEvent()):
                    continue  # records for the application and for replay; never sent
                case _:
                    assert_never(event)
        return self.messages, self.documents

    # -- messages ---------------------------------------------------------------------------

    def _marks(self, event: Any) -> dict[str, Any]:
        pd = event.provider_data
        if pd is None or pd.issuer not in self.issuers or not isinstance(pd.data, dict):
            return {}
        return pd.data

    def _message(self, role: str, marks: Mapping[str, Any]) -> dict[str, Any]:
        extra = marks.get("message")
        return {**extra, "role": role} if isinstance(extra, dict) else {"role": role}

    def _content(self, items: list[dict[str, Any]], marks: Mapping[str, Any]) -> str | list[dict[str, Any]]:
        if len(items) == 1 and items[0].keys() == {"type", "text"} and items[0]["type"] == "text" \
                and marks.get("content") != "blocks":
            text: str = items[0]["text"]
            return text
        return items

    def plain(self, role: str, event: SystemMessage | DeveloperMessage | UserMessage, i: int) -> None:
        """A system, developer or user message: its content items, when any are left."""
        marks = self._marks(event)
        if isinstance(event, UserMessage) and marks.get("documents") is True:
            self._documents(event, i)
            return
        takes = "user" if role == "user" else "system"
        documents = len(self.documents)
        items = [item for j, part in enumerate(event.parts)
                 if (item := self.item(part, takes, i, j, event.id)) is not None]
        if not items and marks.get("content") != "blocks":
            # Every part was dropped (each with its loss) or went to the documents: not sent empty,
            # and dropped itself only when nothing of it went anywhere.
            if len(self.documents) == documents and event.parts:
                self.lose(i, -1, f"{event.role}_message", "dropped",
                          "none of its parts is something Cohere takes here; not sent empty",
                          event.id)
            return
        message = self._message(role, marks)
        message["content"] = self._content(items, marks)
        self.messages.append(message)  # type: ignore[arg-type]

    def _documents(self, event: UserMessage, i: int) -> None:
        """The request's own documents, read into a marked user message: back to ``documents``."""
        for j, part in enumerate(event.parts):
            document = self.document(part, i, j, event.id) if isinstance(part, DocumentPart) else None
            if document is not None:
                self.documents.append(document)
            elif part.type != "document":
                self.item(part, "user", i, j, event.id)  # not a document: reported as usual

    def assistant(self, event: AssistantMessage, i: int) -> None:
        """An assistant message: content, tool plan, tool calls and citations."""
        parts = event.parts
        if not parts and event.status in ("aborted", "error"):
            self.lose(i, -1, "assistant_message", "dropped",
                      f"an {event.status} message with no content; Cohere rejects an empty "
                      "assistant message", event.id)
            return
        marks = self._marks(event) if event.__dict__["provider_data"] is not None else _NO_MARKS
        items: list[dict[str, Any]] = []
        plan: str | None = None
        calls: list[dict[str, Any]] = []
        citations: list[dict[str, Any]] = []
        thinks = self.foreign_thinking == "thinking"
        only_own = self.only_own
        for j, part in enumerate(parts):
            # The common parts, with nothing of their own to carry, are written inline.
            kind = type(part)
            fields = part.__dict__
            if fields["provider_data"] is None:
                if kind is TextPart and not fields["citations"]:
                    items.append({"type": "text", "text": fields["text"]})
                    continue
                if kind is ToolCallPart:
                    wire_id = fields["provider_ids"].get(ISSUER) if only_own else None
                    if wire_id is None:
                        wire_id = self.call_id(fields["provider_ids"], fields["id"], i, j, event.id)
                    else:
                        self.wire_ids[fields["id"]] = wire_id
                    calls.append({"id": wire_id, "type": "function", "function": {
                        "name": fields["name"], "arguments": fields["arguments_json"]}})
                    continue
                if kind is ThinkingPart and thinks and fields["signature"] is None and fields["text"]:
                    items.append({"type": "thinking", "thinking": fields["text"]})
                    continue
            if fields["type"] == "tool_call":  # by its tag: a class derived from ToolCallPart too
                calls.append(self._call(part, i, j, event.id))  # type: ignore[arg-type]
                continue
            if type(part) is TextPart and part.provider_data is not None and plan is None \
                    and data_of(part.provider_data, self.issuers) == PLAN_MARK:
                plan = part.text
                if part.citations:
                    citations += self.citations(part, i, j, event.id, None)
                continue
            item = self.item(part, "assistant", i, j, event.id)
            if item is not None:
                if type(part) is TextPart and part.citations:
                    citations += self.citations(part, i, j, event.id, len(items))
                items.append(item)
        if marks is _NO_MARKS:  # the common message: nothing an import recorded
            message: dict[str, Any] = {"role": "assistant"}
            if items:
                first = items[0]
                message["content"] = first["text"] if len(items) == 1 and len(first) == 2 \
                    and first["type"] == "text" else items
            if plan is not None:
                message["tool_plan"] = plan
            if calls:
                message["tool_calls"] = calls
            if citations:
                message["citations"] = citations
            self.messages.append(message)  # type: ignore[arg-type]
            return
        message = self._message("assistant", marks)
        if items:
            message["content"] = self._content(items, marks)
        elif "content" in marks and marks["content"] is None:
            message["content"] = None
        elif marks.get("content") == "blocks":
            message["content"] = []
        if plan is not None:
            message["tool_plan"] = plan
        if calls:
            message["tool_calls"] = calls
        kept = marks.get("wire_citations")
        if isinstance(kept, list):
            message["citations"] = kept
        else:
            unattached = marks.get("citations")
            if isinstance(unattached, list):
                citations += unattached
            if citations:
                message["citations"] = citations
        self.messages.append(message)  # type: ignore[arg-type]

    def _call(self, part: ToolCallPart, i: int, j: int, message_id: str) -> dict[str, Any]:
        marks = self.marks(part, i, j, message_id)
        wire_id = self.call_id(part.provider_ids, part.id, i, j, message_id)
        function: dict[str, Any] = {"name": part.name}
        if "arguments" in marks:
            kept = marks["arguments"]
            if kept is not None:
                function["arguments"] = kept
        else:
            function["arguments"] = part.arguments_json
        inner = marks.get("function")
        if isinstance(inner, dict):
            function.update(inner)
        call: dict[str, Any] = {"id": wire_id, "type": "function", "function": function}
        extras = marks.get("call")
        if isinstance(extras, dict):
            call.update(extras)
            if call.get("type", ...) is None:
                del call["type"]
        return call

    def tool(self, event: ToolMessage, i: int) -> None:
        """A tool result: ``tool_call_id`` and its content (text, or text and documents)."""
        wire_id = self.wire_ids.get(event.call_id)
        if wire_id is None:
            if self.orphan(event.call_id):
                orphan_loss(self.losses, i, event.call_id, event.id, "Cohere")
                return
            if self.calls is None:
                self.calls = tool_calls_by_id(self.history)
            call = self.calls[event.call_id]
            wire_id = self.call_id(call.provider_ids, call.id, i, -1, event.id)
        tool_status_loss(self.losses, f"history[{i}]", event.status, event.id, api="Cohere",
                         as_error=False)
        marks = self._marks(event)
        message = self._message("tool", marks)
        message["tool_call_id"] = wire_id
        kept = marks.get("content")
        # A result's structured data is its output when it has no text (the one place it can go).
        text = event.output_text or (json_text(event.data) if event.data is not None else "")
        if isinstance(kept, list) and not event.parts and _tool_gives(kept, event.output_text):
            message["content"] = kept
        else:
            items: list[dict[str, Any]] = []
            for j, part in enumerate(event.parts):
                item = self.item(part, "tool", i, j, event.id)
                if item is not None:
                    items.append(item)
            if items:
                message["content"] = ([{"type": "text", "text": text}] if text else []) + items
            else:
                message["content"] = text
        self.messages.append(message)  # type: ignore[arg-type]


def _tool_gives(content: list[Any], text: str) -> bool:
    try:
        return tool_text(content) == text
    except (KeyError, TypeError, AttributeError):
        return False

