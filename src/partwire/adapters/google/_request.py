"""Gemini request bodies: assembled for ``to_wire``, and read back by ``from_wire_request``.

Key styles: a body is read in camelCase, snake_case or the mix the SDK itself sends (nested
objects in snake_case under camelCase top levels); every key is brought to camelCase on import,
user data (function arguments, tool results, schema property names, labels) left as it is.
Partwire writes camelCase only, so a camelCase body re-exports exactly and any other style
re-exports as its camelCase form.

Function responses are paired with their calls by id where the response has one, else by order
and name: the earliest unanswered call of that name.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from partwire._base import NOT_JSON, ProviderData, build, json_copy, one_field
from partwire._json import SHAPE_ERRORS, fields_key, json_text, load_json
from partwire._memo import memo
from partwire.adapters._formats import refuse_foreign_request
from partwire.adapters._kernel import at_path, merge_params
from partwire.adapters._losses import LossCollector
from partwire.adapters._provenance import shared_provider_data
from partwire.adapters._reading import imported_request, plain_text_part
from partwire.adapters._tool_import import all_canonical
from partwire.adapters.google._encode import Encoder
from partwire.adapters.google._parts import part_from_wire
from partwire.adapters.google._settings import settings_read, settings_to_wire, take_read
from partwire.adapters.google._tools import (
    tool_choice_from_wire,
    tools_from_wire,
    tools_to_wire,
)
from partwire.adapters.google._wire import (
    API,
    ISSUER,
    OWN_ISSUERS,
    camel_keys,
    camel_list,
    camel_top,
)
from partwire.adapters.requests import ImportedRequest, ToolSpec
from partwire.errors import ArgumentError, WireFormatError
from partwire.history import HistoryEvent
from partwire.ids import new_tool_call_id
from partwire.messages import AssistantMessage, SystemMessage, ToolMessage, UserMessage
from partwire.model_ids import wire_model
from partwire.parts import Part, ToolCallPart, UnknownPart
from partwire.settings import RequestSettings

if TYPE_CHECKING:
    from partwire.adapters.google import Options
    from partwire.projection import LossAction

__all__ = ["build_request", "from_wire_request"]

# Messages of parts alone, the commonest the reader makes (build() without its fields dict).
_user_message = one_field(UserMessage, "parts")

_BODY_FIELDS = frozenset({"contents", "systemInstruction", "tools", "toolConfig", "generationConfig"})
_BUILT = frozenset({"contents"})  # a body field build_request always makes, even empty
_CONTENT_KEYS = frozenset({"role", "parts"})


class _Unread(LossCollector):
    """The losses of a body only counted, never sent: nobody reads them, so none is recorded."""

    __slots__ = ()

    def add(self, path: str, part_type: str, action: LossAction, reason: str,
            message_id: str | None = None) -> None:
        """Record nothing."""


def build_request(
    history: Sequence[HistoryEvent], options: Options, *, model: str | None,
    tools: Sequence[ToolSpec], settings: RequestSettings,
    native_choice: Mapping[str, Any] | None, params: Mapping[str, Any] | None,
    issuers: Collection[str] | None, losses: LossCollector, counting: bool,
) -> dict[str, Any]:
    """The ``generateContent`` body for ``history`` (the model goes in the URL, not the body):
    the kernel's build hook (``issuers`` ``None`` for Google's own; no ``model`` echoes no
    model's thought signatures and requires none)."""
    model = wire_model(model, ISSUER) if model else ""
    if issuers is None:
        issuers = OWN_ISSUERS
    if counting:
        losses = _Unread(losses.adapter)
    vertex = options.backend == "vertex"
    # Tools first: their losses are the request's own, before the history's (as a session's
    # projector, which reuses the history's, orders them).
    wire_tools = tools_to_wire(tools, losses, dialect=options.schema_dialect, vertex=vertex,
                               issuers=issuers) if tools else None
    encoder = Encoder(history, issuers=issuers, model=model, losses=losses,
                      require_signatures=options.requires_signatures(model) if model else False)
    contents, system = encoder.run()
    request: dict[str, Any] = {"contents": contents}
    if system is not None:
        request["systemInstruction"] = system
    if wire_tools:
        request["tools"] = wire_tools
    rest = camel_keys(dict(params)) if params else {}
    given = rest.pop("generationConfig", None)
    if given is not None and type(given) is not dict and not isinstance(given, Mapping):
        raise ArgumentError("params", "params['generationConfig'] must be an object")
    generation = dict(given or {})
    settings_to_wire(request, generation, settings, native_choice, losses, model=model,
                     issuers=issuers)
    thinking = generation.get("thinkingConfig")
    # Exact types first: isinstance() against the Mapping ABC, on every request, for the None
    # of most of them goes through ABCMeta's check.
    if thinking is not None and (type(thinking) is dict or isinstance(thinking, Mapping)) \
            and "thinkingBudget" in thinking and "thinkingLevel" in thinking:
        # Gemini answers 400 to both; the family decides (2.5: budget, 3: level).
        raise ArgumentError("params", "thinkingConfig takes thinkingBudget (Gemini 2.5) or "
                            "thinkingLevel (Gemini 3), not both")
    if given is not None or generation:
        request["generationConfig"] = generation
    return merge_params(request, rest, built=_BUILT) if rest else request


# -- import -----------------------------------------------------------------------------------


class _Importer:
    """Reads ``contents`` into messages, pairing function responses with their calls."""

    __slots__ = ("history", "pending")

    def __init__(self) -> None:
        self.history: list[HistoryEvent] = []
        # Calls not answered yet, in order: (call, the id it goes back with, or None).
        self.pending: list[tuple[ToolCallPart, str | None]] = []

    def system(self, instruction: Any) -> None:
        if not isinstance(instruction, dict):
            raise WireFormatError(ISSUER, "request", "not a Content object", "systemInstruction")
        if not instruction.keys() <= _CONTENT_KEYS:
            instruction = camel_keys(instruction)
        # The commonest instruction: text parts alone, made on the user turn's short path.
        parts = _text_parts(instruction.get("parts"))
        if parts is None:
            parts = tuple([part_from_wire(p, None)
                           for p in camel_list(_parts(instruction, "systemInstruction"))])
        rest = {k: v for k, v in instruction.items() if k != "parts"}
        # Parts just validated, marks of our own: nothing left for validation to check.
        self.history.append(build(SystemMessage, {"parts": parts, "provider_data": _marks(
            {"content": rest} if rest else {})}))

    def content(self, content: Any, i: int) -> None:
        if not isinstance(content, dict):
            raise WireFormatError(ISSUER, "request", "not a Content object", f"contents[{i}]")
        role = content.get("role")
        if role == "user" and len(content) == 2:
            # The commonest content by far: a user turn of plain text parts, made here.
            texts = _text_parts(content.get("parts"))
            if texts:
                self.history.append(_user_message(texts))
                return
        extra: dict[str, Any]
        if len(content) == 2 and (role == "user" or role == "model") and "parts" in content:
            extra = {}  # the commonest content: a role and its parts, nothing to keep beside
        else:
            if not content.keys() <= _CONTENT_KEYS:
                content = camel_keys(content)  # its other keys, and the parts with them
            extra = {k: v for k, v in content.items() if k not in ("role", "parts")}
            if "role" not in content:
                extra["role"] = None
            elif role not in ("user", "model"):
                extra["role"] = role
        parts = content.get("parts", [])
        responses = False
        if type(parts) is list:
            parts = camel_list(parts)
            for p in parts:
                if type(p) is not dict and not isinstance(p, dict):
                    parts = _parts(content, f"contents[{i}]")  # raises
                if "functionResponse" in p:
                    responses = True
        else:
            parts = _parts(content, f"contents[{i}]")
        if role == "model":
            decoded = tuple([part_from_wire(p, None) for p in parts])
            for part in decoded:
                if type(part) is ToolCallPart:  # exact: part_from_wire makes no subclass
                    self.pending.append((part, _sent_id(part)))
            # Validated parts, our own provider and API: nothing left for validation to check.
            fields: dict[str, Any] = {"parts": decoded, "provider": ISSUER, "api": API}
            if extra:
                fields["provider_data"] = _marks({"content": extra})
            self.history.append(build(AssistantMessage, fields))
            return
        if not responses and not extra and parts:  # the commonest: a user turn of plain parts
            self.history.append(_user_message(tuple([part_from_wire(p, None) for p in parts])))
            return
        self._user(parts, extra)

    def _user(self, parts: list[dict[str, Any]], extra: dict[str, Any]) -> None:
        first = True
        plain: list[Part] = []
        previous_tool = bool(self.history) and type(self.history[-1]) is ToolMessage

        def marks_for_first() -> dict[str, Any]:
            marks: dict[str, Any] = {}
            if first:
                if extra:
                    marks["content"] = extra
            else:
                marks["join"] = True
            return marks

        def flush() -> None:
            nonlocal first, plain
            if plain or (first and not parts):
                marks = marks_for_first()
                self.history.append(build(UserMessage, {"parts": tuple(plain),
                                                        "provider_data": _marks(marks)})
                                    if marks else _user_message(tuple(plain)))
                first = False
                plain = []

        if not parts:
            flush()
            return
        for raw in parts:
            if "functionResponse" in raw and isinstance(raw["functionResponse"], dict):
                try:
                    attachments = tuple(part_from_wire(p, None)
                                        for p in raw["functionResponse"].get("parts") or ()
                                        if isinstance(p, dict))
                except SHAPE_ERRORS:
                    # A response of an unexpected shape is kept whole, like an unknown part.
                    plain.append(UnknownPart(original_type="functionResponse", raw=dict(raw),
                                             issuer=ISSUER))
                    continue
                flush()
                marks = marks_for_first()
                if first and previous_tool:
                    marks["split"] = True
                self.history.append(self._response(raw, marks, attachments))
                first = False
            else:
                plain.append(part_from_wire(raw, None))
        flush()

    def _response(self, raw: dict[str, Any], marks: dict[str, Any],
                  attachments: tuple[Part, ...]) -> ToolMessage:
        body = raw["functionResponse"]
        wire_id = body.get("id")
        name = body.get("name")
        call, sent = self._pair(wire_id if isinstance(wire_id, str) else None, name)
        call_id = call.id if call is not None else (
            wire_id if isinstance(wire_id, str) and wire_id.startswith("tu_") else new_tool_call_id())
        own = wire_id if isinstance(wire_id, str) else None
        if call is None or own != sent:
            marks["id"] = own
        response = body.get("response")
        status = "success"
        data: Any = None
        if isinstance(response, dict) and set(response) == {"output"}:
            value = response["output"]
        elif isinstance(response, dict) and set(response) == {"error"}:
            value, status = response["error"], "error"
        else:
            value = response
            marks["shape"] = "whole"
        if isinstance(value, str) and marks.get("shape") != "whole":
            text = value
        else:
            data = value
            text = json_text(value)
            marks.setdefault("shape", "data")
        inner = {k: v for k, v in body.items() if k not in ("id", "name", "response", "parts")}
        if inner:
            marks["inner"] = inner
        beside = {k: v for k, v in raw.items() if k != "functionResponse"}
        if beside:
            marks["extra"] = beside
        fields = {"call_id": call_id, "tool_name": name if isinstance(name, str) else "",
                  "status": status, "output_text": text, "parts": attachments,
                  "provider_data": _marks(marks)}
        if data is not None and type(text) is str:
            # A response read from JSON: copied as validation of the JSON field would copy it.
            copied = json_copy(data)
            if copied is not NOT_JSON:
                fields["data"] = copied
                return build(ToolMessage, fields)
        if data is not None or type(text) is not str:  # data from outside: validated
            return ToolMessage(**fields, data=data)
        return build(ToolMessage, fields)

    def _pair(self, wire_id: str | None, name: Any) -> tuple[ToolCallPart | None, str | None]:
        pending = self.pending
        if wire_id is not None:
            for k, (call, sent) in enumerate(pending):
                if sent == wire_id:
                    del pending[k]
                    return call, sent
        for k, (call, sent) in enumerate(pending):
            if call.name == name and (wire_id is None or sent is None):
                del pending[k]
                return call, sent
        return None, None


def _text_parts(parts: Any) -> tuple[Part, ...] | None:
    """The parts of a part list of plain text parts alone (``{"text": ...}``, the commonest), each
    made as :func:`part_from_wire` makes it, without the walk of the list; ``None`` for any
    other list (or no list)."""
    if type(parts) is not list:
        return None
    made = []
    for p in parts:
        text = p.get("text") if type(p) is dict and len(p) == 1 else None
        if type(text) is not str:
            return None
        made.append(plain_text_part(text))
    return tuple(made)


def _marks(marks: dict[str, Any]) -> ProviderData | None:
    return shared_provider_data(ISSUER, marks) if marks else None


def _sent_id(call: ToolCallPart) -> str | None:
    """The id the encoder will send ``call`` with (``None``: without one)."""
    own = call.provider_ids.get(ISSUER)
    if own is not None:
        return own
    pd = call.provider_data
    if pd is not None and isinstance(pd.data, dict) and pd.data.get("no_id") is True:
        return None
    return call.id


def _parts(content: Mapping[str, Any], where: str) -> list[dict[str, Any]]:
    parts = content.get("parts", [])
    if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
        raise WireFormatError(ISSUER, "request", "not a list of Part objects", f"{where}.parts")
    return parts


# The fields the settings and tools are read from (tools, generationConfig, toolConfig, in the
# spelling the body used), marshalled -> what was read from them: the settings, the
# generationConfig keys they took (and whether they took them all), and the tools. A
# conversation sends the same ones with every request; a body that meets them again reads only
# its contents and the fields kept as they are (its system instruction among them). Remembered
# only when every tool became a definition, so no dict of another body is handed out. Bounded.
_REST: dict[bytes, tuple[RequestSettings, frozenset[str], bool, tuple[ToolSpec, ...]]] = memo({})
_REST_LIMIT = 1024
_REST_FIELDS = frozenset({"tools", "generationConfig", "generation_config", "toolConfig", "tool_config"})


def from_wire_request(request: Any, options: object = None) -> ImportedRequest:
    """A stored ``generateContent`` body read back: history, tools and the other fields (no
    option changes how a request reads)."""
    raw = request if type(request) is dict else load_json(request, ISSUER, "request")
    key = fields_key(raw, _REST_FIELDS) if len(raw) > 1 else None
    known = _REST.get(key) if key is not None else None
    # Tools remembered were read from a body that showed no other API's sign: not looked at again.
    refuse_foreign_request(raw, "google", ISSUER, tools_read=known is not None)
    # Each field is brought to camelCase by its own reader as it is read: the contents part by
    # part, the tools a declaration at a time (only when first met), the generationConfig with
    # its settings (likewise); here only the body's own keys, and the fields kept as they are.
    body = camel_top(raw)
    importer = _Importer()
    if "systemInstruction" in body:
        try:
            importer.system(body["systemInstruction"])
        except BaseException as exc:
            raise at_path(exc, ISSUER, "request", "systemInstruction")  # noqa: B904 (at_path chains it)
    if "contents" not in body:
        # The one field generateContent requires; without it the body is another API's.
        raise WireFormatError(ISSUER, "request", "it has no contents list", "contents")
    contents = body["contents"]
    if not isinstance(contents, list):
        raise WireFormatError(ISSUER, "request", "not a list", "contents")
    for i, content in enumerate(contents):
        try:
            importer.content(content, i)
        except BaseException as exc:
            raise at_path(exc, ISSUER, "request", f"contents[{i}]")  # noqa: B904 (at_path chains it)
    params = {k: v for k, v in body.items() if k not in _BODY_FIELDS}
    if params:
        params = camel_keys(params)
    if "tools" in body and not body["tools"]:
        params["tools"] = body["tools"]
    if "generationConfig" in body:
        if not isinstance(body["generationConfig"], dict):
            raise WireFormatError(ISSUER, "request", "not an object", "generationConfig")
        params["generationConfig"] = body["generationConfig"]  # in camelCase once read
    # The tool choice as before (a word, a name, or the native toolConfig); a canonical one is
    # in the settings as well, and to_wire_kwargs passes it from there.
    tool_choice = None
    if "toolConfig" in body:
        config = camel_keys(body["toolConfig"])
        tool_choice = tool_choice_from_wire(config)
        if tool_choice is None:
            params["toolConfig"] = config
    if known is not None:
        settings, read, read_all, tools = known
        if read_all:
            params.pop("generationConfig", None)
        else:
            take_read(params, read)
    else:
        settings, read, whole = settings_read(body, params)
        tools = tools_from_wire(body["tools"]) if body.get("tools") else ()
        if key is not None and whole and all_canonical(tools):
            if len(_REST) >= _REST_LIMIT:
                _REST.clear()
            _REST[key] = (settings, read, bool(read) and "generationConfig" not in params, tools)
    return imported_request(tuple(importer.history), tools, "", settings.max_output_tokens,
                            tool_choice, params, None, settings)
