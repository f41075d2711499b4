"""One module per provider, each building the :class:`~tests.harness.kit.ProviderKit` of its adapter.

Kits are imported by name, so a test of one provider never imports another provider's SDK.
"""

from __future__ import annotations

import importlib

from tests.harness.kit import ProviderKit

__all__ = ["KIT_NAMES", "get_kit"]

KIT_NAMES: tuple[str, ...] = ("anthropic", "openai_chat", "google", "openai_responses", "bedrock",
                               "ollama", "cohere")
"""Every provider with a kit; add a name here with its module."""


def get_kit(name: str) -> ProviderKit:
    """The kit of provider ``name`` (its module under ``tests.harness.providers``)."""
    if name not in KIT_NAMES:
        raise KeyError(f"no harness kit for {name!r}; known: {', '.join(KIT_NAMES)}")
    kit: ProviderKit = importlib.import_module(f"tests.harness.providers.{name}").KIT
    return kit
