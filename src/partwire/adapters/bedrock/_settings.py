"""Request settings: canonical :class:`~partwire.settings.RequestSettings` <-> Converse fields.

Converse states the common settings in ``inferenceConfig`` (``maxTokens``, ``temperature``
0-1, ``topP``, ``stopSequences``) and ``toolConfig.toolChoice`` (``auto``, ``any``, ``tool``);
everything else is the model family's own, in ``additionalModelRequestFields``:

| family (model id) | top_k | reasoning |
|---|---|---|
| Claude (``anthropic.``) | ``top_k`` | ``thinking``: ``enabled`` + ``budget_tokens``, ``disabled`` |
| Nova (``amazon.nova``) | ``inferenceConfig.topK`` | ``reasoningConfig``: ``enabled`` + ``maxReasoningEffort`` |
| gpt-oss (``openai.``) | - | ``reasoning_effort`` |

A setting the target cannot take is a loss at ``request.settings.<field>``. A request read back
records the family its fields were written for (``provider_data["family"]``), so a stored body
that names no model still goes back exactly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ValidationError

from partwire._base import ProviderData
from partwire.adapters._losses import LossCollector
from partwire.adapters.bedrock._wire import ISSUER
from partwire.model_ids import bedrock_family
from partwire.settings import (
    EMPTY_SETTINGS,
    JsonSchemaOutput,
    Reasoning,
    RequestSettings,
)

__all__ = ["Family", "settings_from_wire", "settings_to_wire"]

Family = Literal["claude", "nova", "gpt-oss", "other"]

# An effort stated as a budget for Claude (which takes budgets), and back: the lower bound of
# each level is the budget it gets.
_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768,
            "max": 65536}
_NOVA_EFFORTS = ("low", "medium", "high")


def _effort_for(budget: int) -> str:
    level = "minimal"
    for name, floor in _BUDGETS.items():
        if budget >= floor:
            level = name
    return level


def _nova_effort(effort: str) -> str:
    return effort if effort in _NOVA_EFFORTS else ("low" if effort == "minimal" else "high")


def settings_to_wire(settings: RequestSettings, model_id: str, losses: LossCollector
                     ) -> tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any],
                                dict[str, Any] | None]:
    """``inferenceConfig``, ``toolChoice``, ``additionalModelRequestFields`` and ``outputConfig``
    for ``settings`` (each empty or ``None`` when nothing goes there), the losses reported."""
    marks = settings.provider_data.data if settings.provider_data is not None \
        and settings.provider_data.issuer == ISSUER and isinstance(settings.provider_data.data, dict) else {}
    marked = marks.get("family")
    family: str = bedrock_family(model_id) or (marked if isinstance(marked, str) else "other")

    def lose(name: str, action: Literal["dropped", "rewritten"], reason: str) -> None:
        losses.add(f"request.settings.{name}", "setting", action, reason)

    inference: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    if settings.max_output_tokens is not None:
        inference["maxTokens"] = settings.max_output_tokens
    if settings.temperature is not None:
        temperature = settings.temperature
        if temperature > 1:
            lose("temperature", "rewritten", f"Converse takes temperature 0-1; {temperature} is "
                 "sent as 1")
            temperature = 1.0 if isinstance(temperature, float) else 1
        inference["temperature"] = temperature
    if settings.top_p is not None:
        inference["topP"] = settings.top_p
    if settings.stop_sequences is not None:
        inference["stopSequences"] = list(settings.stop_sequences)
    if settings.top_k is not None:
        if family == "claude":
            extra["top_k"] = settings.top_k
        elif family == "nova":
            extra["inferenceConfig"] = {"topK": settings.top_k}
        else:
            lose("top_k", "dropped", "Converse has no top_k; only the Claude and Nova families "
                 "take one (additionalModelRequestFields)")
    for name in ("seed", "presence_penalty", "frequency_penalty", "end_user_id"):
        if getattr(settings, name) is not None:
            lose(name, "dropped", f"Converse has no {name}")
    if settings.parallel_tool_calls is False:
        lose("parallel_tool_calls", "dropped", "Converse has no switch for parallel tool calls")
    choice = _choice_to_wire(settings, lose)
    if settings.reasoning is not None:
        extra.update(_reasoning_to_wire(settings.reasoning, family, lose))
    output = None
    fmt = settings.output_format
    if isinstance(fmt, JsonSchemaOutput):
        structure: dict[str, Any] = {"schema": json.dumps(fmt.json_schema)}
        if fmt.name is not None:
            structure["name"] = fmt.name
        if fmt.description is not None:
            structure["description"] = fmt.description
        if fmt.strict is not None:
            # Only the flag is lost: the schema itself goes out in outputConfig.textFormat.
            lose("output_format.strict", "dropped", "Converse's structured output has no strict flag "
                 "(the schema is always enforced)")
        output = {"textFormat": {"type": "json_schema", "structure": {"jsonSchema": structure}}}
    elif fmt is not None and fmt.type == "json_object":
        lose("output_format", "dropped", "Converse has no plain JSON mode; only a JSON schema")
    return inference, choice, extra, output


def _choice_to_wire(settings: RequestSettings, lose: Any) -> dict[str, Any] | None:
    setting = settings.tool_choice
    if setting is None:
        return None
    if setting.type == "auto":
        return {"auto": {}}
    if setting.type == "required":
        return {"any": {}}
    if setting.type == "tool":
        return {"tool": {"name": setting.name}}
    if setting.type == "none":
        lose("tool_choice", "dropped", "Converse has no 'none' tool choice; the tools stay offered")
        return None
    lose("tool_choice", "dropped", "Converse cannot limit the choice to some tools")
    return None


def _reasoning_to_wire(reasoning: Reasoning, family: str, lose: Any) -> dict[str, Any]:
    if family == "claude":
        if reasoning.enabled is False:
            return {"thinking": {"type": "disabled"}}
        budget = reasoning.budget_tokens
        if budget is None and reasoning.effort is not None:
            budget = _BUDGETS[reasoning.effort]
            lose("reasoning", "rewritten", f"Claude on Bedrock takes a thinking budget; effort "
                 f"{reasoning.effort!r} is sent as budget_tokens={budget}")
        if budget is None:
            budget = _BUDGETS["medium"]
            lose("reasoning", "rewritten", "Claude on Bedrock takes a thinking budget; "
                 f"budget_tokens={budget} is sent")
        if reasoning.summary is not None:
            lose("reasoning", "dropped", "Converse has no reasoning summary switch")
        return {"thinking": {"type": "enabled", "budget_tokens": budget}}
    if family in ("nova", "gpt-oss"):
        if reasoning.enabled is False:
            if family == "nova":
                return {"reasoningConfig": {"type": "disabled"}}
            lose("reasoning", "dropped", "gpt-oss on Bedrock cannot turn reasoning off")
            return {}
        effort: str | None = reasoning.effort
        if effort is None:
            effort = _effort_for(reasoning.budget_tokens) if reasoning.budget_tokens is not None \
                else "medium"
            lose("reasoning", "rewritten", f"{family} takes an effort level; {effort!r} is sent")
        assert effort is not None
        sent = _nova_effort(effort)
        if sent != effort:
            lose("reasoning", "rewritten", f"{family} takes low, medium or high; {effort!r} is "
                 f"sent as {sent!r}")
        if reasoning.summary is not None:
            lose("reasoning", "dropped", "Converse has no reasoning summary switch")
        if family == "nova":
            return {"reasoningConfig": {"type": "enabled", "maxReasoningEffort": sent}}
        return {"reasoning_effort": sent}
    lose("reasoning", "dropped", "the model id names no family whose reasoning Converse can set "
         "(Claude, Nova, gpt-oss)")
    return {}


def settings_from_wire(body: Mapping[str, Any], params: dict[str, Any],
                       tool_choice: str | None) -> RequestSettings:
    """The settings a request body states; what they took is removed from ``params`` (which
    holds ``inferenceConfig`` and ``additionalModelRequestFields`` as the body had them).
    ``tool_choice`` is the body's tool choice when it is a word or a tool's name."""
    fields: dict[str, Any] = {}
    if tool_choice is not None:
        fields["tool_choice"] = tool_choice
    family: str | None = None
    inference = params.get("inferenceConfig")
    if isinstance(inference, dict):
        rest = dict(inference)
        for key, name in (("maxTokens", "max_output_tokens"), ("temperature", "temperature"),
                          ("topP", "top_p"), ("stopSequences", "stop_sequences")):
            if key in rest and _valid(name, rest[key]):
                fields[name] = rest.pop(key)
        _put(params, "inferenceConfig", rest)
    extra = params.get("additionalModelRequestFields")
    if isinstance(extra, dict) and extra:
        rest = dict(extra)
        thinking = rest.get("thinking")
        if thinking == {"type": "disabled"}:
            fields["reasoning"], family = Reasoning(enabled=False), "claude"
            del rest["thinking"]
        elif isinstance(thinking, dict) and set(thinking) == {"type", "budget_tokens"} \
                and thinking["type"] == "enabled" and _valid_budget(thinking["budget_tokens"]):
            fields["reasoning"] = Reasoning(enabled=True, budget_tokens=thinking["budget_tokens"])
            family = "claude"
            del rest["thinking"]
        if "top_k" in rest and family in (None, "claude") and _valid("top_k", rest["top_k"]):
            fields["top_k"], family = rest.pop("top_k"), "claude"
        nested = rest.get("inferenceConfig")
        if family in (None, "nova") and isinstance(nested, dict) and set(nested) == {"topK"} \
                and _valid("top_k", nested["topK"]):
            fields["top_k"], family = nested["topK"], "nova"
            del rest["inferenceConfig"]
        config = rest.get("reasoningConfig")
        if family in (None, "nova") and config == {"type": "disabled"}:
            fields["reasoning"], family = Reasoning(enabled=False), "nova"
            del rest["reasoningConfig"]
        elif family in (None, "nova") and isinstance(config, dict) \
                and set(config) == {"type", "maxReasoningEffort"} and config["type"] == "enabled" \
                and config["maxReasoningEffort"] in _NOVA_EFFORTS:
            fields["reasoning"] = Reasoning(enabled=True, effort=config["maxReasoningEffort"])
            family = "nova"
            del rest["reasoningConfig"]
        if family is None and rest.get("reasoning_effort") in _NOVA_EFFORTS:
            fields["reasoning"] = Reasoning(enabled=True, effort=rest.pop("reasoning_effort"))
            family = "gpt-oss"
        if len(rest) != len(extra):
            _put(params, "additionalModelRequestFields", rest)
    output = params.get("outputConfig")
    if isinstance(output, dict) and set(output) == {"textFormat"}:
        fmt = _output_from_wire(output["textFormat"])
        if fmt is not None:
            fields["output_format"] = fmt
            del params["outputConfig"]
    if not fields:
        return EMPTY_SETTINGS
    model = body.get("modelId")
    if family is not None and not (isinstance(model, str) and bedrock_family(model) == family):
        fields["provider_data"] = ProviderData(issuer=ISSUER, data={"family": family})
    return RequestSettings.model_validate(fields)


def _put(params: dict[str, Any], key: str, rest: dict[str, Any]) -> None:
    if rest:
        params[key] = rest
    else:
        del params[key]


def _valid(name: str, value: Any) -> bool:
    try:
        RequestSettings.model_validate({name: value})
    except ValidationError:
        return False
    return not (name == "stop_sequences" and not isinstance(value, list))


def _valid_budget(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _output_from_wire(fmt: Any) -> JsonSchemaOutput | None:
    if not isinstance(fmt, dict) or set(fmt) != {"type", "structure"} or fmt["type"] != "json_schema":
        return None
    structure = fmt["structure"]
    if not isinstance(structure, dict) or set(structure) != {"jsonSchema"}:
        return None
    spec = structure["jsonSchema"]
    if not isinstance(spec, dict) or not isinstance(spec.get("schema"), str) \
            or not set(spec) <= {"schema", "name", "description"}:
        return None
    try:
        schema = json.loads(spec["schema"])
        out = JsonSchemaOutput(json_schema=schema, name=spec.get("name"),
                               description=spec.get("description"))
    except (ValueError, TypeError):
        return None
    return out if json.dumps(schema) == spec["schema"] else None
