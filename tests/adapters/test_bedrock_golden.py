"""Golden files pin both directions of the Bedrock Converse adapter on every canonical scenario.

``to_wire(scenario)`` must equal ``tests/golden/bedrock/<scenario>.request.json`` (which is also
the body its cassette matches on), and ``from_wire`` of the hand-written response must equal
``<scenario>.message.json``. A Converse body holds no response id (boto3 adds the request id
from the HTTP headers as ``ResponseMetadata``), so the response is decoded in the form boto3 hands
back. Rewrite them with ``--update-golden`` and review the diff.
"""

from __future__ import annotations

import pytest

from partwire import AssistantMessage, RefusalPart, TextPart
from tests.harness.compare import neutral, stored_form
from tests.harness.golden import Golden
from tests.harness.providers import get_kit
from tests.scenarios import Scenario

KIT = get_kit("bedrock")
SCENARIOS = KIT.scenarios()
ANSWERED = [s for s in SCENARIOS if s.reply is not None]

# What the Converse projection of each scenario must report as lost: (action, part type, path).
# Converse has no developer role (it joins the turn before it), takes media as bytes or an S3
# location (not a URL), refuses a dot in a document's name, and replays only redacted thinking
# whose data is base64 (the scenario's is Anthropic's opaque string).
EXPECTED_LOSSES: dict[str, list[tuple[str, str, str]]] = {
    "plain_chat": [],
    "system_developer": [("attached", "developer_message", "history[2]")],
    "parallel_tools": [],
    "thinking_tool_use": [],
    "redacted_thinking": [("dropped", "redacted_thinking", "history[1].parts[0]")],
    "images_pdf": [("dropped", "image", "history[0].parts[2]"),
                   ("rewritten", "document", "history[0].parts[3].title")],
    "long_tool_output": [],
    "refusal": [],
    "interrupted_stream": [],
    "in_stream_error": [],
}


def boto3_response(scenario: Scenario) -> AssistantMessage:
    """from_wire of the hand-written body with the request id boto3 would add from the headers."""
    request_id = KIT.response_headers(scenario, False)["x-amzn-requestid"]
    message: AssistantMessage = KIT.decode({**KIT.response_json(scenario),
                                            "ResponseMetadata": {"RequestId": request_id}})
    return message


def test_expectations_cover_every_scenario() -> None:
    """Every scenario has an expected-loss entry, so a new scenario cannot go unchecked."""
    assert sorted(EXPECTED_LOSSES) == sorted(s.name for s in SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_request_equals_golden(scenario: Scenario, golden: Golden) -> None:
    """to_wire of the scenario gives exactly the golden request body."""
    golden.check_json(KIT.golden_path(scenario, "request"), KIT.request(scenario))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_cassette_is_built_from_the_golden_request(scenario: Scenario, golden: Golden) -> None:
    """The committed cassette is the one made from to_wire's request and the hand-written responses."""
    request = KIT.request(scenario)
    golden.check_text(KIT.cassette_path(scenario), KIT.cassette_text(scenario, request))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_losses_are_the_expected_ones(scenario: Scenario) -> None:
    """The projection reports exactly the losses expected for the scenario, and no other."""
    losses = KIT.project(scenario).losses
    assert [(loss.action, loss.part_type, loss.path) for loss in losses] == EXPECTED_LOSSES[scenario.name]
    for loss in losses:
        assert loss.adapter == "bedrock"
        assert loss.reason


@pytest.mark.parametrize("scenario", ANSWERED, ids=lambda s: s.name)
def test_decoded_response_equals_golden(scenario: Scenario, golden: Golden) -> None:
    """from_wire of the hand-written response body gives exactly the golden message."""
    message = boto3_response(scenario)
    golden.check_json(KIT.golden_path(scenario, "message"), stored_form(message))


@pytest.mark.parametrize("scenario", ANSWERED, ids=lambda s: s.name)
def test_response_says_what_the_scenario_says(scenario: Scenario) -> None:
    """The hand-written response decodes to the scenario's provider-neutral answer, served by
    Bedrock; a refusal, which Converse has no block for, is its text with a content-filter stop."""
    assert scenario.reply is not None
    message = boto3_response(scenario)
    if scenario.name == "refusal":
        refused = [TextPart(text=p.text) for p in scenario.reply.parts if isinstance(p, RefusalPart)]
        assert list(message.parts) == refused != []
        assert message.stop_reason == "content_filter"
    else:
        assert neutral(message) == neutral(scenario.reply)
    assert message.api == "bedrock"
    assert message.provider == "bedrock"
    assert message.response_id == KIT.response_headers(scenario, False)["x-amzn-requestid"]
