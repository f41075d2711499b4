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
object; ``data``: the output or error was JSON, not text), ``inner`` / ``extra`` (keys inside / beside ``functionResponse``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, assert_never

from partwire._json import parse_object
from partwire.adapters._calls import OrphanCheck, orphan_loss
from partwire.adapters._losses import LossCollector, tool_status_loss
from partwire.adapters._provenance import first_accepted
from partwire.adapters.google._parts import _CHECKED, PartEncoder, base64_ok, kind_of
from partwire.adapters.google._wire import (
    ADMITTED,
    ISSUER,
    OWN_ISSUERS,
    PLACEHOLDER_SIGNATURE,
    admits_call_id,
    shape,
)
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
    Base64Source,
    DocumentPart,
    ImagePart,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    UnknownPart,
)

__all__ = ["Encoder"]

_SIGNED_ONLY = frozenset({"thoughtSignature", "model", "no_id"})
_OWN_ORDER = [ISSUER]  # the issuer order of the default issuers (never changed)
_FOREIGN_THOUGHT = "reasoning is verifiable only by the provider that produced it"
"""The loss of a thought another issuer signed (as :meth:`PartEncoder._thinking` says it)."""
_MISSING: Any = object()
"""A call id the history has no call for."""

# The body's commonest objects, made by copying a template (see shape(): a copy holds only its
# values, about half a dict literal's weight). Every key of a template is set on each copy.
_new_content = shape("role", "parts").copy
_new_text = shape("text").copy
_new_thought = shape("text", "thought", "thoughtSignature").copy
_new_call_part = shape("functionCall").copy
_new_signed_call_part = shape("functionCall", "thoughtSignature").copy
_new_call = shape("id", "name", "args").copy
_new_call_no_id = shape("name", "args").copy
_new_result_part = shape("functionResponse").copy
_new_result = shape("id", "name", "response").copy
_new_result_no_id = shape("name", "response").copy
_new_output = shape("output").copy
_new_error = shape("error").copy
_new_inline_part = shape("inlineData").copy
_new_blob = shape("mimeType", "data").copy


class Encoder(PartEncoder):
    """Projects one history onto ``contents``; :meth:`run` returns them, losses go to ``losses``."""

    # Slots: one is made per request, and its fields are read in every loop of the walk.
    __slots__ = ("call_order", "contents", "history", "issuer_order", "orphan", "own_only",
                 "require_signatures", "run_idless", "run_ids", "run_parts", "run_start",
                 "started", "system", "turn", "wire_ids")

    def __init__(self, history: History, *, issuers: Collection[str], model: str, losses: LossCollector,
                 require_signatures: bool) -> None:
        super().__init__(issuers=issuers, model=model, losses=losses)
        self.history = history
        own = ISSUER
        self.issuer_order = _OWN_ORDER if self.issuers == OWN_ISSUERS else (
            ([own] if own in self.issuers else []) + sorted(self.issuers - {own}))
        self.require_signatures = require_signatures
        self.contents: list[dict[str, Any]] = []
        self.system: dict[str, Any] | None = None
        self.started = False
        # Canonical call id -> the id its functionCall went with (None: sent without one).
        self.wire_ids: dict[str, str | None] = {}
        # Canonical call id -> (position in its model turn, turn number), for ordering results.
        self.call_order: dict[str, tuple[int, int]] = {}
        self.turn = 0
        self.orphan = OrphanCheck(history)
        # The open run of tool results: the parts list of its content (results go straight in),
        # where this run's results start in it, and their call ids in order, to sort them into
        # call order when the run closes (only when a call of theirs went without an id).
        self.run_parts: list[dict[str, Any]] | None = None
        self.run_start = 0
        self.run_ids: list[str] = []
        self.run_idless = False
        self.own_only = self.issuer_order == _OWN_ORDER

    def run(self) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """The wire contents and the system instruction of the whole history."""
        # The hot path of every request: isinstance() on a pydantic model and a match over
        # classes cost more than the work on a plain tool result, so exact types go straight to
        # their method, fields are read from __dict__, and the plain result is encoded inline.
        event_of = self.event
        wire_ids = self.wire_ids
        contents = self.contents
        missing = _MISSING
        new_output, new_error, new_result, new_result_no_id, new_result_part, new_content = (
            _new_output, _new_error, _new_result, _new_result_no_id, _new_result_part, _new_content)
        for i, event in enumerate(self.history):
            kind = type(event)
            if kind is ToolMessage:
                fields = event.__dict__
                call_id = fields["call_id"]
                wire_id = wire_ids.get(call_id, missing)
                status = fields["status"]
                if wire_id is not missing and fields["provider_data"] is None \
                        and not fields["parts"] and (status == "success" or status == "error"):
                    text = fields["output_text"]
                    if not text and fields["data"] is not None:
                        text = fields["data"]
                    if status == "success":
                        response = new_output()
                        response["output"] = text
                    else:
                        response = new_error()
                        response["error"] = text
                    if wire_id is not None:
                        body = new_result()
                        body["id"] = wire_id
                    else:
                        body = new_result_no_id()
                    body["name"] = fields["tool_name"]
                    body["response"] = response
                    wire = new_result_part()
                    wire["functionResponse"] = body
                    run = self.run_parts
                    if run is None:  # _add_result with no marks: a new user content
                        run = self.run_parts = [wire]
                        content = new_content()
                        content["role"] = "user"
                        content["parts"] = run
                        contents.append(content)
                        self.run_start = 0
                        self.run_ids = [call_id]
                        self.run_idless = wire_id is None
                    else:
                        run.append(wire)
                        self.run_ids.append(call_id)
                        if wire_id is None:
                            self.run_idless = True
                    self.started = True
                    continue
            elif kind is AssistantMessage:
                if self.run_parts is not None:
                    if self.run_idless:
                        self._close_run()
                    else:  # results in the order they came: nothing to sort
                        self.run_parts = None
                self._assistant(event, i)  # type: ignore[arg-type]
                self.started = True
                continue
            elif kind is UserMessage:
                fields = event.__dict__
                parts = self._plain_parts(fields["parts"]) if fields["provider_data"] is None else None
                if parts is not None:
                    if self.run_parts is not None:
                        self._close_run()
                    content = new_content()
                    content["role"] = "user"
                    content["parts"] = parts
                    contents.append(content)
                    self.started = True
                    continue
            event_of(event, i)
        self._close_run()
        return self.contents, self.system

    @staticmethod
    def _plain_parts(parts: tuple[Part, ...]) -> list[dict[str, Any]] | None:
        """The wire parts of user content with nothing to report (text, inline media); else None."""
        out: list[dict[str, Any]] = []
        for part in parts:
            kind = type(part)
            pf = part.__dict__
            if pf["provider_data"] is not None:
                return None
            if kind is TextPart:
                wire = _new_text()
                wire["text"] = pf["text"]
                out.append(wire)
            elif kind is ImagePart or kind is AudioPart:
                source, mime = pf["source"], pf["media_type"]
                if type(source) is not Base64Source or not mime or kind_of(mime) != pf["type"]:
                    return None
                blob = _new_blob()
                blob["mimeType"] = mime
                blob["data"] = source.__dict__["data"]
                wire = _new_inline_part()
                wire["inlineData"] = blob
                out.append(wire)
            else:
                return None
        return out if out else None

    def event(self, event: HistoryEvent, i: int) -> None:
        """Append the wire content of one history event."""
        path = f"history[{i}]"
        if type(event) is SystemMessage:  # exact: no class pattern tried (each a metaclass call)
            self._system(event, path)
            return
        match event:
            case ToolMessage():
                if event.call_id not in self.wire_ids and self.orphan(event.call_id):
                    orphan_loss(self.losses, i, event.call_id, event.id, "Gemini")
                    return
                self._tool(event, path)
                self.started = True
            case AssistantMessage():
                self._close_run()
                self._assistant(event, i)
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
            case NonMessageEvent():
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

    def _assistant(self, event: AssistantMessage, i: int) -> None:
        self.turn += 1
        turn = self.turn
        parts: list[dict[str, Any]] = []
        append = parts.append
        position = 0
        own = self.own_only
        issuers = self.issuers
        same = self._same
        wire_ids = self.wire_ids
        checked = _CHECKED
        admitted = ADMITTED
        first_call = -1
        first_j = 0
        new_call, new_call_no_id, new_call_part, new_text = (
            _new_call, _new_call_no_id, _new_call_part, _new_text)
        fields = event.__dict__
        message_id = fields["id"]
        for j, part in enumerate(fields["parts"]):
            kind = type(part)
            pf = part.__dict__
            if kind is ToolCallPart:
                ids = pf["provider_ids"]
                wire_id = None
                if own and ids:
                    wire_id = ids.get(ISSUER)
                    if wire_id is None:  # first_accepted inline: another issuer's id Gemini admits
                        for value in ids.values():
                            if admitted.get(value) or admits_call_id(value):
                                wire_id = value
                                break
                if wire_id is None:
                    wire_id = self._wire_id(part, i, j, message_id)
                canonical = pf["id"]
                wire_ids[canonical] = wire_id
                if wire_id is None:  # only results of calls without ids are put in call order
                    self.call_order[canonical] = (turn, position)
                position += 1
                if first_call < 0:
                    first_call = len(parts)
                    first_j = j
                # Inline, the common call: compact JSON object arguments, and no provider data
                # or only a signature this model may take back. Anything else takes call().
                text = pf["arguments_json"]
                call: dict[str, Any] | None
                if text:
                    args = parse_object(text)
                    if args is None:
                        call = None
                    else:
                        if wire_id is not None:
                            call = new_call()
                            call["id"] = wire_id
                        else:
                            call = new_call_no_id()
                        call["name"] = pf["name"]
                        call["args"] = args
                else:
                    call = {"id": wire_id, "name": pf["name"]} if wire_id is not None \
                        else {"name": pf["name"]}
                if call is not None:
                    pd = pf["provider_data"]
                    if pd is None:
                        wire = new_call_part()
                        wire["functionCall"] = call
                        append(wire)
                        continue
                    pdf = pd.__dict__
                    data = pdf["data"]
                    if type(data) is dict and pdf["issuer"] in issuers \
                            and _SIGNED_ONLY.issuperset(data):
                        sig = data.get("thoughtSignature")
                        issued_by = data.get("model")
                        if type(sig) is str and (checked.get(sig) or base64_ok(sig)) \
                                and (same.get(issued_by) or self.same_model(issued_by)):
                            wire = _new_signed_call_part()
                            wire["functionCall"] = call
                            wire["thoughtSignature"] = sig
                            append(wire)
                            continue
                append(self.call(part, wire_id, f"history[{i}].parts[{j}]", message_id))
                continue
            if kind is TextPart and pf["provider_data"] is None:
                wire = new_text()
                wire["text"] = pf["text"]
                append(wire)
                continue
            if kind is ThinkingPart:
                sig = pf["signature"]
                if sig is not None:
                    sf = sig.__dict__
                    if sf["issuer"] not in issuers:  # as _thinking: another issuer's reasoning
                        self.losses.add(f"history[{i}].parts[{j}]", "thinking", "dropped",
                                        _FOREIGN_THOUGHT, message_id)
                        continue
                    value = sf["value"]
                    if pf["provider_data"] is None \
                            and (same.get(sf["model"]) or self.same_model(sf["model"])) \
                            and (checked.get(value) or base64_ok(value)):
                        wire = _new_thought()
                        wire["text"] = pf["text"]
                        wire["thought"] = True
                        wire["thoughtSignature"] = value
                        append(wire)
                        continue
                other = self._thinking(part, f"history[{i}].parts[{j}]", message_id)
                if other is not None:
                    append(other)
                continue
            other = self.part(part, f"history[{i}].parts[{j}]", message_id)
            if other is not None:
                append(other)
        if not parts:
            if event.parts:
                self.losses.add(f"history[{i}]", "assistant_message", "dropped",
                                "none of its parts can be sent, and Gemini rejects an empty "
                                "content", event.id)
            return
        if first_call >= 0 and self.require_signatures and "thoughtSignature" not in parts[first_call]:
            parts[first_call]["thoughtSignature"] = PLACEHOLDER_SIGNATURE
            self.losses.add(f"history[{i}].parts[{first_j}]", "tool_call", "rewritten",
                            f"{self.model} requires a thought signature on the first function "
                            "call of a turn and none valid for it was kept; sent with Google's "
                            "placeholder signature", message_id)
        if fields["provider_data"] is None:
            content = _new_content()
            content["role"] = "model"
            content["parts"] = parts
            self.contents.append(content)
        else:
            self._content("model", parts, self._marks(event))

    def _wire_id(self, part: ToolCallPart, i: int, j: int, message_id: str) -> str | None:
        """The id the call at ``history[i].parts[j]`` goes with (``None``: sent without one)."""
        ids = part.provider_ids
        if ids:
            accepted = first_accepted(ids, self.issuer_order, admits_call_id)
            if accepted is not None:
                return accepted
            self.losses.add(f"history[{i}].parts[{j}]", "tool_call", "id_mapped",
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
        self._add_result(event.call_id, self._function_response(event, path, marks), marks)

    def _add_result(self, call_id: str, response: dict[str, Any],
                    marks: Mapping[str, Any]) -> None:
        run = self.run_parts
        if run is None:
            last = self.contents[-1] if self.contents else None
            if marks.get("join") and last is not None and last.get("role", "user") == "user":
                content = last
            else:
                content = {"role": "user", "parts": []}
                extra = marks.get("content")
                if isinstance(extra, dict):
                    for key, value in extra.items():
                        if value is None:
                            content.pop(key, None)
                        else:
                            content[key] = value
                self.contents.append(content)
            run = self.run_parts = content["parts"]
            self.run_start = len(run)
            self.run_ids = []
            self.run_idless = False
        run.append(response)
        self.run_ids.append(call_id)
        if self.wire_ids.get(call_id, "") is None:
            self.run_idless = True

    def _close_run(self) -> None:
        run = self.run_parts
        if run is None:
            return
        self.run_parts = None
        # Without ids Gemini pairs results with calls by order and name: put them in call order.
        if self.run_idless:
            far = (1 << 30, 0)
            order = self.call_order
            start = self.run_start
            pairs = sorted(zip(self.run_ids, run[start:], strict=True),
                           key=lambda item: order.get(item[0], far))
            run[start:] = [wire for _, wire in pairs]

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
        shape = marks.get("shape")
        if shape == "whole" and isinstance(data, dict):
            body["response"] = data
        else:
            # The text is what the model is told; structured data only when there is no text,
            # or when the imported response held an object.
            value = data if shape == "data" or (not event.output_text and data is not None) \
                else event.output_text
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
                self.unknown_name(part, where, event.id)
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
