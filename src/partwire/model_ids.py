"""Model ids: ``provider:model`` names as the wire and the switch read them.

:func:`wire_model` gives the name an API is sent (aliases resolved, its own prefix cut, another
provider's refused); :func:`model_owner` tells which provider a model belongs to when its name
says so. The alias table is :data:`partwire.ids.DEFAULT_MODEL_ALIASES`.
"""

from __future__ import annotations

import re

from partwire._memo import memo
from partwire.errors import ArgumentError
from partwire.ids import DEFAULT_MODEL_ALIASES

__all__ = ["FIRST_PARTY", "PROVIDER_PREFIXES", "bedrock_family", "model_owner", "wire_model"]

PROVIDER_PREFIXES = frozenset(
    {"anthropic", "google", "bedrock", "openai", "openrouter", "deepseek", "vllm", "ollama",
     "mistral", "cohere"}
)
"""The prefixes that name a provider in a ``provider:model`` id. A colon after anything else is
part of the model name itself (OpenAI fine-tunes ``ft:gpt-4o:org:x``, Ollama tags ``qwen3:8b``,
OpenRouter variants ``x/y:free``) and goes out as it is."""


def wire_model(model: str, issuer: str) -> str:
    """The model name to put on the wire: aliases resolved and the ``<issuer>:`` prefix cut.

    A model that names another provider is refused; a colon that names no provider is kept;
    an empty one is refused as a missing one is.
    """
    if not model or not model.strip():
        raise ArgumentError("model", f"the model is empty: name the {issuer} model to send the request to")
    full = DEFAULT_MODEL_ALIASES.get(model, model)
    head, sep, tail = full.partition(":")
    if not sep:
        return full
    if head == issuer:
        return tail
    if head in PROVIDER_PREFIXES:
        raise ArgumentError("model", f"model {model!r} belongs to {head!r}, not to {issuer!r}")
    return full


FIRST_PARTY = frozenset({"anthropic", "openai", "google", "cohere"})
"""The first-party APIs: each serves only its own models, so a bare model name of another family
is a mistake there (aggregators such as OpenRouter, vLLM or Ollama serve anything and are not
checked)."""
_MODEL_FAMILIES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"claude", re.IGNORECASE), "anthropic"),
    (re.compile(r"(gpt-|chatgpt|o\d(\b|-)|davinci|text-embedding)", re.IGNORECASE), "openai"),
    (re.compile(r"(gemini|gemma)", re.IGNORECASE), "google"),
    (re.compile(r"(command(\b|-)|c4ai-|aya-)", re.IGNORECASE), "cohere"),
)


def model_owner(model: str, issuer: str | None = None) -> str | None:
    """The provider a model belongs to, when its name says so: its ``provider:`` prefix (aliases
    resolved), else its family (``claude-*`` is Anthropic's) where ``issuer`` is a first-party API
    or not given; ``None`` when the name does not tell."""
    full = DEFAULT_MODEL_ALIASES.get(model, model)
    head, sep, _ = full.partition(":")
    if sep and head in PROVIDER_PREFIXES:
        return head
    if issuer is None or issuer in FIRST_PARTY:
        # The family of a name, remembered: every Anthropic request body asks it of its model.
        if full in _FAMILY:
            return _FAMILY[full]
        who = next((who for pattern, who in _MODEL_FAMILIES if pattern.match(full)), None)
        if len(_FAMILY) >= _FAMILY_LIMIT:
            _FAMILY.clear()
        _FAMILY[full] = who
        return who
    return None


# A model name (aliases resolved) -> the family its name says, or None. Bounded.
_FAMILY: dict[str, str | None] = memo({})
_FAMILY_LIMIT = 1024


def bedrock_family(model_id: str) -> str | None:
    """The model family a Bedrock model id, inference profile or ARN names (``claude``,
    ``nova``, ``gpt-oss``), or ``None``: Converse's settings and cache points differ by family."""
    low = model_id.lower()
    if "anthropic." in low or "claude" in low:
        return "claude"
    if "amazon.nova" in low:
        return "nova"
    if "openai.gpt-oss" in low:
        return "gpt-oss"
    return None
