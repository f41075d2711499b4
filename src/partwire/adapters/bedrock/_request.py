"""Converse request bodies: built for ``to_wire`` and read back (``from_wire_request``).

A body is the keyword arguments of boto3's ``client.converse`` (``modelId`` included) or the
HTTP body (no ``modelId``: it is in the URL), whose binary fields are base64 text. The reader
follows the turn state the encoder will follow (:func:`default_joins`) and records, on the first
message concerned, where a request differs (``turn``, ``layout``, ``block``, ``cache_point``), so
re-encoding gives the request back exactly.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from partwire._base import ProviderData, build
from partwire._json import load_json
from partwire.adapters._formats import refuse_foreign_request
from partwire.adapters._kernel import at_path, merge_params
from partwire.adapters._losses import LossCollector
from partwire.adapters._provenance import shared_provider_data
from partwire.adapters._reading import imported_request
from partwire.adapters._turns import TurnPlacement, read_messages
from partwire.adapters.bedrock._decode import BlobReader, part_from_wire, parts_from_wire
from partwire.adapters.bedrock._encode import Encoder, tool_result_content
from partwire.adapters.bedrock._settings import settings_from_wire, settings_to_wire
from partwire.adapters.bedrock._tools import tool_choice_from_wire, tools_from_wire, tools_to_wire
from partwire.adapters.bedrock._wire import ISSUER
from partwire.adapters.requests import ImportedRequest, ToolChoice, ToolSpec
from partwire.errors import WireFormatError
from partwire.history import History, HistoryEvent
from partwire.messages import AssistantMessage, SystemMessage, ToolMessage, UserMessage
from partwire.model_ids import wire_model
from partwire.parts import Part, ToolCallPart
from partwire.settings import RequestSettings

if TYPE_CHECKING:
    from partwire.adapters.bedrock import Options

__all__ = ["build_request", "from_wire_request"]

_REQUEST_FIELDS = frozenset({"modelId", "messages", "system", "toolConfig"})
# Body fields to_wire builds itself even when this body leaves them out; params may not set them
# (inferenceConfig and additionalModelRequestFields may: their keys join the settings' own).
_BUILT = frozenset({"modelId", "messages", "system", "toolConfig"})
_OWN = frozenset({ISSUER})  # the issuers accepted by default


def build_request(
    history: History, options: Options, *, model: str | None, tools: Sequence[ToolSpec],
    settings: RequestSettings, native_choice: Mapping[str, Any] | None,
    params: Mapping[str, Any] | None, issuers: Collection[str] | None, losses: LossCollector,
    counting: bool,
) -> dict[str, Any]:
    """The request body ``to_wire`` returns (and ``estimate_input_tokens`` counts): the kernel's
    build hook (``issuers`` ``None`` for Bedrock's own; ``model`` ``None`` when counting). A
    body to count holds its blobs as base64 text, which the counter reads."""
    if issuers is None:
        issuers = _OWN
    encoder = Encoder(history, issuers=issuers, losses=losses,
                      foreign_thinking=options.foreign_thinking, resolve_file=options.resolve_file,
                      blobs="base64" if counting else options.blobs)
    system, messages = encoder.run()
    request: dict[str, Any] = {"modelId": wire_model(model if model is not None else f"{ISSUER}:estimate", ISSUER),
                               "messages": messages}
    if system is not None:
        request["system"] = system
    inference, choice, extra, output = settings_to_wire(settings, request["modelId"], losses)
    if native_choice is not None:
        choice = dict(native_choice)
    rest = dict(params or {})
    for key, built in (("inferenceConfig", inference), ("additionalModelRequestFields", extra)):
        given = rest.pop(key, None)
        if given is not None and not isinstance(given, Mapping):
            raise ValueError(f"params[{key!r}] must be a mapping")
        if given is not None or built:
            clash = sorted(set(built) & set(given or {}))
            if clash:
                raise ValueError(f"params[{key!r}] sets {', '.join(clash)}, which the settings "
                                 "set too; pass it once")
            request[key] = {**built, **(given or {})}
    if output is not None:
        request["outputConfig"] = output
    wire_tools = tools_to_wire(tools, losses) if tools else []
    if wire_tools:
        tool_config: dict[str, Any] = {"tools": wire_tools}
        if choice is not None:
            tool_config["toolChoice"] = choice
        request["toolConfig"] = tool_config
    elif choice is not None:
        losses.add("request.settings.tool_choice", "setting", "dropped",
                   "Converse takes a tool choice only with tools (toolConfig.tools)")
    return merge_params(request, rest, built=_BUILT) if rest else request


def from_wire_request(request: Any, options: object = None) -> ImportedRequest:
    """A request body read back: history, tools, and every other field for ``to_wire`` (no
    option changes how a request reads)."""
    body = request if type(request) is dict else load_json(request, ISSUER, "request")
    refuse_foreign_request(body, "bedrock", ISSUER)
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise WireFormatError(ISSUER, "request", "it has no messages list", "messages")
    reader = _RequestReader()
    history: list[HistoryEvent] = []
    if "system" in body:
        system = body["system"]
        if not isinstance(system, list):
            raise WireFormatError(ISSUER, "request", "not a list", "system")
        try:
            history.append(SystemMessage(parts=parts_from_wire(system, reader.blobs)))
        except BaseException as exc:
            raise at_path(exc, ISSUER, "request", "system")  # noqa: B904 (at_path chains it)
    read_messages(reader, messages, history, ISSUER)
    params = {k: v for k, v in body.items() if k not in _REQUEST_FIELDS}
    tools: tuple[ToolSpec, ...] = ()
    choice: ToolChoice | None = None
    config = body.get("toolConfig")
    if isinstance(config, dict) and set(config) <= {"tools", "toolChoice"} \
            and isinstance(config.get("tools"), list) and config["tools"]:
        tools = tools_from_wire(config["tools"])
        choice = tool_choice_from_wire(config.get("toolChoice"))
        if "toolChoice" in config and choice is None:
            params["toolConfig"] = config  # not a choice partwire can state: kept whole
            tools = ()
    elif "toolConfig" in body:
        params["toolConfig"] = config
    settings = settings_from_wire(body, params, choice if isinstance(choice, str) else None)
    model = body.get("modelId")
    options = {"blobs": "base64"} if reader.blobs.as_text and not reader.blobs.as_bytes else None
    return imported_request(tuple(history), tools, model if isinstance(model, str) else "",
                            settings.max_output_tokens, choice, params, options, settings)


class _RequestReader(TurnPlacement):
    """Reads ``messages`` in order, tracking the turn state the encoder will track."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: dict[str, ToolCallPart] = {}
        self.blobs = BlobReader()

    def message(self, message: dict[str, Any], i: int) -> list[HistoryEvent]:
        role, content = message.get("role"), message.get("content")
        if role not in ("user", "assistant", "system"):
            raise WireFormatError(ISSUER, "request", f"role {role!r} is none of user, assistant, "
                                  "system", f"messages[{i}].role")
        if not isinstance(content, list):
            raise WireFormatError(ISSUER, "request", "not a list", f"messages[{i}].content")
        marks: dict[str, Any] = {}
        extra = {k: v for k, v in message.items() if k not in ("role", "content")}
        if extra:
            marks["message"] = extra
        if role == "assistant":
            parts = parts_from_wire(content, self.blobs)
            for part in parts:
                if isinstance(part, ToolCallPart):
                    self.calls[part.provider_ids[ISSUER]] = part
            return [self._place("assistant", "assistant", True, marks, AssistantMessage,
                                {"parts": parts})]
        if role == "system":
            marks["turn"] = "new"
            return [self._place("system", "system", True, marks, SystemMessage,
                                {"parts": parts_from_wire(content, self.blobs)})]
        return self._user_turn(content, marks)

    def _user_turn(self, content: list[Any], first_marks: dict[str, Any]) -> list[HistoryEvent]:
        out: list[HistoryEvent] = []
        pending: list[Any] = []

        def flush() -> None:
            marks = first_marks if not out else {}
            out.append(self._place("user", "user", not out, marks, UserMessage,
                                   {"parts": parts_from_wire(pending, self.blobs)}))
            pending.clear()

        k = 0
        while k < len(content):
            block = content[k]
            result = block.get("toolResult") if isinstance(block, dict) and len(block) == 1 else None
            if not isinstance(result, dict):
                pending.append(block)
                k += 1
                continue
            if pending:
                flush()
            fields, marks = self._tool_result(result)
            nxt = content[k + 1] if k + 1 < len(content) else None
            if isinstance(nxt, dict) and len(nxt) == 1 and isinstance(nxt.get("cachePoint"), dict):
                marks["cache_point"] = nxt["cachePoint"]
                k += 1
            if not out:
                marks.update(first_marks)
            out.append(self._place("tool", "user", not out, marks, ToolMessage, fields))
            k += 1
        if pending or not out:
            flush()
        return out

    def _place(self, kind: str, role: str, starts: bool, marks: dict[str, Any],
               cls: type[AssistantMessage | SystemMessage | UserMessage | ToolMessage],
               fields: dict[str, Any]) -> HistoryEvent:
        """The message of ``cls`` made of ``fields``, marked where the turn it opens or joins
        differs from the default."""
        pd = _marks(self.placed(kind, role, starts, marks))
        event: HistoryEvent = build(cls, {**fields, "provider_data": pd} if pd is not None else fields)
        return event

    def _tool_result(self, member: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        wire_id = member.get("toolUseId")
        if not isinstance(wire_id, str):
            raise WireFormatError(ISSUER, "request", "a toolResult has no toolUseId")
        content = member.get("content")
        if not isinstance(content, list):
            raise WireFormatError(ISSUER, "request", "a toolResult's content is not a list")
        call = self.calls.get(wire_id)
        marks: dict[str, Any] = {}
        extras = {k: v for k, v in member.items() if k not in ("toolUseId", "content")}
        is_error = extras.get("status") == "error"
        if is_error:
            del extras["status"]
        if extras:
            marks["block"] = extras
        texts: list[str] = []
        data: Any = None
        parts: list[Part] = []
        layout: list[Any] = []
        for block in content:
            if isinstance(block, dict) and len(block) == 1 and isinstance(block.get("text"), str):
                texts.append(block["text"])
                layout.append(len(block["text"]))
            elif isinstance(block, dict) and len(block) == 1 and "json" in block and data is None \
                    and block["json"] is not None:
                data = block["json"]
                layout.append("json")
            else:
                parts.append(part_from_wire(block, self.blobs))
                layout.append(None)
        text = "".join(texts)
        fields = {
            "call_id": call.id if call is not None else wire_id,
            "tool_name": call.name if call is not None else "",
            "status": "error" if is_error else "success",
            "output_text": text,
            "data": data,
            "parts": tuple(parts),
        }
        # The encoder rebuilds the content from the text, data and attachments; the layout is
        # recorded only where that default would give another list.
        default = tool_result_content(text, data, [{"attachment": None}] * len(parts))
        if [_kind(b) for b in default] != [_entry_kind(e) for e in layout] or len(texts) > 1:
            marks["layout"] = layout
        return fields, marks


def _kind(block: dict[str, Any]) -> str:
    return "text" if "text" in block else "json" if "json" in block else "part"


def _entry_kind(entry: Any) -> str:
    return "part" if entry is None else "json" if entry == "json" else "text"


def _marks(marks: dict[str, Any]) -> ProviderData | None:
    return shared_provider_data(ISSUER, marks) if marks else None
