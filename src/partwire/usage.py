"""Token usage, normalised so the numbers mean the same for every provider (DESIGN §4)."""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field

from partwire._base import CanonicalModel, ProviderData

__all__ = ["Usage"]


class Usage(CanonicalModel):
    """Tokens, cost and latency of one model call.

    ``input_tokens`` counts *all* input, cached included; ``cache_read_tokens`` and
    ``cache_write_tokens`` are subsets of it. ``output_tokens`` counts all output, reasoning
    included; ``reasoning_tokens`` is a subset of it. Each adapter documents how it maps its
    provider's figures onto these.
    """

    input_tokens: int = Field(default=0, ge=0)
    """All input tokens, cached ones included."""
    output_tokens: int = Field(default=0, ge=0)
    """All output tokens, reasoning included."""
    cache_read_tokens: int = Field(default=0, ge=0)
    """Input tokens read from the prompt cache (a subset of ``input_tokens``)."""
    cache_write_tokens: int = Field(default=0, ge=0)
    """Input tokens written to the prompt cache (a subset of ``input_tokens``)."""
    reasoning_tokens: int = Field(default=0, ge=0)
    """Output tokens spent on reasoning (a subset of ``output_tokens``)."""
    cost: Decimal | None = None
    """Cost in US dollars, computed locally from a price table."""
    pricing_version: str | None = None
    """The price table version that produced ``cost``."""
    latency_ms: int | None = None
    """Wall time of the call in milliseconds, request sent to last byte."""
    provider_data: ProviderData | None = None
    """The provider's raw usage object; ignored by equality."""

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    def subset_errors(self) -> list[str]:
        """Where the subset rules are broken (a cache or reasoning count above its total)."""
        errors: list[str] = []
        if self.cache_read_tokens + self.cache_write_tokens > self.input_tokens:
            errors.append("cache_read_tokens + cache_write_tokens exceed input_tokens")
        if self.reasoning_tokens > self.output_tokens:
            errors.append("reasoning_tokens exceed output_tokens")
        return errors
