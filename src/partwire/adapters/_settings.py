"""The settings rules every adapter shares: reading wire values into :class:`RequestSettings`,
reporting what a target cannot take, and the tables that re-express one API's reasoning control
in another's (``docs/conversion.md``, "Settings").

Provider-neutral: each adapter's ``_settings`` module knows its own fields and calls these.
"""

from __future__ import annotations

import marshal
import re
import typing
from collections.abc import Callable, Collection, Mapping
from typing import Any

from pydantic import ValidationError

from partwire import settings as _settings
from partwire._base import NOT_JSON, CanonicalModel, ProviderData, build, json_copy, provider_data
from partwire._memo import memo
from partwire.adapters._losses import LossCollector
from partwire.adapters.requests import SettingsArg, ToolChoice
from partwire.projection import LossAction
from partwire.settings import (
    _TOOL_CHOICE_WORDS,
    EMPTY_SETTINGS,
    Reasoning,
    ReasoningEffort,
    ReasoningSummary,
    RequestSettings,
)

__all__ = [
    "EFFORTS",
    "EFFORT_BUDGETS",
    "Taken",
    "budget_for_effort",
    "effort_for_budget",
    "marks_of",
    "nearest",
    "no_restore",
    "number",
    "openai_json_schema",
    "openai_refused",
    "plain_settings",
    "read_settings",
    "resolve_settings",
    "setting_loss",
    "with_marks",
]

EFFORTS: tuple[ReasoningEffort, ...] = ("minimal", "low", "medium", "high", "xhigh", "max")
"""The canonical effort levels, least first."""

EFFORT_BUDGETS: dict[ReasoningEffort, int] = {
    "minimal": 512, "low": 1024, "medium": 8192, "high": 24576, "xhigh": 32768, "max": 65536,
}
"""The reasoning token budget that stands for each effort level where an API takes only a
budget, and the other way round (a budget is the least effort whose budget covers it). Chosen
within Gemini 2.5's budget range (up to 24,576 on Flash, 32,768 on Pro) and Anthropic's (at least
1,024); ``max`` is beyond both and is clamped where it is sent."""


def effort_for_budget(budget: int) -> ReasoningEffort:
    """The effort level a token budget stands for (:data:`EFFORT_BUDGETS`)."""
    for effort in EFFORTS:
        if budget <= EFFORT_BUDGETS[effort]:
            return effort
    return "max"


def budget_for_effort(effort: ReasoningEffort) -> int:
    """The token budget an effort level stands for (:data:`EFFORT_BUDGETS`)."""
    return EFFORT_BUDGETS[effort]


def setting_loss(losses: LossCollector, field: str, action: LossAction, reason: str) -> None:
    """Report that the target cannot take setting ``field`` (or not at this value)."""
    losses.add(f"request.settings.{field}", "setting", action, reason)


def number(value: Any) -> bool:
    """Whether ``value`` is a JSON number (a bool is not)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def marks_of(settings: RequestSettings, issuers: Any) -> Mapping[str, Any]:
    """The marks an imported request left in ``settings.provider_data``, when an accepted issuer
    wrote them (``{}`` otherwise): they say how the body wrote a setting."""
    pd = settings.provider_data
    if pd is None or pd.issuer not in issuers or not isinstance(pd.data, dict):
        return {}
    return pd.data


def with_marks(values: dict[str, Any], issuer: str, marks: dict[str, Any]) -> dict[str, Any]:
    """``values`` with the marks of ``issuer`` added (unchanged when there are none)."""
    if marks:
        values["provider_data"] = provider_data(issuer, marks)
    return values


# OpenAI's reasoning models (o1, o3, o4-mini, the gpt-5 family but its chat variants) refuse the
# sampling settings, and models before them take no reasoning effort. Recorded: gpt-5-mini
# answered 400 "Unsupported parameter: 'stop' is not supported with this model" (corpus,
# mirascope test_call_with_params). The sampling refusals beside it are OpenAI's documentation as
# remembered, not recorded.
_OPENAI_REASONING = re.compile(r"^(o\d|gpt-5(?!(\.\d+)?-chat))")
_OPENAI_CLASSIC = re.compile(r"^(gpt-4|gpt-3\.5|chatgpt-4o)")
_REFUSED_BY_REASONING = ("temperature", "top_p", "presence_penalty", "frequency_penalty",
                         "stop_sequences")


def openai_refused(model: str, field: str, value: Any = None) -> str | None:
    """Why OpenAI model ``model`` (its wire name) refuses setting ``field`` (at ``value``);
    ``None`` when it takes it, or when the table does not know the model. A reasoning model
    takes a temperature or top_p of 1, the default, only."""
    if field == "reasoning":
        if _OPENAI_CLASSIC.match(model):
            return f"{model} is not a reasoning model: it takes no reasoning effort"
        return None
    if field in _REFUSED_BY_REASONING and _OPENAI_REASONING.match(model):
        if field in ("temperature", "top_p") and value == 1:
            return None
        return f"OpenAI's reasoning models ({model}) refuse {field}"
    return None


def nearest(value: Any, classes: Collection[type]) -> type | None:
    """The class of ``value``, or the nearest one it derives from, that is one of ``classes``;
    ``None`` when none is.

    The settings writers dispatch on a setting's class with it rather than with class patterns:
    a pattern that misses runs pydantic's and ABCMeta's instance checks in Python, on every
    request, where this finds an exact class at its first look."""
    for cls in type(value).__mro__:
        if cls in classes:
            return cls
    return None


OPENAI_SCHEMA_NAME = "response"
"""What an unnamed schema is called where OpenAI requires a name."""


def openai_json_schema(fmt: _settings.JsonSchemaOutput, losses: LossCollector) -> dict[str, Any]:
    """A JSON-schema output format's fields as both OpenAI APIs write them (``name``, ``schema``,
    ``description``, ``strict``): a schema without a name is sent as :data:`OPENAI_SCHEMA_NAME`,
    a named loss."""
    out: dict[str, Any] = {"name": fmt.name or OPENAI_SCHEMA_NAME, "schema": fmt.json_schema}
    if fmt.name is None:
        setting_loss(losses, "output_format.name", "rewritten",
                     f"OpenAI requires a schema name; sent as {OPENAI_SCHEMA_NAME!r}")
    if fmt.description is not None:
        out["description"] = fmt.description
    if fmt.strict is not None:
        out["strict"] = fmt.strict
    return out


# Settings by the marshalled values they were read from: a body's settings are the same on every
# request of a conversation, and validating them (a JSON schema above all) costs more than
# reading a short history. marshal is exact about types (1, 1.0 and True differ). A token limit
# alone, what most bodies set, is keyed by the number itself (an int, never equal to a bytes
# key): marshalling it was a third of this call.
_MEMO: dict[bytes | int, RequestSettings] = memo({})
_MEMO_LIMIT = 1024


class Taken:
    """The body fields a settings reader took out of ``params``, so that :meth:`restore` puts
    back the one whose canonical value did not validate (``read_settings``'s ``restore``)."""

    __slots__ = ("fields", "params", "restored")

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params
        """The body fields beside those the reader names: what it takes comes out of here."""
        self.fields: dict[str, tuple[str, Any]] = {}
        """Canonical field -> the body key it was read from, and the value taken."""
        self.restored = False
        """Whether :meth:`restore` put anything back."""

    def take(self, field: str, key: str) -> Any:
        """Take ``params[key]`` out for the canonical ``field``, remembering how to put it back."""
        value = self.params.pop(key)
        self.fields[field] = (key, value)
        return value

    def restore(self, field: str) -> None:
        """Put back what was taken for ``field``, if anything (it did not validate)."""
        if field in self.fields:
            key, value = self.fields[field]
            self.params[key] = value
            self.restored = True


def no_restore(field: str) -> None:
    """``read_settings``'s ``restore`` where nothing was taken out of ``params``: a canonical
    value read from the body itself that does not validate is a bug."""
    raise AssertionError(f"the canonical {field} read from the body did not validate")


def read_settings(values: dict[str, Any], restore: Callable[[str], None], issuer: str = "",
                  marks: dict[str, Any] | None = None, *, remember: bool = True) -> RequestSettings:
    """``values`` (canonical field -> plain JSON-like value) as :class:`RequestSettings`, with
    ``marks`` of ``issuer`` in its ``provider_data`` when there are any.

    A field whose value does not validate is left out, and ``restore(field)`` is called so the
    reader keeps the wire value in ``params``, raw: what the canonical form cannot hold is kept,
    never dropped. ``remember=False`` for a reader that remembers its readings itself: the
    values are then neither looked up nor kept here.
    """
    if not values:
        return EMPTY_SETTINGS
    key: bytes | int | None = None
    if remember:
        limit = values.get("max_output_tokens") if len(values) == 1 and not marks else None
        if type(limit) is int:
            key = limit
        else:
            try:
                key = marshal.dumps((values, issuer, marks))
            except ValueError:  # not plain data: validated each time
                key = None
    if key is not None:
        found = _MEMO.get(key)
        if found is not None:
            return found
    if marks:
        values = with_marks(dict(values), issuer, marks)
    made = plain_settings(values)
    if made is not None:
        if key is not None:
            if len(_MEMO) >= _MEMO_LIMIT:
                _MEMO.clear()
            _MEMO[key] = made
        return made
    while True:
        try:
            settings = RequestSettings.model_validate(values)
        except ValidationError as exc:
            bad = {str(error["loc"][0]) for error in exc.errors(include_url=False) if error["loc"]}
            if not bad & values.keys():
                raise
            for name in bad & values.keys():
                del values[name]
                restore(name)
            if not values.keys() - {"provider_data"}:
                return EMPTY_SETTINGS
            key = None
            continue
        if key is not None:
            if len(_MEMO) >= _MEMO_LIMIT:
                _MEMO.clear()
            _MEMO[key] = settings
        return settings


# -- settings without validation ----------------------------------------------------------------

_REFUSED: Any = object()  # what a check gives for a value only validation may take (or refuse)


def _number(low: float, high: float) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:  # an int or a float as given (strict), in range; NaN is not
        return value if (type(value) is int or type(value) is float) and low <= value <= high \
            else _REFUSED
    return check


def _count(least: int | None) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:  # strict: a bool is no count
        return value if type(value) is int and (least is None or value >= least) else _REFUSED
    return check


def _texts(value: Any) -> Any:
    if (type(value) is tuple or type(value) is list) and all(type(v) is str for v in value):
        return tuple(value)
    return _REFUSED


def _exact(kind: type) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        return value if type(value) is kind else _REFUSED
    return check


_EFFORTS = frozenset(typing.get_args(ReasoningEffort))
_SUMMARIES = frozenset(typing.get_args(ReasoningSummary))
_REASONING_KEYS = frozenset({"enabled", "effort", "budget_tokens", "summary"})


def _reasoning(value: Any) -> Any:
    """The ``Reasoning`` of a dict, as its validators make it: a level turns it on."""
    if type(value) is not dict or not value.keys() <= _REASONING_KEYS:
        return _REFUSED
    enabled, effort = value.get("enabled"), value.get("effort")
    budget, summary = value.get("budget_tokens"), value.get("summary")
    if (enabled is not None and type(enabled) is not bool) \
            or (effort is not None and (type(effort) is not str or effort not in _EFFORTS)) \
            or (budget is not None and (type(budget) is not int or budget < 1)) \
            or (summary is not None and (type(summary) is not str or summary not in _SUMMARIES)):
        return _REFUSED
    leveled = effort is not None or budget is not None
    if enabled is False and leveled:
        return _REFUSED  # validation refuses it, and says why
    return build(Reasoning, {**value, "enabled": True} if enabled is None and leveled else value)


_FORMAT_KEYS = frozenset({"type", "json_schema", "name", "description", "strict"})


def _output_format(value: Any) -> Any:
    """The output format of a dict; a schema is copied as ``JsonValue`` validation copies it."""
    if type(value) is not dict:
        return _REFUSED
    kind = value.get("type")
    if kind == "text" and len(value) == 1:
        return build(_settings.TextOutput, value)
    if kind == "json_object" and len(value) == 1:
        return build(_settings.JsonObjectOutput, value)
    if kind != "json_schema" or not value.keys() <= _FORMAT_KEYS \
            or type(value.get("json_schema")) is not dict:
        return _REFUSED
    name, description, strict = value.get("name"), value.get("description"), value.get("strict")
    if (name is not None and type(name) is not str) or (
            description is not None and type(description) is not str) or (
            strict is not None and type(strict) is not bool):
        return _REFUSED
    schema = json_copy(value["json_schema"])
    if schema is NOT_JSON:
        return _REFUSED
    return build(_settings.JsonSchemaOutput, {**value, "json_schema": schema})


_CHOICE_MODELS: dict[str, type[CanonicalModel]] = {
    "auto": _settings.AutoToolChoice, "none": _settings.NoToolChoice,
    "required": _settings.RequiredToolChoice}
_CHOICE_MODES = frozenset({"auto", "required"})
_ALLOWED_KEYS = frozenset({"type", "names", "mode"})


def _tool_choice(value: Any) -> Any:
    """The tool choice of a word, a tool's name or a dict, as the tagged union and its word
    validator make it (a word or a name becomes the dict the validator gives)."""
    if type(value) is str:
        word = _TOOL_CHOICE_WORDS.get(value)
        value = {"type": word} if word is not None else {"type": "tool", "name": value}
    elif type(value) is not dict:
        return _REFUSED
    kind = value.get("type")
    if type(kind) is not str:
        return _REFUSED
    model = _CHOICE_MODELS.get(kind)
    if model is not None:
        return build(model, value) if len(value) == 1 else _REFUSED
    if kind == "tool":
        if value.keys() == {"type", "name"} and type(value["name"]) is str:
            return build(_settings.NamedToolChoice, value)
        return _REFUSED
    if kind != "allowed_tools" or not value.keys() <= _ALLOWED_KEYS:
        return _REFUSED
    names, mode = value.get("names"), value.get("mode", "auto")
    if (type(names) is not tuple and type(names) is not list) or not names \
            or not all(type(n) is str for n in names) or type(mode) is not str or mode not in _CHOICE_MODES:
        return _REFUSED
    return build(_settings.AllowedToolsChoice, {**value, "names": tuple(names)})


# The fields plain_settings makes without validation, each with the check that gives what
# validation would make of a value (or _REFUSED: the whole is then validated as usual).
_CHECKS: dict[str, Callable[[Any], Any]] = {
    "max_output_tokens": _count(0),
    "temperature": _number(0, 2),
    "top_p": _number(0, 1),
    "top_k": _count(1),
    "stop_sequences": _texts,
    "seed": _count(None),
    "presence_penalty": _number(-2, 2),
    "frequency_penalty": _number(-2, 2),
    "parallel_tool_calls": _exact(bool),
    "end_user_id": _exact(str),
    "provider_data": _exact(ProviderData),
    "reasoning": _reasoning,
    "output_format": _output_format,
    "tool_choice": _tool_choice,
}


def plain_settings(values: Mapping[str, Any]) -> RequestSettings | None:
    """``RequestSettings.model_validate(values)`` without pydantic's validation, for the plain
    values readers give (numbers of their exact types in range, texts, a reasoning or output
    format dict of known keys, a JSON schema of plain JSON): the instance equals, dumps and has
    the fields set (its nested models' too) of the validated one. ``None`` for anything else,
    which the caller validates as usual (and which validation may refuse)."""
    fields: dict[str, Any] = {}
    for name, value in values.items():
        check = _CHECKS.get(name)
        if check is None:
            return None
        made = check(value)
        if made is _REFUSED:
            return None
        fields[name] = made
    return build(RequestSettings, fields)


def resolve_settings(settings: SettingsArg, *, max_tokens: int | None = None,
                     tool_choice: ToolChoice | None = None,
                     parallel_tool_calls: bool | None = None) -> tuple[RequestSettings, Mapping[str, Any] | None]:
    """The settings ``to_wire`` writes, and the native tool choice it sends as is (or ``None``).

    ``settings`` is a :class:`RequestSettings`, a mapping of its fields or ``None``. The
    shortcut keywords ``max_tokens``, ``tool_choice`` and ``parallel_tool_calls`` win over the
    same field of ``settings`` when given. A ``tool_choice`` word or tool name becomes the
    canonical setting; a mapping is the API's own ``tool_choice``, sent as it is.
    """
    if settings is None:
        resolved = EMPTY_SETTINGS
    elif isinstance(settings, RequestSettings):
        resolved = settings
    elif isinstance(settings, Mapping):
        resolved = RequestSettings.model_validate(settings)
    else:
        raise TypeError(f"settings must be RequestSettings, a mapping or None, not "
                        f"{type(settings).__name__}")
    if max_tokens is None and tool_choice is None and parallel_tool_calls is None:
        return resolved, None
    native: Mapping[str, Any] | None = None
    changes: dict[str, Any] = {}
    if max_tokens is not None:
        changes["max_output_tokens"] = max_tokens
    if parallel_tool_calls is not None:
        changes["parallel_tool_calls"] = parallel_tool_calls
    if isinstance(tool_choice, Mapping):
        native = tool_choice
        changes["tool_choice"] = None
    elif tool_choice is not None:
        changes["tool_choice"] = tool_choice
    return RequestSettings.model_validate({**_set_fields(resolved), **changes}), native


def _set_fields(settings: RequestSettings) -> dict[str, Any]:
    return {name: getattr(settings, name) for name in settings.model_fields_set}
