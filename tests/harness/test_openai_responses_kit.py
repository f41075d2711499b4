"""The Responses kit itself: its responses are there, and its earlier turns are what the decoder gives."""

from __future__ import annotations

from partwire import AssistantMessage, UserMessage
from partwire.adapters import openai_responses
from tests.harness.compare import comparable
from tests.harness.providers import KIT_NAMES, get_kit
from tests.harness.providers.openai_responses import KIT


def test_registered_with_the_harness() -> None:
    """The kit is registered under the adapter's name, so the shared laws run over it."""
    assert "openai_responses" in KIT_NAMES
    assert get_kit("openai_responses") is KIT


def test_every_scenario_has_both_responses() -> None:
    """Each scenario has a hand-written JSON body and SSE stream."""
    for scenario in KIT.scenarios():
        assert KIT.response_text(scenario, stream=False).strip()
        assert KIT.response_text(scenario, stream=True).strip()


def test_earlier_turns_are_shaped_as_the_decoder_gives_them() -> None:
    """Every earlier answer of the scenarios is exactly what from_wire makes of its own items."""
    checked = 0
    for scenario in KIT.scenarios():
        for event in scenario.history:
            if not isinstance(event, AssistantMessage):
                continue
            items = openai_responses.to_wire([UserMessage("q"), event], model="gpt-5.5").request["input"][1:]
            decoded = openai_responses.from_wire({"id": event.response_id, "model": "gpt-5.5-2026-04-23",
                                                  "status": "completed", "store": False, "output": items})
            assert comparable(decoded).parts == comparable(event).parts
            assert [p.provider_data for p in decoded.parts] == [p.provider_data for p in event.parts]
            checked += 1
    assert checked >= 5
