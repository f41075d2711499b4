"""The Chat Completions kits themselves: responses present, SDK keyword handling, dialect echo."""

from __future__ import annotations

import pytest

from partwire import AssistantMessage, ThinkingPart
from tests.harness.providers.openai_chat import ALL_KITS, DIALECT_KITS, ChatKit, sdk_kwargs


@pytest.mark.parametrize("kit", ALL_KITS, ids=lambda k: k.dialect)
def test_every_scenario_has_both_responses(kit: ChatKit) -> None:
    """Each kit's scenarios have a hand-written JSON body and SSE stream."""
    for scenario in kit.scenarios():
        assert kit.response_text(scenario, stream=False).strip()
        assert kit.response_text(scenario, stream=True).strip()


def test_sdk_kwargs_moves_unknown_keys_to_extra_body() -> None:
    """Fields the SDK does not declare travel in extra_body, the declared ones as keywords."""
    kwargs = sdk_kwargs({"model": "m", "messages": [], "reasoning": {"max_tokens": 5}})
    assert kwargs == {"model": "m", "messages": [], "extra_body": {"reasoning": {"max_tokens": 5}}}
    assert sdk_kwargs({"model": "m", "messages": []}) == {"model": "m", "messages": []}


def test_plain_reasoning_dialects_get_unsigned_reasoning_in_earlier_turns() -> None:
    """DeepSeek's scenarios carry earlier reasoning as its decoder gives it: text with provider data."""
    kit = DIALECT_KITS["deepseek"]
    scenario = next(s for s in kit.scenarios() if s.name == "thinking_tool_use")
    thinking = [p for e in scenario.history if isinstance(e, AssistantMessage)
                for p in e.parts if isinstance(p, ThinkingPart)]
    assert thinking
    assert all(p.signature is None and p.provider_data is not None
               and p.provider_data.issuer == "deepseek" for p in thinking)
