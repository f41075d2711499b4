"""An offline estimate of a Gemini request's input tokens (docs/accounting.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from partwire.adapters._estimate import estimate_google_body

__all__ = ["estimate_request_tokens"]


def estimate_request_tokens(body: Mapping[str, Any]) -> int:
    """Estimated input tokens of a ``generateContent`` body, as ``promptTokenCount`` counts."""
    return estimate_google_body(body)
