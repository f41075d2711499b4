"""Golden files pin both directions of the Responses adapter.

``to_wire(scenario)`` must equal ``tests/golden/openai_responses/<scenario>.request.json`` (which
is also the body its cassette matches on), and ``from_wire`` of the hand-written response must
equal ``<scenario>.message.json``. Rewrite them with ``--update-golden`` and review the diff.
"""

from __future__ import annotations

import pytest

from partwire import UserMessage
from partwire.adapters import openai_responses
from tests.harness.compare import comparable, neutral, stored_form
from tests.harness.golden import Golden
from tests.harness.providers.openai_responses import KIT, ResponsesKit
from tests.scenarios import Scenario

CASES = [pytest.param(KIT, s, id=s.name) for s in KIT.scenarios()]
ANSWERED = [pytest.param(KIT, s, id=s.name) for s in KIT.scenarios() if s.reply is not None]

# What each projection must report as lost: (action, part type, path). Earlier turns are
# OpenAI's own (reasoning, item ids and call ids echo exactly); a function_call_output has no
# error flag, and an input_file has no title.
EXPECTED_LOSSES: dict[str, list[tuple[str, str, str]]] = {
    "plain_chat": [],
    "system_developer": [],
    "parallel_tools": [("dropped", "tool_message", "history[3].status")],
    "thinking_tool_use": [],
    "redacted_thinking": [],
    "images_pdf": [("rewritten", "document", "history[0].parts[3].title")],
    "long_tool_output": [],
    "refusal": [],
    "interrupted_stream": [],
    "in_stream_error": [],
}


def test_expectations_cover_every_scenario() -> None:
    """Every scenario has an expected-loss entry, so a new scenario cannot go unchecked."""
    assert sorted(EXPECTED_LOSSES) == sorted(s.name for s in KIT.scenarios())


@pytest.mark.parametrize(("kit", "scenario"), CASES)
def test_request_equals_golden(kit: ResponsesKit, scenario: Scenario, golden: Golden) -> None:
    """to_wire of the scenario gives exactly the golden request body."""
    golden.check_json(kit.golden_path(scenario, "request"), kit.request(scenario))


@pytest.mark.parametrize(("kit", "scenario"), CASES)
def test_cassette_is_built_from_the_golden_request(kit: ResponsesKit, scenario: Scenario, golden: Golden) -> None:
    """The committed cassette is the one made from to_wire's request and the hand-written responses."""
    request = kit.request(scenario)
    golden.check_text(kit.cassette_path(scenario), kit.cassette_text(scenario, request))


@pytest.mark.parametrize(("kit", "scenario"), CASES)
def test_losses_are_the_expected_ones(kit: ResponsesKit, scenario: Scenario) -> None:
    """The projection reports exactly the losses expected for the scenario, and no other."""
    losses = kit.project(scenario).losses
    assert [(loss.action, loss.part_type, loss.path) for loss in losses] == EXPECTED_LOSSES[scenario.name]
    for loss in losses:
        assert loss.adapter == "openai_responses"
        assert loss.reason


@pytest.mark.parametrize(("kit", "scenario"), CASES)
def test_stateless_request_carries_the_reasoning_switches(kit: ResponsesKit, scenario: Scenario) -> None:
    """Every stateless request says store: false and asks for the encrypted reasoning back."""
    request = kit.request(scenario)
    assert request["store"] is False
    assert request["include"] == ["reasoning.encrypted_content"]
    assert "previous_response_id" not in request


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
def test_decoded_response_equals_golden(kit: ResponsesKit, scenario: Scenario, golden: Golden) -> None:
    """from_wire of the hand-written response body gives exactly the golden message."""
    golden.check_json(kit.golden_path(scenario, "message"), stored_form(kit.decode(kit.response_json(scenario))))


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
def test_response_says_what_the_scenario_says(kit: ResponsesKit, scenario: Scenario) -> None:
    """The hand-written response decodes to the scenario's answer, part for part."""
    assert scenario.reply is not None
    message = kit.decode(kit.response_json(scenario))
    assert neutral(message) == neutral(scenario.reply)
    assert (message.api, message.provider) == ("openai_responses", "openai")
    assert message.response_id == kit.response_json(scenario)["id"]
    assert message.usage is not None
    assert message.usage.input_tokens > 0


@pytest.mark.parametrize(("kit", "scenario"), CASES)
def test_import_law_on_the_golden_request(kit: ResponsesKit, scenario: Scenario) -> None:
    """Reading the scenario's request back and projecting it again gives the same request, losslessly."""
    request = kit.request(scenario)
    imported = openai_responses.from_wire_request(request)
    again = openai_responses.to_wire(imported.history, **imported.to_wire_kwargs())
    assert again.request == request
    assert again.losses == ()


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
def test_echo_law_on_the_decoded_answer(kit: ResponsesKit, scenario: Scenario) -> None:
    """The decoded answer, sent back and answered as is, decodes to itself (ids aside)."""
    message = kit.decode(kit.response_json(scenario))
    projection = openai_responses.to_wire([UserMessage("q"), message], model=kit.model)
    assert projection.losses == ()
    body = kit.response_json(scenario)
    assert projection.request["input"][1:] == body["output"]
    body["output"] = projection.request["input"][1:]
    assert comparable(kit.decode(body)) == comparable(message)
