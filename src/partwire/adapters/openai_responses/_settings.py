"""Generation settings: :class:`RequestSettings` <-> the Responses API's own fields.

``max_output_tokens``, ``temperature``, ``top_p``, ``tool_choice``, ``parallel_tool_calls``,
``reasoning`` (``effort``, ``summary``), ``text.format`` and ``safety_identifier`` (or ``user``).
Responses has no stop sequences, seed, penalties or ``top_k``: those are losses. OpenAI's
reasoning models refuse the sampling settings (:func:`openai_refused`). The table:
``docs/conversion.md``, "Settings".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, cast

from partwire import settings as _settings
from partwire.adapters._losses import LossCollector
from partwire.adapters._settings import (
    EFFORTS,
    Taken,
    effort_for_budget,
    marks_of,
    nearest,
    no_restore,
    number,
    openai_json_schema,
    openai_refused,
    read_settings,
    setting_loss,
)
from partwire.adapters.openai_responses._wire import ISSUER
from partwire.settings import EMPTY_SETTINGS, RequestSettings

__all__ = ["SETTING_KEYS", "settings_from_wire", "settings_read", "settings_to_wire"]

_WORDS = frozenset({"auto", "none", "required"})
# The body fields the settings read from params (max_output_tokens and tool_choice are not there).
_KEYS = frozenset({"parallel_tool_calls", "temperature", "top_p", "reasoning", "text",
                   "safety_identifier", "user"})
SETTING_KEYS = _KEYS
"""The body fields the settings are read from, beside ``tool_choice`` and ``max_output_tokens``."""
_SUMMARIES = frozenset({"auto", "concise", "detailed"})
_JSON_SCHEMA_KEYS = frozenset({"type", "name", "schema", "description", "strict"})
_ABSENT = (("top_k", "top_k"), ("stop_sequences", "stop sequences"), ("seed", "a seed"),
           ("presence_penalty", "a presence penalty"), ("frequency_penalty", "a frequency penalty"))


# -- to_wire --------------------------------------------------------------------------------


def settings_to_wire(request: dict[str, Any], settings: RequestSettings,
                     native_choice: Mapping[str, Any] | None, losses: LossCollector, *, model: str,
                     issuers: Collection[str]) -> None:
    """Write ``settings`` into ``request``."""
    if settings is EMPTY_SETTINGS and native_choice is None:
        return  # the settings of most requests: the one instance that states none
    fields = settings.__dict__  # read from the dict: every to_wire comes here
    if native_choice is not None:
        request["tool_choice"] = dict(native_choice)
    elif fields["tool_choice"] is not None:
        request["tool_choice"] = _tool_choice_to_wire(fields["tool_choice"])
    if fields["parallel_tool_calls"] is not None:
        request["parallel_tool_calls"] = fields["parallel_tool_calls"]
    if fields["max_output_tokens"] is not None:
        request["max_output_tokens"] = fields["max_output_tokens"]
    # Each field below is looked up once, whether set or not: a scan of every field for one
    # that is set, first, cost more than these lookups themselves.
    for name in ("temperature", "top_p"):
        value = fields[name]
        if value is None:
            continue
        why = openai_refused(model, name, value)
        if why is not None:
            setting_loss(losses, name, "dropped", why)
        else:
            request[name] = value
    for name, what in _ABSENT:
        if fields[name] is not None:
            setting_loss(losses, name, "dropped", f"the Responses API has no {what}")
    if fields["reasoning"] is not None:
        _reasoning_to_wire(request, settings, losses, model=model)
    if fields["output_format"] is not None:
        request["text"] = {"format": _format_to_wire(settings, losses)}
    if fields["end_user_id"] is not None:
        request[marks_of(settings, issuers).get("end_user") or "safety_identifier"] = \
            fields["end_user_id"]


# The tool choices that are one word, and the others, by class (``nearest``).
_WORD_CHOICES = frozenset({_settings.AutoToolChoice, _settings.NoToolChoice, _settings.RequiredToolChoice})
_CHOICES = _WORD_CHOICES | {_settings.NamedToolChoice, _settings.AllowedToolsChoice}
_FORMATS = frozenset({_settings.TextOutput, _settings.JsonObjectOutput, _settings.JsonSchemaOutput})


def _tool_choice_to_wire(choice: Any) -> str | dict[str, Any]:
    kind = nearest(choice, _CHOICES)
    if kind in _WORD_CHOICES:
        word: str = choice.type
        return word
    if kind is _settings.NamedToolChoice:
        return {"type": "function", "name": choice.name}
    if kind is _settings.AllowedToolsChoice:
        return {"type": "allowed_tools", "mode": choice.mode,
                "tools": [{"type": "function", "name": n} for n in choice.names]}
    raise TypeError(f"not a tool choice: {choice!r}")  # pragma: no cover


def _reasoning_to_wire(request: dict[str, Any], settings: RequestSettings, losses: LossCollector, *,
                       model: str) -> None:
    reasoning = settings.reasoning
    assert reasoning is not None
    why = openai_refused(model, "reasoning")
    if why is not None:
        if reasoning.enabled is not None or reasoning.summary not in (None, "none"):
            setting_loss(losses, "reasoning", "dropped", why)
        return
    out: dict[str, Any] = {}
    if reasoning.enabled is False:
        out["effort"] = "none"
    elif reasoning.effort is not None:
        out["effort"] = reasoning.effort
        if reasoning.budget_tokens is not None:
            setting_loss(losses, "reasoning", "dropped",
                         "the Responses API takes an effort, not a token budget: the effort is sent")
    elif reasoning.budget_tokens is not None:
        effort = effort_for_budget(reasoning.budget_tokens)
        out["effort"] = effort
        setting_loss(losses, "reasoning", "rewritten",
                     f"a budget of {reasoning.budget_tokens} tokens is sent as effort {effort}")
    elif reasoning.enabled:
        out["effort"] = "medium"
        setting_loss(losses, "reasoning", "rewritten",
                     "reasoning on, with no level, is sent as OpenAI's default effort (medium)")
    if reasoning.summary in _SUMMARIES:
        out["summary"] = reasoning.summary
    if out:
        request["reasoning"] = out


def _format_to_wire(settings: RequestSettings, losses: LossCollector) -> dict[str, Any]:
    fmt = settings.output_format
    kind = nearest(fmt, _FORMATS)
    if kind is _settings.TextOutput:
        return {"type": "text"}
    if kind is _settings.JsonObjectOutput:
        return {"type": "json_object"}
    if kind is _settings.JsonSchemaOutput:
        return {"type": "json_schema", **openai_json_schema(cast(_settings.JsonSchemaOutput, fmt), losses)}
    raise TypeError("no output format")  # pragma: no cover


# -- from_wire_request ----------------------------------------------------------------------


def settings_from_wire(body: Mapping[str, Any], params: dict[str, Any]) -> RequestSettings:
    """The settings of a request body; the fields read are taken out of ``params``, and a field
    whose shape the canonical form cannot say stays there, raw."""
    return settings_read(body, params)[0]


def settings_read(body: Mapping[str, Any], params: dict[str, Any]
                  ) -> tuple[RequestSettings, bool]:
    """:func:`settings_from_wire`, and whether the reading may be given again to a body with the
    same setting fields: every field it took out of ``params`` stayed out (none was put back,
    which moves it to the end of ``params``)."""
    values: dict[str, Any] = {}
    choice = _tool_choice_from_wire(body.get("tool_choice"))
    if choice is not None:
        values["tool_choice"] = choice
    limit = body.get("max_output_tokens")
    if type(limit) is int:
        values["max_output_tokens"] = limit
    if params.keys().isdisjoint(_KEYS):
        return read_settings(values, no_restore), True
    marks: dict[str, Any] = {}
    taken = Taken(params)
    take = taken.take
    if type(params.get("parallel_tool_calls")) is bool:
        values["parallel_tool_calls"] = take("parallel_tool_calls", "parallel_tool_calls")
    for name in ("temperature", "top_p"):
        if name in params and number(params[name]):
            values[name] = take(name, name)
    reasoning = params.get("reasoning")
    if isinstance(reasoning, dict) and reasoning and reasoning.keys() <= {"effort", "summary"}:
        effort, summary = reasoning.get("effort"), reasoning.get("summary")
        read: dict[str, Any] | None = {}
        assert read is not None
        if effort == "none":
            read["enabled"] = False
        elif effort in EFFORTS:
            read["effort"] = effort
        elif "effort" in reasoning:
            read = None
        if read is not None and isinstance(summary, str) and summary in _SUMMARIES:
            read["summary"] = summary
        elif "summary" in reasoning:
            read = None
        if read:
            take("reasoning", "reasoning")
            values["reasoning"] = read
    text = params.get("text")
    if isinstance(text, dict) and text.keys() == {"format"}:
        fmt = _format_from_wire(text["format"])
        if fmt is not None:
            take("output_format", "text")
            values["output_format"] = fmt
    if isinstance(params.get("safety_identifier"), str):
        values["end_user_id"] = take("end_user_id", "safety_identifier")
    elif isinstance(params.get("user"), str):
        values["end_user_id"] = take("end_user_id", "user")
        marks["end_user"] = "user"
    return read_settings(values, taken.restore, ISSUER, marks), not taken.restored


def _tool_choice_from_wire(choice: Any) -> Any:
    """The canonical tool choice (as a value ``RequestSettings`` validates), or ``None``."""
    if isinstance(choice, str):
        return choice if choice in _WORDS else None
    if not isinstance(choice, dict):
        return None
    kind = choice.get("type")
    if kind == "function" and choice.keys() == {"type", "name"} and isinstance(choice["name"], str):
        return {"type": "tool", "name": choice["name"]}
    if kind == "allowed_tools" and choice.keys() == {"type", "mode", "tools"} and choice[
            "mode"] in ("auto", "required") and isinstance(choice["tools"], list):
        names = []
        for tool in choice["tools"]:
            if not (isinstance(tool, dict) and tool.keys() == {"type", "name"}
                    and tool["type"] == "function" and isinstance(tool["name"], str)):
                return None
            names.append(tool["name"])
        if names:
            return {"type": "allowed_tools", "mode": choice["mode"], "names": tuple(names)}
    return None


def _format_from_wire(fmt: Any) -> dict[str, Any] | None:
    if not isinstance(fmt, dict):
        return None
    kind = fmt.get("type")
    if kind in ("text", "json_object") and len(fmt) == 1:
        return {"type": kind}
    if kind == "json_schema" and fmt.keys() <= _JSON_SCHEMA_KEYS and isinstance(
            fmt.get("name"), str) and isinstance(fmt.get("schema"), dict) \
            and isinstance(fmt.get("description", ""), str) \
            and isinstance(fmt.get("strict", False), bool):
        return {"type": "json_schema", "json_schema": fmt["schema"], "name": fmt["name"],
                "description": fmt.get("description"), "strict": fmt.get("strict")}
    return None
