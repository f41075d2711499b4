"""The settings laws (DESIGN §11, law 5, for the request around a history) and the settings matrix.

- any settings, at edge values, sent to any adapter give a body its SDK's request type accepts,
  and every setting either comes back from that adapter's ``from_wire_request`` or is named by a
  loss at ``request.settings.<field>``;
- X -> Y -> X keeps every setting Y carried;
- the matrix: a request written in each API's own format, one per setting, converted to every
  other API, arrives in the target's own field wherever the target has that field (100%), and
  is a loss everywhere else.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from partwire import (
    AllowedToolsChoice,
    AutoToolChoice,
    JsonObjectOutput,
    JsonSchemaOutput,
    NamedToolChoice,
    NoToolChoice,
    Reasoning,
    RequestSettings,
    RequiredToolChoice,
    TextOutput,
    ToolDefinition,
    UserMessage,
)
from partwire.adapters import get_adapter
from partwire.convert import convert
from partwire.projection import Loss
from partwire.switch import check_switch
from tests.harness.validity import request_errors
from tests.laws.test_corpus_laws import ADAPTERS as _REGISTERED

LAWS = settings(max_examples=int(os.environ.get("PARTWIRE_LAW_EXAMPLES", "60")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

TOOLS = (
    ToolDefinition(name="get_weather", description="The weather in a city.", side_effects="network",
                   input_schema={"type": "object", "properties": {"city": {"type": "string"}},
                                 "required": ["city"]}),
    ToolDefinition(name="lookup", description="Look a word up.", side_effects="read",
                   input_schema={"type": "object", "properties": {"word": {"type": "string"}},
                                 "required": ["word"]}),
)
NAMES = tuple(t.name for t in TOOLS)
HISTORY = [UserMessage("What is the weather in Paris?")]
# Per target, models that take sampling (and no reasoning control) and models that reason.
MODELS = {"anthropic": ("claude-sonnet-4-6",), "openai_chat": ("gpt-4.1", "o4-mini", "gpt-5"),
          "openai_responses": ("gpt-4.1", "gpt-5"), "google": ("gemini-2.5-flash", "gemini-3-pro-preview")}
# The four APIs of issue 21 (Bedrock has its own settings laws with its adapter).
ADAPTERS = [name for name in _REGISTERED if name in MODELS]
PAIRS = [(a, b) for a in ADAPTERS for b in ADAPTERS if a != b]
# Cohere and Ollama join the per-target law and the matrix (the generated round trips between
# every pair stay with the four, which keeps the suite's time).
MODELS_MORE = {"cohere": ("command-a-03-2025", "command-a-reasoning-08-2025"), "ollama": ("qwen3:8b",)}
TARGETS = [*ADAPTERS, *(name for name in _REGISTERED if name in MODELS_MORE)]
MATRIX_PAIRS = [(a, b) for a in TARGETS for b in TARGETS if a != b]
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"],
          "additionalProperties": False}


# -- generated settings ---------------------------------------------------------------------


def _numbers(low: float, high: float) -> st.SearchStrategy[Any]:
    edges = st.sampled_from([low, high, int(low), int(high)] if low.is_integer() and high.is_integer()
                            else [low, high])
    return st.one_of(edges, st.floats(low, high, allow_nan=False))


def tool_choices() -> st.SearchStrategy[Any]:
    """Every tool-choice mode, over the tools defined."""
    return st.one_of(
        st.just(AutoToolChoice()), st.just(NoToolChoice()), st.just(RequiredToolChoice()),
        st.sampled_from(NAMES).map(lambda n: NamedToolChoice(name=n)),
        st.builds(AllowedToolsChoice, names=st.lists(st.sampled_from(NAMES), min_size=1, max_size=2,
                                                     unique=True).map(tuple),
                  mode=st.sampled_from(["auto", "required"])),
    )


def reasonings() -> st.SearchStrategy[Reasoning]:
    """Reasoning off, on, at every effort, within edge budgets, with every summary."""
    summary = st.sampled_from([None, "none", "auto", "concise", "detailed"])
    return st.one_of(
        st.builds(Reasoning, enabled=st.just(False), summary=summary),
        st.builds(Reasoning, enabled=st.just(True), summary=summary),
        st.builds(Reasoning, effort=st.sampled_from(["minimal", "low", "medium", "high", "xhigh", "max"]),
                  budget_tokens=st.sampled_from([None, None, 1, 1023, 1024, 2048, 100_000]),
                  summary=summary),
        st.builds(Reasoning, budget_tokens=st.sampled_from([1, 512, 1024, 4096, 24_576, 100_000]),
                  summary=summary),
        st.builds(Reasoning, summary=st.sampled_from(["none", "auto"])),
    )


def output_formats() -> st.SearchStrategy[Any]:
    """Text, any JSON object, a JSON schema with and without name, description and strictness."""
    return st.one_of(
        st.just(TextOutput()), st.just(JsonObjectOutput()),
        st.builds(JsonSchemaOutput, json_schema=st.just(SCHEMA),
                  name=st.sampled_from([None, "answer"]), description=st.sampled_from([None, "An answer."]),
                  strict=st.sampled_from([None, True, False])),
    )


def request_settings() -> st.SearchStrategy[RequestSettings]:
    """Any settings: each field unset or at an edge or ordinary value."""
    def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(st.none(), strategy)

    return st.builds(
        RequestSettings,
        max_output_tokens=maybe(st.sampled_from([1, 1024, 4096, 64_000])),
        temperature=maybe(_numbers(0.0, 2.0)),
        top_p=maybe(_numbers(0.0, 1.0)),
        top_k=maybe(st.sampled_from([1, 40, 500])),
        stop_sequences=maybe(st.lists(st.sampled_from(["END", "\n\n", "###", "STOP", "x"]),
                                      min_size=1, max_size=6).map(tuple)),
        seed=maybe(st.sampled_from([0, 42, -1, 2**31 - 1])),
        presence_penalty=maybe(_numbers(-2.0, 2.0)),
        frequency_penalty=maybe(_numbers(-2.0, 2.0)),
        tool_choice=maybe(tool_choices()),
        parallel_tool_calls=maybe(st.booleans()),
        reasoning=maybe(reasonings()),
        output_format=maybe(output_formats()),
        end_user_id=maybe(st.sampled_from(["user-1", "a" * 64])),
    )


# -- what counts as arrived -----------------------------------------------------------------

# A default said out loud, which an API expresses by saying nothing: reading the body back gives
# None, and nothing was lost (free text where Anthropic has no text format; no summary where
# OpenAI returns none unless asked, or where Cohere and Ollama give none at all).
def _meaning(name: str, value: Any, target: str) -> Any:
    if name == "output_format" and isinstance(value, TextOutput) and target in ("anthropic", "ollama"):
        return None
    if name == "tool_choice" and isinstance(value, AutoToolChoice) and target in ("cohere", "ollama"):
        return None  # their default, which they say by sending no tool choice
    if name == "parallel_tool_calls" and value is True and target == "ollama":
        return None  # Ollama always may call several tools: true is its only behaviour
    if name == "reasoning" and isinstance(value, Reasoning) and value.summary == "none" \
            and target in ("openai_chat", "openai_responses", "cohere", "ollama"):
        value = value.model_copy(update={"summary": None})
        return None if value == Reasoning() else value
    return value


def _named(field: str, losses: Sequence[Loss]) -> bool:
    path = f"request.settings.{field}"
    return any(loss.path == path or loss.path.startswith(path + ".") for loss in losses)


def _fields(s: RequestSettings) -> list[str]:
    return [name for name in RequestSettings.model_fields
            if name != "provider_data" and getattr(s, name) is not None]


def _send(target: str, model: str, given: RequestSettings) -> tuple[dict[str, Any], Sequence[Loss],
                                                                     RequestSettings]:
    adapter = get_adapter(target)
    projection = adapter.to_wire(HISTORY, model=model, tools=TOOLS, settings=given)
    return projection.request, projection.losses, adapter.from_wire_request(projection.request).settings


@pytest.mark.parametrize("target", TARGETS)
@LAWS
@given(data=st.data(), given_settings=request_settings())
def test_every_setting_arrives_or_is_named_by_a_loss(target: str, data: st.DataObject,
                                                     given_settings: RequestSettings) -> None:
    """Any settings sent to any adapter: the body validates against the SDK's request type,
    ``check_switch`` predicts the same losses, and each setting comes back from the adapter's own
    reader or a loss names it."""
    model = data.draw(st.sampled_from({**MODELS, **MODELS_MORE}[target]), label="model")
    body, losses, back = _send(target, model, given_settings)
    assert request_errors(target, body) == []
    # The switch prediction names the same losses (law 6, with settings).
    predicted = check_switch(HISTORY, target, model=model, tools=TOOLS, settings=given_settings)
    assert [(x.path, x.action, x.reason) for x in predicted] == [
        (x.path, x.action, x.reason) for x in losses]
    for name in _fields(given_settings):
        sent = _meaning(name, getattr(given_settings, name), target)
        if sent is None or _named(name, losses):
            continue
        assert getattr(back, name) == sent, f"{name}: sent {sent!r}, read back {getattr(back, name)!r}"


@pytest.mark.parametrize(("home", "via"), PAIRS)
@LAWS
@given(data=st.data(), given_settings=request_settings())
def test_a_trip_through_another_api_keeps_every_setting_it_carried(
        home: str, via: str, data: st.DataObject, given_settings: RequestSettings) -> None:
    """X -> Y -> X: each setting Y carried (read back equal, no loss) comes home unchanged."""
    home_model = data.draw(st.sampled_from(MODELS[home]), label="home model")
    via_model = data.draw(st.sampled_from(MODELS[via]), label="via model")
    _, _, at_home = _send(home, home_model, given_settings)
    _, via_losses, there = _send(via, via_model, at_home)
    _, _, again = _send(home, home_model, there)
    for name in _fields(at_home):
        if getattr(there, name) == getattr(at_home, name) and not _named(name, via_losses):
            assert getattr(again, name) == getattr(at_home, name), name


# -- the matrix -----------------------------------------------------------------------------

_WEATHER = {"anthropic": {"name": "get_weather", "description": "The weather in a city.",
                          "input_schema": TOOLS[0].input_schema},
            "openai_chat": {"type": "function", "function": {
                "name": "get_weather", "description": "The weather in a city.",
                "parameters": TOOLS[0].input_schema}},
            "openai_responses": {"type": "function", "name": "get_weather",
                                 "description": "The weather in a city.",
                                 "parameters": TOOLS[0].input_schema, "strict": False},
            "google": {"functionDeclarations": [{"name": "get_weather",
                                                 "description": "The weather in a city.",
                                                 "parametersJsonSchema": TOOLS[0].input_schema}]}}
_WEATHER["cohere"] = _WEATHER["ollama"] = _WEATHER["openai_chat"]  # Chat's function tool, to the letter
_USER: dict[str, dict[str, Any]] = {"anthropic": {"messages": [{"role": "user", "content": "Weather in Paris?"}]},
         "openai_chat": {"messages": [{"role": "user", "content": "Weather in Paris?"}]},
         "openai_responses": {"input": "Weather in Paris?"},
         "google": {"contents": [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}]}}
_USER["cohere"] = _USER["ollama"] = _USER["openai_chat"]
_SOURCE_MODEL = {"anthropic": "claude-sonnet-4-6", "openai_chat": "gpt-4.1",
                 "openai_responses": "gpt-4.1", "google": None, "cohere": "command-a-03-2025",
                 "ollama": "qwen3:8b"}
# A setting an API says by saying nothing (its default): not a source, and as a target it
# arrives as nothing, with no loss.
DEFAULT: dict[str, Any] = {}


def _gen(fields: dict[str, Any]) -> dict[str, Any]:
    return {"generationConfig": fields}


# Each setting of the acceptance, written in each API's own fields (None: the API has no field).
MATRIX: dict[str, dict[str, dict[str, Any] | None]] = {
    "temperature": {"anthropic": None, "openai_chat": {"temperature": 0.4},
                    "openai_responses": {"temperature": 0.4}, "google": _gen({"temperature": 0.4}),
                    "cohere": {"temperature": 0.4}, "ollama": {"options": {"temperature": 0.4}}},
    "top_p": {"anthropic": None, "openai_chat": {"top_p": 0.9}, "openai_responses": {"top_p": 0.9},
              "google": _gen({"topP": 0.9}), "cohere": {"p": 0.9}, "ollama": {"options": {"top_p": 0.9}}},
    "max_output_tokens": {"anthropic": {"max_tokens": 321},
                          "openai_chat": {"max_completion_tokens": 321},
                          "openai_responses": {"max_output_tokens": 321},
                          "google": _gen({"maxOutputTokens": 321}), "cohere": {"max_tokens": 321},
                          "ollama": {"options": {"num_predict": 321}}},
    "stop_sequences": {"anthropic": {"stop_sequences": ["END"]}, "openai_chat": {"stop": ["END"]},
                       "openai_responses": None, "google": _gen({"stopSequences": ["END"]}),
                       "cohere": {"stop_sequences": ["END"]}, "ollama": {"options": {"stop": ["END"]}}},
    "tool_choice=auto": {"anthropic": {"tool_choice": {"type": "auto"}},
                         "openai_chat": {"tool_choice": "auto"},
                         "openai_responses": {"tool_choice": "auto"},
                         "google": {"toolConfig": {"functionCallingConfig": {"mode": "AUTO"}}},
                         "cohere": DEFAULT, "ollama": DEFAULT},
    "tool_choice=none": {"anthropic": {"tool_choice": {"type": "none"}},
                         "openai_chat": {"tool_choice": "none"},
                         "openai_responses": {"tool_choice": "none"},
                         "google": {"toolConfig": {"functionCallingConfig": {"mode": "NONE"}}},
                         "cohere": {"tool_choice": "NONE"}, "ollama": None},
    "tool_choice=required": {"anthropic": {"tool_choice": {"type": "any"}},
                             "openai_chat": {"tool_choice": "required"},
                             "openai_responses": {"tool_choice": "required"},
                             "google": {"toolConfig": {"functionCallingConfig": {"mode": "ANY"}}},
                             "cohere": {"tool_choice": "REQUIRED"}, "ollama": None},
    "tool_choice=one tool": {
        "anthropic": {"tool_choice": {"type": "tool", "name": "get_weather"}},
        "openai_chat": {"tool_choice": {"type": "function", "function": {"name": "get_weather"}}},
        "openai_responses": {"tool_choice": {"type": "function", "name": "get_weather"}},
        "google": {"toolConfig": {"functionCallingConfig": {
            "mode": "ANY", "allowedFunctionNames": ["get_weather"]}}},
        "cohere": None, "ollama": None},
    "reasoning on": {"anthropic": {"max_tokens": 8192, "thinking": {"type": "enabled", "budget_tokens": 4096}},
                     "openai_chat": {"reasoning_effort": "high"},
                     "openai_responses": {"reasoning": {"effort": "high"}},
                     "google": _gen({"thinkingConfig": {"thinkingBudget": 4096}}),
                     "cohere": {"thinking": {"type": "enabled", "token_budget": 4096}},
                     "ollama": {"think": True}},
    "reasoning off": {"anthropic": {"thinking": {"type": "disabled"}},
                      "openai_chat": {"reasoning_effort": "none"},
                      "openai_responses": {"reasoning": {"effort": "none"}},
                      "google": _gen({"thinkingConfig": {"thinkingBudget": 0}}),
                      "cohere": {"thinking": {"type": "disabled"}}, "ollama": {"think": False}},
    "output_format=json_schema": {
        "anthropic": {"output_config": {"format": {"type": "json_schema", "schema": SCHEMA}}},
        "openai_chat": {"response_format": {"type": "json_schema", "json_schema": {
            "name": "answer", "schema": SCHEMA, "strict": True}}},
        "openai_responses": {"text": {"format": {"type": "json_schema", "name": "answer",
                                                 "schema": SCHEMA, "strict": True}}},
        "google": _gen({"responseMimeType": "application/json", "responseJsonSchema": SCHEMA}),
        "cohere": {"response_format": {"type": "json_object", "json_schema": SCHEMA}},
        "ollama": {"format": SCHEMA}},
}
# The model each target is sent to for a setting: one that takes it (a reasoning model for the
# reasoning settings, one that samples for the rest).
_TARGET_MODEL = {"anthropic": "claude-sonnet-4-6", "openai_chat": "gpt-4.1",
                 "openai_responses": "gpt-4.1", "google": "gemini-2.5-flash",
                 "cohere": "command-a-03-2025", "ollama": "qwen3:8b"}
_REASONING_MODEL = {"anthropic": "claude-sonnet-4-6", "openai_chat": "o4-mini",
                    "openai_responses": "gpt-5", "google": "gemini-2.5-flash",
                    "cohere": "command-a-reasoning-08-2025", "ollama": "qwen3:8b"}


def _request(api: str, case: str) -> dict[str, Any]:
    own = MATRIX[case][api]
    assert own is not None
    body: dict[str, Any] = {**_USER[api]}
    tools = _WEATHER[api]
    body["tools"] = [tools]
    if _SOURCE_MODEL[api]:
        body["model"] = _SOURCE_MODEL[api]
    if api == "anthropic":
        body["max_tokens"] = 1024
    for key, value in own.items():
        body[key] = value
    return body


def _field(case: str) -> str:
    return case.split("=")[0].split(" ")[0] if not case.startswith("reasoning") else "reasoning"


def _arrived(case: str, source: RequestSettings, back: RequestSettings) -> bool:
    field = _field(case)
    if field == "reasoning":  # on arrives as on, off as off (the level may be re-expressed)
        return back.reasoning is not None and back.reasoning.enabled == (case == "reasoning on")
    if field == "output_format":
        fmt = back.output_format
        return isinstance(fmt, JsonSchemaOutput) and fmt.json_schema == SCHEMA
    value = getattr(back, field)
    return value is not None and value == getattr(source, field)


CELLS = [(case, source, target) for case in MATRIX for source, target in MATRIX_PAIRS
         if MATRIX[case][source]]  # neither a missing field nor a default said by silence


@pytest.mark.parametrize(("case", "source", "target"), CELLS)
def test_the_settings_matrix(case: str, source: str, target: str) -> None:
    """A setting written in the source API's own fields arrives in the target API's own field
    (read back by the target's own reader, the body valid for its SDK) wherever the target has
    the field; where it has none, a loss names it."""
    body = _request(source, case)
    imported = get_adapter(source).from_wire_request(body)
    model = (_REASONING_MODEL if case.startswith("reasoning") else _TARGET_MODEL)[target]
    out, losses = convert(body, source=source, target=target, model=model)
    assert request_errors(target, out) == []
    back = get_adapter(target).from_wire_request(out).settings
    if MATRIX[case][target] is None:
        assert _named(_field(case), losses), [str(x) for x in losses]
    elif MATRIX[case][target] is DEFAULT:  # said by saying nothing: nothing comes back, nothing lost
        assert getattr(back, _field(case)) in (None, AutoToolChoice()), back
        assert not _named(_field(case), losses), [str(x) for x in losses]
    else:
        assert _arrived(case, imported.settings, back), (imported.settings, back)
        # A detail may go (a schema's name where the target has none); the setting itself does not.
        assert not [x for x in losses if x.action == "dropped"
                    and x.path == f"request.settings.{_field(case)}"]
    assert not [x for x in losses if x.path == "request" and _field(case) in x.reason]


def test_the_matrix_arrives_everywhere_the_target_has_the_field() -> None:
    """The acceptance figure: 100% of the cells whose target has the field arrive."""
    expected = [(c, s, t) for c, s, t in CELLS if MATRIX[c][t]]
    arrived = 0
    for case, source, target in expected:
        body = _request(source, case)
        model = (_REASONING_MODEL if case.startswith("reasoning") else _TARGET_MODEL)[target]
        out, _ = convert(body, source=source, target=target, model=model)
        back = get_adapter(target).from_wire_request(out).settings
        arrived += _arrived(case, get_adapter(source).from_wire_request(body).settings, back)
    assert len(expected) > 100
    assert arrived == len(expected)
