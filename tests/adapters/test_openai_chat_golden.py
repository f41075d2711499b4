"""Golden files pin both directions of the Chat Completions adapter, for OpenAI and each dialect.

``to_wire(scenario)`` must equal ``tests/golden/openai_chat[/<dialect>]/<scenario>.request.json``
(which is also the body its cassette matches on), and ``from_wire`` of the hand-written response
must equal ``<scenario>.message.json``. Rewrite them with ``--update-golden`` and review the diff.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from partwire import AssistantMessage, UserMessage
from partwire.adapters import openai_chat
from partwire.history import EVENT_ADAPTER
from tests.harness.compare import comparable, neutral
from tests.harness.golden import Golden
from tests.harness.providers.openai_chat import ALL_KITS, ChatKit, expected_neutral
from tests.scenarios import Scenario

CASES = [pytest.param(kit, s, id=f"{kit.dialect}-{s.name}") for kit in ALL_KITS for s in kit.scenarios()]
ANSWERED = [p for p in CASES if p.values[1].reply is not None]  # type: ignore[union-attr]

# What each projection must report as lost: (action, part type, path), per dialect and scenario.
# OpenAI takes no reasoning back, and tool status has no Chat field; the dialects other than
# OpenAI are sent developer messages as system messages (their default developer_role).
_DEV = [("rewritten", "developer_message", "history[2]")]
_TITLE = [("rewritten", "document", "history[0].parts[3].title")]
EXPECTED_LOSSES: dict[str, dict[str, list[tuple[str, str, str]]]] = {
    "openai": {
        "plain_chat": [],
        "system_developer": [],
        "parallel_tools": [("dropped", "tool_message", "history[3].status")],
        "thinking_tool_use": [("dropped", "thinking", "history[1].parts[0]")],
        "redacted_thinking": [("dropped", "redacted_thinking", "history[1].parts[0]")],
        "images_pdf": _TITLE,
        "long_tool_output": [],
        "refusal": [],
        "interrupted_stream": [],
        "in_stream_error": [],
    },
    "openrouter": {
        "plain_chat": [],
        "system_developer": _DEV,
        "parallel_tools": [("dropped", "tool_message", "history[3].status")],
        "thinking_tool_use": [],
        "interrupted_stream": [],
        "in_stream_error": [],
    },
    # The earlier turn's reasoning is from the tool-call loop in progress, so DeepSeek, vLLM and
    # Ollama get it back (echo_reasoning="current_turn"); Mistral gets every turn's thinking
    # chunks back, and its 9-character call ids are its own.
    **{name: {
        "plain_chat": [],
        "system_developer": _DEV,
        "parallel_tools": [("dropped", "tool_message", "history[3].status")],
        "thinking_tool_use": [],
        "interrupted_stream": [],
        "in_stream_error": [],
    } for name in ("deepseek", "vllm", "ollama", "mistral")},
}


def message_json(message: AssistantMessage) -> Any:
    """The message as the history line it would be stored as."""
    return json.loads(EVENT_ADAPTER.dump_json(message))


def test_expectations_cover_every_scenario() -> None:
    """Every kit's scenarios have an expected-loss entry, so a new scenario cannot go unchecked."""
    for kit in ALL_KITS:
        assert sorted(EXPECTED_LOSSES[kit.dialect]) == sorted(s.name for s in kit.scenarios())


@pytest.mark.parametrize(("kit", "scenario"), CASES)
def test_request_equals_golden(kit: ChatKit, scenario: Scenario, golden: Golden) -> None:
    """to_wire of the scenario gives exactly the golden request body."""
    golden.check_json(kit.golden_path(scenario, "request"), kit.request(scenario))


@pytest.mark.parametrize(("kit", "scenario"), CASES)
def test_cassette_is_built_from_the_golden_request(kit: ChatKit, scenario: Scenario, golden: Golden) -> None:
    """The committed cassette is the one made from to_wire's request and the hand-written responses."""
    request = kit.request(scenario)
    golden.check_text(kit.cassette_path(scenario), kit.cassette_text(scenario, request))


@pytest.mark.parametrize(("kit", "scenario"), CASES)
def test_losses_are_the_expected_ones(kit: ChatKit, scenario: Scenario) -> None:
    """The projection reports exactly the losses expected for the scenario, and no other."""
    losses = kit.project(scenario).losses
    got = [(loss.action, loss.part_type, loss.path) for loss in losses]
    assert got == EXPECTED_LOSSES[kit.dialect][scenario.name]
    for loss in losses:
        assert loss.adapter == "openai_chat"
        assert loss.reason


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
def test_decoded_response_equals_golden(kit: ChatKit, scenario: Scenario, golden: Golden) -> None:
    """from_wire of the hand-written response body gives exactly the golden message."""
    message = kit.decode(kit.response_json(scenario))
    golden.check_json(kit.golden_path(scenario, "message"), message_json(message))


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
def test_response_says_what_the_scenario_says(kit: ChatKit, scenario: Scenario) -> None:
    """The hand-written response decodes to the scenario's answer, as the dialect can say it."""
    message = kit.decode(kit.response_json(scenario))
    assert neutral(message) == expected_neutral(kit, scenario)
    assert message.api == "openai_chat"
    assert message.provider == kit.spec.issuer
    assert message.response_id == kit.response_json(scenario)["id"]
    assert message.usage is not None
    assert message.usage.input_tokens > 0


@pytest.mark.parametrize(("kit", "scenario"), CASES)
def test_import_law_on_the_golden_request(kit: ChatKit, scenario: Scenario) -> None:
    """Reading the scenario's request back and projecting it again gives the same request."""
    request = kit.request(scenario)
    imported = openai_chat.from_wire_request(request, dialect=kit.dialect)
    again = openai_chat.to_wire(imported.history, **imported.to_wire_kwargs(), dialect=kit.dialect)
    assert again.request == request
    assert again.losses == ()


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
def test_echo_law_on_the_decoded_answer(kit: ChatKit, scenario: Scenario) -> None:
    """The decoded answer, sent back and answered as is, decodes to itself (ids aside)."""
    message = kit.decode(kit.response_json(scenario))
    projection = openai_chat.to_wire([UserMessage("q"), message], model=kit.model, dialect=kit.dialect)
    assert projection.losses == ()
    body = kit.response_json(scenario)
    body["choices"][0]["message"] = projection.request["messages"][1]
    assert comparable(kit.decode(body)) == comparable(message)
