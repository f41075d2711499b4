"""Canonical -> Chat Completions wire: a history becomes ``messages``, with its losses.

One wire message per canonical message, in order; tool results become one ``tool`` message each,
and what a wire message cannot hold moves next to it: attachments of a run of tool results go in
one user message after the run, non-text parts of a developer message in a user message after
it. Markers a request import left in ``provider_data`` (``content``, ``refusal``, ``message``,
``block``, ``inner``, ``layout``, ``role``) are read only from accepted issuers.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any, assert_never

from partwire.adapters._calls import OrphanCheck, orphan_loss, tool_calls_by_id
from partwire.adapters._losses import LossCollector, known_loss, tool_status_loss
from partwire.adapters._provenance import accepted_issuers, data_of, first_accepted
from partwire.adapters.openai_chat._dialects import DeveloperRole, Dialect, EchoReasoning
from partwire.adapters.openai_chat._parts import FileResolver, PartEncoder, as_dict
from partwire.adapters.openai_chat._wire import WireMessage, WirePart, admits_call_id
from partwire.history import History, HistoryEvent, NonMessageEvent
from partwire.messages import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from partwire.parts import (
    AudioPart,
    DocumentPart,
    ImagePart,
    Part,
    ProviderFileSource,
    RedactedThinkingPart,
    RefusalPart,
    ServerToolCallPart,
    ServerToolResultPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    UnknownPart,
)

__all__ = ["Encoder"]

# Canonical order of an assistant message's parts on the wire: reasoning fields, content, the
# refusal field, audio, tool calls. Parts in another order are reordered (and that is reported).
_ORDER = {"thinking": 0, "redacted_thinking": 0, "text": 1, "refusal": 2, "audio": 3, "tool_call": 4}

_NOT_FAST = object()
"""What a fast path returns for a message it leaves to the general path."""
# The marks _assistant_fast reads itself: an imported message's extra keys and absent content.
_FAST_MARKS = frozenset({"content", "message"})


class _Assistant:
    """The pieces of one assistant wire message, gathered part by part."""

    __slots__ = ("audio", "content", "details", "field_refusals", "function_call", "reasoning",
                 "reasoning_field", "tool_calls")

    def __init__(self) -> None:
        self.content: list[tuple[WirePart, bool]] = []  # (item, is a plain text item)
        self.field_refusals: list[str] = []
        self.reasoning: list[str] = []
        self.reasoning_field: str | None = None
        self.details: list[dict[str, Any]] = []
        self.tool_calls: list[dict[str, Any]] = []
        self.audio: dict[str, Any] | None = None
        self.function_call: dict[str, Any] | None = None


class Encoder(PartEncoder):
    """Projects one history onto ``messages``; :meth:`run` returns them, losses go to ``losses``."""

    def __init__(self, history: History, *, dialect: Dialect, issuers: Collection[str],
                 losses: LossCollector, developer_role: DeveloperRole | None = None,
                 echo_reasoning: EchoReasoning | None = None,
                 resolve_file: FileResolver | None = None) -> None:
        own = dialect.issuer
        # The dialect's own ids first, then the aliases in a stable order.
        accepted, self.issuer_order = accepted_issuers(issuers, own)
        super().__init__(dialect=dialect, issuers=accepted, losses=losses, resolve_file=resolve_file)
        self.history = history
        self.developer_role = developer_role or dialect.developer_role
        self.echo_reasoning = echo_reasoning or dialect.echo_reasoning
        self.own_only = self.issuer_order == (own,)
        # Canonical call id -> the id sent for it, filled as assistant messages are encoded (a
        # result follows its call); the full table is built only for a result that comes first.
        self.wire_ids: dict[str, str] = {}
        self.calls: dict[str, ToolCallPart] | None = None
        self.orphan = OrphanCheck(history)
        self.messages: list[WireMessage] = []
        self.pending: list[WirePart] = []  # attachments of the current run of tool results
        self.turn_start = 0  # index of the last user message: reasoning after it is "current"
        self._id_reasons: dict[str, str] = {}
        self._no_reasoning: str | None = None  # made for the first reasoning dropped
        # A server with a fixed call-id form (Mistral) gets every id it refuses as a digest of
        # the canonical id; ``issued`` (wire id -> canonical id) guards against two calls of one
        # request sharing a wire id. The default dialect never looks at either.
        self.fixed_ids = dialect.call_id_length is not None
        self.admits = dialect.admits_call_id if self.fixed_ids else admits_call_id
        self.issued: dict[str, str] = {}
        self.chunks = dialect.thinking_chunks

    # -- the walk ---------------------------------------------------------------------------

    def run(self) -> list[WireMessage]:
        """The wire messages of the whole history."""
        history = self.history
        for i in range(len(history) - 1, -1, -1):
            if type(history[i]) is UserMessage:
                self.turn_start = i
                break
        # This loop is the hot path of every request. isinstance() on a pydantic model costs a
        # few hundred ns and a match of five cases more than the work on a tool result, so exact
        # types go straight to their method, and the plain tool result (most of an agent's
        # history) is encoded inline. Fields are read from __dict__, where pydantic keeps them:
        # it halves the cost of every read.
        event = self.event
        wire_ids = self.wire_ids
        append = self.messages.append
        for i, item in enumerate(history):
            kind = type(item)
            if kind is ToolMessage:
                fields = item.__dict__
                wire_id = wire_ids.get(fields["call_id"])
                text = fields["output_text"]
                if wire_id is not None and text and fields["provider_data"] is None \
                        and not fields["parts"] and fields["status"] == "success":
                    append({"role": "tool", "tool_call_id": wire_id, "content": text})
                else:
                    self._tool(item, i)  # type: ignore[arg-type]
            elif kind is AssistantMessage:
                if self.pending:
                    self._flush_attachments()
                message = self._assistant_fast(item, i)  # type: ignore[arg-type]
                if message is _NOT_FAST:
                    message = self._assistant(item, i, current=i > self.turn_start)  # type: ignore[arg-type]
                if message is not None:
                    append(message)  # type: ignore[arg-type]
            elif kind is UserMessage:
                # _user's commonest case inline: one plain text, no attachments waiting.
                fields = item.__dict__
                parts = fields["parts"]
                if len(parts) == 1 and fields["provider_data"] is None and not self.pending:
                    only = parts[0]
                    data = only.__dict__
                    if type(only) is TextPart and data["provider_data"] is None and not data["citations"]:
                        append({"role": "user", "content": data["text"]})
                        continue
                self._user(item, i)  # type: ignore[arg-type]
            elif kind is SystemMessage:
                if self.pending:
                    self._flush_attachments()
                if not self._plain_fast("system", item):  # type: ignore[arg-type]
                    event(item, i)
            else:
                event(item, i)
        self._flush_attachments()
        return self.messages

    def event(self, event: HistoryEvent, i: int) -> None:
        """Append the wire messages of one history event."""
        if type(event) is DeveloperMessage:  # exact: no class pattern tried (each a metaclass call)
            self._flush_attachments()
            self._developer(event, f"history[{i}]")
            return
        match event:
            case ToolMessage():
                self._tool(event, i)
            case AssistantMessage():
                self._assistant_event(event, i)
            case UserMessage():
                self._user(event, i)
            case SystemMessage():
                self._flush_attachments()
                if not self._plain_fast("system", event):
                    path = f"history[{i}]"
                    self._plain("system", event, self._text_only(event.parts, path, event.id), path)
            case DeveloperMessage():
                self._flush_attachments()
                self._developer(event, f"history[{i}]")
            case NonMessageEvent():
                return  # records for the application and for replay; never sent
            case _:
                assert_never(event)

    def _user(self, event: UserMessage, i: int) -> None:
        if self.pending:
            self._flush_attachments()
        if not self._plain_fast("user", event):
            path = f"history[{i}]"
            self._plain("user", event, self._content(event.parts, path, event.id), path)

    def _assistant_event(self, event: AssistantMessage, i: int) -> None:
        if self.pending:
            self._flush_attachments()
        message = self._assistant_fast(event, i)
        if message is _NOT_FAST:
            message = self._assistant(event, i, current=i > self.turn_start)
        if message is not None:
            self.messages.append(message)  # type: ignore[arg-type]

    def _plain_fast(self, role: str, event: UserMessage | SystemMessage) -> bool:
        """Emit a message that is one plain text part (the common case); ``False`` otherwise."""
        parts = event.parts
        if event.provider_data is not None or len(parts) != 1:
            return False
        part = parts[0]
        if type(part) is not TextPart or part.provider_data is not None or part.citations:
            return False
        self.messages.append({"role": role, "content": part.text})  # type: ignore[typeddict-item]
        return True

    def _emit(self, message: WireMessage) -> None:
        self.messages.append(message)

    def _plain(self, role: str, event: UserMessage | SystemMessage | DeveloperMessage,
               items: list[tuple[WirePart, bool]], path: str) -> None:
        """Emit a user, system or developer message whose content items are ``items``."""
        marks = self._marks(event.provider_data)
        message: dict[str, Any] = {"role": role}
        form = marks.get("content")
        if form == "absent":
            pass
        elif form == "null":
            message["content"] = None
        elif form == "parts":
            message["content"] = [item for item, _ in items]
        elif not items:
            if event.parts:
                self.losses.add(path, f"{event.role}_message", "dropped",
                                "none of its parts can be sent, and the API rejects empty content",
                                event.id)
                return
            message["content"] = ""
        elif len(items) == 1 and items[0][1]:
            message["content"] = items[0][0]["text"]
        else:
            message["content"] = [item for item, _ in items]
        self._emit(self._with_extras(message, marks))

    @staticmethod
    def _with_extras(message: dict[str, Any], marks: Mapping[str, Any]) -> WireMessage:
        extra = as_dict(marks.get("message"))
        if extra:
            # Keys of the wire message beyond the ones partwire builds, kept from an import.
            message = {**message, **{k: v for k, v in extra.items() if k not in message}}
        return message  # type: ignore[return-value]

    def _developer(self, event: DeveloperMessage, path: str) -> None:
        # An imported request that used the developer role with a dialect that is not sent it
        # by default records the role it used.
        role = "developer" if self._marks(event.provider_data).get("role") == "developer" \
            else self.developer_role
        if role == "user":
            self.losses.add(path, "developer_message", "downgraded",
                            "sent as a user message (developer_role='user')", event.id)
            self._plain("user", event, self._content(event.parts, path, event.id), path)
            return
        if role == "system":
            self.losses.add(path, "developer_message", "rewritten",
                            f"sent as a system message: {self.dialect.name} is not sent the "
                            "developer role (developer_role='system')", event.id)
        texts: list[tuple[WirePart, bool]] = []
        others: list[tuple[int, Part]] = []
        for j, part in enumerate(event.parts):
            if isinstance(part, TextPart):
                texts.append(self._text(part, f"{path}.parts[{j}]", event.id))
            else:
                others.append((j, part))
        if texts or not others:
            self._plain(role, event, texts, path)
        if others:
            attached: list[WirePart] = []
            for j, part in others:
                where = f"{path}.parts[{j}]"
                item = self._part(part, where, event.id)
                if item is not None:
                    self.losses.add(where, part.type, "attached",
                                    f"a {role} message takes text only; sent in a user message "
                                    "right after it", event.id)
                    attached.append(item)
            if attached:
                self._emit({"role": "user", "content": attached})

    # -- assistant messages -----------------------------------------------------------------

    def _assistant(self, event: AssistantMessage, i: int, *, current: bool) -> WireMessage | None:
        path = f"history[{i}]"
        marks = self._marks(event.provider_data)
        out = _Assistant()
        last_rank = 0
        reordered = False
        # Several refusals cannot share the one refusal field: then they go inline, in order.
        parts_mode = marks.get("content") == "parts" or (
            sum(type(p) is RefusalPart for p in event.parts) > 1 and marks.get("refusal") != "field")
        for j, part in enumerate(event.parts):
            where = f"{path}.parts[{j}]"
            rank = _ORDER.get(part.type)
            if rank == 0 and self.chunks:
                rank = 1  # thinking chunks are content: they go where they stand
            if rank is not None:
                if parts_mode and rank == 2 and marks.get("refusal") != "field":
                    rank = 1
                reordered = reordered or rank < last_rank
                last_rank = max(last_rank, rank)
            self._assistant_part(part, where, event.id, out, current=current, parts_mode=parts_mode,
                                 refusal_field=marks.get("refusal") == "field")
        if reordered:
            self.losses.add(path, "assistant_message", "rewritten",
                            "a Chat Completions message holds reasoning, then text, then tool "
                            "calls; the parts are sent in that order", event.id)
        message: dict[str, Any] = {"role": "assistant"}
        if out.reasoning and out.reasoning_field is not None:
            message[out.reasoning_field] = "".join(out.reasoning)
        if out.details:
            message["reasoning_details"] = out.details
        form = marks.get("content")
        if form == "absent":
            pass
        elif parts_mode:
            message["content"] = [item for item, _ in out.content]
        elif len(out.content) == 1 and out.content[0][1]:
            message["content"] = out.content[0][0]["text"]
        elif out.content:
            message["content"] = [item for item, _ in out.content]
        else:
            message["content"] = None
        if out.field_refusals and not (parts_mode and marks.get("refusal") != "field"):
            message["refusal"] = "".join(out.field_refusals)
        if out.audio is not None:
            message["audio"] = out.audio
        if out.function_call is not None:
            message["function_call"] = out.function_call
        if out.tool_calls:
            message["tool_calls"] = out.tool_calls
        has_body = (message.get("content") is not None or len(message) > 2 or out.tool_calls)
        if not has_body and not marks:
            self.losses.add(path, "assistant_message", "dropped",
                            f"nothing in this {event.status} message can be sent, and the API "
                            "rejects an empty assistant message", event.id)
            return None
        return self._with_extras(message, marks)

    def _assistant_fast(self, event: AssistantMessage, i: int) -> WireMessage | object | None:
        """:meth:`_assistant` for the common message: parts already in wire order, no echo state
        beyond the marks an imported request leaves on it (keys kept, content left out).

        Returns ``_NOT_FAST`` (having changed nothing) for any other message. Fields are read
        from ``__dict__``: pydantic keeps them there, and it halves the cost of every read.
        """
        fields = event.__dict__
        pd = fields["provider_data"]
        marks: Mapping[str, Any] | None = None
        if pd is not None:
            marks = data_of(pd, self.issuers)
            if not marks or not marks.keys() <= _FAST_MARKS or marks.get("content", "absent") != "absent" \
                    or not isinstance(marks.get("message", {}), dict):
                return _NOT_FAST
        texts: list[str] = []
        calls: list[dict[str, Any]] = []
        sent: list[tuple[str, str]] = []  # (canonical id, wire id), recorded once the path is ours
        reasoning: list[tuple[int, Part]] | None = None
        mapped: list[tuple[int, ToolCallPart]] | None = None
        order = self.issuer_order
        admits = self.admits
        fixed = self.fixed_ids
        rank = 0
        for j, part in enumerate(fields["parts"]):
            kind = type(part)
            data = part.__dict__
            if kind is ToolCallPart:
                if data["provider_data"] is not None:
                    return _NOT_FAST
                rank = 2
                ids = data["provider_ids"]
                wire_id = None
                if ids:
                    # first_accepted written out: one lookup per call, most often the only one
                    # (a call made here), else the first id the rules admit (another
                    # provider's), in a loop every earlier turn goes through.
                    for issuer in order:
                        wire_id = ids.get(issuer)
                        if wire_id is not None:
                            break
                    else:
                        for value in ids.values():
                            if admits(value):
                                wire_id = value
                                break
                if fixed:
                    wire_id = self._fixed_id(data["id"], wire_id)
                    if wire_id not in ids.values():
                        mapped = [*(mapped or ()), (j, part)]
                elif wire_id is None:
                    wire_id = data["id"]
                    if ids:
                        mapped = [*(mapped or ()), (j, part)]
                calls.append({"id": wire_id, "type": "function",
                              "function": {"name": data["name"], "arguments": data["arguments_json"]}})
                sent.append((data["id"], wire_id))
            elif kind is TextPart:
                if data["provider_data"] is not None or data["citations"] or rank > 1:
                    return _NOT_FAST
                rank = 1
                texts.append(data["text"])
            elif kind is ThinkingPart or kind is RedactedThinkingPart:
                if rank or self.chunks:
                    return _NOT_FAST
                reasoning = [*(reasoning or ()), (j, part)]
            else:
                return _NOT_FAST
        # Past this point the message is this path's: record what it changes.
        message: dict[str, Any] = {"role": "assistant"}
        if reasoning:
            self._reasoning_fast(reasoning, event, i, message)
        if marks is not None and "content" in marks:
            pass  # the imported message had no content key
        elif len(texts) == 1:
            message["content"] = texts[0]
        elif texts:
            message["content"] = [{"type": "text", "text": t} for t in texts]
        else:
            message["content"] = None
        if calls:
            self.wire_ids.update(sent)
            for j, part in mapped or ():
                self._id_mapped(part, f"history[{i}].parts[{j}]", event.id)
            message["tool_calls"] = calls
        elif not texts and len(message) == 2 and marks is None:
            self.losses.add(f"history[{i}]", "assistant_message", "dropped",
                            f"nothing in this {event.status} message can be sent, and the API "
                            "rejects an empty assistant message", event.id)
            return None
        return self._with_extras(message, marks) if marks is not None else message

    def _reasoning_fast(self, parts: list[tuple[int, Part]], event: AssistantMessage, i: int,
                        message: dict[str, Any]) -> None:
        dialect = self.dialect
        if not dialect.reasoning_fields and not dialect.reasoning_details:
            reason = self._no_reasoning
            if reason is None:
                reason = self._no_reasoning = (
                    f"the {dialect.name} Chat Completions API takes no reasoning back")
            lost, adapter, message_id = self.losses.items, self.losses.adapter, event.id
            for j, part in parts:
                # The fast path's parts are of these two classes exactly: told by identity (an
                # isinstance on a pydantic class goes through ABCMeta).
                data = part.__dict__
                if type(part) is RedactedThinkingPart or data["text"] or data["signature"]:
                    lost.append(known_loss(i, j, data["type"], "dropped", reason, adapter, message_id))
            return
        out = _Assistant()
        current = i > self.turn_start
        for j, part in parts:
            self._reasoning(part, f"history[{i}].parts[{j}]", event.id, out,  # type: ignore[arg-type]
                            current=current)
        if out.reasoning and out.reasoning_field is not None:
            message[out.reasoning_field] = "".join(out.reasoning)
        if out.details:
            message["reasoning_details"] = out.details

    def _id_mapped(self, part: ToolCallPart, path: str, message_id: str) -> None:
        ids = part.provider_ids
        who = next(iter(ids)) if len(ids) == 1 else ", ".join(sorted(ids))
        reason = self._id_reasons.get(who)
        if reason is None:
            size = self.dialect.call_id_length
            if size is not None:
                whose = f"the call id from {who}" if who else "the canonical call id"
                reason = (f"{self.dialect.name} takes only call ids of {size} letters and digits; "
                          f"{whose} is replaced by a {size}-character digest of the canonical id")
            else:
                reason = (f"the call id from {who} breaks Chat Completions' id rules; the "
                          "canonical id (tu_...) is sent")
            self._id_reasons[who] = reason
        self.losses.add(path, "tool_call", "id_mapped", reason, message_id)

    def _fixed_id(self, canonical_id: str, wire_id: str | None) -> str:
        """The id sent for a call to a server with a fixed id form: ``wire_id`` when it fits (the
        server's own ids go back as they came), else the digest of the canonical id, or another
        digest when another call of this request already has that one."""
        dialect = self.dialect
        issued = self.issued
        if wire_id is None or not dialect.admits_call_id(wire_id):
            attempt = 0
            wire_id = dialect.short_call_id(canonical_id)
            while issued.get(wire_id, canonical_id) != canonical_id:
                attempt += 1
                wire_id = dialect.short_call_id(canonical_id, attempt)
        issued.setdefault(wire_id, canonical_id)
        return wire_id

    def _assistant_part(self, part: Part, path: str, message_id: str, out: _Assistant, *,
                        current: bool, parts_mode: bool, refusal_field: bool) -> None:
        match part:
            case TextPart():
                out.content.append(self._text(part, path, message_id))
            case RefusalPart():
                if not self.dialect.capabilities.refusals:
                    self.losses.add(path, "refusal", "downgraded",
                                    f"{self.dialect.name} has no refusal field; sent as text",
                                    message_id)
                    out.content.append(({"type": "text", "text": part.text}, True))
                elif parts_mode and not refusal_field:
                    block, _ = self._block(part.provider_data, path, "refusal", message_id)
                    out.content.append(({**block, "type": "refusal", "refusal": part.text}, False))
                else:
                    out.field_refusals.append(part.text)
            case ToolCallPart():
                self._tool_call(part, path, message_id, out)
            case ThinkingPart() | RedactedThinkingPart():
                self._reasoning(part, path, message_id, out, current=current)
            case AudioPart():
                audio_id = self._audio_id(part)
                if audio_id is None:
                    self.losses.add(path, "audio", "dropped",
                                    "an assistant message can only refer to an earlier audio reply "
                                    f"of {self.dialect.name} by its id", message_id)
                else:
                    out.audio = {"id": audio_id}
            case UnknownPart():
                marks = data_of(part.provider_data, self.issuers) or {}
                if marks.get("field") == "reasoning_details" and self._own_reasoning(part.issuer):
                    out.details.append(dict(part.raw))  # type: ignore[arg-type]
                elif self._own_unknown(part):
                    out.content.append((dict(part.raw), False))  # type: ignore[arg-type]
                else:
                    self._part(part, path, message_id)  # reports the loss
            case ImagePart() | DocumentPart():
                self.losses.add(path, part.type, "dropped",
                                f"an assistant message holds text, refusals and tool calls, not {part.type}s",
                                message_id)
            case ServerToolCallPart() | ServerToolResultPart():
                self._part(part, path, message_id)
            case _:
                assert_never(part)

    def _audio_id(self, part: AudioPart) -> str | None:
        if isinstance(part.source, ProviderFileSource) and part.source.issuer in self.issuers:
            return part.source.file_id
        audio = as_dict((data_of(part.provider_data, self.issuers) or {}).get("audio"))
        value = audio.get("id") if audio else None
        return value if isinstance(value, str) else None

    def _own_reasoning(self, issuer: str | None) -> bool:
        return issuer is not None and issuer in self.issuers and bool(
            self.dialect.reasoning_fields or self.dialect.reasoning_details)

    def _reasoning(self, part: ThinkingPart | RedactedThinkingPart, path: str, message_id: str,
                   out: _Assistant, *, current: bool) -> None:
        marks = data_of(part.provider_data, self.issuers)
        field = marks.get("field") if marks else None
        opaque = part.data if isinstance(part, RedactedThinkingPart) else part.signature
        dialect = self.dialect
        # Thinking chunks of content (Mistral): this server's own reasoning, signed or not.
        if self.chunks and isinstance(part, ThinkingPart) and (
                (opaque is None and marks is not None) or (opaque is not None and opaque.issuer in self.issuers)):
            policy = self.echo_reasoning
            if policy == "all" or (policy == "current_turn" and current):
                out.content.append((_thinking_chunk(part, marks), False))
            elif part.text or opaque is not None:
                where = "the turn in progress" if policy == "current_turn" else "no turn"
                self.losses.add(path, "thinking", "dropped",
                                f"{dialect.name} is sent reasoning from {where} only "
                                f"(echo_reasoning={policy!r})", message_id)
            return
        # Typed reasoning (OpenRouter's reasoning_details): signed or encrypted by an accepted
        # issuer, or a part that came from the details in the first place.
        if dialect.reasoning_details and (
                (opaque is not None and opaque.issuer in self.issuers)
                or (opaque is None and field == "reasoning_details")):
            out.details.append(_detail_to_wire(part, marks))
            return
        # Plain reasoning text an accepted issuer produced: sent back as its echo policy says.
        if isinstance(part, ThinkingPart) and opaque is None and marks is not None and (
                dialect.reasoning_fields):
            policy = self.echo_reasoning
            if policy == "all" or (policy == "current_turn" and current):
                if out.reasoning_field is None:
                    out.reasoning_field = field if isinstance(field, str) and (
                        field in dialect.reasoning_fields) else dialect.reasoning_fields[0]
                elif out.reasoning:
                    self.losses.add(path, "thinking", "rewritten",
                                    f"{dialect.name} takes one reasoning text per message; joined "
                                    "with the one before", message_id)
                out.reasoning.append(part.text)
            elif part.text:
                where = "the turn in progress" if policy == "current_turn" else "no turn"
                self.losses.add(path, "thinking", "dropped",
                                f"{dialect.name} is sent reasoning from {where} only "
                                f"(echo_reasoning={policy!r})", message_id)
            return
        if isinstance(part, ThinkingPart) and not part.text and opaque is None:
            return  # nothing in it
        if not dialect.reasoning_fields and not dialect.reasoning_details and not self.chunks:
            reason = f"the {dialect.name} Chat Completions API takes no reasoning back"
        elif opaque is not None:
            reason = f"reasoning from {opaque.issuer} cannot be verified by {dialect.name}"
        else:
            reason = f"reasoning from another provider cannot be sent to {dialect.name}"
        self.losses.add(path, part.type, "dropped", reason, message_id)

    def _tool_call(self, part: ToolCallPart, path: str, message_id: str, out: _Assistant) -> None:
        wire_id = first_accepted(part.provider_ids, self.issuer_order, self.admits)
        if self.fixed_ids:
            wire_id = self._fixed_id(part.id, wire_id)
            if wire_id not in part.provider_ids.values():
                self._id_mapped(part, path, message_id)
        elif wire_id is None:
            wire_id = part.id
            if part.provider_ids:
                self._id_mapped(part, path, message_id)
        self.wire_ids[part.id] = wire_id
        marks = data_of(part.provider_data, self.issuers)
        if part.provider_data is not None and marks is None:
            self._block(part.provider_data, path, "tool_call", message_id)  # reports the loss
        marks = marks or {}
        kind = marks.get("kind")
        if kind == "function_call" and out.function_call is None:
            out.function_call = {"name": part.name, "arguments": part.arguments_json}
            return
        block = as_dict(marks.get("block")) or {}
        inner = as_dict(marks.get("inner")) or {}
        if kind == "custom":
            value = _custom_input(part.arguments_json)
            if value is None:
                self.losses.add(path, "tool_call", "rewritten",
                                "a custom tool call's arguments are not {\"input\": text}; sent as "
                                "the raw text", message_id)
                value = part.arguments_json
            custom = {"name": part.name, "input": value, **{k: v for k, v in inner.items()
                                                             if k not in ("name", "input")}}
            call: dict[str, Any] = {"id": wire_id, "type": "custom", "custom": custom}
        else:
            function = {"name": part.name, "arguments": part.arguments_json,
                        **{k: v for k, v in inner.items() if k not in ("name", "arguments")}}
            call = {"id": wire_id, "type": "function", "function": function}
        out.tool_calls.append({**block, **call} if block else call)

    # -- tool results -----------------------------------------------------------------------

    def _tool(self, message: ToolMessage, i: int) -> None:
        fields = message.__dict__  # see _assistant_fast
        call_id = fields["call_id"]
        wire_id = self.wire_ids.get(call_id)
        if wire_id is None:
            if self.orphan(call_id):
                orphan_loss(self.losses, i, call_id, message.id, "Chat Completions")
                return
            wire_id = self._late_wire_id(call_id)
        text = fields["output_text"]
        if fields["provider_data"] is None and not fields["parts"] and text:
            self.messages.append({"role": "tool", "tool_call_id": wire_id, "content": text})
            if fields["status"] != "success":
                self._status_lost(message, f"history[{i}]")
            return
        path = f"history[{i}]"
        marks = self._marks(message.provider_data)
        text = message.output_text
        if not text and message.data is not None:
            # Nothing else would tell the model what happened: its structured result as JSON.
            text = json.dumps(message.data, ensure_ascii=False)
        if message.status != "success":
            self._status_lost(message, path)
        content: str | list[WirePart] = text
        if marks.get("content") == "parts":
            content = _apply_layout(text, marks.get("layout"))
        if marks.get("role") == "function":
            wire: dict[str, Any] = {"role": "function", "name": message.tool_name, "content": content}
        else:
            wire = {"role": "tool", "tool_call_id": wire_id, "content": content}
        self._emit(self._with_extras(wire, marks))
        for j, part in enumerate(message.parts):
            where = f"{path}.parts[{j}]"
            item = self._part(part, where, message.id)
            if item is not None:
                self.losses.add(where, part.type, "attached",
                                "Chat Completions tool results take text only; sent in a user "
                                "message after the tool results", message.id)
                self.pending.append(item)

    def _status_lost(self, message: ToolMessage, path: str) -> None:
        tool_status_loss(self.losses, path, message.status, message.id, api="Chat Completions",
                         as_error=False)

    def _late_wire_id(self, call_id: str) -> str:
        """The wire id of a call not encoded yet (a result before its call, or an orphan)."""
        if self.calls is None:
            self.calls = tool_calls_by_id(self.history)
        call = self.calls.get(call_id)
        if self.fixed_ids:
            # An orphan result keeps an id the server takes (an imported one); else the digest.
            found = first_accepted(call.provider_ids, self.issuer_order, self.admits) if call \
                else call_id
            return self._fixed_id(call.id if call else call_id, found)
        if call is None:
            return call_id
        return first_accepted(call.provider_ids, self.issuer_order, admits_call_id) or call.id

    def _flush_attachments(self) -> None:
        if self.pending:
            self._emit({"role": "user", "content": self.pending})
            self.pending = []


def _detail_to_wire(part: ThinkingPart | RedactedThinkingPart,
                    marks: Mapping[str, Any] | None) -> dict[str, Any]:
    """One OpenRouter ``reasoning_details`` entry for a reasoning part."""
    extras = as_dict(marks.get("block")) if marks else None
    detail: dict[str, Any] = dict(extras or {})
    if isinstance(part, RedactedThinkingPart):
        detail.update({"type": detail.get("type", "reasoning.encrypted"), "data": part.data.value})
        return detail
    kind = detail.get("type", "reasoning.text")
    detail["type"] = kind
    if kind == "reasoning.summary":
        detail["summary"] = part.text
    else:
        detail["text"] = part.text
        if part.signature is not None:
            detail["signature"] = part.signature.value
    if part.id is not None:
        detail["id"] = part.id
    return detail


def _thinking_chunk(part: ThinkingPart, marks: Mapping[str, Any] | None) -> WirePart:
    """A ``{"type": "thinking"}`` content chunk (Mistral) for a thinking part, cut into text
    chunks as it came (``layout``), with the keys it came with (``block``)."""
    extras = as_dict(marks.get("block")) if marks else None
    layout = marks.get("layout") if marks else None
    inner = _apply_layout(part.text, layout) if layout is not None else [{"type": "text", "text": part.text}]
    chunk: dict[str, Any] = {"type": "thinking", "thinking": inner}
    if part.signature is not None:
        chunk["signature"] = part.signature.value
    if extras:
        chunk.update({k: v for k, v in extras.items() if k not in chunk})
    return chunk


def _custom_input(arguments_json: str) -> str | None:
    try:
        value = json.loads(arguments_json)
    except ValueError:
        return None
    if isinstance(value, dict) and set(value) == {"input"} and isinstance(value["input"], str):
        text: str = value["input"]
        return text
    return None


def _apply_layout(text: str, layout: Any) -> list[WirePart]:
    """Text parts cut as an import recorded them; one part when the text changed since."""
    if isinstance(layout, list) and all(isinstance(n, int) and n >= 0 for n in layout) and (
            sum(layout) == len(text)):
        out: list[WirePart] = []
        pos = 0
        for n in layout:
            out.append({"type": "text", "text": text[pos:pos + n]})
            pos += n
        return out
    return [{"type": "text", "text": text}]
