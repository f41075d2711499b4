"""Request settings: canonical :class:`~partwire.settings.RequestSettings` <-> Ollama's fields.

Ollama states sampling in ``options`` (the model runner's parameters), reasoning in ``think`` and
the output's form in ``format``:

| canonical | Ollama |
|---|---|
| ``max_output_tokens`` | ``options.num_predict`` |
| ``temperature``, ``top_p``, ``top_k``, ``seed`` | ``options.<same name>`` |
| ``presence_penalty``, ``frequency_penalty`` | ``options.<same name>`` |
| ``stop_sequences`` | ``options.stop`` |
| ``reasoning`` | ``think``: ``true`` / ``false``, or ``"low"`` / ``"medium"`` / ``"high"`` |
| ``output_format`` | ``format``: ``"json"``, or a JSON schema |

Every other option (``num_ctx``, ``repeat_penalty``, ``min_p``, ...) has no canonical field and
stays in ``options`` as a raw parameter, as ``keep_alive`` does beside it. Ollama has no tool
choice, no switch for parallel calls and no end-user id: those settings are losses.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from pydantic import ValidationError

from partwire.adapters._losses import LossCollector
from partwire.adapters._settings import (
    EFFORTS,
    effort_for_budget,
    number,
    setting_loss,
)
from partwire.settings import (
    EMPTY_SETTINGS,
    JsonObjectOutput,
    JsonSchemaOutput,
    Reasoning,
    RequestSettings,
)

__all__ = ["OPTION_FIELDS", "settings_from_wire", "settings_to_wire"]

OPTION_FIELDS: dict[str, str] = {
    "max_output_tokens": "num_predict",
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "seed": "seed",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "stop_sequences": "stop",
}
"""Canonical setting -> its key in ``options``."""

_THINK_LEVELS = ("low", "medium", "high")  # what ``think`` takes as a word (gpt-oss)


def settings_to_wire(settings: RequestSettings, native_choice: Any, losses: LossCollector
                     ) -> tuple[dict[str, Any], dict[str, Any]]:
    """``options`` for ``settings``, and the top-level fields (``think``, ``format``); what
    Ollama cannot take is reported at ``request.settings.<field>``."""
    options: dict[str, Any] = {}
    top: dict[str, Any] = {}
    for field, key in OPTION_FIELDS.items():
        value = getattr(settings, field)
        if value is not None:
            options[key] = list(value) if field == "stop_sequences" else value
    if settings.reasoning is not None:
        think = _think_to_wire(settings.reasoning, losses)
        if think is not None:
            top["think"] = think
    fmt = settings.output_format
    if isinstance(fmt, JsonSchemaOutput):
        top["format"] = fmt.json_schema
        for name in ("name", "description", "strict"):
            if getattr(fmt, name) is not None:
                setting_loss(losses, f"output_format.{name}", "dropped",
                             f"Ollama's format takes the schema alone; its {name} is not sent")
    elif isinstance(fmt, JsonObjectOutput):
        top["format"] = "json"
    choice = settings.tool_choice
    if native_choice is not None:
        setting_loss(losses, "tool_choice", "dropped", "Ollama has no tool choice")
    elif choice is not None and choice.type != "auto":
        setting_loss(losses, "tool_choice", "dropped",
                     f"Ollama has no tool choice; the model decides ('{choice.type}' is not sent)")
    if settings.parallel_tool_calls is False:
        setting_loss(losses, "parallel_tool_calls", "dropped",
                     "Ollama has no switch for parallel tool calls")
    if settings.end_user_id is not None:
        setting_loss(losses, "end_user_id", "dropped", "Ollama has no end-user id")
    return options, top


def _think_to_wire(reasoning: Reasoning, losses: LossCollector) -> bool | str | None:
    if reasoning.summary is not None:
        setting_loss(losses, "reasoning.summary", "dropped",
                     "Ollama returns the model's thinking as it is; it has no summary switch")
    if reasoning.enabled is False:
        return False
    effort = reasoning.effort
    if effort is None and reasoning.budget_tokens is not None:
        effort = effort_for_budget(reasoning.budget_tokens)
        sent = _level(effort)
        setting_loss(losses, "reasoning.budget_tokens", "rewritten",
                     f"Ollama takes no thinking budget; {reasoning.budget_tokens} tokens are sent "
                     f"as think={sent!r}")
        return sent
    if effort is None:
        return True if reasoning.enabled else None
    if reasoning.budget_tokens is not None:  # an effort and a budget: the effort goes
        setting_loss(losses, "reasoning.budget_tokens", "dropped",
                     f"Ollama takes no thinking budget; the effort {effort!r} is sent, not "
                     f"{reasoning.budget_tokens} tokens")
    sent = _level(effort)
    if sent != effort:
        setting_loss(losses, "reasoning.effort", "rewritten",
                     f"Ollama's think takes low, medium or high; {effort!r} is sent as {sent!r}")
    return sent


def _level(effort: str) -> str:
    if effort in _THINK_LEVELS:
        return effort
    return "low" if EFFORTS.index(effort) < EFFORTS.index("low") else "high"


def settings_from_wire(body: dict[str, Any], params: dict[str, Any],
                       taken: Collection[str] = ()) -> RequestSettings:
    """The settings a request body states; what they took is removed from ``params`` (which
    holds ``options``, ``think`` and ``format`` as the body had them). A value the canonical
    form cannot hold stays where it was, raw."""
    fields: dict[str, Any] = {}
    options = params.get("options")
    if isinstance(options, dict) and options:
        rest = dict(options)
        for field, key in OPTION_FIELDS.items():
            if key in rest and _valid(field, rest[key]):
                fields[field] = rest.pop(key)
        if len(rest) != len(options):
            if rest:
                params["options"] = rest
            else:
                del params["options"]
    think = params.get("think")
    if type(think) is bool:
        fields["reasoning"] = Reasoning(enabled=think)
        del params["think"]
    elif think in _THINK_LEVELS:
        fields["reasoning"] = Reasoning(effort=think)
        del params["think"]
    fmt = params.get("format")
    if fmt == "json":
        fields["output_format"] = JsonObjectOutput()
        del params["format"]
    elif isinstance(fmt, dict) and fmt:
        try:
            fields["output_format"] = JsonSchemaOutput(json_schema=fmt)
            del params["format"]
        except (ValidationError, TypeError, ValueError):
            pass  # not a schema the canonical form holds: kept raw
    if not fields:
        return EMPTY_SETTINGS
    return RequestSettings.model_validate(fields)


def _valid(field: str, value: Any) -> bool:
    if field == "stop_sequences":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return False
    elif field in ("temperature", "top_p", "presence_penalty", "frequency_penalty") \
            and not number(value):
        return False
    try:
        RequestSettings.model_validate({field: value})
    except ValidationError:
        return False
    return True
