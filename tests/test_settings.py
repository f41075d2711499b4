"""The canonical request settings: validation, shorthands, and how to_wire's keywords relate."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from partwire import (
    AllowedToolsChoice,
    JsonObjectOutput,
    NamedToolChoice,
    Reasoning,
    RequestSettings,
    RequiredToolChoice,
)
from partwire.adapters import get_adapter
from partwire.adapters._common import resolve_settings


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
