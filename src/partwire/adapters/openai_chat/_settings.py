"""Generation settings: :class:`RequestSettings` <-> Chat Completions' own fields.

The dialect's output-limit field (``max_completion_tokens`` for OpenAI), ``temperature``,
``top_p``, ``stop``, ``seed``, ``presence_penalty``, ``frequency_penalty``, ``tool_choice``,
``parallel_tool_calls``, ``reasoning_effort``, ``response_format`` and ``safety_identifier``
(``user`` for the other dialects). Chat has no ``top_k`` and returns no reasoning summaries.
OpenAI's reasoning models refuse the sampling settings (:func:`openai_refused`). The table:
``docs/conversion.md``, "Settings".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from partwire import settings as _settings
from partwire.adapters._losses import LossCollector
from partwire.adapters._settings import (
    EFFORTS,
    Taken,
    effort_for_budget,
    marks_of,
    no_restore,
    number,
    openai_json_schema,
    openai_refused,
    read_settings,
    setting_loss,
)
from partwire.adapters.openai_chat._dialects import Dialect
from partwire.settings import RequestSettings

__all__ = ["settings_from_wire", "settings_to_wire"]

_MAX_STOP = 4  # OpenAI: "up to 4 sequences"
# The body fields the settings read (besides the dialect's limit field and tool_choice).
_KEYS = frozenset({"temperature", "top_p", "seed", "presence_penalty", "frequency_penalty", "stop",
                   "parallel_tool_calls", "reasoning_effort", "response_format", "safety_identifier",
                   "user"})
_SAMPLING = ("temperature", "top_p", "seed", "presence_penalty", "frequency_penalty")
_WORDS = frozenset({"auto", "none", "required"})
_JSON_SCHEMA_KEYS = frozenset({"name", "schema", "description", "strict"})


def _user_field(dialect: Dialect) -> str:
    # OpenAI replaced `user` by `safety_identifier`; the compatible servers know only `user`.
    return "safety_identifier" if dialect.name == "openai" else "user"


# -- to_wire --------------------------------------------------------------------------------


def settings_to_wire(request: dict[str, Any], settings: RequestSettings,
                     native_choice: Mapping[str, Any] | str | None, losses: LossCollector, *,
                     dialect: Dialect, model: str, issuers: Collection[str]) -> None:
    """Write ``settings`` into ``request``. A native choice is the API's own ``tool_choice``: a
    dict, or a word of the dialect's own (Mistral's ``any``), sent as it is."""
    openai = dialect.name == "openai"
    if native_choice is not None:
        request["tool_choice"] = native_choice if isinstance(native_choice, str) else dict(native_choice)
    elif settings.tool_choice is not None:
        word = marks_of(settings, issuers).get("tool_choice")
        if isinstance(settings.tool_choice, _settings.RequiredToolChoice) \
                and word in dialect.tool_choices:
            request["tool_choice"] = word  # the dialect's own word for it, as the request said
        else:
            request["tool_choice"] = _tool_choice_to_wire(settings.tool_choice)
    if settings.parallel_tool_calls is not None:
        request["parallel_tool_calls"] = settings.parallel_tool_calls
    if settings.max_output_tokens is not None:
        request[dialect.max_tokens_field] = settings.max_output_tokens
    if settings.is_empty():
        return
    marks = marks_of(settings, issuers)
    for name in _SAMPLING:
        value = getattr(settings, name)
        if value is None:
            continue
        why = openai_refused(model, name, value) if openai else None
        if why is not None:
            setting_loss(losses, name, "dropped", why)
        else:
            request[name] = value
    if settings.top_k is not None:
        setting_loss(losses, "top_k", "dropped", "Chat Completions has no top_k")
    if settings.stop_sequences is not None:
        _stop_to_wire(request, settings.stop_sequences, marks, losses, openai=openai, model=model)
    if settings.reasoning is not None:
        _reasoning_to_wire(request, settings, losses, model=model if openai else "")
    if settings.output_format is not None:
        _format_to_wire(request, settings, losses)
    if settings.end_user_id is not None:
        field = marks.get("end_user") or _user_field(dialect)
        request[field] = settings.end_user_id


def _tool_choice_to_wire(choice: Any) -> str | dict[str, Any]:
    match choice:
        case _settings.AutoToolChoice() | _settings.NoToolChoice() | _settings.RequiredToolChoice():
            word: str = choice.type
            return word
        case _settings.NamedToolChoice():
            return {"type": "function", "function": {"name": choice.name}}
        case _settings.AllowedToolsChoice():
            return {"type": "allowed_tools", "allowed_tools": {
                "mode": choice.mode,
                "tools": [{"type": "function", "function": {"name": n}} for n in choice.names]}}
    raise TypeError(f"not a tool choice: {choice!r}")  # pragma: no cover


def _stop_to_wire(request: dict[str, Any], stop: tuple[str, ...], marks: Mapping[str, Any],
                  losses: LossCollector, *, openai: bool, model: str) -> None:
    why = openai_refused(model, "stop_sequences") if openai else None
    if why is not None:
        setting_loss(losses, "stop_sequences", "dropped", why)
        return
    if openai and len(stop) > _MAX_STOP:
        setting_loss(losses, "stop_sequences", "rewritten",
                     f"OpenAI takes at most {_MAX_STOP} stop sequences; the first {_MAX_STOP} "
                     f"of {len(stop)} are sent")
        stop = stop[:_MAX_STOP]
    if marks.get("stop") == "string" and len(stop) == 1:
        request["stop"] = stop[0]
    else:
        request["stop"] = list(stop)


def _reasoning_to_wire(request: dict[str, Any], settings: RequestSettings, losses: LossCollector, *,
                       model: str) -> None:
    reasoning = settings.reasoning
    assert reasoning is not None
    if reasoning.summary not in (None, "none"):
        setting_loss(losses, "reasoning", "dropped",
                     "Chat Completions returns no reasoning summary")
    if reasoning.enabled is None:
        return
    why = openai_refused(model, "reasoning")
    if why is not None:
        setting_loss(losses, "reasoning", "dropped", why)
        return
    if reasoning.enabled is False:
        request["reasoning_effort"] = "none"
    elif reasoning.effort is not None:
        request["reasoning_effort"] = reasoning.effort
        if reasoning.budget_tokens is not None:
            setting_loss(losses, "reasoning", "dropped",
                         "Chat Completions takes an effort, not a token budget: the effort is sent")
    elif reasoning.budget_tokens is not None:
        effort = effort_for_budget(reasoning.budget_tokens)
        request["reasoning_effort"] = effort
        setting_loss(losses, "reasoning", "rewritten",
                     f"a budget of {reasoning.budget_tokens} tokens is sent as effort {effort}")
    else:
        request["reasoning_effort"] = "medium"
        setting_loss(losses, "reasoning", "rewritten",
                     "reasoning on, with no level, is sent as OpenAI's default effort (medium)")


def _format_to_wire(request: dict[str, Any], settings: RequestSettings, losses: LossCollector) -> None:
    match settings.output_format:
        case _settings.TextOutput():
            request["response_format"] = {"type": "text"}
        case _settings.JsonObjectOutput():
            request["response_format"] = {"type": "json_object"}
        case _settings.JsonSchemaOutput() as fmt:
            inner = openai_json_schema(fmt, losses)
            request["response_format"] = {"type": "json_schema", "json_schema": inner}


# -- from_wire_request ----------------------------------------------------------------------


def settings_from_wire(body: Mapping[str, Any], params: dict[str, Any], dialect: Dialect
                       ) -> RequestSettings:
    """The settings of a request body; the fields read are taken out of ``params``.

    A field whose shape the canonical form cannot say stays in ``params``, raw; the tool choice
    is read from ``body`` (``from_wire_request`` keeps a native one as it is).
    """
    values: dict[str, Any] = {}
    marks: dict[str, Any] = {}
    wire_choice = body.get("tool_choice")
    if wire_choice == "any" and "any" in dialect.tool_choices:
        values["tool_choice"] = "required"
        marks["tool_choice"] = wire_choice  # Mistral's word for it, sent back as it came
    else:
        choice = _tool_choice_from_wire(wire_choice)
        if choice is not None:
            values["tool_choice"] = choice
    if params.keys().isdisjoint(_KEYS) and dialect.max_tokens_field not in params:
        return read_settings(values, no_restore, dialect.issuer, marks)
    taken = Taken(params)
    take = taken.take
    limit = params.get(dialect.max_tokens_field)
    if type(limit) is int:
        values["max_output_tokens"] = take("max_output_tokens", dialect.max_tokens_field)
    if type(params.get("parallel_tool_calls")) is bool:
        values["parallel_tool_calls"] = take("parallel_tool_calls", "parallel_tool_calls")
    for name in _SAMPLING:
        if name in params and number(params[name]):
            values[name] = take(name, name)
    stop = params.get("stop")
    if isinstance(stop, str):
        values["stop_sequences"] = (take("stop_sequences", "stop"),)
        marks["stop"] = "string"
    elif isinstance(stop, list) and all(isinstance(s, str) for s in stop):
        values["stop_sequences"] = tuple(take("stop_sequences", "stop"))
    effort = params.get("reasoning_effort")
    if effort == "none":
        take("reasoning", "reasoning_effort")
        values["reasoning"] = {"enabled": False}
    elif effort in EFFORTS:
        values["reasoning"] = {"enabled": True, "effort": take("reasoning", "reasoning_effort")}
    fmt = _format_from_wire(params.get("response_format"))
    if fmt is not None:
        take("output_format", "response_format")
        values["output_format"] = fmt
    own = _user_field(dialect)
    other = "user" if own == "safety_identifier" else "safety_identifier"
    if isinstance(params.get(own), str):
        values["end_user_id"] = take("end_user_id", own)
    elif isinstance(params.get(other), str):
        values["end_user_id"] = take("end_user_id", other)
        marks["end_user"] = other
    return read_settings(values, taken.restore, dialect.issuer, marks)


def _tool_choice_from_wire(choice: Any) -> Any:
    """The canonical tool choice (as a value ``RequestSettings`` validates), or ``None``."""
    if isinstance(choice, str):
        return choice if choice in _WORDS else None
    if not isinstance(choice, dict):
        return None
    kind = choice.get("type")
    if kind == "function" and choice.keys() == {"type", "function"}:
        function = choice["function"]
        if isinstance(function, dict) and function.keys() == {"name"} and isinstance(
                function["name"], str):
            return {"type": "tool", "name": function["name"]}
    if kind == "allowed_tools" and choice.keys() == {"type", "allowed_tools"}:
        allowed = choice["allowed_tools"]
        if isinstance(allowed, dict) and allowed.keys() == {"mode", "tools"} and allowed[
                "mode"] in ("auto", "required") and isinstance(allowed["tools"], list):
            names = []
            for tool in allowed["tools"]:
                function = tool.get("function") if isinstance(tool, dict) else None
                if not (isinstance(tool, dict) and tool.keys() == {"type", "function"}
                        and tool["type"] == "function" and isinstance(function, dict)
                        and function.keys() == {"name"} and isinstance(function["name"], str)):
                    return None
                names.append(function["name"])
            if names:
                return {"type": "allowed_tools", "mode": allowed["mode"], "names": tuple(names)}
    return None


def _format_from_wire(fmt: Any) -> dict[str, Any] | None:
    if not isinstance(fmt, dict):
        return None
    kind = fmt.get("type")
    if kind in ("text", "json_object") and len(fmt) == 1:
        return {"type": kind}
    inner = fmt.get("json_schema")
    if kind == "json_schema" and fmt.keys() == {"type", "json_schema"} and isinstance(inner, dict) \
            and inner.keys() <= _JSON_SCHEMA_KEYS and isinstance(inner.get("name"), str) \
            and isinstance(inner.get("schema"), dict) \
            and isinstance(inner.get("description", ""), str) \
            and isinstance(inner.get("strict", False), bool):
        return {"type": "json_schema", "json_schema": inner["schema"], "name": inner["name"],
                "description": inner.get("description"), "strict": inner.get("strict")}
    return None
