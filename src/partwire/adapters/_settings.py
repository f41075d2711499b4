"""The settings rules every adapter shares: reading wire values into :class:`RequestSettings`,
reporting what a target cannot take, and the tables that re-express one API's reasoning control
in another's (``docs/conversion.md``, "Settings").

Provider-neutral: each adapter's ``_settings`` module knows its own fields and calls these.
"""

from __future__ import annotations

import marshal
import re
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from partwire._base import provider_data
from partwire._memo import memo
from partwire.adapters._common import Losses
from partwire.projection import LossAction
from partwire.settings import EMPTY_SETTINGS, ReasoningEffort, RequestSettings

__all__ = [
    "EFFORTS",
    "EFFORT_BUDGETS",
    "budget_for_effort",
    "effort_for_budget",
    "marks_of",
    "number",
    "openai_refused",
    "read_settings",
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


def setting_loss(losses: Losses, field: str, action: LossAction, reason: str) -> None:
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


# Settings by the marshalled values they were read from: a body's settings are the same on every
# request of a conversation, and validating them (a JSON schema above all) costs more than
# reading a short history. marshal is exact about types (1, 1.0 and True differ).
_MEMO: dict[bytes, RequestSettings] = memo({})
_MEMO_LIMIT = 1024


def read_settings(values: dict[str, Any], restore: Callable[[str], None], issuer: str = "",
                  marks: dict[str, Any] | None = None) -> RequestSettings:
    """``values`` (canonical field -> plain JSON-like value) as :class:`RequestSettings`, with
    ``marks`` of ``issuer`` in its ``provider_data`` when there are any.

    A field whose value does not validate is left out, and ``restore(field)`` is called so the
    reader keeps the wire value in ``params``, raw: what the canonical form cannot hold is kept,
    never dropped.
    """
    if not values:
        return EMPTY_SETTINGS
    try:
        key: bytes | None = marshal.dumps((values, issuer, marks))
    except ValueError:  # not plain data: validated each time
        key = None
    if key is not None:
        found = _MEMO.get(key)
        if found is not None:
            return found
    if marks:
        values = with_marks(dict(values), issuer, marks)
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
