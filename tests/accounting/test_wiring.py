"""Every adapter gets its estimate from the measured estimator of its wire format."""

from __future__ import annotations

import importlib

import pytest

from partwire.adapters import get_adapter
from tests.accounting._corpus import samples
from tests.accounting.test_estimates import ESTIMATORS

# Adapter -> the corpus folder of its wire format.
WIRED = {"anthropic": "anthropic", "openai_chat": "openai-chat",
         "openai_responses": "openai-responses", "google": "google"}


@pytest.mark.parametrize("adapter", sorted(WIRED))
def test_the_adapter_counts_bodies_with_the_measured_estimator(adapter: str) -> None:
    """``_tokens.estimate_request_tokens`` gives what the tested estimator gives, body for body."""
    provider = WIRED[adapter]
    count = importlib.import_module(f"partwire.adapters.{adapter}._tokens").estimate_request_tokens
    chosen = samples(provider, held_back=True)[:25]
    assert chosen
    for sample in chosen:
        assert count(sample.request) == ESTIMATORS[provider](sample.request), sample.name


@pytest.mark.parametrize("adapter", sorted(WIRED))
def test_estimate_input_tokens_counts_the_body_to_wire_builds(adapter: str) -> None:
    """An imported request's history estimates to what its rebuilt body estimates to."""
    module = get_adapter(adapter)
    count = importlib.import_module(f"partwire.adapters.{adapter}._tokens").estimate_request_tokens
    # Request parameters (tool choice, output schema, thinking) and the model-dependent tool
    # prompt are not part of (history, tools): requests with them are left out.
    plain = [s for s in samples(WIRED[adapter], held_back=True)
             if not {"tools", "tool_choice", "response_format", "output_format", "output_config",
                     "thinking", "text", "reasoning", "toolConfig", "generationConfig"}
             & set(s.request)][:25]
    assert plain
    for sample in plain:
        imported = module.from_wire_request(sample.request)
        body = module.to_wire(imported.history, model="estimate", tools=imported.tools).request
        assert module.estimate_input_tokens(imported.history, imported.tools) == count(body), sample.name


@pytest.mark.parametrize("adapter", sorted(WIRED))
def test_estimate_input_tokens_takes_what_to_wire_takes(adapter: str) -> None:
    """With the request's own model, tool choice and parameters, the estimate counts the very
    body to_wire sends for it, on every held-back request (tool choices and schemas included)."""
    module = get_adapter(adapter)
    count = importlib.import_module(f"partwire.adapters.{adapter}._tokens").estimate_request_tokens
    chosen = samples(WIRED[adapter], held_back=True)[:40]
    differs = 0
    for sample in chosen:
        imported = module.from_wire_request(sample.request)
        kwargs = imported.to_wire_kwargs()
        kwargs["model"] = kwargs["model"] or "estimate"
        body = module.to_wire(imported.history, **kwargs).request
        estimate = module.estimate_input_tokens(
            imported.history, imported.tools, model=kwargs["model"], tool_choice=kwargs.get("tool_choice"),
            params=imported.params, settings=imported.settings, options=kwargs.get("options"))
        assert estimate == count(body), sample.name
        differs += estimate != module.estimate_input_tokens(imported.history, imported.tools,
                                                            options=kwargs.get("options"))
    if adapter == "anthropic":  # a forced tool choice has a longer tool prompt: it was counted
        assert differs > 0
