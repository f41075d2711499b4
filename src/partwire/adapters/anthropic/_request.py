"""Anthropic request bodies read back into canonical form (``from_wire_request``).

Messages are read in order while tracking the turn state the encoder will track
(:func:`default_joins`). Where a request groups blocks into turns differently, gives a lone plain
text as a list, or shapes a tool result's content its own way, the first message concerned
records it in its ``provider_data`` (``turn``, ``content``, ``layout``, ``block``), so
re-encoding gives the request back exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from partwire._base import ProviderData, build, one_field
from partwire._json import load_json
from partwire.adapters._formats import (
    foreign_request,
    refuse_foreign_messages,
    refuse_foreign_request,
)
from partwire.adapters._kernel import at_path, merge_params
from partwire.adapters._losses import LossCollector
from partwire.adapters._provenance import shared_provider_data
from partwire.adapters._reading import imported_request, text_part
from partwire.adapters._turns import TurnPlacement, default_joins, read_messages
from partwire.adapters.anthropic._decode import extras_of, part_from_wire
from partwire.adapters.anthropic._encode import Encoder
from partwire.adapters.anthropic._settings import settings_from_wire, settings_to_wire
from partwire.adapters.anthropic._tools import tool_from_wire, tool_to_wire
from partwire.adapters.anthropic._wire import DEFAULT_MAX_TOKENS, ISSUER
from partwire.adapters.requests import ImportedRequest, ToolSpec
from partwire.errors import WireFormatError
from partwire.history import History, HistoryEvent
from partwire.messages import AssistantMessage, SystemMessage, ToolMessage, UserMessage
from partwire.model_ids import wire_model
from partwire.parts import Part, TextPart, ToolCallPart
from partwire.settings import RequestSettings

if TYPE_CHECKING:
    from partwire.adapters.anthropic import Options

__all__ = ["build_request", "from_wire_request"]

_REQUEST_FIELDS = frozenset({"model", "max_tokens", "messages", "system", "tool_choice"})
_SAMPLING = {"sampling": True}  # the options of a body that sends temperature, top_p or top_k
# Body fields to_wire builds itself even when this body leaves them out; params may not set them.
_BUILT = frozenset({"model", "max_tokens", "messages", "tool_choice"})
_OWN = frozenset({ISSUER})  # the issuers accepted by default
# Messages of parts alone, the commonest the reader makes (build() without its fields dict).
_system_message = one_field(SystemMessage, "parts")
_PARTS_ONLY: dict[type[Any], Callable[[Any], HistoryEvent]] = {
    UserMessage: one_field(UserMessage, "parts"), AssistantMessage: one_field(AssistantMessage, "parts"),
    SystemMessage: _system_message}


def build_request(
    history: History, options: Options, *, model: str | None, tools: Sequence[ToolSpec],
    settings: RequestSettings, native_choice: Mapping[str, Any] | None,
    params: Mapping[str, Any] | None, issuers: Collection[str] | None, losses: LossCollector,
    counting: bool,
) -> dict[str, Any]:
    """The request body ``to_wire`` returns (and ``estimate_input_tokens`` counts): the kernel's
    build hook (``issuers`` ``None`` for Anthropic's own; ``model`` ``None`` when counting)."""
    if issuers is None:
        issuers = _OWN
    # Tools first: their losses are the request's own, before the history's (as a session's
    # projector, which reuses the history's, orders them), and the calls need their names.
    wire_tools: list[Any] = []
    defined: set[Any] = set()  # the tool names a call may name
    for i, tool in enumerate(tools):  # a loop: a comprehension is a call of its own
        wire = tool_to_wire(tool, i, losses, issuers)
        if wire is not None:
            wire_tools.append(wire)
            if isinstance(wire, dict):
                defined.add(wire.get("name"))
    extra = params.get("tools") if params else None
    if isinstance(extra, list):
        defined.update(w.get("name") for w in extra if isinstance(w, dict))
    encoder = Encoder(history, issuers=issuers, losses=losses,
                      foreign_thinking=options.foreign_thinking,
                      system_in_messages=options.system_in_messages,
                      resolve_file=options.resolve_file, defined=defined)
    system, messages = encoder.run()
    limit = settings.max_output_tokens
    request: dict[str, Any] = {"model": wire_model(model if model is not None else f"{ISSUER}:estimate", ISSUER),
                               "max_tokens": DEFAULT_MAX_TOKENS if limit is None else limit}
    if system is not None:
        request["system"] = system
    request["messages"] = messages
    if wire_tools:
        request["tools"] = wire_tools
    settings_to_wire(request, settings, native_choice, losses, issuers=issuers,
                     sampling=options.sampling)
    return merge_params(request, params, built=_BUILT) if params else request


def from_wire_request(request: Any, options: object = None) -> ImportedRequest:
    """A request body read back: history, tools, and every other field for ``to_wire`` (no
    option changes how a request reads)."""
    body = request if type(request) is dict else load_json(request, ISSUER, "request")
    # The body's fields first; its messages only where the reading met one that could hold a
    # sign of another API (a plain text message cannot), or failed: the refusal is the same as
    # when every message was looked at before reading, at a third of the cost.
    if foreign_request(body, "anthropic", messages=False) is not None:
        refuse_foreign_request(body, "anthropic", ISSUER)
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise WireFormatError(ISSUER, "request", "it has no messages list", "messages")
    reader = _RequestReader()
    history: list[HistoryEvent] = []
    try:
        if "system" in body:
            try:
                history.append(reader.system(body["system"]))
            except BaseException as exc:
                raise at_path(exc, ISSUER, "request", "system")  # noqa: B904 (at_path chains it)
        read_messages(reader, messages, history, ISSUER)
    except BaseException:
        refuse_foreign_messages(body, "anthropic", ISSUER)  # a foreign body: refused as such
        raise
    if reader.full:
        refuse_foreign_messages(body, "anthropic", ISSUER)
    params = {k: v for k, v in body.items() if k not in _REQUEST_FIELDS}
    tools: tuple[ToolSpec, ...] = ()
    raw_tools = params.get("tools")
    if isinstance(raw_tools, list) and raw_tools:
        tools = tuple(map(tool_from_wire, params.pop("tools")))
    settings, _native, sampling = settings_from_wire(body, params)
    return imported_request(tuple(history), tools, str(body.get("model", "")),
                            settings.max_output_tokens, body.get("tool_choice"), params,
                            _SAMPLING if sampling else None, settings)


class _RequestReader(TurnPlacement):
    """Reads ``messages`` in order, tracking the turn state the encoder will track.

    Where the request groups messages into turns differently from :func:`default_joins`, or
    gives a lone plain text as a list, the first message concerned records it in its
    ``provider_data`` (``turn``, ``content``), so re-encoding gives the request back exactly.
    """

    def __init__(self) -> None:
        super().__init__()
        self.calls: dict[str, ToolCallPart] = {}
        self.full = False
        """Whether a message went past the plain text path (one that may hold a foreign sign)."""

    def system(self, system: Any) -> SystemMessage:
        if isinstance(system, str):
            return _system_message((text_part(system),))
        if not isinstance(system, list):
            raise WireFormatError(ISSUER, "request", "neither a string nor a list", "system")
        parts = tuple(map(part_from_wire, system))
        if _collapses(system) or not system:
            return build(SystemMessage, {"parts": parts, "provider_data": _marks({"content": "blocks"})})
        return _system_message(parts)

    def message(self, message: dict[str, Any], i: int) -> list[HistoryEvent]:
        role, content = message.get("role"), message.get("content")
        if len(message) == 2 and (role == "user" or role == "assistant"):
            fast = self._text_only(role, content)
            if fast is not None:
                return [fast]
        self.full = True
        if role not in ("user", "assistant", "system"):
            raise WireFormatError(ISSUER, "request", f"role {role!r} is none of user, assistant, system", f"messages[{i}].role")
        if isinstance(content, str):
            blocks: list[Any] = [{"type": "text", "text": content}]
        elif isinstance(content, list):
            blocks = content
        else:
            raise WireFormatError(ISSUER, "request", "neither a string nor a list", f"messages[{i}].content")
        list_marks: dict[str, Any] = {}
        if isinstance(content, list) and _collapses(content):
            list_marks["content"] = "blocks"
        if len(message) > 2 or "content" not in message:  # keys beside role and content
            extra_keys = {k: v for k, v in message.items() if k not in ("role", "content")}
            if extra_keys:
                list_marks["message"] = extra_keys
        if role == "assistant":
            parts = tuple(map(part_from_wire, blocks))
            for part in parts:
                # Exact: part_from_wire makes no subclass, and a missed isinstance on a part
                # class goes through ABCMeta (a text or thinking part, most of them).
                if type(part) is ToolCallPart:
                    self.calls[part.provider_ids[ISSUER]] = part
            return [self._place("assistant", "assistant", True, list_marks, AssistantMessage,
                                {"parts": parts})]
        if role == "system":
            parts = tuple(map(part_from_wire, blocks))
            if self.turn_role is None:
                list_marks["turn"] = "new"  # before any turn: still an entry of messages
            return [self._place("system", "system", True, list_marks, SystemMessage, {"parts": parts})]
        return self._user_turn(blocks, list_marks)

    def _text_only(self, role: str, content: Any) -> HistoryEvent | None:
        """The commonest messages, a string or plain text blocks alone: what the general path
        makes of them, without its walk; ``None`` for any other content."""
        if type(content) is str:
            parts: tuple[TextPart, ...] | None = (text_part(content),)
            marks: dict[str, Any] = {}
        elif type(content) is list:
            parts = _plain_texts(content)
            if parts is None:
                return None
            marks = {"content": "blocks"} if len(parts) == 1 else {}
        else:
            return None
        # _place for a message that opens its own turn (placed() with starts=True), written out:
        # this is the reader's commonest message, and three calls cost as much as its parts.
        if default_joins(role, self.turn_role, self.last_kind):
            marks = {**marks, "turn": "new"}
        self.turn_role = self.last_kind = role
        cls: type[UserMessage | AssistantMessage] = UserMessage if role == "user" else AssistantMessage
        if not marks:
            return _PARTS_ONLY[cls](parts)
        made: HistoryEvent = build(cls, {"parts": parts, "provider_data": _marks(marks)})
        return made

    def _user_turn(self, blocks: list[Any], list_marks: dict[str, Any]) -> list[HistoryEvent]:
        out: list[HistoryEvent] = []
        pending: list[Part] = []
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                if pending:
                    out.append(self._place("user", "user", not out, list_marks if not out else {},
                                           UserMessage, {"parts": tuple(pending)}))
                    pending.clear()
                fields, marks = self._tool_result(block)
                if not out:
                    marks.update(list_marks)
                out.append(self._place("tool", "user", not out, marks, ToolMessage, fields))
            else:
                pending.append(part_from_wire(block))
        if pending or not out:
            out.append(self._place("user", "user", not out, list_marks if not out else {},
                                   UserMessage, {"parts": tuple(pending)}))
        return out

    def _place(self, kind: str, role: str, starts: bool, marks: dict[str, Any],
               cls: type[AssistantMessage | SystemMessage | UserMessage | ToolMessage],
               fields: dict[str, Any]) -> HistoryEvent:
        """The message of ``cls`` made of ``fields`` (already validated), marked where the turn
        it opens or joins differs from the default."""
        pd = _marks(self.placed(kind, role, starts, marks))
        if pd is None and len(fields) == 1 and cls in _PARTS_ONLY:
            return _PARTS_ONLY[cls](fields["parts"])
        event: HistoryEvent = build(cls, {**fields, "provider_data": pd} if pd is not None else fields)
        return event

    def _tool_result(self, block: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        wire_id = block.get("tool_use_id")
        if not isinstance(wire_id, str):
            raise WireFormatError(ISSUER, "request", "a tool_result has no tool_use_id")
        call = self.calls.get(wire_id)
        used = {"type", "tool_use_id", "content"}
        is_error = block.get("is_error") is True
        if is_error:
            used.add("is_error")
        marks: dict[str, Any] = {}
        extras = extras_of(block, used)
        if extras:
            marks["block"] = extras
        text = ""
        parts: tuple[Part, ...] = ()
        content = block.get("content")
        if isinstance(content, str):
            text = content
            if not content:
                marks["content"] = "string"  # the default for empty output is to omit content
        elif isinstance(content, list):
            text, parts, layout = _tool_content_from_wire(content)
            default = ([len(text)] if text else []) + [None] * len(parts)
            if not parts or layout != default:
                marks["content"] = "blocks"
                marks["layout"] = layout
        elif "content" in block:
            marks.setdefault("block", {})["content"] = content
        fields = {
            "call_id": call.id if call is not None else wire_id,
            "tool_name": call.name if call is not None else "",
            "status": "error" if is_error else "success",
            "output_text": text,
            "parts": parts,
        }
        return fields, marks


def _tool_content_from_wire(content: list[Any]) -> tuple[str, tuple[Part, ...], list[Any]]:
    """Text, attachments and the layout that puts them back in order.

    The layout has one entry per block: the length of a plain text block, ``{"n": length,
    "block": extras}`` for a text block with extras, ``None`` for the next attachment.
    """
    texts: list[str] = []
    parts: list[Part] = []
    layout: list[Any] = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
            extras = extras_of(block, {"type", "text"})
            layout.append({"n": len(block["text"]), "block": extras} if extras else len(block["text"]))
        else:
            parts.append(part_from_wire(block))
            layout.append(None)
    return "".join(texts), tuple(parts), layout


def _plain_texts(content: list[Any]) -> tuple[TextPart, ...] | None:
    """The parts of a list of plain ``{"type": "text", "text": str}`` blocks; ``None`` when it is
    empty or holds anything else."""
    parts: list[TextPart] = []
    for block in content:
        if type(block) is not dict or len(block) != 2 or block.get("type") != "text":
            return None
        text = block.get("text")
        if type(text) is not str:
            return None
        parts.append(text_part(text))
    return tuple(parts) if parts else None


def _collapses(content: list[Any]) -> bool:
    """Whether the encoder would send this list as a plain string (one plain text block)."""
    if len(content) != 1:
        return False
    block = content[0]
    return isinstance(block, dict) and len(block) == 2 and block.get("type") == "text" and "text" in block


def _marks(marks: dict[str, Any]) -> ProviderData | None:
    return shared_provider_data(ISSUER, marks) if marks else None
