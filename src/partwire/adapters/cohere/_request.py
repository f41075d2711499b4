"""Cohere v2 request bodies: the kernel's build hook, and bodies read back (``from_wire_request``).

Messages are read one for one. The request's top-level ``documents`` become one user message of
document parts, marked ``{"documents": true}``, after the leading system messages: every other
API sees them as documents the user gave, and Cohere gets them back in ``documents``. Where a
body writes something its own way (a lone plain text as a list, an explicit ``null`` content, a
tool result as a list of items, keys beside the usual), the message records it in its
``provider_data``, so re-encoding gives the request back exactly.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from partwire._base import with_field
from partwire._json import load_json
from partwire.adapters._formats import refuse_foreign_request
from partwire.adapters._kernel import merge_params
from partwire.adapters._losses import LossCollector
from partwire.adapters._provenance import shared_provider_data
from partwire.adapters._reading import imported_request, text_part
from partwire.adapters._turns import read_messages
from partwire.adapters.cohere._decode import document_from_wire, message_parts, part_from_wire
from partwire.adapters.cohere._encode import Encoder, tool_text
from partwire.adapters.cohere._settings import settings_from_wire, settings_to_wire
from partwire.adapters.cohere._tools import tool_from_wire, tools_to_wire
from partwire.adapters.cohere._wire import ISSUER
from partwire.adapters.requests import ImportedRequest, ToolSpec
from partwire.errors import WireFormatError
from partwire.history import History, HistoryEvent
from partwire.messages import AssistantMessage, SystemMessage, ToolMessage, UserMessage
from partwire.model_ids import wire_model
from partwire.parts import Part, ToolCallPart
from partwire.settings import RequestSettings
from partwire.tools import ToolDefinition

if TYPE_CHECKING:
    from partwire.adapters.cohere import Options

__all__ = ["build_request", "from_wire_request"]

# Body fields read into the history and tools; the rest are settings or params.
_REQUEST_FIELDS = frozenset({"model", "messages", "documents", "tools"})
# Body fields to_wire builds itself even when this body leaves them out; params may not set them.
_BUILT = frozenset({"model", "messages"})
_OWN = frozenset({ISSUER})  # the issuers accepted by default
_DOCUMENTS = {"documents": True}


def build_request(
    history: History, options: Options, *, model: str | None, tools: Sequence[ToolSpec],
    settings: RequestSettings, native_choice: Mapping[str, Any] | str | None,
    params: Mapping[str, Any] | None, issuers: Collection[str] | None, losses: LossCollector,
    counting: bool,
) -> dict[str, Any]:
    """The request body ``to_wire`` returns (and ``estimate_input_tokens`` counts): the kernel's
    build hook (``issuers`` ``None`` for Cohere's own; ``model`` ``None`` when counting)."""
    if issuers is None:
        issuers = _OWN
    # Tools first: their losses are the request's own, before the history's.
    wire_tools, strict = tools_to_wire(tools, losses, issuers)
    encoder = Encoder(history, issuers=issuers, losses=losses,
                      foreign_thinking=options.foreign_thinking)
    messages, documents = encoder.run()
    request: dict[str, Any] = {
        "model": wire_model(model if model is not None else f"{ISSUER}:estimate", ISSUER),
        "messages": messages,
    }
    if wire_tools:
        request["tools"] = wire_tools
    if strict is not None:
        request["strict_tools"] = strict
    if documents:
        request["documents"] = documents
    settings_to_wire(request, settings, native_choice, losses)
    return merge_params(request, params, built=_BUILT) if params else request


def from_wire_request(request: Any, options: object = None) -> ImportedRequest:
    """A request body read back: history, tools, and every other field for ``to_wire`` (no
    option changes how a request reads)."""
    body = request if type(request) is dict else load_json(request, ISSUER, "request")
    refuse_foreign_request(body, "cohere", ISSUER)
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise WireFormatError(ISSUER, "request", "it has no messages list", "messages")
    reader = _RequestReader()
    history: list[HistoryEvent] = []
    read_messages(reader, messages, history, ISSUER)
    params = {k: v for k, v in body.items() if k not in _REQUEST_FIELDS}
    documents = body.get("documents")
    if isinstance(documents, list) and documents:
        at = next((i for i, e in enumerate(history) if not isinstance(e, SystemMessage)), len(history))
        try:
            parts = tuple(document_from_wire(d) for d in documents)
        except (KeyError, TypeError, ValueError) as exc:
            raise WireFormatError(ISSUER, "request", f"a document it cannot read ({exc})",
                                  "documents") from exc
        history.insert(at, UserMessage(parts=parts, provider_data=shared_provider_data(ISSUER, _DOCUMENTS)))
    elif "documents" in body:
        params["documents"] = documents
    tools: tuple[ToolSpec, ...] = ()
    raw_tools = body.get("tools")
    if isinstance(raw_tools, list) and raw_tools:
        tools = tuple(map(tool_from_wire, raw_tools))
    elif "tools" in body:
        params["tools"] = raw_tools
    strict = params.get("strict_tools")
    if type(strict) is bool and tools and all(isinstance(t, ToolDefinition) and t.strict is None for t in tools):
        # One switch for every tool on the wire; each canonical definition carries it.
        del params["strict_tools"]
        tools = tuple(with_field(t, "strict", strict) for t in tools if isinstance(t, ToolDefinition))
    settings = settings_from_wire(body, params)
    return imported_request(tuple(history), tools, str(body.get("model", "")),
                            settings.max_output_tokens, None, params, None, settings)


class _RequestReader:
    """Reads ``messages`` one for one, pairing tool results with the calls before them."""

    def __init__(self) -> None:
        self.calls: dict[str, ToolCallPart] = {}

    def message(self, message: dict[str, Any], i: int) -> list[HistoryEvent]:
        role = message.get("role")
        marks: dict[str, Any] = {}
        extra = {k: v for k, v in message.items() if k not in _KEYS.get(role, ()) or (  # type: ignore[arg-type]
            role == "assistant" and k in _FILLED and not v)}
        if extra:
            marks["message"] = extra
        if role == "assistant":
            return [self._assistant(message, marks)]
        if role == "tool":
            return [self._tool(message, marks)]
        if role not in ("user", "system"):
            raise WireFormatError(ISSUER, "request", f"role {role!r} is none of system, user, "
                                  "assistant, tool", f"messages[{i}].role")
        content = message.get("content")
        parts = self._content(content, marks, i)
        pd = shared_provider_data(ISSUER, marks) if marks else None
        if role == "user":
            return [UserMessage(parts=parts, provider_data=pd)]
        return [SystemMessage(parts=parts, provider_data=pd)]

    def _content(self, content: Any, marks: dict[str, Any], i: int) -> tuple[Part, ...]:
        if isinstance(content, str):
            return (text_part(content),)
        if not isinstance(content, list):
            raise WireFormatError(ISSUER, "request", "neither a string nor a list", f"messages[{i}].content")
        if _collapses(content) or not content:
            marks["content"] = "blocks"
        return tuple(map(part_from_wire, content))

    def _assistant(self, message: dict[str, Any], marks: dict[str, Any]) -> AssistantMessage:
        parts, unattached = message_parts(message)
        content = message.get("content")
        if "content" in message and content is None:
            marks["content"] = None
        elif isinstance(content, list) and (_collapses(content) or not content):
            marks["content"] = "blocks"
        if unattached:
            marks["wire_citations"] = message["citations"]
        for part in parts:
            if isinstance(part, ToolCallPart) and ISSUER in part.provider_ids:
                self.calls[part.provider_ids[ISSUER]] = part
        fields: dict[str, Any] = {"parts": parts}
        if marks:
            fields["provider_data"] = shared_provider_data(ISSUER, marks)
        return AssistantMessage(**fields)

    def _tool(self, message: dict[str, Any], marks: dict[str, Any]) -> ToolMessage:
        wire_id = message.get("tool_call_id")
        if not isinstance(wire_id, str):
            raise WireFormatError(ISSUER, "request", "a tool message has no tool_call_id")
        call = self.calls.get(wire_id)
        content = message.get("content")
        if isinstance(content, str):
            text = content
        elif isinstance(content, list):
            try:
                text = tool_text(content)
            except (KeyError, TypeError, AttributeError) as exc:
                raise WireFormatError(ISSUER, "request", f"a tool result item it cannot read ({exc})",
                                      "content") from exc
            marks["content"] = content
        else:
            raise WireFormatError(ISSUER, "request", "neither a string nor a list", "content")
        fields: dict[str, Any] = {
            "call_id": call.id if call is not None else wire_id,
            "tool_name": call.name if call is not None else "",
            "status": "success",
            "output_text": text,
        }
        if marks:
            fields["provider_data"] = shared_provider_data(ISSUER, marks)
        return ToolMessage(**fields)


# Assistant fields written only when they hold something: an empty one is an extra key.
_FILLED = frozenset({"tool_plan", "tool_calls", "citations"})
_KEYS: dict[str, frozenset[str]] = {
    "system": frozenset({"role", "content"}),
    "user": frozenset({"role", "content"}),
    "assistant": frozenset({"role", "content", "tool_plan", "tool_calls", "citations"}),
    "tool": frozenset({"role", "tool_call_id", "content"}),
}


def _collapses(content: list[Any]) -> bool:
    """Whether the encoder would send this list as a plain string (one plain text item)."""
    if len(content) != 1:
        return False
    item = content[0]
    return isinstance(item, dict) and item.keys() == {"type", "text"} and item["type"] == "text" \
        and isinstance(item["text"], str)

