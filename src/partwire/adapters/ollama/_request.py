"""Ollama request bodies: assembled for ``to_wire``, and read back (``from_wire_request``).

Messages are read in order, each into one canonical message. A call is given the id its place
and content make (``_wire.call_id``), so the same body read twice gives the same ids; a ``tool``
message is paired with the first open call of the tool it names (with the first open call when
it names none), as the model pairs them. Where a wire message differs from the form the encoder
writes (no ``content`` at all, no ``tool_name``, keys partwire has no field for), the message
records it in its ``provider_data`` so the body comes back exactly.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from partwire._json import load_json
from partwire.adapters._formats import refuse_foreign_request
from partwire.adapters._kernel import merge_params
from partwire.adapters._losses import LossCollector
from partwire.adapters._reading import imported_request
from partwire.adapters._turns import read_messages
from partwire.adapters.ollama._decode import MESSAGE_FIELDS, message_parts, pd_of
from partwire.adapters.ollama._encode import Encoder
from partwire.adapters.ollama._settings import settings_from_wire, settings_to_wire
from partwire.adapters.ollama._tools import tool_from_wire, tools_to_wire
from partwire.adapters.ollama._wire import API, ISSUER, call_id
from partwire.adapters.requests import ImportedRequest, ToolSpec
from partwire.errors import WireFormatError
from partwire.history import History, HistoryEvent
from partwire.messages import AssistantMessage, SystemMessage, ToolMessage, UserMessage
from partwire.model_ids import wire_model
from partwire.parts import ToolCallPart
from partwire.settings import RequestSettings

if TYPE_CHECKING:
    from partwire.adapters.ollama import Options

__all__ = ["build_request", "from_wire_request"]

_REQUEST_FIELDS = frozenset({"model", "messages", "tools"})
_ROLES = ("system", "user", "assistant", "tool")


def build_request(
    history: History, options: Options, *, model: str | None, tools: Sequence[ToolSpec],
    settings: RequestSettings, native_choice: Mapping[str, Any] | str | None,
    params: Mapping[str, Any] | None, issuers: Collection[str] | None, losses: LossCollector,
    counting: bool,
) -> dict[str, Any]:
    """The request body ``to_wire`` returns (and ``estimate_input_tokens`` counts): the kernel's
    build hook (``issuers`` ``None`` for Ollama's own; ``model`` ``None`` when counting)."""
    if issuers is None:
        issuers = {ISSUER}
    name = wire_model(model if model is not None else "ollama:estimate", ISSUER)
    # Tools first: their losses are the request's own, before the history's.
    wire_tools = tools_to_wire(tools, losses, issuers)
    request: dict[str, Any] = {"model": name,
                               "messages": Encoder(history, issuers=issuers, losses=losses,
                                                   developer_role=options.developer_role).run()}
    if wire_tools:
        request["tools"] = wire_tools
    wire_options, top = settings_to_wire(settings, native_choice, losses)
    request.update(top)
    rest = dict(params) if params else {}
    raw_options = rest.pop("options", None)
    if isinstance(raw_options, Mapping):
        # The settings' own options win; the raw ones (num_ctx, repeat_penalty...) join them.
        wire_options = {**raw_options, **wire_options}
    elif raw_options is not None:
        rest["options"] = raw_options  # not an object: sent as given, for the server to refuse
    if wire_options or isinstance(raw_options, Mapping):
        request["options"] = wire_options
    return merge_params(request, rest) if rest else request


def from_wire_request(request: Any, options: Options) -> ImportedRequest:
    """A request body (or a stored list of messages) read back: history, tools and the rest."""
    if isinstance(request, list):
        request = {"messages": request}
    body = request if type(request) is dict else load_json(request, API, "request")
    refuse_foreign_request(body, API, API)
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise WireFormatError(API, "request", "it has no messages list", "messages")
    history: list[HistoryEvent] = []
    read_messages(_RequestReader(), messages, history, API)
    params = {k: v for k, v in body.items() if k not in _REQUEST_FIELDS}
    settings = settings_from_wire(body, params)
    tools: tuple[ToolSpec, ...] = ()
    raw_tools = body.get("tools")
    if isinstance(raw_tools, list):
        tools = tuple(tool_from_wire(t) for t in raw_tools)
        if not raw_tools:
            params["tools"] = []  # an explicit empty list is kept as it was
    elif "tools" in body:
        params["tools"] = raw_tools
    model = body.get("model")
    return imported_request(tuple(history), tools, model if isinstance(model, str) else "",
                            settings.max_output_tokens, None, params, None, settings)


class _RequestReader:
    """Reads ``messages`` in order, pairing results with the calls they answer."""

    def __init__(self) -> None:
        self.open_calls: list[ToolCallPart] = []  # the latest calls not answered yet, in order
        self.calls: list[ToolCallPart] = []  # every call read so far

    def message(self, message: dict[str, Any], i: int) -> list[HistoryEvent]:
        """The history event for ``messages[i]`` (one: Ollama's messages are canonical ones)."""
        return [self.event(message, i)]

    def event(self, message: dict[str, Any], i: int) -> HistoryEvent:
        """The history event for ``messages[i]``."""
        role = message.get("role")
        if role not in _ROLES:
            raise WireFormatError(API, "request", f"role {role!r} is none of {', '.join(_ROLES)}",
                                  f"messages[{i}].role")
        marks: dict[str, Any] = {}
        extra = {k: v for k, v in message.items() if k not in MESSAGE_FIELDS and k != "tool_name"}
        content = message.get("content")
        if "content" not in message:
            marks["content"] = "absent"
        elif not isinstance(content, str):
            raise WireFormatError(API, "request", f"content is {type(content).__name__}, not text",
                                  f"messages[{i}].content")
        if role == "tool":
            return self.tool(message, i, marks, extra)
        if "tool_name" in message:
            extra["tool_name"] = message["tool_name"]
        if extra:
            marks["message"] = extra
        parts = message_parts(message, "", str(i), empty_text=True)
        pd = pd_of(marks)
        if role == "assistant":
            calls = [p for p in parts if type(p) is ToolCallPart]
            if calls:
                self.open_calls = calls
                self.calls += calls
            return AssistantMessage(parts=tuple(parts), provider_data=pd)
        if any(type(p) is ToolCallPart for p in parts):
            raise WireFormatError(API, "request", f"a {role} message has tool calls",
                                  f"messages[{i}].tool_calls")
        if role == "user":
            return UserMessage(parts=tuple(parts), provider_data=pd)
        return SystemMessage(parts=tuple(parts), provider_data=pd)

    def tool(self, message: dict[str, Any], i: int, marks: dict[str, Any],
             extra: dict[str, Any]) -> ToolMessage:
        """A ``tool`` message: paired with the first open call of the tool it names."""
        name = message.get("tool_name")
        if name is None:
            marks["tool_name"] = "absent"
        elif not isinstance(name, str):
            raise WireFormatError(API, "request", "tool_name is not text", f"messages[{i}].tool_name")
        open_calls = self.open_calls
        k = next((k for k, call in enumerate(open_calls) if name is None or call.name == name), None)
        if k is not None:
            call = open_calls.pop(k)
            answers, tool_name = call.id, call.name
        else:
            # No open call of that tool: the latest earlier call of it, else none this body holds
            # (its id then made as a call's would be).
            earlier = next((c for c in reversed(self.calls) if c.name == name), None)
            if earlier is not None:
                answers = earlier.id
            else:
                answers = call_id("", f"{i}.result", name or "", "")
                marks["unpaired"] = True  # sent back as it came, without a call
            tool_name = name or ""
        for key in ("thinking", "tool_calls"):
            if key in message:
                extra[key] = message[key]
        if extra:
            marks["message"] = extra
        parts = tuple(message_parts({"images": message.get("images")}, "", str(i)))
        content = message.get("content")
        return ToolMessage(call_id=answers, tool_name=tool_name,
                           output_text=content if isinstance(content, str) else "", parts=parts,
                           provider_data=pd_of(marks))
