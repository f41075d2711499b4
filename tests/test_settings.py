"""The canonical request settings: validation, shorthands, and how to_wire's keywords relate."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from partwire import (
    AllowedToolsChoice,
    JsonObjectOutput,
    NamedToolChoice,
    Reasoning,
    RequestSettings,
    RequiredToolChoice,
)
from partwire._base import ProviderData
from partwire.adapters import _settings as adapter_settings
from partwire.adapters import get_adapter
from partwire.adapters._settings import plain_settings, resolve_settings
from partwire.caches import clear
from partwire.errors import PartwireError
from tests.harness.corpus import CORPUS


def test_shorthands_become_the_typed_settings() -> None:
    """A tool name, a word, an effort, a budget and a lone stop sequence each become their model."""
    settings = RequestSettings(tool_choice="get_weather", reasoning="high", output_format="json_object",
                               stop_sequences="END")
    assert settings.tool_choice == NamedToolChoice(name="get_weather")
    assert settings.reasoning == Reasoning(enabled=True, effort="high")
    assert settings.output_format == JsonObjectOutput()
    assert settings.stop_sequences == ("END",)
    assert RequestSettings(tool_choice="any").tool_choice == RequiredToolChoice()
    assert RequestSettings(reasoning=2048).reasoning == Reasoning(enabled=True, budget_tokens=2048)
    assert RequestSettings(reasoning=False).reasoning == Reasoning(enabled=False)


@pytest.mark.parametrize("bad", [
    {"temperature": 2.5}, {"temperature": True}, {"top_p": 1.5}, {"top_k": 0},
    {"presence_penalty": -3}, {"max_output_tokens": -1}, {"seed": 1.5}, {"temprature": 1},
    {"reasoning": {"enabled": False, "effort": "low"}}, {"tool_choice": {"type": "allowed_tools", "names": []}},
    {"reasoning": {"effort": "extreme"}},
])
def test_values_outside_every_api_are_refused_with_the_field_named(bad: dict[str, object]) -> None:
    """A value no API takes (or a misspelt field) fails at construction, naming the field."""
    with pytest.raises(ValidationError) as caught:
        RequestSettings.model_validate(bad)
    assert next(iter(bad)) in str(caught.value)


def test_numbers_keep_their_json_type() -> None:
    """An integer temperature stays an integer, so a body read and written back says the same."""
    assert type(RequestSettings(temperature=1).temperature) is int
    assert type(RequestSettings.model_validate_json('{"temperature": 1.0}').temperature) is float


def test_keywords_win_over_the_same_settings_and_a_native_choice_goes_as_it_is() -> None:
    """to_wire's max_tokens / tool_choice / parallel_tool_calls override settings; a dict choice is native."""
    base = RequestSettings(max_output_tokens=100, tool_choice="auto", parallel_tool_calls=True, top_p=0.5)
    resolved, native = resolve_settings(base, max_tokens=7, tool_choice="required", parallel_tool_calls=False)
    assert (resolved.max_output_tokens, resolved.tool_choice, resolved.parallel_tool_calls) == (
        7, RequiredToolChoice(), False)
    assert resolved.top_p == 0.5
    assert native is None
    resolved, native = resolve_settings({"tool_choice": "auto"}, tool_choice={"type": "web_search"})
    assert resolved.tool_choice is None
    assert native == {"type": "web_search"}
    assert resolve_settings(None) == (RequestSettings(), None)
    with pytest.raises(TypeError, match="settings must be"):
        resolve_settings("hot")  # type: ignore[arg-type]


def test_a_request_s_settings_override_the_session_s() -> None:
    """merged() takes every field the second settings set, and keeps the others."""
    session = RequestSettings(temperature=0.2, tool_choice=AllowedToolsChoice(names=("a", "b")))
    request = RequestSettings(temperature=1)
    merged = session.merged(request)
    assert merged.temperature == 1
    assert merged.tool_choice == AllowedToolsChoice(names=("a", "b"))
    assert session.merged(None) is session
    assert RequestSettings().is_empty()
    assert not merged.is_empty()


@pytest.mark.parametrize(("fields", "empty"), [
    ({}, True), ({"provider_data": ProviderData(issuer="google", data={"topK": "float"})}, True),
    ({"temperature": 0}, False), ({"parallel_tool_calls": False}, False), ({"stop_sequences": ()}, False),
    ({"end_user_id": ""}, False), ({"tool_choice": "none"}, False),
    ({"seed": 0, "provider_data": ProviderData(issuer="google", data=None)}, False),
])
def test_settings_are_empty_when_no_field_but_their_marks_is_set(fields: dict[str, Any], empty: bool) -> None:
    """Only a field left at None is unset: 0, False, an empty tuple or text are settings; the
    import marks in provider_data alone state none."""
    assert RequestSettings(**fields).is_empty() is empty




@pytest.mark.parametrize(("name", "body"), [
    ("anthropic", {"model": "m", "max_tokens": 5, "messages": [], "tool_choice": {"type": [1]},
                   "thinking": {"type": "adaptive", "display": [1]}, "output_config": {"effort": {}},
                   "stop_sequences": [1], "metadata": {"user_id": 3}, "temperature": "hot"}),
    ("openai_chat", {"model": "m", "messages": [], "reasoning_effort": {}, "response_format": {"type": []},
                     "tool_choice": {"type": "allowed_tools", "allowed_tools": {"mode": [1], "tools": []}},
                     "stop": [1], "user": 5, "temperature": [1]}),
    ("openai_responses", {"model": "m", "input": [], "reasoning": {"effort": [], "summary": {}},
                          "text": {"format": {"type": {}}},
                          "tool_choice": {"type": "allowed_tools", "mode": {}, "tools": []}}),
    ("google", {"contents": [], "toolConfig": {"functionCallingConfig": {"mode": "VALIDATED"}},
                "generationConfig": {"thinkingConfig": {"thinkingLevel": {}}, "topK": "x",
                                     "responseMimeType": [], "temperature": 9}}),
])
def test_settings_of_a_shape_no_api_takes_stay_raw_and_go_back_as_they_came(
        name: str, body: dict[str, object]) -> None:
    """A reader keeps a setting it cannot read in params (or the native tool choice), raw: the
    same API gets the body back exactly, and nothing is read into the settings."""
    adapter = get_adapter(name)
    imported = adapter.from_wire_request(body)
    assert imported.settings.model_copy(update={"max_output_tokens": None}).is_empty()
    kwargs = imported.to_wire_kwargs()
    assert adapter.to_wire(imported.history, **kwargs).request == body


# -- settings read without validation -------------------------------------------------------------

def _same_instance(made: Any, validated: Any) -> None:
    """``made`` is what validation made: equal, the same dumps, the same fields set, throughout."""
    assert type(made) is type(validated)
    assert made == validated
    assert made.model_dump() == validated.model_dump()
    assert made.model_dump_json() == validated.model_dump_json()
    assert made.model_fields_set == validated.model_fields_set
    for name in type(validated).model_fields:
        inner, expected = getattr(made, name), getattr(validated, name)
        assert type(inner) is type(expected)
        if isinstance(expected, BaseModel):
            _same_instance(inner, expected)


_NUMBERS = st.one_of(st.integers(-3, 3), st.floats(-3, 3), st.just(float("nan")), st.booleans(),
                     st.floats(allow_infinity=True), st.none())
_SCHEMA = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                                 st.text(max_size=3)),
                       lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                           st.text(max_size=3), inner, max_size=3), max_leaves=8)
_SETTINGS = st.fixed_dictionaries({}, optional={
    "max_output_tokens": _NUMBERS, "temperature": _NUMBERS, "top_p": _NUMBERS, "top_k": _NUMBERS,
    "seed": _NUMBERS, "presence_penalty": _NUMBERS, "frequency_penalty": _NUMBERS,
    "parallel_tool_calls": _NUMBERS,
    "stop_sequences": st.one_of(st.lists(st.text(max_size=3), max_size=2),
                                st.tuples(st.text(max_size=3)), st.text(max_size=3),
                                st.lists(st.integers(), min_size=1, max_size=1)),
    "end_user_id": st.one_of(st.text(max_size=3), st.integers()),
    "reasoning": st.one_of(
        st.fixed_dictionaries({}, optional={
            "enabled": st.one_of(st.booleans(), st.none(), st.integers(0, 1)),
            "effort": st.sampled_from([None, "low", "high", "max", "huge", 3]),
            "budget_tokens": st.one_of(st.none(), st.integers(-1, 2), st.booleans()),
            "summary": st.sampled_from([None, "auto", "none", "concise", "long"]),
            "extra": st.just(1)}),
        st.booleans(), st.sampled_from(["high", "bogus"]), st.integers(0, 9)),
    "output_format": st.one_of(
        st.sampled_from(["text", "json_object", {"type": "text"}, {"type": "json_object"},
                         {"type": "text", "name": "x"}, {"type": "other"}]),
        st.fixed_dictionaries({"type": st.just("json_schema"), "json_schema": st.one_of(
            st.dictionaries(st.text(max_size=3), _SCHEMA, max_size=3), _SCHEMA)}, optional={
            "name": st.one_of(st.none(), st.text(max_size=3), st.integers()),
            "description": st.one_of(st.none(), st.text(max_size=3)),
            "strict": st.one_of(st.none(), st.booleans(), st.integers(0, 1))})),
    "provider_data": st.sampled_from([ProviderData(issuer="google", data={"topK": "float"}),
                                      {"issuer": "google", "data": None}]),
    "tool_choice": st.one_of(
        st.sampled_from(["auto", "any", "none", "required", "lookup", "", {"type": "none"},
                         {"type": "auto", "name": "x"}, {"type": 1}, ["auto"], 3]),
        st.fixed_dictionaries({"type": st.just("tool")}, optional={
            "name": st.one_of(st.text(max_size=3), st.integers()), "names": st.just(["x"])}),
        st.fixed_dictionaries({"type": st.just("allowed_tools")}, optional={
            "names": st.one_of(st.lists(st.text(max_size=2), max_size=2),
                               st.tuples(st.text(max_size=2)), st.lists(st.integers(), max_size=1)),
            "mode": st.sampled_from(["auto", "required", "none", 1]), "name": st.just("x")})),
    "unknown": st.just(1),
})


# Values within every check, so that most examples take the path without validation.
_PLAIN = st.fixed_dictionaries({}, optional={
    "max_output_tokens": st.integers(0, 9), "temperature": st.floats(0, 2) | st.integers(0, 2),
    "top_p": st.floats(0, 1), "top_k": st.integers(1, 9), "seed": st.integers(),
    "stop_sequences": st.lists(st.text(max_size=3), max_size=2), "parallel_tool_calls": st.booleans(),
    "reasoning": st.fixed_dictionaries({}, optional={
        "enabled": st.sampled_from([None, True, False]), "effort": st.sampled_from([None, "low", "max"]),
        "budget_tokens": st.sampled_from([None, 1, 512]), "summary": st.sampled_from([None, "auto"])}),
    "output_format": st.fixed_dictionaries({"type": st.just("json_schema"), "json_schema": st.dictionaries(
        st.text(max_size=3), _SCHEMA, max_size=3)}, optional={"name": st.text(max_size=3),
                                                               "strict": st.booleans()}),
})


@settings(max_examples=400, deadline=None)
@given(_SETTINGS | _PLAIN)
def test_settings_made_without_validation_are_the_validated_ones(values: dict[str, Any]) -> None:
    """What ``plain_settings`` makes of plain values, validation makes too (equal, the same
    dumps and fields set, nested models included); anything it does not take it leaves to
    validation, which may refuse it."""
    _held_to_validation(values)


def _held_to_validation(values: dict[str, Any]) -> tuple[RequestSettings | None, bool]:
    """``plain_settings(values)`` and whether validation takes ``values``: ``None`` where
    validation refuses them, else what validation makes (or ``None``, left to validation)."""
    made = plain_settings(values)
    try:
        validated = RequestSettings.model_validate(values)
    except ValidationError:
        assert made is None
        return None, False
    if made is not None:
        _same_instance(made, validated)
    return made, True


@pytest.mark.parametrize("choice", [
    "auto", "any", "none", "required", "lookup", "", {"type": "auto"}, {"type": "none"},
    {"type": "required"}, {"type": "auto", "name": "x"}, {"type": "tool", "name": "x"},
    {"type": "tool"}, {"type": "tool", "name": 3}, {"type": "tool", "name": "x", "mode": "auto"},
    {"type": "allowed_tools", "names": ["a", "b"]}, {"type": "allowed_tools", "names": ("a",), "mode": "required"},
    {"type": "allowed_tools", "names": []}, {"type": "allowed_tools", "names": ["a"], "mode": "none"},
    {"type": "allowed_tools", "names": [1]}, {"type": "allowed_tools", "names": "ab"},
    {"type": "allowed_tools", "mode": "auto"}, {"type": "allowed_tools", "names": ["a"], "name": "a"},
    {"type": "other"}, {"type": 1}, {}, ["auto"], 3, None])
def test_tool_choices_made_without_validation_are_the_validated_ones(choice: Any) -> None:
    """Every form of tool choice a reader gives (a word, a tool's name, each tagged dict) is made
    as validation makes it; a value validation would refuse or convert is left to validation."""
    made, valid = _held_to_validation({"tool_choice": choice})
    if valid and isinstance(choice, str | dict):
        assert made is not None  # every valid word, name and dict takes the path without validation


def test_every_corpus_request_s_settings_are_made_as_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    """The settings each reader reads from the recorded requests of its API are made without
    validation where they can be, and equal what validation makes of the same values."""
    seen: list[dict[str, Any]] = []

    def spy(values: Mapping[str, Any]) -> RequestSettings | None:
        seen.append(dict(values))
        return plain_settings(values)

    monkeypatch.setattr(adapter_settings, "plain_settings", spy)
    clear()
    for name, folder in (("anthropic", "anthropic"), ("openai_chat", "openai-chat"),
                         ("openai_responses", "openai-responses"), ("google", "google")):
        for path in sorted((CORPUS / folder).glob("*.json")):
            request = json.loads(path.read_text()).get("request")
            if isinstance(request, dict):
                with contextlib.suppress(PartwireError):
                    get_adapter(name).from_wire_request(request)
    clear()
    made = [(values, plain_settings(values)) for values in seen]
    assert sum(m is not None for _, m in made) >= 100  # the common settings take this path
    for values, instance in made:
        if instance is not None:
            _same_instance(instance, RequestSettings.model_validate(values))


def test_a_reading_remembered_by_its_reader_is_not_remembered_again() -> None:
    """``read_settings(..., remember=False)`` (a reader that remembers its own readings, as
    Gemini's does) makes the same settings and keeps nothing in the values memo; a reading that
    is remembered is given again, the same instance."""
    values = {"temperature": 0.5, "output_format": {"type": "json_schema", "json_schema": {"type": "object"}}}
    clear()
    alone = adapter_settings.read_settings(dict(values), lambda _: None, "google", {"schema": "openapi"},
                                           remember=False)
    assert not adapter_settings._MEMO
    kept = adapter_settings.read_settings(dict(values), lambda _: None, "google", {"schema": "openapi"})
    assert kept == alone
    assert kept is not alone
    assert len(adapter_settings._MEMO) == 1
    assert adapter_settings.read_settings(dict(values), lambda _: None, "google", {"schema": "openapi"}) is kept


def test_a_token_limit_alone_is_remembered_by_its_value_and_type() -> None:
    """A token limit read alone gives the same settings as validation, remembered by the number
    (the same instance the second time, whichever reader's issuer); a limit validation refuses
    is put back raw on every reading, never remembered; settings with more than the limit are
    read in full."""
    clear()
    put_back: list[str] = []
    first = adapter_settings.read_settings({"max_output_tokens": 1}, put_back.append, "anthropic")
    assert first == RequestSettings(max_output_tokens=1)
    assert first.model_fields_set == {"max_output_tokens"}
    assert adapter_settings.read_settings({"max_output_tokens": 1}, put_back.append, "openai") is first
    for _ in range(2):
        assert adapter_settings.read_settings({"max_output_tokens": -1}, put_back.append) == RequestSettings()
    assert put_back == ["max_output_tokens", "max_output_tokens"]
    both = adapter_settings.read_settings({"max_output_tokens": 1, "temperature": 0.5}, put_back.append)
    assert both == RequestSettings(max_output_tokens=1, temperature=0.5)
    assert adapter_settings.read_settings({"max_output_tokens": 1}, put_back.append) is first

