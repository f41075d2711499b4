"""Convert between the canonical form and provider wire formats (``partwire convert``).

A *format* is ``canonical`` (a history as JSONL bytes or text, or a list of events) or an
adapter name (``anthropic``; ``openai-chat`` and the others as they land). From a wire format,
a request body becomes a history (``from_wire_request``) and a response body becomes one
assistant message (``from_wire``); to a wire format, the history becomes a request body
(``to_wire``). Every conversion returns what it lost beside its output.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from partwire import messages as _messages
from partwire._base import json_kind
from partwire._limits import exceeds_depth
from partwire.adapters import adapter_name, get_adapter
from partwire.codec import MAX_DEPTH, dumps, loads
from partwire.errors import (
    ArgumentError,
    ConversionError,
    LossError,
    PartwireError,
    WireFormatError,
)
from partwire.history import EVENT_ADAPTER, HistoryEvent
from partwire.ids import DEFAULT_MODEL_ALIASES
from partwire.model_ids import PROVIDER_PREFIXES, model_owner
from partwire.parts import ToolCallPart
from partwire.projection import Loss, log_losses
from partwire.settings import EMPTY_SETTINGS, RequestSettings
from partwire.tools import ToolDefinition

if TYPE_CHECKING:
    from partwire.adapters import Adapter, ImportedRequest, ToolSpec

__all__ = ["CANONICAL", "convert", "read_tools"]

CANONICAL = "canonical"
"""The name of the canonical format."""
OTEL = "otel-genai"
"""The OpenTelemetry GenAI span attributes (partwire.otel): read as a history, written as the
attributes of one model call (a JSON object)."""
# The chat-UI formats (partwire.ui): the AI SDK's UIMessage and ModelMessage lists, AG-UI messages.
UI_FORMATS = ("ai-sdk-ui", "ai-sdk-model", "ag-ui")
# Each chat-UI format's module (imported on first use: `convert` of a provider body never loads them).
_UI_MODULES = {"ai-sdk-ui": "partwire.ui.ai_sdk", "ai-sdk-model": "partwire.ui.ai_sdk_model",
               "ag-ui": "partwire.ui.ag_ui"}
# Peer libraries' JSON dumps of their message lists, and agent CLI session files (read only):
# partwire.bridges.<name>.read_dump.
BRIDGES = ("pydantic-ai", "langchain", "claude-code", "codex")

# Top-level keys that mark a body as a request (Anthropic/Chat "messages", Gemini "contents",
# Responses "input"); anything else is read as a response.
_REQUEST_KEYS = ("messages", "contents", "input")
_MESSAGE_TYPES = (_messages.SystemMessage, _messages.DeveloperMessage, _messages.UserMessage,
                  _messages.AssistantMessage, _messages.ToolMessage)
# Converse answers 400 to a request whose messages hold toolUse blocks and no toolConfig
# (the Anthropic adapter reports each undefined call itself)
# Converse ("toolConfig field must be defined when using toolUse and toolResult content blocks").
_NEEDS_TOOL_DEFINITIONS = frozenset({"bedrock"})


def convert(data: Any, *, source: str, target: str, model: str | None = None, strict: bool = False,
            tools: Any = None, options: Mapping[str, Any] | None = None,
            settings: RequestSettings | Mapping[str, Any] | None = None) -> tuple[Any, tuple[Loss, ...]]:
    """Convert ``data`` from ``source`` to ``target``; returns ``(output, losses)``.

    The output is JSONL ``bytes`` for ``canonical``, a request body (``dict``) for an adapter,
    the GenAI span attributes (``dict``, :func:`partwire.otel.to_attributes`) for ``otel-genai``.
    Sources are those, plus peer libraries' dumps and agent session files (:data:`BRIDGES`).

    ``model`` names the model of a request body. Without it, a request read from the same adapter
    keeps its own, else the last assistant message's model is used when it belongs to the
    target; a model of another provider is refused (:class:`~partwire.errors.ConversionError`).
    Assistant messages imported from a request body get ``provider`` (from the wire format) and
    ``model`` (from the body, else ``model``) where they have none, so the history validates.

    ``tools`` are the tool definitions to offer: canonical :class:`~partwire.tools.ToolDefinition`
    objects or dicts, or a provider's own ``tools`` array (Anthropic or OpenAI Chat), detected by
    shape (see :func:`read_tools`); they replace the tools of an imported request. A history that
    calls tools with no definition for them is a loss where the target API needs definitions.

    The generation settings of an imported request (temperature, tool choice, reasoning, output
    format...) cross: the target writes each into its own field, and reports what it cannot
    take (``request.settings.<field>``). ``settings`` (:class:`~partwire.settings.RequestSettings`
    or a mapping of its fields) override them field by field; from a canonical history they are
    the request's only settings. Body fields without a canonical form do not cross (a loss).

    ``options`` are adapter options (``{"dialect": "deepseek"}``): each goes to the adapter(s)
    of this conversion whose ``Options`` have a field of that name. ``strict=True`` raises
    :class:`~partwire.errors.LossError` on any loss.
    """
    if model is not None and not model.strip():
        raise ConversionError("the model is empty: name one, or pass none to take the input's own",
                              option="model")
    if source in UI_FORMATS or target in UI_FORMATS:
        return _convert_ui(data, source=source, target=target, model=model, strict=strict,
                          tools=tools, options=options, settings=settings)
    if OTEL in (source, target):
        return _convert_otel(data, source=source, target=target, model=model, strict=strict, tools=tools,
                             options=options, settings=settings)
    # An alias (openai, gemini, openai-chat) is its adapter: one name from here on.
    source = source if source in (CANONICAL, *BRIDGES) else adapter_name(source)
    target = target if target == CANONICAL else adapter_name(target)
    source_adapter = None if source in (CANONICAL, *BRIDGES) else get_adapter(source)
    target_adapter = None if target == CANONICAL else get_adapter(target)
    source_opts, target_opts = _split_options(options, source_adapter, target_adapter)
    history, imported = _read(data, source, source_opts)
    if source_adapter is not None and imported is not None:
        history = _fill_provenance(history, source_adapter, source_opts, imported.model or model)
    definitions = read_tools(tools) if tools is not None else None
    own_settings = _settings(settings)
    losses: list[Loss] = []
    if target_adapter is None:
        if own_settings is not None:
            raise ConversionError("settings belong to a request body; a canonical history holds "
                                  "none", option="settings")
        # The output limit is not counted: Anthropic's requires one, and every body states it.
        if imported is not None and (imported.tools or imported.params or imported.tool_choice
                                     or not imported.settings.model_copy(
                                         update={"max_output_tokens": None}).is_empty()):
            losses.append(Loss("request", "request", "dropped",
                               "a canonical history holds no tool definitions or request "
                               "parameters", _name(source)))
        if strict and losses:
            raise LossError(tuple(losses), _name(source))
        log_losses(losses)
        return dumps(history), tuple(losses)
    adapter = target_adapter
    kwargs: dict[str, Any] = {}
    own_model: str | None = None
    if imported is not None:
        kwargs = imported.to_wire_kwargs()
        own_model = kwargs.pop("model") or None
        if _name(source) != adapter.NAME:
            # Body fields belong to the API that defined them; tools and limits carry over.
            own_model = None
            kwargs.pop("options", None)  # the source adapter's options for re-exporting its body
            if kwargs["params"]:
                losses.append(Loss("request", "request", "dropped",
                                   f"request fields {sorted(kwargs['params'])} are specific to "
                                   f"{source}", adapter.NAME))
            kwargs["params"] = {}
            # The settings cross (each adapter writes them into its own fields, or reports them);
            # a native tool choice the canonical settings could not hold does not.
            if isinstance(kwargs.pop("tool_choice", None), Mapping):
                losses.append(Loss("request.tool_choice", "request", "dropped",
                                   f"a {source} tool_choice does not apply to {target}",
                                   adapter.NAME))
    if definitions is not None:
        kwargs["tools"] = definitions
    if own_settings is not None:
        kwargs["settings"] = kwargs.get("settings", EMPTY_SETTINGS).merged(own_settings)
    if not any(isinstance(e, _MESSAGE_TYPES) for e in history):
        raise ConversionError(f"the history has no messages: there is nothing to send to {target}")
    issuer = _issuer(adapter, target_opts)
    chosen = model or own_model or _last_model(history, issuer)
    if not chosen:
        last = _last_model(history, None)
        why = f"the history's models are not {issuer}'s (the last is {last})" if last else \
            "no assistant message names one"
        raise ConversionError(f"converting to {target} needs a model, and {why}{_example(issuer)}",
                              option="model")
    _check_model(chosen, issuer, target)
    losses.extend(_missing_tool_definitions(history, kwargs.get("tools", ()), adapter.NAME))
    if strict and losses:
        raise LossError(tuple(losses), adapter.NAME)
    log_losses(losses)  # as to_wire logs its own
    if target_opts:
        kwargs["options"] = {**kwargs.get("options", {}), **target_opts}
    projection = adapter.to_wire(history, model=chosen, strict=strict, **kwargs)
    return projection.request, (*losses, *projection.losses)


def _convert_otel(data: Any, *, source: str, target: str, model: str | None, strict: bool, tools: Any,
                  options: Mapping[str, Any] | None,
                  settings: RequestSettings | Mapping[str, Any] | None) -> tuple[Any, tuple[Loss, ...]]:
    """To or from the GenAI span attributes, through the canonical form (settings go only to a
    request body: the span attributes hold none)."""
    from partwire import otel

    if target == OTEL and _settings(settings) is not None:
        raise ConversionError("settings belong to a request body; the span attributes hold none",
                              option="settings")
    if source == OTEL:
        history = otel.from_attributes(data)
        if tools is None:
            tools = list(otel.tools_from_attributes(data)) or None
        if target == OTEL:
            source, data = CANONICAL, history
        else:
            return convert(history, source=CANONICAL, target=target, model=model, strict=strict,
                           tools=tools, options=options, settings=settings)
    jsonl, losses = convert(data, source=source, target=CANONICAL, strict=strict, options=options)
    result = otel.to_attributes(loads(jsonl, strict=True), tools=read_tools(tools) if tools is not None else (),
                                strict=strict)
    return result.attributes, (*losses, *result.losses)


def _settings(settings: RequestSettings | Mapping[str, Any] | None) -> RequestSettings | None:
    """``settings=`` as :class:`RequestSettings`; a ConversionError names a field that is wrong."""
    if settings is None or isinstance(settings, RequestSettings):
        return settings
    if not isinstance(settings, Mapping):
        raise ConversionError(f"settings must be an object of settings, not {json_kind(settings)}",
                              option="settings")
    try:
        return RequestSettings.model_validate(settings)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = ".".join(str(x) for x in error["loc"])
        raise ConversionError(f"settings.{where}: {error['msg']}", option="settings") from exc


def read_tools(tools: Any) -> tuple[ToolSpec, ...]:
    """Tool definitions from canonical definitions (or their dicts) or a provider's ``tools`` array.

    Each entry is recognised by its shape: a :class:`~partwire.tools.ToolDefinition`, or a dict
    with ``side_effects`` (canonical); ``{"type": "function", "function": {...}}`` (OpenAI Chat);
    a dict with ``input_schema``, or any other dict with a ``type`` and a ``name`` (Anthropic,
    server tools included). A dict ``{"tools": [...]}`` (a whole request body) gives its array.
    Provider entries are read by that provider's adapter, so they become canonical definitions
    where they fit exactly and stay native dicts otherwise.
    """
    if isinstance(tools, Mapping) and "tools" in tools:
        tools = tools["tools"]
    if isinstance(tools, str | bytes | bytearray) or not isinstance(tools, Sequence):
        raise ConversionError(f"tools must be a list of tool definitions, not {json_kind(tools)}")
    out: list[ToolSpec] = []
    for index, entry in enumerate(tools):
        if isinstance(entry, ToolDefinition):
            out.append(entry)
            continue
        if not isinstance(entry, Mapping):
            raise ConversionError(f"tools[{index}] is a {json_kind(entry)}, not a tool definition")
        kind = _tool_kind(entry)
        if kind is None:
            raise ConversionError(
                f"tools[{index}] is not a tool definition partwire knows: expected a canonical one "
                f"(with side_effects), an Anthropic one (input_schema) or an OpenAI Chat one "
                f"(type 'function' with a 'function' object)")
        if kind == CANONICAL:
            try:
                out.append(ToolDefinition.model_validate(entry))
            except ValidationError as exc:
                error = exc.errors(include_url=False)[0]
                where = ".".join(str(x) for x in error["loc"])
                raise ConversionError(f"tools[{index}].{where}: {error['msg']}") from exc
            continue
        body: dict[str, Any] = {"model": "tools", "max_tokens": 1, "messages": [], "tools": [dict(entry)]}
        try:
            out.extend(get_adapter(kind).from_wire_request(body).tools)
        except (PartwireError, ValueError, TypeError, KeyError) as exc:
            raise ConversionError(f"tools[{index}] is not a valid {kind} tool: {exc}") from exc
    return tuple(out)


def _tool_kind(entry: Mapping[str, Any]) -> str | None:
    if "side_effects" in entry:
        return CANONICAL
    if entry.get("type") == "function" and isinstance(entry.get("function"), Mapping):
        return "openai_chat"
    if "input_schema" in entry or (isinstance(entry.get("type"), str) and isinstance(entry.get("name"), str)):
        return "anthropic"
    return None


def _missing_tool_definitions(history: Sequence[HistoryEvent], tools: Sequence[ToolSpec],
                              adapter: str) -> list[Loss]:
    """A loss when the target needs a definition for every tool called and some have none."""
    if adapter not in _NEEDS_TOOL_DEFINITIONS:
        return []
    defined = {t.get("name") if isinstance(t, Mapping) else t.name for t in tools}
    called = [p.name for e in history if isinstance(e, _messages.AssistantMessage)
              for p in e.parts if isinstance(p, ToolCallPart)]
    missing = sorted({name for name in called if name not in defined})
    if not missing:
        return []
    names = ", ".join(missing)
    return [Loss("request.tools", "tool_definition", "dropped",
                 f"the history calls tools with no definition here ({names}); {adapter} rejects "
                 f"tool calls without definitions: pass tools= (--tools FILE)", adapter)]


def _split_options(
    options: Mapping[str, Any] | None, *adapters: Adapter | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each option to the adapters whose ``Options`` declare it; one no adapter declares is refused."""
    if not options:
        return {}, {}
    out: list[dict[str, Any]] = []
    taken: set[str] = set()
    known: set[str] = set()
    for adapter in adapters:
        fields = _option_fields(adapter)
        known |= fields
        mine = {k: v for k, v in options.items() if k in fields}
        taken |= set(mine)
        out.append(mine)
    unknown = sorted(set(options) - taken)
    if unknown:
        there = f"; the options here are {', '.join(sorted(known))}" if known else "; no adapter here takes any"
        raise ConversionError(f"no adapter of this conversion has the option {', '.join(unknown)}{there}")
    return out[0], out[1]


def _option_fields(adapter: Adapter | None) -> set[str]:
    cls = getattr(adapter, "Options", None)
    if adapter is None or cls is None or not dataclasses.is_dataclass(cls):
        return set()
    return {f.name for f in dataclasses.fields(cls)}


def _issuer(adapter: Adapter, options: Mapping[str, Any]) -> str:
    # OpenAI Chat's dialects are named after their issuers (openrouter, deepseek, vllm, ollama).
    dialect = options.get("dialect")
    return dialect if isinstance(dialect, str) else adapter.CAPABILITIES.issuer


def _check_model(model: str, issuer: str, target: str) -> None:
    """Refuse a model that belongs to another provider than the one serving ``target``."""
    owner = model_owner(model, issuer)
    if owner is not None and owner != issuer:
        raise ConversionError(f"model {model!r} is {owner}'s, and {target} serves only {issuer}'s "
                              f"models{_example(issuer)}", option="model")


def _example(issuer: str) -> str:
    known = next((m for m in DEFAULT_MODEL_ALIASES.values() if m.startswith(f"{issuer}:")), None)
    return f"; for example {known}" if known else ""


def _fill_provenance(history: list[HistoryEvent], adapter: Adapter, options: Mapping[str, Any],
                     model: str | None) -> list[HistoryEvent]:
    """Imported assistant messages name who served them: the wire format's issuer and the body's model."""
    issuer = _issuer(adapter, options)
    full = None
    if model:
        head, sep, _ = model.partition(":")
        full = model if sep and head in PROVIDER_PREFIXES else f"{issuer}:{model}"
    out: list[HistoryEvent] = []
    for event in history:
        if isinstance(event, _messages.AssistantMessage):
            changes: dict[str, Any] = {}
            if event.provider is None:
                changes["provider"] = issuer
            if event.model is None and full is not None:
                changes["model"] = full
            if event.api is None:
                changes["api"] = adapter.NAME
            if changes:
                event = event.model_copy(update=changes)  # plain strings: nothing to validate
        out.append(event)
    return out


def _read(data: Any, source: str, options: Mapping[str, Any]
          ) -> tuple[list[HistoryEvent], ImportedRequest | None]:
    if source == CANONICAL:
        return _read_canonical(data), None
    if source in BRIDGES:
        bridge = importlib.import_module(f"partwire.bridges.{source.replace('-', '_')}")
        return bridge.read_dump(data), None
    adapter = get_adapter(source)
    body = _body(data, adapter.NAME)
    extra: dict[str, Any] = {"options": dict(options)} if options else {}
    # A bare list is a stored chat log (OpenAI's list of messages): a request without its body.
    if isinstance(body, list) or (isinstance(body, dict) and any(key in body for key in _REQUEST_KEYS)):
        imported = adapter.from_wire_request(body, **extra)
        return list(imported.history), imported
    return [adapter.from_wire(body, **extra)], None


def _body(data: Any, api: str) -> Any:
    """The JSON of a wire body given as text, bytes or parsed JSON; an object or a list, or a WireFormatError."""
    if isinstance(data, str | bytes | bytearray):
        if exceeds_depth(bytes(data) if not isinstance(data, str) else data, MAX_DEPTH):
            raise WireFormatError(api, "body", f"JSON nested deeper than {MAX_DEPTH} levels")
        try:
            data = json.loads(data)
        except UnicodeDecodeError as exc:
            raise WireFormatError(api, "body", f"not UTF-8: {exc.reason} at byte {exc.start}") from exc
        except json.JSONDecodeError as exc:
            raise WireFormatError(api, "body", f"invalid JSON: {exc.msg} at line {exc.lineno} "
                                               f"column {exc.colno}") from exc
        except (ValueError, RecursionError) as exc:
            raise WireFormatError(api, "body", f"invalid JSON: {exc}") from exc
    elif callable(getattr(data, "to_dict", None)):  # an SDK object: its dump of what the server sent
        data = data.to_dict(mode="json")
    elif callable(getattr(data, "model_dump", None)):
        data = data.model_dump(mode="json", exclude_unset=True, by_alias=True)
    elif isinstance(data, Mapping):
        data = dict(data)
    if not isinstance(data, dict | list):
        raise WireFormatError(api, "body", f"a JSON {json_kind(data)}, not an object (a request or response body)")
    return data


def _read_canonical(data: Any) -> list[HistoryEvent]:
    if isinstance(data, bytes | bytearray | str):
        # Strict: a conversion of a damaged history would hide the damage; the error names the
        # line, and `partwire validate` / `rewrite` are the tools for repairing it first.
        return loads(bytes(data) if not isinstance(data, str) else data, strict=True)
    if isinstance(data, Sequence):
        return [e if not isinstance(e, dict) else EVENT_ADAPTER.validate_python(e) for e in data]
    raise ArgumentError("data", f"canonical input must be JSONL bytes or text or a list of events, "
                    f"not {type(data).__name__}")


def _last_model(history: list[HistoryEvent], issuer: str | None) -> str | None:
    """The model of the last assistant message served by ``issuer`` (by anyone when ``None``)."""
    for event in reversed(history):
        if isinstance(event, _messages.AssistantMessage) and event.model and (
            issuer is None or event.model.startswith(f"{issuer}:")
        ):
            return event.model
    return None


def _name(fmt: str) -> str:
    return fmt.replace("-", "_")


def _convert_ui(data: Any, *, source: str, target: str, strict: bool = False,
                **kwargs: Any) -> tuple[Any, tuple[Loss, ...]]:
    """Convert ``data`` when ``source`` or ``target`` is a chat-UI format; ``kwargs`` go to
    :func:`partwire.convert.convert` for the leg to or from the other format."""
    losses: list[Loss] = []
    if source in UI_FORMATS:
        read = importlib.import_module(_UI_MODULES[source]).from_wire(data)
        _report_ui(read.losses, strict, source)
        losses.extend(read.losses)
        data, source = read.value, CANONICAL
    if target in UI_FORMATS:
        if source != CANONICAL or not isinstance(data, list):
            jsonl, more = convert(data, source=source, target=CANONICAL, strict=strict,
                                  options=kwargs.get("options"))
            losses.extend(more)
            data = loads(jsonl, strict=True)
        written = importlib.import_module(_UI_MODULES[target]).to_wire(data)
        _report_ui(written.losses, strict, target)
        return written.value, (*losses, *written.losses)
    output, more = convert(data, source=source, target=target, strict=strict, **kwargs)
    return output, (*losses, *more)


def _report_ui(losses: tuple[Loss, ...], strict: bool, name: str) -> None:
    if strict and losses:
        raise LossError(losses, name)
    log_losses(losses)

