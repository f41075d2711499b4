"""Generation settings: the part of a request around the conversation, in one canonical form.

:class:`RequestSettings` holds what every request states besides its messages and tools: the
output limit, sampling, stop sequences, tool choice, reasoning, the output format and the end
user. Each adapter's ``from_wire_request`` reads its API's fields into it and each ``to_wire``
writes it into its own API's fields (``to_wire(history, settings=...)``). A setting the target
API cannot take, or a value it cannot hold, is a loss at ``request.settings.<field>``:
``rewritten`` when it is clamped or re-expressed, ``dropped`` otherwise. The mapping for every
API is the settings table of ``docs/conversion.md``.

Every field is optional: ``None`` means the request does not say, and the API's default applies.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, JsonValue, Strict, field_validator, model_validator

from partwire._base import CanonicalModel, NamedUnion, ProviderData

__all__ = [
    "AllowedToolsChoice",
    "AutoToolChoice",
    "JsonObjectOutput",
    "JsonSchemaOutput",
    "NamedToolChoice",
    "NoToolChoice",
    "OutputFormat",
    "Reasoning",
    "ReasoningEffort",
    "ReasoningSummary",
    "RequestSettings",
    "RequiredToolChoice",
    "TextOutput",
    "ToolChoiceSetting",
]

ReasoningEffort = Literal["minimal", "low", "medium", "high", "xhigh", "max"]
"""How hard the model reasons, from least to most (OpenAI's ``reasoning_effort``, Anthropic's
``output_config.effort``, Gemini's ``thinkingLevel``)."""
ReasoningSummary = Literal["none", "auto", "concise", "detailed"]
"""Whether the reasoning comes back as a readable summary: ``none`` (omitted), ``auto``, or a
level of detail where the API has one (OpenAI Responses)."""


class _Setting(CanonicalModel):
    """A settings model: immutable, and a field it does not know is a mistake, not kept data
    (settings are written by people, not read back from files of a newer version)."""

    model_config = ConfigDict(**{**CanonicalModel.model_config, "extra": "forbid"})


# -- tool choice ----------------------------------------------------------------------------


class AutoToolChoice(_Setting):
    """The model decides whether to call tools (the default of every API when tools are given)."""

    type: Literal["auto"] = "auto"
    """Always ``auto``."""


class NoToolChoice(_Setting):
    """The model calls no tool, although tools are defined."""

    type: Literal["none"] = "none"
    """Always ``none``."""


class RequiredToolChoice(_Setting):
    """The model must call at least one tool, any of them (Anthropic ``any``, Gemini ``ANY``)."""

    type: Literal["required"] = "required"
    """Always ``required``."""


class NamedToolChoice(_Setting):
    """The model must call this one tool."""

    type: Literal["tool"] = "tool"
    """Always ``tool``."""
    name: str
    """The name of the tool it must call."""


class AllowedToolsChoice(_Setting):
    """The model may call only these tools (OpenAI ``allowed_tools``, Gemini
    ``allowedFunctionNames``)."""

    type: Literal["allowed_tools"] = "allowed_tools"
    """Always ``allowed_tools``."""
    names: tuple[str, ...] = Field(min_length=1)
    """The names of the tools it may call."""
    mode: Literal["auto", "required"] = "auto"
    """``auto``: it may also answer without a call; ``required``: it must call one of them."""


ToolChoiceSetting = Annotated[
    AutoToolChoice | NoToolChoice | RequiredToolChoice | NamedToolChoice | AllowedToolsChoice,
    Field(discriminator="type"),
    NamedUnion("ToolChoiceSetting", "Which tools the model may or must call, by type."),
]
"""Which tools the model may or must call. ``RequestSettings(tool_choice=...)`` also takes
``"auto"``, ``"none"``, ``"required"`` or a tool's name."""

_TOOL_CHOICE_WORDS = {"auto": "auto", "none": "none", "required": "required", "any": "required"}


# -- reasoning ------------------------------------------------------------------------------


class Reasoning(_Setting):
    """Reasoning (extended thinking): off, on, at an effort level or within a token budget.

    ``Reasoning(enabled=False)`` turns it off; ``Reasoning(effort="high")`` and
    ``Reasoning(budget_tokens=4096)`` turn it on at that level; ``Reasoning(enabled=True)`` turns
    it on and lets the model decide how much (Anthropic ``adaptive``, Gemini budget ``-1``).
    ``effort`` and ``budget_tokens`` may both be set (Anthropic takes both); an API that takes
    one gets the other re-expressed by the table in ``docs/conversion.md``, reported.
    """

    enabled: bool | None = None
    """``True`` on, ``False`` off, ``None``: not said (the model's default). An effort or a
    budget sets it to ``True``."""
    effort: ReasoningEffort | None = None
    """The effort level, when the request names one."""
    budget_tokens: Annotated[int, Strict()] | None = Field(default=None, ge=1)
    """The most tokens the model may spend reasoning, when the request names a budget."""
    summary: ReasoningSummary | None = None
    """Whether reasoning comes back summarised (``none``: not returned), when the request says."""

    @model_validator(mode="before")
    @classmethod
    def _a_level_turns_it_on(cls, data: Any) -> Any:
        # An effort or a budget says how much to reason: on, unless said otherwise (and off with
        # a level is refused below), so Reasoning(effort="high") equals what a reader makes.
        if isinstance(data, dict) and data.get("enabled") is None and (
                data.get("effort") is not None or data.get("budget_tokens") is not None):
            return {**data, "enabled": True}
        return data

    @model_validator(mode="after")
    def _off_is_off(self) -> Reasoning:
        if self.enabled is False and (self.effort is not None or self.budget_tokens is not None):
            raise ValueError("reasoning that is off (enabled=False) takes no effort or budget_tokens")
        return self


# -- output format --------------------------------------------------------------------------


class TextOutput(_Setting):
    """Free text (every API's default)."""

    type: Literal["text"] = "text"
    """Always ``text``."""


class JsonObjectOutput(_Setting):
    """Any JSON object (OpenAI ``json_object``, Gemini ``application/json`` without a schema)."""

    type: Literal["json_object"] = "json_object"
    """Always ``json_object``."""


class JsonSchemaOutput(_Setting):
    """JSON that follows a schema (structured output)."""

    type: Literal["json_schema"] = "json_schema"
    """Always ``json_schema``."""
    json_schema: dict[str, JsonValue]
    """The JSON Schema the output follows, as the request states it."""
    name: str | None = None
    """The schema's name (OpenAI requires one; Anthropic and Gemini have none)."""
    description: str | None = None
    """What the output is, for the model (OpenAI only)."""
    strict: bool | None = None
    """Whether the API enforces the schema exactly (OpenAI's ``strict``)."""


OutputFormat = Annotated[
    TextOutput | JsonObjectOutput | JsonSchemaOutput,
    Field(discriminator="type"),
    NamedUnion("OutputFormat", "The form of the model's answer, by type."),
]
"""The form of the model's answer. ``RequestSettings(output_format=...)`` also takes ``"text"``
or ``"json_object"``."""


# -- the settings ---------------------------------------------------------------------------

# A number kept as it was given: an int stays an int, so a body read and written back says ``1``
# where it said ``1`` and ``1.0`` where it said ``1.0``.
# Strict: a boolean is no number here.
_Temperature = Annotated[int, Strict(), Field(ge=0, le=2)] | Annotated[float, Strict(), Field(ge=0, le=2)]
_Probability = Annotated[int, Strict(), Field(ge=0, le=1)] | Annotated[float, Strict(), Field(ge=0, le=1)]
_Penalty = Annotated[int, Strict(), Field(ge=-2, le=2)] | Annotated[float, Strict(), Field(ge=-2, le=2)]


class RequestSettings(_Setting):
    """The generation settings of a request, the same for every API (``to_wire(settings=...)``).

    Unset fields (``None``) are not sent, so the API's defaults apply. ``provider_data`` holds
    the marks that let a request read by ``from_wire_request`` go back to its own API exactly
    (a ``stop`` sent as a string, a beta field name); only that API's adapter reads them.
    """

    max_output_tokens: Annotated[int, Strict()] | None = Field(default=None, ge=0)
    """The most tokens the answer may have, reasoning included."""
    temperature: _Temperature | None = None
    """Sampling temperature, 0 to 2 (Anthropic's range is 0 to 1: higher values are clamped)."""
    top_p: _Probability | None = None
    """Nucleus sampling: the probability mass the next token is drawn from, 0 to 1."""
    top_k: Annotated[int, Strict()] | None = Field(default=None, ge=1)
    """Sample only from the ``top_k`` likeliest tokens."""
    stop_sequences: tuple[str, ...] | None = None
    """Texts at which the model stops (the text itself is not returned)."""
    seed: Annotated[int, Strict()] | None = None
    """Seed for best-effort deterministic sampling."""
    presence_penalty: _Penalty | None = None
    """Penalty on tokens that already appeared, -2 to 2."""
    frequency_penalty: _Penalty | None = None
    """Penalty on tokens by how often they appeared, -2 to 2."""
    tool_choice: ToolChoiceSetting | None = None
    """Which tools the model may or must call."""
    parallel_tool_calls: bool | None = None
    """Whether the model may call several tools in one answer (``False``: at most one)."""
    reasoning: Reasoning | None = None
    """Reasoning off, on, at an effort level or within a budget, and whether summaries return.
    Also takes ``True``/``False``, an effort name (``"high"``) or a token budget (an int)."""
    output_format: OutputFormat | None = None
    """The form of the answer: free text, any JSON object, or JSON following a schema."""
    end_user_id: str | None = None
    """An opaque id of the end user, for the provider's abuse detection (no personal data)."""
    provider_data: ProviderData | None = None
    """Marks that send an imported request back to its own API exactly; other APIs ignore them."""

    @field_validator("tool_choice", mode="before")
    @classmethod
    def _tool_choice_word(cls, value: Any) -> Any:
        if isinstance(value, str):
            word = _TOOL_CHOICE_WORDS.get(value)
            return {"type": word} if word is not None else {"type": "tool", "name": value}
        return value

    @field_validator("reasoning", mode="before")
    @classmethod
    def _reasoning_shorthand(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return {"enabled": value}
        if isinstance(value, str):
            return {"enabled": True, "effort": value}
        if isinstance(value, int):
            return {"enabled": True, "budget_tokens": value}
        return value

    @field_validator("output_format", mode="before")
    @classmethod
    def _output_format_word(cls, value: Any) -> Any:
        return {"type": value} if isinstance(value, str) else value

    @field_validator("stop_sequences", mode="before")
    @classmethod
    def _one_stop_sequence(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value

    def merged(self, other: RequestSettings | None) -> RequestSettings:
        """These settings with every field ``other`` sets taken from ``other`` (a request's own
        settings over a session's)."""
        if other is None:
            return self
        changes = {name: getattr(other, name) for name in other.model_fields_set
                   if getattr(other, name) is not None}
        return self.model_copy(update=changes) if changes else self

    def is_empty(self) -> bool:
        """Whether no field is set (the request states no setting)."""
        # A loop, not all() over a generator: every to_wire asks, usually of empty settings.
        for name, value in self.__dict__.items():
            if value is not None and name != "provider_data":
                return False
        return True


EMPTY_SETTINGS = RequestSettings()
"""The settings of a request that states none."""
