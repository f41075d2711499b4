"""Generation settings: :class:`RequestSettings` <-> the Messages API's own fields.

``max_tokens``, ``stop_sequences``, ``tool_choice`` (with ``disable_parallel_tool_use``),
``thinking`` (budget, adaptive, disabled, ``display``), ``output_config`` (``effort``,
``format``), the beta ``output_format`` and ``metadata.user_id``. The Messages API of SDK 2.x has
no ``temperature``, ``top_p`` or ``top_k`` (``Options.sampling`` sends them anyway), no seed and
no penalties: those are losses. The table: ``docs/conversion.md``, "Settings".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, cast

from partwire import settings as _settings
from partwire.adapters._losses import LossCollector
from partwire.adapters._settings import (
    Taken,
    marks_of,
    nearest,
    no_restore,
    number,
    read_settings,
    setting_loss,
)
from partwire.adapters.anthropic._wire import ISSUER
from partwire.settings import Reasoning, RequestSettings

__all__ = ["SETTING_FIELDS", "settings_from_wire", "settings_to_wire"]

SETTING_FIELDS = frozenset({"max_tokens", "stop_sequences", "tool_choice", "thinking", "output_config",
                            "output_format", "metadata", "temperature", "top_p", "top_k"})
"""Body fields the settings may write (``params`` may not set them when they do)."""
_EFFORTS = frozenset({"low", "medium", "high", "xhigh", "max"})  # output_config.effort
_MIN_BUDGET = 1024  # thinking.budget_tokens: at least this, and less than max_tokens
_SAMPLING = ("temperature", "top_p", "top_k")
_DISPLAY = {"summarized": "auto", "omitted": "none"}
_CHOICES = {"auto": "auto", "any": "required"}
_UNSENT = (("seed", "a seed"), ("presence_penalty", "a presence penalty"),
           ("frequency_penalty", "a frequency penalty"))  # settings the API has no field for
# The choices that are a word, and the others, by class (``nearest``).
_WORDS: dict[type, str] = {_settings.AutoToolChoice: "auto", _settings.RequiredToolChoice: "any",
                           _settings.NoToolChoice: "none"}
_CHOICE_CLASSES = frozenset({*_WORDS, _settings.NamedToolChoice, _settings.AllowedToolsChoice})
_FORMATS = frozenset({_settings.TextOutput, _settings.JsonObjectOutput, _settings.JsonSchemaOutput})


# -- to_wire --------------------------------------------------------------------------------


def settings_to_wire(request: dict[str, Any], settings: RequestSettings,
                     native_choice: Mapping[str, Any] | None, losses: LossCollector, *,
                     issuers: Collection[str], sampling: bool) -> None:
    """Write ``settings`` into ``request``, whose ``max_tokens`` the caller has set (the API
    requires one: ``settings.max_output_tokens`` or :data:`DEFAULT_MAX_TOKENS`)."""
    # The fields read from the instance's dict, and each writer called only for a field that is
    # set: every to_wire with settings comes here, most with one or two of them.
    fields = settings.__dict__
    if native_choice is None and len(fields) - [*fields.values()].count(None) <= (
            fields["max_output_tokens"] is not None) + (fields["provider_data"] is not None):
        # Nothing to write when no field but the limit (the caller's) is set: a body of
        # max_tokens alone, the commonest, skips the writers below (the set fields counted in C).
        return
    marks = marks_of(settings, issuers) if fields["provider_data"] is not None else {}
    # The loops below entered only when one of their fields is set (a loop's setup costs as
    # much as its three lookups).
    for name in _SAMPLING if fields["temperature"] is not None or fields["top_p"] is not None \
            or fields["top_k"] is not None else ():
        value = fields[name]
        if value is None:
            continue
        if not sampling:
            setting_loss(losses, name, "dropped", f"the Messages API (SDK 2.x) has no {name}; "
                         "set the option sampling=true for a model that still takes it")
        elif name == "temperature" and value > 1:
            request[name] = 1.0
            setting_loss(losses, name, "rewritten",
                         f"Anthropic's temperature is 0 to 1; {value} is sent as 1.0")
        else:
            request[name] = value
    for name, why in _UNSENT if fields["seed"] is not None or fields["presence_penalty"] is not None \
            or fields["frequency_penalty"] is not None else ():
        if fields[name] is not None:
            setting_loss(losses, name, "dropped", f"the Messages API has no {why}")
    if fields["stop_sequences"] is not None:
        request["stop_sequences"] = list(fields["stop_sequences"])
    if native_choice is not None or fields["tool_choice"] is not None \
            or fields["parallel_tool_calls"] is not None:
        _tool_choice_to_wire(request, settings, native_choice, losses)
    output_config: dict[str, Any] = {}
    if fields["reasoning"] is not None:
        _reasoning_to_wire(request, output_config, settings, marks, losses)
    if fields["output_format"] is not None:
        _output_format_to_wire(request, output_config, settings, marks, losses)
    if output_config:
        request["output_config"] = output_config
    if fields["end_user_id"] is not None:
        request["metadata"] = {"user_id": fields["end_user_id"]}


def _tool_choice_to_wire(request: dict[str, Any], settings: RequestSettings,
                         native: Mapping[str, Any] | None, losses: LossCollector) -> None:
    choice = settings.tool_choice
    parallel = settings.parallel_tool_calls
    out: dict[str, Any]
    if native is not None:
        out = dict(native)
    elif choice is None:
        if parallel is None:
            return
        out = {"type": "auto"}
    elif (kind := nearest(choice, _CHOICE_CLASSES)) in _WORDS:
        out = {"type": _WORDS[kind]}
    elif kind is _settings.NamedToolChoice:
        out = {"type": "tool", "name": choice.name}  # type: ignore[union-attr]
    elif kind is _settings.AllowedToolsChoice:
        choice = cast(_settings.AllowedToolsChoice, choice)
        if choice.mode == "required" and len(choice.names) == 1:
            out = {"type": "tool", "name": choice.names[0]}
            why = "one allowed tool, required, is sent as that tool"
        else:
            out = {"type": "any" if choice.mode == "required" else "auto"}
            why = (f"Anthropic cannot restrict the choice to some tools; sent as "
                   f"{out['type']!r} over every tool")
        setting_loss(losses, "tool_choice", "rewritten", why)
    if parallel is not None:
        if out.get("type") == "none":
            setting_loss(losses, "parallel_tool_calls", "dropped",
                         "tool_choice none calls no tool: there is nothing to parallelise")
        else:
            out["disable_parallel_tool_use"] = not parallel
    request["tool_choice"] = out


def _reasoning_to_wire(request: dict[str, Any], output_config: dict[str, Any],
                       settings: RequestSettings, marks: Mapping[str, Any], losses: LossCollector) -> None:
    reasoning = settings.reasoning
    if reasoning is None:
        return
    thinking: dict[str, Any] | None = None
    if reasoning.enabled is False:
        thinking = {"type": "disabled"}
    elif reasoning.budget_tokens is not None:
        budget = reasoning.budget_tokens
        limit = request["max_tokens"] - 1
        fitted = max(budget, _MIN_BUDGET)
        if fitted > limit:
            fitted = limit
        if fitted < _MIN_BUDGET:
            setting_loss(losses, "reasoning", "dropped",
                         f"a thinking budget must be at least {_MIN_BUDGET} tokens and less than "
                         f"max_tokens ({request['max_tokens']}); no budget fits")
        else:
            thinking = {"type": "enabled", "budget_tokens": fitted}
            if fitted != budget:
                setting_loss(losses, "reasoning", "rewritten",
                             f"budget_tokens {budget} is sent as {fitted} (at least {_MIN_BUDGET}, "
                             "less than max_tokens)")
    elif reasoning.enabled and marks.get("thinking") is not False:
        thinking = {"type": "adaptive"}
    if reasoning.summary is not None:
        if thinking is None or thinking["type"] == "disabled":
            setting_loss(losses, "reasoning", "dropped",
                         "Anthropic returns thinking summaries only with thinking on")
        else:
            thinking["display"] = "omitted" if reasoning.summary == "none" else "summarized"
            if reasoning.summary in ("concise", "detailed"):
                setting_loss(losses, "reasoning", "rewritten",
                             f"a {reasoning.summary} summary is sent as display: summarized")
    if thinking is not None:
        request["thinking"] = thinking
    effort = reasoning.effort
    if effort is not None:
        if effort in _EFFORTS:
            output_config["effort"] = effort
        else:  # minimal
            output_config["effort"] = "low"
            setting_loss(losses, "reasoning", "rewritten",
                         f"Anthropic's effort levels start at low; {effort} is sent as low")


def _output_format_to_wire(request: dict[str, Any], output_config: dict[str, Any],
                           settings: RequestSettings, marks: Mapping[str, Any],
                           losses: LossCollector) -> None:
    fmt = settings.output_format
    kind = nearest(fmt, _FORMATS)
    if kind is None or kind is _settings.TextOutput:
        return  # Anthropic answers in text unless told otherwise: nothing to send
    if kind is _settings.JsonObjectOutput:
        setting_loss(losses, "output_format", "dropped", _NO_JSON_OBJECT)
        return
    fmt = cast(_settings.JsonSchemaOutput, fmt)
    wire = {"type": "json_schema", "schema": fmt.json_schema}
    if marks.get("output_format"):
        request["output_format"] = wire  # the beta field the request used
    else:
        output_config["format"] = wire
    for name in ("name", "description", "strict"):
        if getattr(fmt, name) is not None:
            setting_loss(losses, f"output_format.{name}", "dropped",
                         f"Anthropic's output format has no {name}")


_NO_JSON_OBJECT = "Anthropic takes a JSON schema, not free-form JSON objects"


# -- from_wire_request ----------------------------------------------------------------------


def settings_from_wire(body: Mapping[str, Any], params: dict[str, Any]
                       ) -> tuple[RequestSettings, Any, bool]:
    """The settings of a request body: ``(settings, the tool choice as native, sampling)``.

    Fields read are taken out of ``params``; a field whose shape the canonical form cannot say
    stays there, raw. The tool choice comes back native (the body's own dict) when it is not
    canonical. ``sampling`` says the body sends temperature, top_p or top_k.
    """
    values: dict[str, Any] = {}
    max_tokens = body.get("max_tokens")
    if type(max_tokens) is int:
        values["max_output_tokens"] = max_tokens
    native = body.get("tool_choice")
    if native is not None:
        choice, parallel = _tool_choice_from_wire(native)
        if choice is not None or parallel is not None:
            if choice is not None:
                values["tool_choice"] = choice
            if parallel is not None:
                values["parallel_tool_calls"] = parallel
            native = None
    if params.keys().isdisjoint(SETTING_FIELDS):
        return read_settings(values, no_restore), native, False
    marks: dict[str, Any] = {}
    taken = Taken(params)
    sampling = False
    for name in _SAMPLING:
        if name in params and number(params[name]):
            values[name] = taken.take(name, name)
            sampling = True
    stop = params.get("stop_sequences")
    if isinstance(stop, list) and all(isinstance(s, str) for s in stop):
        values["stop_sequences"] = tuple(taken.take("stop_sequences", "stop_sequences"))
    reasoning = _reasoning_from_wire(params, marks, taken, max_tokens)
    if reasoning is not None:
        values["reasoning"] = reasoning
    fmt = _format_from_wire(params, marks, taken)
    if fmt is not None:
        values["output_format"] = fmt
    metadata = params.get("metadata")
    if isinstance(metadata, dict) and len(metadata) == 1 and isinstance(metadata.get("user_id"), str):
        values["end_user_id"] = taken.take("end_user_id", "metadata")["user_id"]
    if not values:
        return read_settings(values, no_restore), native, sampling
    settings = read_settings(values, taken.restore, ISSUER, marks)
    return settings, native, sampling


def _tool_choice_from_wire(choice: Any) -> tuple[dict[str, Any] | None, bool | None]:
    """A canonical tool choice and the parallel switch, or ``(None, None)`` for any other shape."""
    if not isinstance(choice, dict):
        return None, None
    kind = choice.get("type")
    keys = choice.keys()
    flag = choice.get("disable_parallel_tool_use")
    if "disable_parallel_tool_use" in choice and not isinstance(flag, bool):
        return None, None
    parallel = None if flag is None else not flag
    if isinstance(kind, str) and kind in _CHOICES and keys <= {"type", "disable_parallel_tool_use"}:
        return {"type": _CHOICES[kind]}, parallel
    if kind == "tool" and keys <= {"type", "name", "disable_parallel_tool_use"} and isinstance(
            choice.get("name"), str):
        return {"type": "tool", "name": choice["name"]}, parallel
    if kind == "none" and len(keys) == 1:
        return {"type": "none"}, None
    return None, None


def _reasoning_from_wire(params: dict[str, Any], marks: dict[str, Any],
                         taken: Taken, max_tokens: Any
                         ) -> Reasoning | dict[str, Any] | None:
    thinking = params.get("thinking")
    config = params.get("output_config")
    effort = config.get("effort") if isinstance(config, dict) and config.keys() <= {
        "effort", "format"} else None
    if not isinstance(effort, str):  # (the tables below are looked up by hash)
        effort = None
    out: dict[str, Any] = {}
    if isinstance(thinking, dict):
        kind = thinking.get("type")
        keys = thinking.keys()
        display = thinking.get("display")
        if "display" in thinking and (not isinstance(display, str) or display not in _DISPLAY):
            return None
        if kind == "disabled" and len(keys) == 1:
            out["enabled"] = False
        elif kind == "adaptive" and keys <= {"type", "display"}:
            out["enabled"] = True
        elif kind == "enabled" and keys <= {"type", "budget_tokens", "display"} and type(
                thinking.get("budget_tokens")) is int and type(max_tokens) is int \
                and _MIN_BUDGET <= thinking["budget_tokens"] < max_tokens:
            # A budget the API refuses (under 1024, or not under max_tokens) stays raw.
            out["budget_tokens"] = thinking["budget_tokens"]
        else:
            return None
        if display is not None:
            out["summary"] = _DISPLAY[display]
        if effort in _EFFORTS and kind == "disabled":
            effort = None  # off with an effort is not canonical: the effort stays in params
        taken.take("reasoning", "thinking")
    elif "thinking" in params:
        return None
    elif effort in _EFFORTS:
        marks["thinking"] = False  # an effort without a thinking field
    if effort in _EFFORTS:
        out["effort"] = effort
        assert isinstance(config, dict)
        rest = {k: v for k, v in config.items() if k != "effort"}
        if rest:
            params["output_config"] = rest
        else:
            del params["output_config"]
    return out or None


def _format_from_wire(params: dict[str, Any], marks: dict[str, Any],
                      taken: Taken) -> dict[str, Any] | None:
    config = params.get("output_config")
    wire: Any = config.get("format") if isinstance(config, dict) and config.keys() <= {
        "effort", "format"} else None
    beta = params.get("output_format")
    if wire is None and beta is not None:
        wire = beta
    if not isinstance(wire, dict) or wire.get("type") != "json_schema" or wire.keys() != {
            "type", "schema"} or not isinstance(wire["schema"], dict):
        return None
    if wire is beta:
        marks["output_format"] = True
        taken.take("output_format", "output_format")
    else:
        assert isinstance(config, dict)
        rest = {k: v for k, v in config.items() if k != "format"}
        if rest:
            params["output_config"] = rest
        else:
            del params["output_config"]
    return {"type": "json_schema", "json_schema": wire["schema"]}
