"""Golden files pin both directions of the Ollama adapter on every scenario Ollama can answer.

``to_wire(scenario)`` must equal ``tests/golden/ollama/<scenario>.request.json`` (what its
cassette holds, as the ``ollama`` client sends it), and ``from_wire`` of the hand-written
response must equal ``<scenario>.message.json``. Rewrite them with ``--update-golden`` and review
the diff.
"""

from __future__ import annotations

import pytest

from partwire import RefusalPart, TextPart
from tests.harness.compare import neutral
from tests.harness.golden_suite import golden_tests
from tests.harness.providers import get_kit
from tests.scenarios import Scenario

KIT = get_kit("ollama")
SCENARIOS = KIT.scenarios()
ANSWERED = [s for s in SCENARIOS if s.reply is not None]

# What the Ollama projection of each scenario must report as lost: (action, part type, path).
# Ollama has no developer role, no status on a tool result, images inline only, no documents.
EXPECTED_LOSSES: dict[str, list[tuple[str, str, str]]] = {
    "plain_chat": [],
    "system_developer": [("downgraded", "developer_message", "history[2]")],
    "parallel_tools": [("dropped", "tool_message", "history[3].status")],
    "thinking_tool_use": [],
    "images_pdf": [("dropped", "image", "history[0].parts[2]"),
                   ("dropped", "document", "history[0].parts[3]")],
    "long_tool_output": [],
    "refusal": [],
    "interrupted_stream": [],
    "in_stream_error": [],
}


globals().update(golden_tests(KIT, EXPECTED_LOSSES))


@pytest.mark.parametrize("scenario", ANSWERED, ids=lambda s: s.name)
def test_response_says_what_the_scenario_says(scenario: Scenario) -> None:
    """The hand-written response decodes to the scenario's provider-neutral answer, served by
    Ollama; a refusal, which Ollama has no field for, is its text with a plain stop."""
    assert scenario.reply is not None
    message = KIT.decode(KIT.response_json(scenario))
    if scenario.name == "refusal":
        refused = [TextPart(text=p.text) for p in scenario.reply.parts if isinstance(p, RefusalPart)]
        assert list(message.parts) == refused != []
        assert message.stop_reason == "stop"
    else:
        assert neutral(message) == neutral(scenario.reply)
    assert (message.api, message.provider, message.response_id) == ("ollama", "ollama", None)
