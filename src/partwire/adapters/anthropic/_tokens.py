"""An offline estimate of a Messages request's input tokens (docs/accounting.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from partwire.adapters._estimate import estimate_anthropic_body

__all__ = ["estimate_request_tokens"]


def estimate_request_tokens(request: Mapping[str, Any]) -> int:
    """Estimated input tokens of a Messages request body, as Claude would count them."""
    return estimate_anthropic_body(request)
