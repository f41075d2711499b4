"""Canonical -> Responses wire: a history becomes ``instructions`` and ``input`` items, with losses.

Leading system messages become ``instructions``; later ones, and developer and user messages,
become message items (the developer role is native). An assistant message becomes its output
items again, in part order: reasoning, ``message`` items (parts that came from one item share
its id and go back as that one item), ``function_call`` / ``custom_tool_call``, and the
provider-run items kept whole. Each tool message becomes one ``function_call_output`` (or
``custom_tool_call_output``). Echo state is read only from accepted issuers: reasoning goes back
only to its issuer, item ids only to the API that issued them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from typing import Any, assert_never

from partwire._memo import memo
from partwire.adapters._calls import OrphanCheck, orphan_loss, tool_calls_by_id
from partwire.adapters._losses import KNOWN_LIMIT, LossCollector, known_loss, tool_status_loss
from partwire.adapters._losses import new_loss as _new_loss
from partwire.adapters._provenance import data_of, first_accepted
from partwire.adapters.openai_responses._decode import summary_to_wire
from partwire.adapters.openai_responses._parts import FileResolver, PartEncoder, citations_to_wire
from partwire.adapters.openai_responses._wire import (
    API,
    CALL_ID_MAX,
    IMAGE_MEDIA_TYPES,
    ISSUER,
    WireItem,
    admits_call_id,
    data_url,
    item_in_order,
)
from partwire.history import NON_MESSAGE_CLASSES, History, HistoryEvent, NonMessageEvent
from partwire.messages import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from partwire.parts import (
    AudioPart,
    Base64Source,
    DocumentPart,
    ImagePart,
    Part,
    RedactedThinkingPart,
    RefusalPart,
    ServerToolCallPart,
    ServerToolResultPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    UnknownPart,
)
from partwire.projection import Loss

__all__ = ["Encoder", "leading_system"]


def leading_system(history: History) -> int:
    """How many events at the head of ``history`` are system messages (the instructions)."""
    n = 0
    for event in history:
        if type(event) is not SystemMessage:
            break
        n += 1
    return n


# The default issuers and their order, made once (to_wire passes this very set).
_OWN_ISSUERS = frozenset({ISSUER})
_OWN_ORDER = [ISSUER]
# The canonical part classes that are neither a text nor a refusal: an assistant part of one of
# these exact classes is sent as its own item without an isinstance() check.
_OTHER_PARTS = frozenset({AudioPart, DocumentPart, ImagePart, RedactedThinkingPart, ServerToolCallPart,
                          ServerToolResultPart, ThinkingPart, ToolCallPart, UnknownPart})


class Encoder(PartEncoder):
    """Projects one history onto ``instructions`` and ``input``; losses go to ``losses``."""

    def __init__(self, history: History, *, issuers: Collection[str], losses: LossCollector,
                 resolve_file: FileResolver | None = None) -> None:
        super().__init__(issuers=issuers, losses=losses, resolve_file=resolve_file)
        self.history = history
        own = ISSUER
        self.issuer_order = _OWN_ORDER if self.issuers == _OWN_ISSUERS else (
            ([own] if own in self.issuers else []) + sorted(self.issuers - {own}))
        self.own_only = self.issuer_order == _OWN_ORDER
        self.wire_ids: dict[str, str] = {}  # canonical call id -> the call_id sent for it
        self.custom: set[str] = set()  # canonical ids of custom tool calls
        self.calls: dict[str, ToolCallPart] | None = None
        self.orphan: Callable[[str], bool] = OrphanCheck(history)
        self.items: list[WireItem] = []
        # item_reference items, in order: only the general path can send one (kept raw items).
        self.references: list[WireItem] = []
        self._id_reasons: dict[str, str] = {}

    # -- the walk ---------------------------------------------------------------------------

    def head(self) -> int:
        """1 when the history opens with a system message that becomes ``instructions``, else 0.

        ``instructions`` is one text, so it takes a first system message of one plain text part
        (what an imported ``instructions`` gives). Any other system message is an item of the
        system role, in place, with its parts as they are: nothing is joined or dropped.
        """
        history = self.history
        if not history or type(history[0]) is not SystemMessage:
            return 0
        event = history[0]
        parts = event.parts
        if self.marks(event.provider_data).get("form") == "item" or len(parts) != 1:
            return 0
        part = parts[0]
        return 1 if type(part) is TextPart and part.provider_data is None and not part.citations else 0

    def instructions(self) -> str | None:
        """The ``instructions`` text, when the history opens with one (see :meth:`head`)."""
        if not self.head():
            return None
        text: str = self.history[0].parts[0].text  # type: ignore[union-attr]
        return text

    def run(self, start: int = 0) -> list[WireItem]:
        """The input items of the history from event ``start`` on (earlier calls still count);
        the caller starts after the system message it sends as :meth:`instructions`.

        The hot loop of every request, with the common events encoded inline: a plain tool
        result (most of an agent's history), a one-text user message, and an answer whose parts
        are all as the decoder gives OpenAI's own output items (each earlier answer of a
        stateless session is echoed whole). Fields are read from ``__dict__``, where pydantic
        keeps them, and each item is built in the API's key order. Anything else, and an answer
        with any other part (what its inline encoding appended is taken back), goes to
        :meth:`event`, the general path, which reports losses.
        """
        history = self.history
        for event in history[:start]:
            if type(event) is AssistantMessage:
                self._register_calls(event)
        wire_ids = self.wire_ids
        items: list[Any] = self.items
        append = items.append
        custom = self.custom
        own_only = self.own_only  # then only OpenAI's own echo state is read: one issuer to compare
        lost = self.losses.items
        adapter = self.losses.adapter
        new_loss = _new_loss  # Loss(...) without the frozen dataclass's __init__
        id_reasons = self._id_reasons
        # Remembered losses are this adapter's (the one LossCollector every to_wire here makes).
        known = _KNOWN_LOSSES if adapter == API else {}
        issuer, call_id_max, remember = ISSUER, CALL_ID_MAX, known_loss
        tool_call, thinking, text_part = ToolCallPart, ThinkingPart, TextPart
        for i in range(start, len(history)):
            event = history[i]
            kind = type(event)
            if kind is ToolMessage:
                fields = event.__dict__
                call_id = fields["call_id"]
                wire_id = wire_ids.get(call_id)
                text = fields["output_text"]
                if wire_id is not None and text and fields["provider_data"] is None and not fields[
                        "parts"] and call_id not in custom:
                    append({"type": "function_call_output", "call_id": wire_id, "output": text})
                    status = fields["status"]
                    if status != "success":
                        key = (fields["id"], i, status)
                        loss = known.get(key)
                        if loss is None:
                            self._status_lost(event, f"history[{i}]")  # type: ignore[arg-type]
                            if len(known) >= KNOWN_LIMIT:
                                known.clear()
                            known[key] = lost[-1]
                        else:
                            lost.append(loss)
                    continue
            elif kind is AssistantMessage and own_only:
                before = len(items)
                message = event.__dict__
                parts = message["parts"]
                api = message["api"]
                # OpenAI's own answer, as the decoder gives it, first. An answer another API made
                # (Anthropic's, Chat's, Gemini's) has no such part: straight to the foreign form.
                if api is None or api == API:
                    group: dict[str, Any] | None = None  # the open message item
                    for part in parts:
                        part_kind = type(part)
                        fields = part.__dict__
                        pd = fields["provider_data"]
                        if part_kind is ToolCallPart:
                            group = None
                            wire_id = fields["provider_ids"].get(ISSUER)
                            if wire_id is None:
                                break
                            if pd is None:
                                append({"type": "function_call", "call_id": wire_id,
                                        "name": fields["name"], "arguments": fields["arguments_json"]})
                            else:
                                # As decoded: the fc_ item's id and status, nothing else. A value of
                                # another shape raises KeyError or TypeError as it is read.
                                if pd.issuer != ISSUER:
                                    break
                                data = pd.data
                                try:
                                    item = data["item"]
                                    if len(data) != 1 or len(item) != 2:
                                        break
                                    call = {"id": item["id"], "type": "function_call",
                                            "status": item["status"],
                                            "arguments": fields["arguments_json"],
                                            "call_id": wire_id, "name": fields["name"]}
                                except (KeyError, TypeError):
                                    break
                                append(call)
                            # The general path maps it the same way (OpenAI's own id), should it take over.
                            wire_ids[fields["id"]] = wire_id
                        elif part_kind is TextPart:
                            if pd is None or fields["citations"] or pd.issuer != ISSUER:
                                break
                            data = pd.data
                            try:  # as decoded: the item's id (and status), logprobs as extras
                                item = data["item"]
                                ident = item["id"]
                                size = len(data)
                                if size == 2:
                                    extras = data["extras"]
                                    if len(extras) != 1:
                                        break
                                    content = {"type": "output_text", "annotations": [],
                                               "logprobs": extras["logprobs"], "text": fields["text"]}
                                elif size == 1:
                                    content = {"type": "output_text", "annotations": [],
                                               "text": fields["text"]}
                                else:
                                    break
                            except (KeyError, TypeError):  # another shape
                                break
                            if group is not None and group["id"] == ident:
                                group["content"].append(content)
                                continue
                            if len(item) == 2 and "status" in item:  # id and status: the common case
                                group = {"id": ident, "type": "message", "status": item["status"],
                                         "content": [content], "role": "assistant"}
                            elif item.keys() <= _MESSAGE_ITEM:
                                group = {"id": ident, "type": "message"}
                                if "status" in item:
                                    group["status"] = item["status"]
                                group["content"] = [content]
                                if "phase" in item:
                                    group["phase"] = item["phase"]
                                group["role"] = "assistant"
                            else:
                                break
                            append(group)
                        elif part_kind is ThinkingPart:
                            group = None
                            signature = fields["signature"]
                            ident = fields["id"]
                            if signature is None or signature.issuer != ISSUER or ident is None:
                                break
                            text = fields["text"]
                            if pd is not None:  # as decoded: the summary's layout, one entry or none
                                data = pd.data
                                layout = data.get("summary") if type(data) is dict and len(data) == 1 else None
                                if pd.issuer != ISSUER or type(layout) is not list or (
                                        layout != [len(text)] if text else layout):
                                    break
                            append({"id": ident, "type": "reasoning", "encrypted_content": signature.value,
                                    "summary": [{"type": "summary_text", "text": text}] if text else []})
                        else:
                            break
                    else:
                        if len(items) > before:
                            continue
                    del items[before:]  # not all as decoded
                # Then another provider's answer, as the general path encodes it: each part
                # without provider data, a thought not OpenAI's dropped with its loss, a text
                # as one easy-form item, a call with OpenAI's id or else the canonical one (the
                # id_mapped loss). Any other part takes back items and losses: the general path
                # takes the whole message.
                lost_before = len(lost)
                message_id = message["id"]
                for j, part in enumerate(parts):
                    part_kind = type(part)
                    fields = part.__dict__
                    if fields["provider_data"] is not None:
                        break
                    if part_kind is tool_call:  # the most common part first
                        ident = fields["id"]
                        ids = fields["provider_ids"]
                        wire_id = ids.get(issuer)
                        if wire_id is None:
                            # first_accepted inline: another issuer's id the call_id rule admits
                            # (admits_call_id: 1 to 64 characters) goes as it is.
                            for value in ids.values():
                                if 0 < len(value) <= call_id_max:
                                    wire_id = value
                                    break
                            else:
                                wire_id = ident
                                if ids:
                                    reason = None
                                    if len(ids) == 1:
                                        (who,) = ids
                                        reason = id_reasons.get(who)
                                    lost.append(new_loss(f"history[{i}].parts[{j}]", "tool_call",
                                                         "id_mapped",
                                                         reason or self._id_reason(ids),
                                                         adapter, message_id))
                        wire_ids[ident] = wire_id
                        append({"type": "function_call", "call_id": wire_id,
                                "name": fields["name"], "arguments": fields["arguments_json"]})
                    elif part_kind is thinking:
                        signature = fields["signature"]
                        if signature is not None and signature.__dict__["issuer"] == issuer:
                            break
                        lost.append(remember(i, j, "thinking", "dropped", _FOREIGN_REASONING, adapter,
                                               message_id))
                    elif part_kind is text_part:
                        if fields["citations"]:
                            break
                        # An empty text goes as it came: clients send {"role": "assistant",
                        # "content": ""} after a turn of tool calls, and the API takes it.
                        append({"role": "assistant", "content": fields["text"]})
                    else:
                        break
                else:
                    if len(items) > before:
                        continue
                del items[before:]
                del lost[lost_before:]
            elif kind is UserMessage:
                fields = event.__dict__
                parts = fields["parts"]
                if fields["provider_data"] is None and len(parts) == 1 and type(parts[0]) is TextPart:
                    only = parts[0].__dict__
                    if only["provider_data"] is None and not only["citations"]:
                        append({"role": "user", "content": only["text"]})
                        continue
            elif kind in _RECORDS:
                continue  # records for the application and for replay; never sent
            self.event(event, i)
        return self.items

    def event(self, event: HistoryEvent, i: int) -> None:
        """Append the input items of one history event by the general path, which reports losses.

        Only this path sends items kept raw (provider-run items, unknown ones, an import's item
        keys), so only here can an ``item_reference`` appear: it is noted in :attr:`references`.
        """
        items = self.items
        before = len(items)
        kind = type(event)
        # The common classes by identity first: a class pattern that fails costs a call of
        # pydantic's __instancecheck__, many times the work of the rest for a plain message.
        if kind is UserMessage:
            self._message("user", event, i)  # type: ignore[arg-type]
        elif kind is ToolMessage:
            self._tool(event, i)  # type: ignore[arg-type]
        elif kind is AssistantMessage:
            self._assistant(event, i)  # type: ignore[arg-type]
        elif kind is DeveloperMessage:  # an agent's instructions item, on most requests
            self._message("developer", event, i)  # type: ignore[arg-type]
        elif kind is SystemMessage:
            self._message("system", event, i)  # type: ignore[arg-type]
        else:
            self._other(event, i)
        for k in range(before, len(items)):
            if items[k].get("type") == "item_reference":
                self.references.append(items[k])

    def _other(self, event: HistoryEvent, i: int) -> None:
        """Any other event (and a subclass of a message class), by its class."""
        match event:
            case ToolMessage():
                self._tool(event, i)
            case AssistantMessage():
                self._assistant(event, i)
            case UserMessage():
                self._message("user", event, i)
            case SystemMessage():
                self._message("system", event, i)
            case DeveloperMessage():
                self._message("developer", event, i)
            case NonMessageEvent():
                return  # records for the application and for replay; never sent
            case _:
                assert_never(event)

    # -- user, developer and system messages -------------------------------------------------

    def _message(self, role: str, event: UserMessage | SystemMessage | DeveloperMessage,
                 i: int) -> None:
        fields = event.__dict__
        parts = fields["parts"]
        if fields["provider_data"] is None:
            if len(parts) == 1 and type(parts[0]) is TextPart:
                only = parts[0].__dict__
                if only["provider_data"] is None and not only["citations"]:
                    self.items.append({"role": role, "content": only["text"]})
                    return
            plain = _plain_content(parts)
            if plain is not None:
                self.items.append({"role": role, "content": plain})
                return
        path = f"history[{i}]"
        marks = self.marks(event.provider_data)
        item: dict[str, Any] = {}
        if marks.get("typed") is True:
            item["type"] = "message"
        item["role"] = role
        if (len(parts) == 1 and type(parts[0]) is TextPart and parts[0].provider_data is None
                and not parts[0].citations and marks.get("content") != "list"):
            item["content"] = parts[0].text
        elif not parts and marks.get("content") != "list":
            item["content"] = ""
        else:
            content = [self.input_part(p, f"{path}.parts[{j}]", event.id)
                       for j, p in enumerate(parts)]
            kept = [c for c in content if c is not None]
            if not kept and parts:
                self.losses.add(path, f"{role}_message", "dropped",
                                "none of its parts can be sent, and the API rejects empty content",
                                event.id)
                return
            item["content"] = kept
        extra = marks.get("item")
        if isinstance(extra, dict):
            item.update({k: v for k, v in extra.items() if k not in item})
        self.items.append(item)  # type: ignore[arg-type]

    # -- assistant messages -----------------------------------------------------------------

    def _register_calls(self, event: AssistantMessage) -> None:
        for part in event.parts:
            if isinstance(part, ToolCallPart):
                self.wire_ids[part.id] = first_accepted(
                    part.provider_ids, self.issuer_order, admits_call_id) or part.id
                if self.marks(part.provider_data).get("kind") == "custom":
                    self.custom.add(part.id)

    def _assistant(self, event: AssistantMessage, i: int) -> None:
        path = f"history[{i}]"
        unstored = self._unstored(event)
        before = len(self.items)
        group: dict[str, Any] | None = None  # the open message item
        for j, part in enumerate(event.parts):
            where = f"{path}.parts[{j}]"
            kind = type(part)
            # The exact classes first: an isinstance() that misses (every other part) goes
            # through pydantic's and ABCMeta's instance checks.
            if kind is TextPart or kind is RefusalPart or (
                    kind not in _OTHER_PARTS and isinstance(part, TextPart | RefusalPart)):
                group = self._output_content(part, where, event.id, group)  # type: ignore[arg-type]
                continue
            group = None
            self._assistant_part(part, where, event.id, unstored=unstored)
        if len(self.items) == before and event.parts:
            self.losses.add(path, "assistant_message", "dropped",
                            f"nothing in this {event.status} message can be sent, and the API "
                            "rejects an empty one", event.id)

    def _unstored(self, event: AssistantMessage) -> bool:
        """Whether the response of ``event`` was made with ``store: false`` (ids not resolvable)."""
        response = self.marks(event.provider_data).get("response")
        return isinstance(response, dict) and response.get("store") is False

    def _output_content(self, part: TextPart | RefusalPart, path: str, message_id: str,
                        group: dict[str, Any] | None) -> dict[str, Any] | None:
        """Add a text or refusal part to the open message item, or open one; the item it is in."""
        marks = self.marks(part.provider_data)
        item = marks.get("item")
        ident = item.get("id") if isinstance(item, dict) else None
        if not isinstance(ident, str):
            self._easy(part, path, message_id)
            return None
        block = self.block(part.provider_data, path, part.type, message_id)
        if isinstance(part, RefusalPart):
            content: dict[str, Any] = {"type": "refusal", "refusal": part.text}
        else:
            content = {"type": "output_text", "annotations": [], "text": part.text}
            if part.citations:
                annotations = _citations(part, path, message_id, self.losses)
                content["annotations"] = annotations
        content.update(block)
        content = {"type": content.pop("type"), **dict(sorted(content.items()))}
        if group is not None and group.get("id") == ident:
            group["content"].append(content)
            return group
        assert isinstance(item, dict)
        new = item_in_order({**item, "type": "message", "role": "assistant", "content": [content]})
        self.items.append(new)  # type: ignore[arg-type]
        return new

    def _easy(self, part: TextPart | RefusalPart, path: str, message_id: str) -> None:
        """An assistant part without an item id: the easy form, one string per item."""
        if isinstance(part, RefusalPart):
            self.losses.add(path, "refusal", "downgraded",
                            "an assistant refusal without its OpenAI item id is sent as text",
                            message_id)
        elif part.citations:
            self.losses.add(f"{path}.citations", "text", "dropped",
                            "citations go back only on an output_text of an OpenAI message item",
                            message_id)
        if part.provider_data is not None:
            self.block(part.provider_data, path, part.type, message_id)  # reports a foreign one
        marks = self.marks(part.provider_data)
        item: dict[str, Any] = {}
        if marks.get("typed") is True:
            item["type"] = "message"
        item["role"] = "assistant"
        item["content"] = part.text
        extra = marks.get("item")
        if isinstance(extra, dict):
            item.update({k: v for k, v in extra.items() if k not in item})  # phase, kept from an import
        self.items.append(item)  # type: ignore[arg-type]

    def _assistant_part(self, part: Part, path: str, message_id: str, *, unstored: bool) -> None:
        if type(part) is ToolCallPart:  # the commonest by its exact class: see _OTHER_PARTS
            self._tool_call(part, path, message_id)
            return
        match part:
            case ThinkingPart():
                self._reasoning(part, path, message_id, unstored=unstored)
            case RedactedThinkingPart():
                marks = self.marks(part.provider_data)
                item = marks.get("item")
                ident = item.get("id") if isinstance(item, dict) else None
                if part.data.issuer in self.issuers and isinstance(item, dict) and isinstance(
                        ident, str):
                    self.items.append(item_in_order(  # type: ignore[arg-type]
                        {**item, "type": "reasoning", "summary": [],
                         "encrypted_content": part.data.value}))
                else:
                    reason = (f"encrypted reasoning from {part.data.issuer} cannot go to OpenAI"
                              if part.data.issuer not in self.issuers else
                              "a reasoning item needs its rs_ id, which this part does not have")
                    self.losses.add(path, "redacted_thinking", "dropped", reason, message_id)
            case ToolCallPart():
                self._tool_call(part, path, message_id)
            case ServerToolCallPart() | ServerToolResultPart():
                raw = part.input if isinstance(part, ServerToolCallPart) else part.output
                if part.issuer in self.issuers and isinstance(raw, dict) and isinstance(
                        raw.get("type"), str):
                    self.items.append(dict(raw))  # type: ignore[arg-type]
                else:
                    self.losses.add(path, part.type, "dropped",
                                    f"provider-side data from {part.issuer} cannot go to OpenAI",
                                    message_id)
            case UnknownPart():
                if self.own_unknown(part) and isinstance(part.raw, dict) and isinstance(
                        part.raw.get("type"), str):
                    self.items.append(dict(part.raw))  # type: ignore[arg-type]
                else:
                    self.losses.add(path, "unknown", "dropped",
                                    f"provider-side data from {part.issuer or 'a stored history'}"
                                    " cannot go to OpenAI", message_id)
            case ImagePart() | DocumentPart() | AudioPart():
                self.losses.add(path, part.type, "dropped",
                                f"assistant output holds text, reasoning and tool calls, not "
                                f"{part.type}s", message_id)
            case TextPart() | RefusalPart():
                raise AssertionError("handled by _output_content")
            case _:
                assert_never(part)

    def _reasoning(self, part: ThinkingPart, path: str, message_id: str, *, unstored: bool) -> None:
        signature = part.signature
        marks = data_of(part.provider_data, self.issuers)
        own = (signature.issuer in self.issuers) if signature is not None else marks is not None
        if not own:
            self.losses.add(path, "thinking", "dropped", _FOREIGN_REASONING, message_id)
            return
        if part.id is None:
            self.losses.add(path, "thinking", "dropped",
                            "a reasoning item needs its rs_ id, which this part does not have",
                            message_id)
            return
        if signature is None and unstored:
            # Neither the blob nor a stored item: the server could not resolve the id.
            self.losses.add(path, "thinking", "dropped",
                            "this reasoning has no encrypted_content and its response was not "
                            "stored (store: false), so OpenAI cannot resolve its id", message_id)
            return
        marks = marks or {}
        item: dict[str, Any] = {"id": part.id, "type": "reasoning"}
        extra = marks.get("item")
        if isinstance(extra, dict):
            item.update({k: v for k, v in extra.items() if k not in item})
        if signature is not None:
            item["encrypted_content"] = signature.value
        if "summary" in marks and marks["summary"] is None and not part.text:
            pass  # the item had no summary key
        else:
            item["summary"] = summary_to_wire(part.text, marks.get("summary"))
        self.items.append(item_in_order(item))  # type: ignore[arg-type]

    def _tool_call(self, part: ToolCallPart, path: str, message_id: str) -> None:
        wire_id = first_accepted(part.provider_ids, self.issuer_order, admits_call_id)
        if wire_id is None:
            wire_id = part.id
            if part.provider_ids:
                self._id_mapped(part, path, message_id)
        self.wire_ids[part.id] = wire_id
        marks = data_of(part.provider_data, self.issuers)
        if part.provider_data is not None and marks is None:
            self.block(part.provider_data, path, "tool_call", message_id)  # reports the loss
        marks = marks or {}
        extra = marks.get("item") if part.provider_ids.get(ISSUER) == wire_id or (
            ISSUER not in part.provider_ids) else None
        item: dict[str, Any]
        if marks.get("kind") == "custom":
            self.custom.add(part.id)
            value = _custom_input(part.arguments_json)
            if value is None:
                self.losses.add(path, "tool_call", "rewritten",
                                "a custom tool call's arguments are not {\"input\": text}; sent "
                                "as the raw text", message_id)
                value = part.arguments_json
            item = {"type": "custom_tool_call", "call_id": wire_id, "name": part.name, "input": value}
        else:
            item = {"type": "function_call", "call_id": wire_id, "name": part.name,
                    "arguments": part.arguments_json}
        if isinstance(extra, dict) and extra:
            allowed = _CALL_INPUT_KEYS[item["type"]]
            if not extra.keys() <= allowed:
                extra = self._undeclared(extra, allowed, item["type"], path, message_id)
            item = item_in_order({**extra, **item})
        self.items.append(item)  # type: ignore[arg-type]

    def _undeclared(self, extra: Mapping[str, Any], allowed: frozenset[str], kind: str, path: str,
                    message_id: str) -> dict[str, Any]:
        """``extra`` without the keys the input item type does not declare, each one reported
        (a response or a log, such as a Codex rollout, can record more than an input takes)."""
        for key in sorted(extra.keys() - allowed):
            self.losses.add(f"{path}.provider_data.{key}", "tool_call", "dropped",
                            f"a {kind} input item has no {key!r} field; it is not sent", message_id)
        return {k: v for k, v in extra.items() if k in allowed}

    def _id_mapped(self, part: ToolCallPart, path: str, message_id: str) -> None:
        self.losses.add(path, "tool_call", "id_mapped", self._id_reason(part.provider_ids),
                        message_id)

    def _id_reason(self, ids: Mapping[str, str]) -> str:
        """Why a call's id is replaced: the issuers of its ids (one reason kept per set)."""
        who = next(iter(ids)) if len(ids) == 1 else ", ".join(sorted(ids))
        reason = self._id_reasons.get(who)
        if reason is None:
            reason = self._id_reasons[who] = (
                f"the call id from {who} is not a Responses call_id (1 to 64 characters); the "
                "canonical id (tu_...) is sent instead")
        return reason

    # -- tool results -----------------------------------------------------------------------

    def _tool(self, message: ToolMessage, i: int) -> None:
        fields = message.__dict__  # pydantic keeps fields here; reading it halves each access
        call_id = fields["call_id"]
        wire_id = self.wire_ids.get(call_id)
        if wire_id is None:
            if self.orphan(call_id):
                orphan_loss(self.losses, i, call_id, message.id, "Responses")
                return
            wire_id = self._late_wire_id(call_id)
        text = fields["output_text"]
        custom = call_id in self.custom
        if fields["provider_data"] is None and not fields["parts"] and text and not custom:
            self.items.append({"type": "function_call_output", "call_id": wire_id, "output": text})
            if fields["status"] != "success":
                self._status_lost(message, f"history[{i}]")
            return
        path = f"history[{i}]"
        marks = self.marks(message.provider_data)
        if not text and message.data is not None:
            # Nothing else would tell the model what happened: its structured result as JSON.
            text = json.dumps(message.data, ensure_ascii=False)
        if message.status != "success":
            self._status_lost(message, path)
        output: str | list[dict[str, Any]] = text
        if message.parts or marks.get("output") == "list":
            output = self._output_list(message, text, marks, path)
        kind = "custom_tool_call_output" if custom or marks.get("kind") == "custom" \
            else "function_call_output"
        item: dict[str, Any] = {"type": kind, "call_id": wire_id, "output": output}
        extra = marks.get("item")
        if isinstance(extra, dict):
            item.update({k: v for k, v in extra.items() if k not in item})
        self.items.append(item)  # type: ignore[arg-type]

    def _output_list(self, message: ToolMessage, text: str, marks: Mapping[str, Any],
                     path: str) -> list[dict[str, Any]]:
        """A tool output as a content list: its text and attachments, as an import laid them out."""
        encoded = [self.input_part(p, f"{path}.parts[{j}]", message.id)
                   for j, p in enumerate(message.parts)]
        layout = marks.get("layout")
        out: list[dict[str, Any]] = []
        if isinstance(layout, list) and sum(n for n in layout if isinstance(n, int)) == len(text) \
                and layout.count("part") == len(encoded):
            pos = 0
            parts = iter(encoded)
            for entry in layout:
                if entry == "part":
                    item = next(parts)
                    if item is not None:
                        out.append(item)
                elif isinstance(entry, int):
                    out.append({"type": "input_text", "text": text[pos:pos + entry]})
                    pos += entry
            return out
        if text:
            out.append({"type": "input_text", "text": text})
        out.extend(item for item in encoded if item is not None)
        return out

    def _status_lost(self, message: ToolMessage, path: str) -> None:
        tool_status_loss(self.losses, path, message.status, message.id, api="Responses",
                         as_error=False)

    def _late_wire_id(self, call_id: str) -> str:
        """The wire id of a call not encoded yet (a result before its call, or an orphan)."""
        if self.calls is None:
            self.calls = tool_calls_by_id(self.history)
        call = self.calls.get(call_id)
        if call is None:
            return call_id
        if self.marks(call.provider_data).get("kind") == "custom":
            self.custom.add(call_id)
        return first_accepted(call.provider_ids, self.issuer_order, admits_call_id) or call.id


# The tool-status losses of the inline path that an agent's next turn reports again, by message
# id, position and status (a part's loss is remembered by _losses.known_loss): an agent resends
# its whole history every turn, and each such loss is the same frozen value every time.
# Bounded: emptied when it grows past the limit.
_KNOWN_LOSSES: dict[tuple[str, int, str], Loss] = memo({})
_MESSAGE_ITEM = frozenset({"id", "status", "phase"})
_FOREIGN_REASONING = "reasoning is verifiable only by the provider that produced it"
_RECORDS = frozenset(NON_MESSAGE_CLASSES.values())
_CALL_ITEM = frozenset({"id", "status"})
# The optional fields of the SDK's input item types for a call (ResponseFunctionToolCallParam,
# ResponseCustomToolCallParam): a custom tool call has no status, though Codex records one.
_CALL_INPUT_KEYS = {"function_call": frozenset({"id", "status", "caller", "namespace", "async"}),
                    "custom_tool_call": frozenset({"id", "caller", "namespace", "async"})}
_LOGPROBS = frozenset({"logprobs"})


def _plain_content(parts: tuple[Part, ...]) -> list[dict[str, Any]] | None:
    """The content of a message of plain texts and inline images, each without echo state.

    What :meth:`PartEncoder.input_part` gives for them (a user turn with a screenshot), without
    the paths and checks only the other parts need; ``None`` for anything else (no part, a
    citation, echo state, another part or source, an image type the API does not take).
    """
    out: list[dict[str, Any]] = []
    for part in parts:
        kind = type(part)
        fields = part.__dict__
        if fields["provider_data"] is not None:
            return None
        if kind is TextPart:
            if fields["citations"]:
                return None
            out.append({"type": "input_text", "text": fields["text"]})
        elif kind is ImagePart:
            source = fields["source"]
            media_type = fields["media_type"]
            if type(source) is not Base64Source or media_type not in IMAGE_MEDIA_TYPES:
                return None
            out.append({"type": "input_image", "image_url": data_url(media_type, source.data),
                        "detail": fields["detail"] or "auto"})
        else:
            return None
    return out or None


def _citations(part: TextPart, path: str, message_id: str, losses: LossCollector) -> list[dict[str, Any]]:
    annotations = citations_to_wire(part.citations)
    if annotations is not None:
        return annotations
    losses.add(f"{path}.citations", "text", "dropped",
               "only URL citations with their span go back as annotations", message_id)
    return []


def _custom_input(arguments_json: str) -> str | None:
    try:
        value = json.loads(arguments_json)
    except ValueError:
        return None
    if isinstance(value, dict) and set(value) == {"input"} and isinstance(value["input"], str):
        text: str = value["input"]
        return text
    return None
