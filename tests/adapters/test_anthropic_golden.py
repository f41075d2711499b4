"""Golden files pin both directions of the Anthropic adapter on every canonical scenario.

``to_wire(scenario)`` must equal ``tests/golden/anthropic/<scenario>.request.json`` (which is also
the body its cassette matches on), and ``from_wire`` of the hand-written response must equal
``<scenario>.message.json``. Rewrite them with ``--update-golden`` and review the diff.
"""

from __future__ import annotations

import pytest

from tests.harness.compare import neutral
from tests.harness.golden_suite import golden_tests
from tests.harness.providers import get_kit
from tests.scenarios import Scenario

KIT = get_kit("anthropic")
SCENARIOS = KIT.scenarios()
ANSWERED = [s for s in SCENARIOS if s.reply is not None]

# What the Anthropic projection of each scenario must report as lost: (action, part type, path).
# Only the developer message has no Anthropic form; it joins the user turn before it.
EXPECTED_LOSSES: dict[str, list[tuple[str, str, str]]] = {
    "plain_chat": [],
    "system_developer": [("attached", "developer_message", "history[2]")],
    "parallel_tools": [],
    "thinking_tool_use": [],
    "redacted_thinking": [],
    "images_pdf": [],
    "long_tool_output": [],
    "refusal": [],
    "interrupted_stream": [],
    "in_stream_error": [],
}



globals().update(golden_tests(KIT, EXPECTED_LOSSES))


@pytest.mark.parametrize("scenario", ANSWERED, ids=lambda s: s.name)
def test_response_says_what_the_scenario_says(scenario: Scenario) -> None:
    """The hand-written response decodes to the scenario's provider-neutral answer."""
    assert scenario.reply is not None
    message = KIT.decode(KIT.response_json(scenario))
    assert neutral(message) == neutral(scenario.reply)
    assert message.api == "anthropic"
    assert message.provider == "anthropic"
    assert message.response_id == KIT.response_json(scenario)["id"]
