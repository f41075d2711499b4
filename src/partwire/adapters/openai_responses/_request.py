"""Request bodies: the assembly ``to_wire`` sends, with its two continuation modes, and the import.

Continuation (``Options.continuation``):

- ``stateless`` (the default): every item is sent, with ``store: false`` and
  ``include: ["reasoning.encrypted_content"]``; works with zero data retention and everywhere.
- ``chained``: ``previous_response_id`` of the last assistant message, when OpenAI answered it
  and stored it; only the events after it are sent (``instructions`` too: they are not
  inherited). A chain that cannot be used falls back to sending every item, says so as a loss,
  and still stores the response, so the chain resumes on the next turn.
- ``none``: the items as they are, and nothing else; ``store``, ``include`` and
  ``previous_response_id`` come from ``params``. An imported request re-exports this way.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from partwire._base import build, one_field
from partwire._json import SHAPE_ERRORS, fields_key, load_json
from partwire._memo import memo
from partwire.adapters._formats import refuse_foreign_request
from partwire.adapters._kernel import at_path
from partwire.adapters._losses import LossCollector
from partwire.adapters._reading import imported_request, plain_text_part, text_part
from partwire.adapters._tool_import import all_canonical
from partwire.adapters.openai_responses._decode import item_parts
from partwire.adapters.openai_responses._encode import Encoder
from partwire.adapters.openai_responses._parts import input_part_from_wire, marks_pd
from partwire.adapters.openai_responses._settings import (
    SETTING_KEYS,
    settings_read,
    settings_to_wire,
)
from partwire.adapters.openai_responses._tools import tool_from_wire, tool_to_wire
from partwire.adapters.openai_responses._wire import (
    API,
    INCLUDE_REASONING,
    ISSUER,
)
from partwire.adapters.requests import ImportedRequest, ToolSpec
from partwire.errors import ArgumentError, WireFormatError
from partwire.history import History, HistoryEvent
from partwire.messages import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from partwire.model_ids import wire_model
from partwire.parts import Part, TextPart, ToolCallPart, UnknownPart
from partwire.settings import RequestSettings

if TYPE_CHECKING:
    from partwire.adapters.openai_responses import Options

__all__ = ["build_request", "chain_start", "from_wire_request"]

_REQUEST_FIELDS = frozenset({"model", "input", "instructions", "tools", "tool_choice",
                             "max_output_tokens"})


# -- to_wire --------------------------------------------------------------------------------


def chain_start(history: History, issuers: Collection[str]) -> tuple[int, str | None, str | None]:
    """Where a chained request starts: ``(first event to send, previous_response_id, why not)``.

    The chain continues from the last assistant message when OpenAI's Responses API answered it,
    its response id is known and the response was stored. Otherwise every event is sent and
    the third value says why (``None`` when there is no earlier answer: a first turn).
    """
    for i in range(len(history) - 1, -1, -1):
        event = history[i]
        if type(event) is not AssistantMessage:
            continue
        assert isinstance(event, AssistantMessage)
        if event.api != API or (event.provider or ISSUER) not in issuers:
            return 0, None, (f"the last answer came from {event.provider or 'another provider'} "
                             f"({event.api or 'unknown API'}), not from OpenAI's Responses API")
        if event.response_id is None:
            return 0, None, "the last answer has no response id"
        pd = event.provider_data
        response = pd.data.get("response") if pd is not None and pd.issuer in issuers and isinstance(
            pd.data, dict) else None
        if isinstance(response, dict) and response.get("store") is False:
            return 0, None, "the last answer's response was not stored (store: false)"
        return i + 1, event.response_id, None
    return 0, None, None


def _no_orphans(call_id: str) -> bool:
    return False
_OWN_ISSUERS = frozenset({ISSUER})  # the issuers accepted by default


def build_request(
    history: History, options: Options, *, model: str | None, tools: Sequence[ToolSpec],
    settings: RequestSettings, native_choice: Mapping[str, Any] | None,
    params: Mapping[str, Any] | None, issuers: Collection[str] | None, losses: LossCollector,
    counting: bool,
) -> dict[str, Any]:
    """The request body ``to_wire`` sends for ``history`` (and ``estimate_input_tokens``
    counts): the kernel's build hook (``issuers`` ``None`` for OpenAI's own; ``model`` ``None``
    when counting)."""
    if issuers is None:
        issuers = _OWN_ISSUERS
    continuation = options.continuation
    # Tools first: their losses are the request's own, before the history's (as a session's
    # projector, which reuses the history's, orders them).
    wire_tools: list[Any] = []
    for i, tool in enumerate(tools):  # a loop: a comprehension is a call of its own
        wire = tool_to_wire(tool, i, losses, issuers)
        if wire is not None:
            wire_tools.append(wire)
    encoder = Encoder(history, issuers=issuers, losses=losses, resolve_file=options.resolve_file)
    start, previous, why = 0, None, None
    if continuation == "chained":
        start, previous, why = chain_start(history, encoder.issuers)
        if why is not None:
            losses.add("history", "assistant_message", "downgraded",
                       f"chained continuation is not possible ({why}); every item is sent")
    if previous is not None or (params is not None and (
            params.get("previous_response_id") or params.get("conversation"))):
        # A chained request continues a stored response or conversation: a tool result may
        # answer a call made there, which this history need not hold. Only the server can tell
        # an orphan.
        encoder.orphan = _no_orphans
    name = wire_model(model if model is not None else f"{ISSUER}:estimate", ISSUER)
    request: dict[str, Any] = {"model": name}
    instructions = encoder.instructions()
    if instructions is not None:
        request["instructions"] = instructions
        start = max(start, 1)  # the system message it is: not an item as well
    items = encoder.run(start)
    if continuation == "stateless":
        for item in encoder.references:
            losses.add("history", "unknown", "downgraded",
                       f"item_reference {item.get('id')} needs the item stored on OpenAI's "
                       "server; this stateless request depends on it")
    request["input"] = _input(history, items, encoder)
    if previous is not None:
        request["previous_response_id"] = previous
    if wire_tools:
        request["tools"] = wire_tools
    settings_to_wire(request, settings, native_choice, losses, model=name, issuers=encoder.issuers)
    if continuation == "stateless":
        request["store"] = False
    if continuation in ("stateless", "chained") and previous is None:
        request["include"] = [INCLUDE_REASONING]
    for key, value in (params or {}).items():
        if key in request:
            raise ArgumentError("params", f"params[{key!r}] conflicts with a field to_wire builds; pass it as "
                             "its own argument (or set options continuation='none')")
        request[key] = value
    return request


def _input(history: History, items: list[Any], encoder: Encoder) -> str | list[Any]:
    """``input``: the items, or the one text an imported request sent as a plain string."""
    if len(items) == 1 and isinstance(items[0].get("content"), str):
        for event in history:
            if type(event) is UserMessage:
                if encoder.marks(event.provider_data).get("input") == "string":
                    text: str = items[0]["content"]
                    return text
                break
    return items


# -- from_wire_request ----------------------------------------------------------------------


def from_wire_request(request: Any, options: object = None) -> ImportedRequest:
    """A request body read back: instructions and input items as history, tools, the rest (no
    option changes how a request reads)."""
    body = request if type(request) is dict else load_json(request, API, "request")
    key = fields_key(body, _READ_FIELDS)
    known = _READ.get(key) if key is not None else None
    # Tools remembered were read from a body that showed no other API's sign: not looked at again.
    refuse_foreign_request(body, "openai_responses", API, tools_read=known is not None)
    if "input" not in body:
        raise WireFormatError(API, "request", "it has no input", "input")
    reader = _RequestReader()
    history: list[HistoryEvent] = []
    params = {k: v for k, v in body.items() if k not in _REQUEST_FIELDS}
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        history.append(_system_message((text_part(instructions),)))
    elif "instructions" in body:
        params["instructions"] = instructions
    raw_input = body["input"]
    if isinstance(raw_input, str):
        history.append(build(UserMessage, {"parts": (text_part(raw_input),),
                                           "provider_data": marks_pd({"input": "string"})}))
    elif isinstance(raw_input, list):
        for i, item in enumerate(raw_input):
            if not isinstance(item, dict):
                raise WireFormatError(API, "request", "not an object", f"input[{i}]")
            try:
                reader.item(item, i)
            except BaseException as exc:
                raise at_path(exc, API, "request", f"input[{i}]")  # noqa: B904 (at_path chains it)
        history.extend(reader.finish())
    else:
        raise WireFormatError(API, "request", "neither a string nor a list of items", "input")
    if "max_output_tokens" in body and type(body["max_output_tokens"]) is not int:
        params["max_output_tokens"] = body["max_output_tokens"]
    tools: tuple[ToolSpec, ...] = ()
    raw_tools = body.get("tools")
    if isinstance(raw_tools, list) and raw_tools:
        tools = known[0] if known is not None else tuple([tool_from_wire(t) for t in raw_tools])
    elif "tools" in body:
        params["tools"] = raw_tools  # an empty list (or a malformed value) is kept as it was
    choice = body.get("tool_choice")
    if "tool_choice" in body and not isinstance(choice, str | dict):
        params["tool_choice"] = choice
        choice = None
    if known is not None:
        settings = known[1]
        for name in known[2]:  # the fields the settings took, taken out as the reading did
            del params[name]
    else:
        offered = params.keys() & SETTING_KEYS
        settings, again = settings_read(body, params)
        if key is not None and again and all_canonical(tools):
            if len(_READ) >= _READ_LIMIT:
                _READ.clear()
            _READ[key] = (tools, settings, frozenset(offered - params.keys()))
    # The body's own store, include and previous_response_id are in params: to_wire adds none.
    return imported_request(tuple(history), tools, str(body.get("model", "")),
                            settings.max_output_tokens, choice, params, {"continuation": "none"},
                            settings)


# The fields the tools and settings are read from (in the body's order), marshalled -> the
# tools, the settings, and the fields the settings took out of params. An agent sends the same
# ones with every request: a body that meets them again reads its input and keeps its other
# fields, and reads none of these. Remembered only when every tool became a definition (no
# dict of another body is handed out) and the settings put no field back. Bounded.
_READ: dict[bytes, tuple[tuple[ToolSpec, ...], RequestSettings, frozenset[str]]] = memo({})
_READ_LIMIT = 1024
_READ_FIELDS = SETTING_KEYS | {"tools", "tool_choice", "max_output_tokens"}


# Messages of parts alone, the commonest the reader makes (build() without its fields dict).
_system_message = one_field(SystemMessage, "parts")
_assistant_message = one_field(AssistantMessage, "parts")
_ONLY_PARTS: dict[type[Any], Callable[[tuple[Part, ...]], UserMessage | SystemMessage | DeveloperMessage]] = {
    cls: one_field(cls, "parts") for cls in (UserMessage, SystemMessage, DeveloperMessage)}
_ROLES: dict[str, type[UserMessage | SystemMessage | DeveloperMessage]] = {
    "user": UserMessage, "system": SystemMessage, "developer": DeveloperMessage}


def _output_parts(item: dict[str, Any]) -> list[Part]:
    """The parts of an output item in ``input``; a known item of an unexpected shape is kept
    whole, as an unknown one (sent back as it came), rather than refusing the body."""
    try:
        return item_parts(item)
    except SHAPE_ERRORS:
        kind = item.get("type")
        return [UnknownPart(original_type=kind if isinstance(kind, str) else None, raw=dict(item),
                            issuer=ISSUER)]


def _extras(obj: Mapping[str, Any], used: Collection[str]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in used}


_OUTPUT_KEYS = frozenset({"type", "call_id", "output"})  # a tool output item's own keys


class _RequestReader:
    """Reads ``input`` items in order: runs of output items become one assistant message."""

    def __init__(self) -> None:
        self.history: list[HistoryEvent] = []
        self.parts: list[Part] = []
        self.calls: dict[str, ToolCallPart] = {}

    def finish(self) -> list[HistoryEvent]:
        """The history read so far, the open assistant message closed."""
        self._flush()
        return self.history

    def _flush(self) -> None:
        if self.parts:
            self.history.append(_assistant_message(tuple(self.parts)))
            self.parts = []

    def item(self, item: dict[str, Any], i: int) -> None:
        """Read one input item, ``input[i]``."""
        role = item.get("role")
        if len(item) == 2 and (role == "user" or role == "developer"):
            content = item.get("content")
            if type(content) is str:
                # {"role", "content": "..."}, two items in three: what _message makes of it,
                # without the calls of the general path.
                if self.parts:
                    self._flush()
                self.history.append(_ONLY_PARTS[_ROLES[role]]((plain_text_part(content),)))
                return
        kind = item.get("type", "message" if "role" in item else None)
        if kind == "message" and role in ("user", "system", "developer"):
            self._flush()
            self.history.append(self._message(item, role, i))
        elif kind == "message" and role == "assistant":
            self._assistant_message(item)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self._flush()
            self.history.append(self._tool(item, kind, i))
        else:
            for part in _output_parts(item):
                if type(part) is ToolCallPart:  # exact, as the Anthropic reader asks
                    self.calls[part.provider_ids[ISSUER]] = part
                self.parts.append(part)

    def _marks(self, item: Mapping[str, Any]) -> dict[str, Any]:
        marks: dict[str, Any] = {}
        if "type" in item:
            marks["typed"] = True
        extra = _extras(item, {"type", "role", "content"})
        if extra:
            marks["item"] = extra
        return marks

    def _message(self, item: dict[str, Any], role: str, i: int) -> HistoryEvent:
        content = item.get("content")
        if type(content) is str and len(item) == 2 and role != "system":
            # {"role", "content": "..."}, the commonest item: no marks to keep.
            return _ONLY_PARTS[_ROLES[role]]((plain_text_part(content),))
        marks = self._marks(item)
        if role == "system":
            marks["form"] = "item"
        parts: tuple[Part, ...]
        if isinstance(content, str):
            parts = (text_part(content),)
        elif isinstance(content, list):
            parts = tuple(input_part_from_wire(c) for c in content)
            marks["content"] = "list"
        else:
            raise WireFormatError(API, "request", f"a {role} message has no content",
                                 f"input[{i}].content")
        # Validated parts and provider data: nothing left for validation to check.
        cls = _ROLES[role]
        pd = marks_pd(marks)
        made: UserMessage | SystemMessage | DeveloperMessage = (
            build(cls, {"parts": parts, "provider_data": pd}) if pd is not None else _ONLY_PARTS[cls](parts))
        return made

    def _assistant_message(self, item: dict[str, Any]) -> None:
        content = item.get("content")
        if isinstance(content, str) and "id" not in item:
            # The easy form: a string, with its phase (or other keys) kept for the echo.
            pd = marks_pd(self._marks(item))
            self.parts.append(build(TextPart, {"text": content, "provider_data": pd})
                              if type(content) is str else TextPart(text=content, provider_data=pd))
            return
        self.parts.extend(_output_parts({**item, "type": "message"}) if "type" not in item
                          else _output_parts(item))

    def _tool(self, item: dict[str, Any], kind: str, i: int) -> ToolMessage:
        wire_id = item.get("call_id")
        if not isinstance(wire_id, str):
            raise WireFormatError(API, "request", f"a {kind} item has no call_id",
                                 f"input[{i}].call_id")
        call = self.calls.get(wire_id)
        marks: dict[str, Any] = {}
        if kind == "custom_tool_call_output":
            marks["kind"] = "custom"
        extra = _extras(item, _OUTPUT_KEYS)
        if extra:
            marks["item"] = extra
        output = item.get("output")
        text = ""
        parts: list[Part] = []
        if isinstance(output, str):
            text = output
        elif isinstance(output, list):
            marks["output"] = "list"
            layout: list[Any] = []
            texts: list[str] = []
            for entry in output:
                part = input_part_from_wire(entry)
                if isinstance(part, TextPart) and part.provider_data is None:
                    texts.append(part.text)
                    layout.append(len(part.text))
                else:
                    parts.append(part)
                    layout.append("part")
            text = "".join(texts)
            marks["layout"] = layout
        else:
            marks.setdefault("item", {})["output"] = output
        return build(ToolMessage, {"call_id": call.id if call is not None else wire_id,
                                   "tool_name": call.name if call is not None else "",
                                   "output_text": text, "parts": tuple(parts),
                                   "provider_data": marks_pd(marks)})
