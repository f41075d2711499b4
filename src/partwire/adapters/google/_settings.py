"""Generation settings: :class:`RequestSettings` <-> Gemini's ``generationConfig`` and ``toolConfig``.

``maxOutputTokens``, ``temperature``, ``topP``, ``topK``, ``stopSequences``, ``seed``,
``presencePenalty``, ``frequencyPenalty``, ``responseMimeType`` with ``responseJsonSchema`` (or
the OpenAPI ``responseSchema``), ``thinkingConfig`` (``thinkingBudget`` for Gemini 2.x,
``thinkingLevel`` for later models, ``includeThoughts``) and ``toolConfig.functionCallingConfig``.
Gemini has no end-user id and no switch for parallel calls: those are losses. The table:
``docs/conversion.md``, "Settings".
"""

from __future__ import annotations

import marshal
from collections.abc import Collection, Mapping
from typing import Any

from partwire import settings as _settings
from partwire._memo import memo
from partwire.adapters._losses import LossCollector
from partwire.adapters._settings import (
    budget_for_effort,
    marks_of,
    nearest,
    number,
    read_settings,
    setting_loss,
)
from partwire.adapters.google._wire import ISSUER, camel, camel_keys, may_rename
from partwire.errors import ArgumentError
from partwire.projection import LossAction
from partwire.settings import EMPTY_SETTINGS, RequestSettings

__all__ = ["settings_read", "settings_to_wire", "take_read"]

# Canonical field -> generationConfig key, for the plain values.
_PLAIN = (("temperature", "temperature"), ("top_p", "topP"), ("seed", "seed"),
          ("presence_penalty", "presencePenalty"), ("frequency_penalty", "frequencyPenalty"))
_LEVELS = {"minimal": "MINIMAL", "low": "LOW", "medium": "MEDIUM", "high": "HIGH", "xhigh": "XHIGH"}
_EFFORT_OF_LEVEL = {v: k for k, v in _LEVELS.items()}
_MODES = {"AUTO": "auto", "ANY": "required", "NONE": "none"}
_JSON = "application/json"
_TEXT = "text/plain"
# The fields settings_to_wire writes before the others (and provider_data, only marks).
_WRITTEN = frozenset({"max_output_tokens", "tool_choice", "parallel_tool_calls", "provider_data"})
_OFF = 0  # thinkingBudget: "0 is DISABLED. -1 is AUTOMATIC"
_AUTOMATIC = -1


def _budget_family(model: str) -> bool:
    """Whether thinking is set by a token budget (Gemini 2.x, and a model this does not know)
    rather than by a level (Gemini 3 and later)."""
    return not model.startswith(("gemini-3", "gemini-4"))


# -- to_wire --------------------------------------------------------------------------------


def settings_to_wire(request: dict[str, Any], generation: dict[str, Any], settings: RequestSettings,
                     native_choice: Mapping[str, Any] | None, losses: LossCollector, *, model: str,
                     issuers: Collection[str]) -> None:
    """Write ``settings`` into ``request`` (``toolConfig``) and ``generation`` (the body's
    ``generationConfig``, the caller's own keys already in it: a key both set is refused)."""
    if settings is EMPTY_SETTINGS and native_choice is None:
        return  # the settings of most requests: the one instance that states none
    if native_choice is not None:
        request["toolConfig"] = dict(native_choice)
    elif settings.tool_choice is not None:
        request["toolConfig"] = {"functionCallingConfig": _tool_choice_to_wire(settings.tool_choice,
                                                                               losses)}
    if settings.parallel_tool_calls is not None:
        setting_loss(losses, "parallel_tool_calls", "dropped",
                     "Gemini has no switch for parallel function calls")
    if settings.max_output_tokens is not None:
        _put(generation, "maxOutputTokens", settings.max_output_tokens)
    for name, value in settings.__dict__.items():
        if value is not None and name not in _WRITTEN:
            break
    else:
        return  # nothing else set (most requests: none, or a token limit alone)
    pd = settings.provider_data
    key = (id(settings), model, pd is not None and pd.issuer in issuers)
    found = _MADE.get(key)
    if found is None or found[0] is not settings:
        made: dict[str, Any] = {}
        recorded = LossCollector(losses.adapter)
        _generation_to_wire(made, settings, recorded, model=model, issuers=issuers)
        found = (settings, tuple(made.items()),
                 tuple((loss.path, loss.part_type, loss.action, loss.reason) for loss in recorded.items))
        if len(_MADE) >= _MADE_LIMIT:
            _MADE.clear()
        _MADE[key] = found
    for key_, value in found[1]:
        # A body of its own: the containers made for it are copied (a schema is the settings'
        # own, shared as it always was).
        _put(generation, key_, list(value) if key_ == "stopSequences" else
             dict(value) if key_ == "thinkingConfig" else value)
    for where, part_type, action, reason in found[2]:
        losses.add(where, part_type, action, reason)


# (id(settings), model, whether its marks are read) -> (the settings, the generationConfig keys
# and values _generation_to_wire wrote for them, its losses as (path, part type, action,
# reason)): a conversation sends the same settings with every request. The entry holds the
# settings, so their id is not reused while remembered. Bounded.
_MADE: dict[tuple[int, str, bool], tuple[RequestSettings, tuple[tuple[str, Any], ...],
                                         tuple[tuple[str, str, LossAction, str], ...]]] = memo({})
_MADE_LIMIT = 256


def _generation_to_wire(generation: dict[str, Any], settings: RequestSettings, losses: LossCollector, *,
                        model: str, issuers: Collection[str]) -> None:
    """The settings beside the token limit and the tool choice, into ``generation``."""
    marks = marks_of(settings, issuers)
    for field, key in _PLAIN:
        value = getattr(settings, field)
        if value is not None:
            _put(generation, key, value)
    if settings.top_k is not None:
        _put(generation, "topK", float(settings.top_k) if marks.get("topK") == "float"
             else settings.top_k)
    if settings.stop_sequences is not None:
        _put(generation, "stopSequences", list(settings.stop_sequences))
    if settings.reasoning is not None:
        _reasoning_to_wire(generation, settings, losses, model=model,
                           levels=marks.get("thinking") == "level")
    if settings.output_format is not None:
        _format_to_wire(generation, settings, marks, losses)
    if settings.end_user_id is not None:
        setting_loss(losses, "end_user_id", "dropped", "Gemini's request has no end-user id")


def _put(generation: dict[str, Any], key: str, value: Any) -> None:
    if key in generation:
        raise ArgumentError("params", f"params['generationConfig'][{key!r}] conflicts with the "
                            "settings; pass one of them")
    generation[key] = value


# The choices and the formats by class (``nearest``: a class pattern that misses runs pydantic's
# and ABCMeta's instance checks in Python, and settings are written with every request).
_CHOICES = frozenset({_settings.AutoToolChoice, _settings.RequiredToolChoice, _settings.NoToolChoice,
                      _settings.NamedToolChoice, _settings.AllowedToolsChoice})
_FORMATS = frozenset({_settings.TextOutput, _settings.JsonObjectOutput, _settings.JsonSchemaOutput})


def _tool_choice_to_wire(choice: Any, losses: LossCollector) -> dict[str, Any]:
    kind = nearest(choice, _CHOICES)
    if kind is _settings.AutoToolChoice:
        return {"mode": "AUTO"}
    if kind is _settings.RequiredToolChoice:
        return {"mode": "ANY"}
    if kind is _settings.NoToolChoice:
        return {"mode": "NONE"}
    if kind is _settings.NamedToolChoice:
        return {"mode": "ANY", "allowedFunctionNames": [choice.name]}
    if kind is _settings.AllowedToolsChoice:
        if choice.mode == "required" and len(choice.names) == 1:
            setting_loss(losses, "tool_choice", "rewritten",
                         "one allowed tool, required, is sent as that tool")
        mode = "ANY" if choice.mode == "required" else "VALIDATED"
        return {"mode": mode, "allowedFunctionNames": list(choice.names)}
    raise TypeError(f"not a tool choice: {choice!r}")  # pragma: no cover


def _reasoning_to_wire(generation: dict[str, Any], settings: RequestSettings, losses: LossCollector, *,
                       model: str, levels: bool) -> None:
    reasoning = settings.reasoning
    assert reasoning is not None
    config: dict[str, Any] = {}
    budgets = _budget_family(model) and not levels
    effort, budget = reasoning.effort, reasoning.budget_tokens
    if reasoning.enabled is False:
        if budgets:
            config["thinkingBudget"] = _OFF
        else:
            config["thinkingLevel"] = "MINIMAL"
            setting_loss(losses, "reasoning", "rewritten",
                         f"{model or 'this model'} cannot turn thinking off; sent as the least, MINIMAL")
    elif budget is not None and (budgets or effort is None):
        config["thinkingBudget"] = budget
        if effort is not None:
            setting_loss(losses, "reasoning", "dropped",
                         "Gemini takes a thinking budget or a level, not both: the budget is sent")
    elif effort is not None:
        if budgets:
            config["thinkingBudget"] = budget_for_effort(effort)
            setting_loss(losses, "reasoning", "rewritten",
                         f"Gemini 2.x takes a budget: effort {effort} is sent as "
                         f"{config['thinkingBudget']} tokens")
        else:
            config["thinkingLevel"] = _LEVELS.get(effort, "XHIGH")
            if effort not in _LEVELS:
                setting_loss(losses, "reasoning", "rewritten",
                             f"Gemini's levels end at XHIGH; effort {effort} is sent as XHIGH")
            if budget is not None:
                setting_loss(losses, "reasoning", "dropped",
                             "Gemini takes a thinking budget or a level, not both: the level is sent")
    elif reasoning.enabled:
        config["thinkingBudget"] = _AUTOMATIC
    if reasoning.summary is not None:
        config["includeThoughts"] = reasoning.summary != "none"
        if reasoning.summary in ("concise", "detailed"):
            setting_loss(losses, "reasoning", "rewritten",
                         f"Gemini has no summary levels: {reasoning.summary} is sent as includeThoughts")
    if config:
        _put(generation, "thinkingConfig", config)


def _format_to_wire(generation: dict[str, Any], settings: RequestSettings,
                    marks: Mapping[str, Any], losses: LossCollector) -> None:
    fmt = settings.output_format
    kind = nearest(fmt, _FORMATS)
    if kind is _settings.TextOutput:
        _put(generation, "responseMimeType", _TEXT)
    elif kind is _settings.JsonObjectOutput:
        _put(generation, "responseMimeType", _JSON)
    elif kind is _settings.JsonSchemaOutput:
        assert isinstance(fmt, _settings.JsonSchemaOutput)
        _put(generation, "responseMimeType", _JSON)
        _put(generation, "responseSchema" if marks.get("schema") == "openapi"
             else "responseJsonSchema", fmt.json_schema)
        for name in ("name", "description", "strict"):
            if getattr(fmt, name) is not None:
                setting_loss(losses, f"output_format.{name}", "dropped",
                             f"Gemini's response schema has no {name}")


# -- from_wire_request ----------------------------------------------------------------------


# (toolConfig, generationConfig) marshalled -> the settings read from them and the
# generationConfig keys they took: a conversation sends the same ones with every request. Only
# readings that put nothing back are remembered. Bounded.
_READ: dict[bytes, tuple[RequestSettings, frozenset[str]]] = memo({})
_READ_LIMIT = 1024


def settings_read(body: Mapping[str, Any], params: dict[str, Any]
                  ) -> tuple[RequestSettings, frozenset[str], bool]:
    """The settings of a body (its ``generationConfig`` and ``toolConfig`` in any key style, read
    in camelCase), the ``generationConfig`` keys they took, and whether the reading may be given
    again to an equal body (:func:`take_read` replays it). ``params`` holds the body's other
    fields, its ``generationConfig`` included: the keys read are taken out of it (and the object
    itself when nothing else was in it), ``toolConfig`` too when it is canonical."""
    given = params.get("generationConfig")
    if not given and "toolConfig" not in body:
        return EMPTY_SETTINGS, frozenset(), True
    try:
        key: bytes | None = marshal.dumps(("toolConfig" in body, body.get("toolConfig"), given), 2)
    except (ValueError, RecursionError):  # not plain built-in values: read every time
        key = None
    if key is not None and key in _READ:
        settings, read = _READ[key]
        take_read(params, read)
        return settings, read, True
    # Neither object walked to camelCase when no key of them can need renaming.
    settings, read, whole = _settings_from_wire(body, params, given,
                                                renamed=key is None or may_rename(key))
    if key is not None and whole:
        if len(_READ) >= _READ_LIMIT:
            _READ.clear()
        _READ[key] = (settings, read)
    return settings, read, whole and key is not None


def take_read(params: dict[str, Any], read: frozenset[str]) -> None:
    """Take the ``generationConfig`` keys ``read`` out of ``params``, as the reading that found
    them did (the object itself goes when nothing else was in it); what stays is brought to
    camelCase."""
    given = params.get("generationConfig")
    if not isinstance(given, dict):
        return
    rest = camel_keys({k: v for k, v in given.items()
                       if (camel(k) if type(k) is str else k) not in read} if read else given)
    if rest or not read:
        if rest is not given:
            params["generationConfig"] = rest
    else:
        del params["generationConfig"]


class _Taken:
    """The ``generationConfig`` values a reading took for the settings, by canonical field, and
    the body's fields, where :meth:`put_back` returns what did not validate. (An object, not two
    closures: the reader's own variables stay plain locals.)"""

    __slots__ = ("fields", "generation", "keys", "params", "restored")

    def __init__(self, generation: dict[str, Any], params: dict[str, Any]) -> None:
        self.generation = generation
        self.params = params
        self.fields: dict[str, dict[str, Any]] = {}
        self.keys: list[str] = []
        self.restored = False

    def take(self, field: str, key: str) -> Any:
        """Take ``generation[key]`` out for the canonical ``field``."""
        value = self.generation.pop(key)
        self.fields.setdefault(field, {})[key] = value
        self.keys.append(key)
        return value

    def put_back(self, field: str) -> None:
        """Return what was taken for ``field`` to the body's ``generationConfig`` (it did not
        validate); a canonical tool choice is also the import's native one: nothing to return."""
        self.restored = True
        if field in self.fields:
            self.params.setdefault("generationConfig", {}).update(self.fields[field])


def _settings_from_wire(body: Mapping[str, Any], params: dict[str, Any], given: Any, *,
                        renamed: bool = True) -> tuple[RequestSettings, frozenset[str], bool]:
    """:func:`settings_read` itself: the settings, the ``generationConfig`` keys taken, and
    whether every value read went into the settings (nothing was put back). ``renamed=False``:
    no key of either object needs renaming (both are read as they are)."""
    values: dict[str, Any] = {}
    marks: dict[str, Any] = {}
    if "toolConfig" in body:
        config = body["toolConfig"]
        choice = _tool_choice_from_wire(camel_keys(config) if renamed else config)
        if choice is not None:
            values["tool_choice"] = choice
    walked = camel_keys(given) if renamed and isinstance(given, dict) else given
    if walked is not given:
        params["generationConfig"] = walked  # what the settings do not take stays, in camelCase
    if not given and not values:
        return EMPTY_SETTINGS, frozenset(), True
    generation: dict[str, Any] = dict(walked) if isinstance(walked, dict) else {}
    taken = _Taken(generation, params)
    take = taken.take
    if type(generation.get("maxOutputTokens")) is int:
        values["max_output_tokens"] = take("max_output_tokens", "maxOutputTokens")
    for field, key in _PLAIN:
        if key in generation and number(generation[key]):
            values[field] = take(field, key)
    top_k = generation.get("topK")
    if type(top_k) is int:
        values["top_k"] = take("top_k", "topK")
    elif type(top_k) is float and top_k.is_integer():
        values["top_k"] = int(take("top_k", "topK"))
        marks["topK"] = "float"  # the SDK types topK as a float: 40 goes out as 40.0
    stop = generation.get("stopSequences")
    if isinstance(stop, list) and all(isinstance(s, str) for s in stop):
        values["stop_sequences"] = tuple(take("stop_sequences", "stopSequences"))
    reasoning = _reasoning_from_wire(generation["thinkingConfig"]) \
        if "thinkingConfig" in generation else None
    if reasoning is not None:
        if "thinkingLevel" in take("reasoning", "thinkingConfig"):
            marks["thinking"] = "level"  # a level, whatever the model (the body does not say it)
        values["reasoning"] = reasoning
    if "responseMimeType" in generation:  # no output format without one
        fmt = _format_from_wire(generation, marks, take)
        if fmt is not None:
            values["output_format"] = fmt
    if taken.keys:
        # What the settings do not cover stays; an object they emptied goes (they write it back).
        if generation:
            params["generationConfig"] = generation
        else:
            del params["generationConfig"]
    # Read once per generationConfig met (settings_read remembers it): not remembered again here.
    settings = read_settings(values, taken.put_back, ISSUER, marks, remember=False)
    return settings, frozenset(taken.keys), not taken.restored


def _tool_choice_from_wire(config: Any) -> Any:
    """The canonical tool choice of a ``toolConfig`` that says only that, else ``None``."""
    if not isinstance(config, dict) or config.keys() != {"functionCallingConfig"}:
        return None
    calling = config["functionCallingConfig"]
    if not isinstance(calling, dict):
        return None
    mode = calling.get("mode")
    if calling.keys() == {"mode"} and isinstance(mode, str) and mode in _MODES:
        return _MODES[mode]
    names = calling.get("allowedFunctionNames")
    if calling.keys() != {"mode", "allowedFunctionNames"} or not isinstance(names, list) or not names \
            or not all(isinstance(n, str) for n in names):
        return None
    if mode == "ANY":
        if len(names) == 1:
            return {"type": "tool", "name": names[0]}
        return {"type": "allowed_tools", "mode": "required", "names": tuple(names)}
    if mode == "VALIDATED":
        return {"type": "allowed_tools", "mode": "auto", "names": tuple(names)}
    return None


def _reasoning_from_wire(config: Any) -> dict[str, Any] | None:
    if not isinstance(config, dict) or not config or not config.keys() <= {
            "thinkingBudget", "thinkingLevel", "includeThoughts"}:
        return None
    out: dict[str, Any] = {}
    budget = config.get("thinkingBudget")
    level = config.get("thinkingLevel")
    if "thinkingBudget" in config and "thinkingLevel" in config:
        return None  # Gemini refuses both
    if "thinkingBudget" in config:
        if type(budget) is not int or budget < _AUTOMATIC:
            return None
        if budget == _OFF:
            out["enabled"] = False
        elif budget == _AUTOMATIC:
            out["enabled"] = True
        else:
            out["budget_tokens"] = budget
    elif "thinkingLevel" in config:
        if not isinstance(level, str) or level not in _EFFORT_OF_LEVEL:
            return None
        out["effort"] = _EFFORT_OF_LEVEL[level]
    if "includeThoughts" in config:
        if type(config["includeThoughts"]) is not bool:
            return None
        out["summary"] = "auto" if config["includeThoughts"] else "none"
    return out


def _format_from_wire(generation: dict[str, Any], marks: dict[str, Any], take: Any
                      ) -> dict[str, Any] | None:
    mime = generation.get("responseMimeType")
    schemas = [k for k in ("responseJsonSchema", "responseSchema") if k in generation]
    if mime == _TEXT and not schemas:
        take("output_format", "responseMimeType")
        return {"type": "text"}
    if mime != _JSON or len(schemas) > 1:
        return None
    if not schemas:
        take("output_format", "responseMimeType")
        return {"type": "json_object"}
    schema = generation[schemas[0]]
    if not isinstance(schema, dict):
        return None
    take("output_format", "responseMimeType")
    take("output_format", schemas[0])
    if schemas[0] == "responseSchema":
        marks["schema"] = "openapi"
    return {"type": "json_schema", "json_schema": schema}
