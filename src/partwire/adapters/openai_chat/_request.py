"""OpenAI Chat request bodies: assembled for ``to_wire``, and read back (``from_wire_request``).

Messages are read in order; each is re-encoded at once, and where its default wire form differs
from the one read (a lone text as a list, a tool result's content shape), the message records it
in its ``provider_data`` so re-encoding gives the request back exactly.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from partwire._base import build, one_field
from partwire._json import load_json
from partwire.adapters._formats import (
    foreign_request,
    refuse_foreign_messages,
    refuse_foreign_request,
)
from partwire.adapters._kernel import at_path, merge_params
from partwire.adapters._losses import LossCollector
from partwire.adapters._reading import imported_request, text_part
from partwire.adapters.openai_chat._decode import (
    assistant_content_from_wire,
    content_from_wire,
    extras_of,
    pd_of,
    reasoning_from_wire,
    tool_call_from_wire,
)
from partwire.adapters.openai_chat._dialects import Dialect, get_dialect
from partwire.adapters.openai_chat._encode import Encoder
from partwire.adapters.openai_chat._settings import settings_from_wire, settings_to_wire
from partwire.adapters.openai_chat._tools import (
    WEB_SEARCH_FIELD,
    tool_from_wire,
    tools_to_wire,
    web_search_from_wire,
)
from partwire.adapters.openai_chat._wire import API
from partwire.adapters.requests import ImportedRequest, ToolSpec
from partwire.errors import WireFormatError
from partwire.history import History, HistoryEvent
from partwire.ids import new_tool_call_id
from partwire.messages import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from partwire.model_ids import wire_model
from partwire.parts import AudioPart, Part, ProviderFileSource, RefusalPart, ToolCallPart
from partwire.settings import RequestSettings

if TYPE_CHECKING:
    from partwire.adapters.openai_chat import Options

__all__ = ["build_request", "from_wire_request"]

_REQUEST_FIELDS = frozenset({"model", "messages", "tools", "tool_choice"})
_FAST_KEYS = frozenset({"role", "content", "tool_calls"})
# Assistant keys the full read interprets (with the dialect's reasoning fields): a message with
# one is not read fast.
_READ_KEYS = frozenset({"refusal", "audio", "function_call", "reasoning_details"})
# Messages of parts alone, the commonest the reader makes (build() without its fields dict).
_user_message = one_field(UserMessage, "parts")
_system_message = one_field(SystemMessage, "parts")
_assistant_message = one_field(AssistantMessage, "parts")


def build_request(
    history: History, options: Options, *, model: str | None, tools: Sequence[ToolSpec],
    settings: RequestSettings, native_choice: Mapping[str, Any] | str | None,
    params: Mapping[str, Any] | None, issuers: Collection[str] | None, losses: LossCollector,
    counting: bool,
) -> dict[str, Any]:
    """The request body ``to_wire`` returns (and ``estimate_input_tokens`` counts): the kernel's
    build hook (``issuers`` ``None`` for the dialect's own; ``model`` ``None`` when counting)."""
    dialect = get_dialect(options.dialect)
    if issuers is None:
        issuers = {dialect.issuer}
    encoder = Encoder(history, dialect=dialect, issuers=issuers, losses=losses,
                      developer_role=options.developer_role,
                      echo_reasoning=options.echo_reasoning, resolve_file=options.resolve_file)
    name = wire_model(model if model is not None else f"{dialect.issuer}:estimate", dialect.issuer)
    # Tools first: their losses are the request's own, before the history's (as a session's
    # projector, which reuses the history's, orders them).
    wire_tools, search = tools_to_wire(tools, losses, issuers, dialect.issuer,
                                       web_search=dialect.name == "openai") if tools else ([], None)
    request: dict[str, Any] = {"model": name, "messages": encoder.run()}
    if wire_tools:
        request["tools"] = wire_tools
    if search is not None:
        request[WEB_SEARCH_FIELD] = search
    settings_to_wire(request, settings, native_choice, losses, dialect=dialect, model=name,
                     issuers=issuers)
    return merge_params(request, params) if params else request


def from_wire_request(request: Any, options: Options) -> ImportedRequest:
    """A request body (or a stored list of messages) read back, as ``options.dialect`` writes
    it: history, tools and the rest."""
    dialect = get_dialect(options.dialect)
    if isinstance(request, list):
        request = {"messages": request}
    body = request if type(request) is dict else load_json(request, API, "request")
    # The body's fields first; its messages only where the reading met one that could hold a
    # sign of another API (a plain text, tool result or assistant message cannot), or failed: the
    # refusal is the same as when every message was looked at before reading.
    if foreign_request(body, "openai_chat", messages=False) is not None:
        refuse_foreign_request(body, "openai_chat", API)
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise WireFormatError(API, "request", "it has no messages list", "messages")
    reader = _RequestReader(dialect)
    history: list[HistoryEvent] = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            refuse_foreign_messages(body, "openai_chat", API)  # a foreign body: refused as such
            raise WireFormatError(API, "request", "not an object", f"messages[{i}]")
        try:
            history.append(reader.message(message, i))
        except BaseException as exc:
            refuse_foreign_messages(body, "openai_chat", API)
            raise at_path(exc, API, "request", f"messages[{i}]")  # noqa: B904 (at_path chains it)
    if reader.full:
        refuse_foreign_messages(body, "openai_chat", API)
    params = {k: v for k, v in body.items() if k not in _REQUEST_FIELDS}
    settings = settings_from_wire(body, params, dialect)
    tools: tuple[ToolSpec, ...] = ()
    raw_tools = body.get("tools")
    if isinstance(raw_tools, list):
        tools = tuple([tool_from_wire(t, dialect.issuer) for t in raw_tools])
        if not raw_tools:
            params["tools"] = []  # an explicit empty list is kept as it was
    elif "tools" in body:
        params["tools"] = raw_tools
    search = web_search_from_wire(params[WEB_SEARCH_FIELD], dialect.issuer) \
        if WEB_SEARCH_FIELD in params and dialect.name == "openai" else None
    if search is not None:
        del params[WEB_SEARCH_FIELD]
        tools = (*tools, search)
    return imported_request(
        tuple(history), tools, str(body.get("model", "")), settings.max_output_tokens,
        body.get("tool_choice"), params,
        # Re-exported under the dialect it was read as, with the reasoning of every turn it holds.
        {"dialect": dialect.name, "echo_reasoning": "all"}, settings,
    )


class _RequestReader:
    """Reads ``messages`` in order; every message records what its wire form needs to come back.

    Each message is re-encoded right away: when the default form differs from the wire (a lone
    text as a list, an omitted content), the marks that restore it are added.
    """

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.issuer = dialect.issuer
        self.calls: dict[str, ToolCallPart] = {}
        self.legacy: dict[str, ToolCallPart] = {}
        self.by_id: dict[str, ToolCallPart] = {}  # every call read so far, by canonical id
        self.encoder: Encoder | None = None  # made for the first message that needs settling
        self.full = False
        """Whether a message went past the plain paths (text, a tool result, an assistant text
        with typed function calls): one that may hold a foreign sign."""

    def message(self, message: dict[str, Any], i: int) -> HistoryEvent:
        """The history event for ``messages[i]``, marked so that it encodes back to ``message``."""
        role = message.get("role")
        content = message.get("content")
        if type(content) is str and len(message) == 2 and role in ("user", "system"):
            # The common case, which the encoder sends back as it came (_plain_fast): no marks
            # to settle.
            parts = (text_part(content),)
            return _user_message(parts) if role == "user" else _system_message(parts)
        # The common tool result and assistant message, which the encoder sends back as they
        # came: no marks to settle.
        if role == "tool" and type(content) is str:
            tool = self._tool_fast(message, content)
            if tool is not None:
                return tool
        elif role == "assistant" and (content is None or type(content) is str):
            assistant = self._assistant_fast(message, content)
            if assistant is not None:
                if not message.keys() <= _FAST_KEYS:
                    self.full = True  # keys beside its calls ride along, and may be a sign
                return assistant
        self.full = True
        if role in ("user", "system", "developer"):
            event = self._plain(message, role)
        elif role == "assistant":
            event = self._assistant(message)
        elif role in ("tool", "function"):
            event = self._tool(message, role)
        else:
            raise WireFormatError(API, "request", f"role {role!r} is none of system, developer, user, assistant, tool, function", f"messages[{i}].role")
        return self._settle(event, message)

    def _tool_fast(self, message: dict[str, Any], content: str) -> ToolMessage | None:
        """A text result of a call read already, and nothing else; ``None`` for any other."""
        wire_id = message.get("tool_call_id")
        call = self.calls.get(wire_id) if type(wire_id) is str else None
        if call is None or len(message) != 3 or not content:
            return None
        return build(ToolMessage, {"call_id": call.id, "tool_name": call.name, "output_text": content})

    def _assistant_fast(self, message: dict[str, Any], content: str | None) -> AssistantMessage | None:
        """The common assistant message (text, plain function calls, keys partwire has no field
        for), which the encoder sends back as it came; ``None`` for any other (read and settled
        in full)."""
        calls = message.get("tool_calls")
        marks: dict[str, Any] = {}
        if len(message) != (3 if "tool_calls" in message else 2) - ("content" not in message):
            # Other keys (annotations, a server's own) ride along as the message's extras; a key
            # the full read interprets (refusal, audio, reasoning) takes the full read.
            extra = {k: v for k, v in message.items() if k not in _FAST_KEYS}
            if not extra.keys().isdisjoint(_READ_KEYS) or not extra.keys().isdisjoint(
                    self.dialect.reasoning_fields):
                return None
            marks["message"] = extra
        if "content" not in message:
            marks["content"] = "absent"
        parts: list[Part] = [text_part(content)] if content is not None else []
        if calls is not None:
            if type(calls) is not list or not calls:
                return None
            issuer = self.issuer
            for wire in calls:
                if type(wire) is not dict or len(wire) != 3 or wire.get("type") != "function":
                    return None
                wire_id, function = wire.get("id"), wire.get("function")
                if type(wire_id) is not str or not wire_id or type(function) is not dict \
                        or len(function) != 2:
                    return None
                name, arguments = function.get("name"), function.get("arguments")
                if type(name) is not str or type(arguments) is not str:
                    return None
                parts.append(build(ToolCallPart, {"id": new_tool_call_id(), "name": name,
                                                  "arguments_json": arguments,
                                                  "provider_ids": {issuer: wire_id}}))
        if not parts:
            return None  # an empty message: the marks that keep it are settled in full
        for part in parts:
            if type(part) is ToolCallPart:
                self.calls[part.provider_ids[self.issuer]] = part
                self.by_id[part.id] = part
        if marks:
            return build(AssistantMessage, {"parts": tuple(parts),
                                            "provider_data": pd_of(self.issuer, marks)})
        return _assistant_message(tuple(parts))

    def _content(self, content: Any) -> tuple[Part, ...]:
        if isinstance(content, str):
            return (text_part(content),)
        if isinstance(content, list):
            return tuple(content_from_wire(content, self.issuer))
        return ()

    def _marks(self, message: Mapping[str, Any], used: set[str]) -> dict[str, Any]:
        marks: dict[str, Any] = {}
        extra = extras_of(message, used)
        if extra:
            marks["message"] = extra
        if "content" not in message:
            marks["content"] = "absent"
        elif message["content"] is None and message.get("role") != "assistant":
            marks["content"] = "null"
        return marks

    def _plain(self, message: dict[str, Any], role: str) -> HistoryEvent:
        content = message.get("content")
        marks = self._marks(message, {"role", "content"})
        if content is not None and not isinstance(content, str | list):
            marks.setdefault("message", {})["content"] = content
            marks["content"] = "absent"
        parts = self._content(content)
        pd = pd_of(self.issuer, marks)
        fields = {"parts": parts, "provider_data": pd}
        if role == "user":
            return build(UserMessage, fields)
        if role == "system":
            return build(SystemMessage, fields)
        return build(DeveloperMessage, fields)

    def _assistant(self, message: dict[str, Any]) -> AssistantMessage:
        used = {"role", "content"}
        parts, reasoning_used = reasoning_from_wire(message, self.dialect)
        used |= reasoning_used
        content = message.get("content")
        parts.extend(assistant_content_from_wire(content, self.dialect) if isinstance(content, list)
                     else self._content(content))
        marks = self._marks(message, used)
        refusal = message.get("refusal")
        if isinstance(refusal, str):
            parts.append(RefusalPart(text=refusal))
            used.add("refusal")
            if isinstance(content, list):
                marks["refusal"] = "field"
        audio = message.get("audio")
        if isinstance(audio, dict) and set(audio) == {"id"} and isinstance(audio["id"], str):
            parts.append(AudioPart(source=ProviderFileSource(file_id=audio["id"], issuer=self.issuer)))
            used.add("audio")
        function_call = message.get("function_call")
        if isinstance(function_call, dict) and set(function_call) == {"name", "arguments"} and all(
                isinstance(v, str) for v in function_call.values()):
            call = ToolCallPart(id=new_tool_call_id(), name=function_call["name"],
                                arguments_json=function_call["arguments"],
                                provider_data=pd_of(self.issuer, {"kind": "function_call"}))
            self.legacy[call.name] = call
            self.by_id[call.id] = call
            parts.append(call)
            used.add("function_call")
        calls = message.get("tool_calls")
        if isinstance(calls, list) and calls:
            for wire in calls:
                part = tool_call_from_wire(wire, self.issuer)
                if isinstance(part, ToolCallPart) and self.issuer in part.provider_ids:
                    self.calls[part.provider_ids[self.issuer]] = part
                    self.by_id[part.id] = part
                parts.append(part)
            used.add("tool_calls")
        if content is not None and not isinstance(content, str | list):
            used.discard("content")
            marks["content"] = "absent"
        extra = extras_of(message, used)
        if extra:
            marks["message"] = extra
        else:
            marks.pop("message", None)
        return build(AssistantMessage, {"parts": tuple(parts), "provider_data": pd_of(self.issuer, marks)})

    def _tool(self, message: dict[str, Any], role: str) -> ToolMessage:
        used = {"role", "content"}
        marks: dict[str, Any] = {}
        if role == "function":
            used.add("name")
            marks["role"] = "function"
            name = message.get("name")
            call = self.legacy.get(name) if isinstance(name, str) else None
            call_id = call.id if call is not None else ""
            tool_name = name if isinstance(name, str) else ""
        else:
            wire_id = message.get("tool_call_id")
            if not isinstance(wire_id, str):
                raise WireFormatError(API, "request", "a tool message has no tool_call_id")
            used.add("tool_call_id")
            call = self.calls.get(wire_id)
            call_id = call.id if call is not None else wire_id
            tool_name = call.name if call is not None else ""
        content = message.get("content")
        text = ""
        if isinstance(content, str):
            text = content
        elif isinstance(content, list) and all(
                isinstance(p, dict) and set(p) == {"type", "text"} and p["type"] == "text"
                and isinstance(p["text"], str) for p in content):
            text = "".join(p["text"] for p in content)
            marks["content"] = "parts"
            marks["layout"] = [len(p["text"]) for p in content]
        else:
            used.discard("content")
        extra = extras_of(message, used)
        if extra:
            marks["message"] = extra
        return build(ToolMessage, {"call_id": call_id, "tool_name": tool_name, "output_text": text,
                                   "provider_data": pd_of(self.issuer, marks)})

    def _settle(self, event: HistoryEvent, wire: dict[str, Any]) -> HistoryEvent:
        """``event`` with the marks that make the encoder give ``wire`` back, where some do."""
        if self._encode(event) == [wire]:
            return event
        pd = getattr(event, "provider_data", None)
        marks = dict(pd.data) if pd is not None and isinstance(pd.data, dict) else {}
        # A lone text sent as a list; a list with the refusal in its field; an assistant message
        # with nothing in it (kept because the request had it).
        # A developer message where the dialect sends developer messages as system ones.
        for extra in ({"content": "parts"}, {"content": "parts", "refusal": "field"},
                      {"content": "null"}, {"role": "developer"},
                      {"role": "developer", "content": "parts"}):
            candidate = event.model_copy(update={"provider_data": pd_of(self.issuer, {**marks, **extra})})
            if self._encode(candidate) == [wire]:
                return candidate
        return event

    def _encode(self, event: HistoryEvent) -> list[Any]:
        encoder = self.encoder
        if encoder is None:
            encoder = self.encoder = Encoder((), dialect=self.dialect, issuers={self.issuer},
                                             losses=LossCollector(API), echo_reasoning="all")
        encoder.messages = []
        encoder.pending = []
        encoder.losses = LossCollector(API)
        encoder.wire_ids = {}
        encoder.calls = self.by_id
        encoder.event(event, 0)
        encoder._flush_attachments()
        return list(encoder.messages)
