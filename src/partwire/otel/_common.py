"""What the OpenTelemetry GenAI encoder and decoder share: attribute names, the version pinned,
the provider-name and finish-reason tables."""

from __future__ import annotations

from typing import Final

from partwire.messages import StopReason

__all__ = [
    "ADAPTER",
    "EVENT_NAME",
    "FINISH_REASONS",
    "INPUT_MESSAGES",
    "ISSUER_OF_PROVIDER",
    "OPERATION",
    "OUTPUT_MESSAGES",
    "PROVIDER",
    "PROVIDER_OF_ISSUER",
    "SEMCONV_COMMIT",
    "SEMCONV_VERSION",
    "STOP_REASONS",
    "SYSTEM_INSTRUCTIONS",
    "TOOL_DEFINITIONS",
]

SEMCONV_VERSION: Final = "1.41.1"
"""The release of the OpenTelemetry semantic conventions whose GenAI message schemas partwire
implements (the schemas are vendored beside this module, in ``schemas/``)."""
SEMCONV_COMMIT: Final = "ead83b9b0fa36540c1642fce46e874f002ac23f1"
"""The commit of ``open-telemetry/semantic-conventions`` tagged ``v1.41.1``."""

ADAPTER: Final = "otel_genai"
"""The name losses carry."""
EVENT_NAME: Final = "gen_ai.client.inference.operation.details"
"""The event that carries a call's messages in structured form."""

SYSTEM_INSTRUCTIONS: Final = "gen_ai.system_instructions"
INPUT_MESSAGES: Final = "gen_ai.input.messages"
OUTPUT_MESSAGES: Final = "gen_ai.output.messages"
TOOL_DEFINITIONS: Final = "gen_ai.tool.definitions"
PROVIDER: Final = "gen_ai.provider.name"
OPERATION: Final = "gen_ai.operation.name"

# partwire names issuers; the conventions name providers (a closed list of well-known values).
PROVIDER_OF_ISSUER: dict[str, str] = {
    "anthropic": "anthropic", "openai": "openai", "bedrock": "aws.bedrock", "deepseek": "deepseek",
    # The history does not say whether Gemini was reached through the Gemini API or Vertex AI;
    # this is the value the conventions give for "any Google endpoint".
    "google": "gcp.gen_ai", "mistral": "mistral_ai", "xai": "x_ai", "groq": "groq",
    "cohere": "cohere", "perplexity": "perplexity",
    # Not among the conventions' well-known values: its own name, as they advise for the rest.
    "ollama": "ollama",
}
ISSUER_OF_PROVIDER: dict[str, str] = {v: k for k, v in PROVIDER_OF_ISSUER.items()} | {
    "gcp.gemini": "google", "gcp.vertex_ai": "google", "azure.ai.openai": "openai",
}

# The conventions' finish reasons are stop, length, content_filter, tool_call, error, or any
# other string: partwire's own reasons beyond those are written under their own names.
FINISH_REASONS: dict[str, str] = {
    "stop": "stop", "length": "length", "tool_use": "tool_call", "content_filter": "content_filter",
    "error": "error", "refusal": "refusal", "pause": "pause", "aborted": "aborted",
}
STOP_REASONS: dict[str, StopReason] = {
    "stop": "stop", "length": "length", "tool_call": "tool_use", "content_filter": "content_filter",
    "error": "error", "refusal": "refusal", "pause": "pause", "aborted": "aborted",
}
