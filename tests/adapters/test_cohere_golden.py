"""Golden files pin both directions of the Cohere v2 adapter on every canonical scenario.

``to_wire(scenario)`` must equal ``tests/golden/cohere/<scenario>.request.json`` (which is also
the body its cassette matches on), and ``from_wire`` of the hand-written response must equal
``<scenario>.message.json``. Rewrite them with ``--update-golden`` and review the diff.
"""

from __future__ import annotations

import pytest

from partwire import RedactedThinkingPart, RefusalPart, TextPart
from tests.harness.compare import neutral
from tests.harness.golden_suite import golden_tests
from tests.harness.providers import get_kit
from tests.scenarios import Scenario

KIT = get_kit("cohere")
SCENARIOS = KIT.scenarios()
ANSWERED = [s for s in SCENARIOS if s.reply is not None]

# What the Cohere projection of each scenario must report as lost: (action, part type, path).
# Cohere has no developer role (sent as a system message), no tool status, no redacted
# reasoning, and takes documents as text only (the scenario's PDF is base64).
EXPECTED_LOSSES: dict[str, list[tuple[str, str, str]]] = {
    "plain_chat": [],
    "system_developer": [("downgraded", "developer_message", "history[2]")],
    "parallel_tools": [("dropped", "tool_message", "history[3].status")],
    "thinking_tool_use": [],
    "redacted_thinking": [("dropped", "redacted_thinking", "history[1].parts[0]")],
    "images_pdf": [("dropped", "document", "history[0].parts[3]")],
    "long_tool_output": [],
    "refusal": [],
    "interrupted_stream": [],
    "in_stream_error": [],
}


globals().update(golden_tests(KIT, EXPECTED_LOSSES))


@pytest.mark.parametrize("scenario", ANSWERED, ids=lambda s: s.name)
def test_response_says_what_the_scenario_says(scenario: Scenario) -> None:
    """The hand-written response decodes to the scenario's provider-neutral answer, served by
    Cohere; Cohere's reasoning is unsigned, it has no redacted reasoning, and a refusal is plain
    text with a normal stop (it has neither a refusal part nor a refusal stop)."""
    assert scenario.reply is not None
    message = KIT.decode(KIT.response_json(scenario))
    expected = neutral(scenario.reply)
    expected["parts"] = [{**p, "signed": False} if p["type"] == "thinking" else p
                         for p in expected["parts"] if p["type"] != "redacted_thinking"]
    if scenario.name == "refusal":
        refused = [TextPart(text=p.text) for p in scenario.reply.parts if isinstance(p, RefusalPart)]
        assert list(message.parts) == refused != []
        assert message.stop_reason == "stop"
    else:
        assert neutral(message) == expected
        assert any(isinstance(p, RedactedThinkingPart) for p in scenario.reply.parts) \
            is (scenario.name == "redacted_thinking")
    assert (message.api, message.provider) == ("cohere", "cohere")
    assert message.response_id == KIT.response_json(scenario)["id"]
