"""Generation settings: :class:`RequestSettings` <-> Cohere v2's own fields.

``max_tokens``, ``temperature``, ``p`` (top_p), ``k`` (top_k), ``stop_sequences``, ``seed``,
``frequency_penalty``, ``presence_penalty``, ``tool_choice`` (``REQUIRED`` / ``NONE``),
``thinking`` (on or off, with a ``token_budget``) and ``response_format`` (text, JSON, JSON with
a schema). Cohere has no parallel-calls switch, no end-user id, no reasoning effort or summary,
and cannot force one named tool. The table: ``docs/conversion.md``, "Settings".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from partwire import settings as _settings
from partwire.adapters._losses import LossCollector
from partwire.adapters._settings import (
    Taken,
    budget_for_effort,
    number,
    read_settings,
    setting_loss,
)
from partwire.adapters.cohere._wire import ISSUER
from partwire.settings import RequestSettings

__all__ = ["settings_from_wire", "settings_to_wire"]

# Canonical field -> Cohere's body field, for the settings that cross as they are.
_FIELDS = {"temperature": "temperature", "top_p": "p", "seed": "seed",
           "frequency_penalty": "frequency_penalty", "presence_penalty": "presence_penalty"}
_KEYS = frozenset({"max_tokens", "k", "stop_sequences", "thinking", "response_format", *_FIELDS.values()})
_MAX_K = 500  # Cohere's top-k range is 0 to 500
_CHOICES = {"REQUIRED": "required", "NONE": "none"}


# -- to_wire --------------------------------------------------------------------------------


def settings_to_wire(request: dict[str, Any], settings: RequestSettings,
                     native_choice: Mapping[str, Any] | str | None, losses: LossCollector) -> None:
    """Write ``settings`` into ``request``; a native choice is Cohere's own, sent as it is."""
    if native_choice is not None:
        request["tool_choice"] = native_choice if isinstance(native_choice, str) else dict(native_choice)
    elif settings.tool_choice is not None:
        _choice_to_wire(request, settings.tool_choice, losses)
    if settings.parallel_tool_calls is not None:
        setting_loss(losses, "parallel_tool_calls", "dropped",
                     "Cohere has no parallel_tool_calls switch (it calls tools in parallel as it sees fit)")
    if settings.max_output_tokens is not None:
        request["max_tokens"] = settings.max_output_tokens
    if settings.is_empty():
        return
    for name, field in _FIELDS.items():
        value = getattr(settings, name)
        if value is None:
            continue
        if name.endswith("_penalty") and value < 0:
            setting_loss(losses, name, "dropped", f"Cohere's {name} is 0 to 1; {value} is not sent")
            continue
        if name.endswith("_penalty") and value > 1:
            setting_loss(losses, name, "rewritten", f"Cohere's {name} is 0 to 1; {value} is sent as 1")
            value = 1.0
        request[field] = value
    if settings.top_k is not None:
        k = settings.top_k
        if k > _MAX_K:
            setting_loss(losses, "top_k", "rewritten", f"Cohere's k is at most {_MAX_K}; {k} is sent as {_MAX_K}")
            k = _MAX_K
        request["k"] = k
    if settings.stop_sequences is not None:
        request["stop_sequences"] = list(settings.stop_sequences)
    if settings.reasoning is not None:
        _reasoning_to_wire(request, settings, losses)
    if settings.output_format is not None:
        _format_to_wire(request, settings, losses)
    if settings.end_user_id is not None:
        setting_loss(losses, "end_user_id", "dropped", "Cohere takes no end-user id")


def _choice_to_wire(request: dict[str, Any], choice: Any, losses: LossCollector) -> None:
    match choice:
        case _settings.AutoToolChoice():
            return  # the default: Cohere's tool_choice left out
        case _settings.NoToolChoice():
            request["tool_choice"] = "NONE"
        case _settings.RequiredToolChoice():
            request["tool_choice"] = "REQUIRED"
        case _settings.NamedToolChoice():
            request["tool_choice"] = "REQUIRED"
            setting_loss(losses, "tool_choice", "downgraded",
                         f"Cohere cannot force one named tool; sent as REQUIRED (some tool), "
                         f"not {choice.name!r}")
        case _settings.AllowedToolsChoice():
            if choice.mode == "required":
                request["tool_choice"] = "REQUIRED"
            setting_loss(losses, "tool_choice", "downgraded",
                         "Cohere cannot narrow the tools a call may use; every tool sent may be called")


def _reasoning_to_wire(request: dict[str, Any], settings: RequestSettings, losses: LossCollector) -> None:
    reasoning = settings.reasoning
    assert reasoning is not None
    if reasoning.summary not in (None, "none"):
        setting_loss(losses, "reasoning", "dropped", "Cohere returns no reasoning summary")
    if reasoning.enabled is None:
        return
    if reasoning.enabled is False:
        request["thinking"] = {"type": "disabled"}
    elif reasoning.budget_tokens is not None:
        request["thinking"] = {"type": "enabled", "token_budget": reasoning.budget_tokens}
        if reasoning.effort is not None:
            setting_loss(losses, "reasoning", "dropped",
                         "Cohere takes a token budget, not an effort: the budget is sent")
    elif reasoning.effort is not None:
        budget = budget_for_effort(reasoning.effort)
        request["thinking"] = {"type": "enabled", "token_budget": budget}
        setting_loss(losses, "reasoning", "rewritten",
                     f"effort {reasoning.effort} is sent as a budget of {budget} tokens")
    else:
        request["thinking"] = {"type": "enabled"}


def _format_to_wire(request: dict[str, Any], settings: RequestSettings, losses: LossCollector) -> None:
    match settings.output_format:
        case _settings.TextOutput():
            request["response_format"] = {"type": "text"}
        case _settings.JsonObjectOutput():
            request["response_format"] = {"type": "json_object"}
        case _settings.JsonSchemaOutput() as fmt:
            request["response_format"] = {"type": "json_object", "json_schema": fmt.json_schema}
            for name in ("name", "description", "strict"):
                if getattr(fmt, name) is not None:
                    setting_loss(losses, f"output_format.{name}", "dropped",
                                 f"Cohere's response_format takes a schema with no {name}")


# -- from_wire_request ----------------------------------------------------------------------


def settings_from_wire(body: Mapping[str, Any], params: dict[str, Any]) -> RequestSettings:
    """The settings of a request body; the fields read are taken out of ``params``.

    A field whose shape the canonical form cannot say stays in ``params``, raw.
    """
    values: dict[str, Any] = {}
    choice = params.get("tool_choice")
    taken = Taken(params)
    take = taken.take
    if isinstance(choice, str) and choice in _CHOICES:
        take("tool_choice", "tool_choice")
        values["tool_choice"] = _CHOICES[choice]
    if params.keys().isdisjoint(_KEYS):
        return read_settings(values, taken.restore, ISSUER)
    if type(params.get("max_tokens")) is int:
        values["max_output_tokens"] = take("max_output_tokens", "max_tokens")
    for name, field in _FIELDS.items():
        if field in params and number(params[field]):
            values[name] = take(name, field)
    if type(params.get("k")) is int:
        values["top_k"] = take("top_k", "k")
    stop = params.get("stop_sequences")
    if isinstance(stop, list) and all(isinstance(s, str) for s in stop):
        values["stop_sequences"] = tuple(take("stop_sequences", "stop_sequences"))
    reasoning = _reasoning_from_wire(params.get("thinking"))
    if reasoning is not None:
        take("reasoning", "thinking")
        values["reasoning"] = reasoning
    fmt = _format_from_wire(params.get("response_format"))
    if fmt is not None:
        take("output_format", "response_format")
        values["output_format"] = fmt
    return read_settings(values, taken.restore, ISSUER)


def _reasoning_from_wire(thinking: Any) -> dict[str, Any] | None:
    if not isinstance(thinking, dict):
        return None
    kind = thinking.get("type")
    if kind == "disabled" and thinking.keys() == {"type"}:
        return {"enabled": False}
    if kind != "enabled" or not thinking.keys() <= {"type", "token_budget"}:
        return None
    budget = thinking.get("token_budget")
    if budget is None and "token_budget" not in thinking:
        return {"enabled": True}
    if type(budget) is int and budget >= 1:
        return {"enabled": True, "budget_tokens": budget}
    return None


def _format_from_wire(fmt: Any) -> dict[str, Any] | None:
    if not isinstance(fmt, dict):
        return None
    kind = fmt.get("type")
    if kind in ("text", "json_object") and len(fmt) == 1:
        return {"type": kind}
    schema = fmt.get("json_schema")
    if kind == "json_object" and fmt.keys() == {"type", "json_schema"} and isinstance(schema, dict):
        return {"type": "json_schema", "json_schema": schema}
    return None
