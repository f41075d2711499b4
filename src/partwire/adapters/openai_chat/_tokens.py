"""An offline estimate of a Chat Completions request's input tokens (docs/accounting.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from partwire.adapters._estimate import estimate_openai_chat_body

__all__ = ["estimate_request_tokens"]


def estimate_request_tokens(request: Mapping[str, Any]) -> int:
    """Estimated input tokens of a Chat Completions request body (``o200k_base`` counts)."""
    return estimate_openai_chat_body(request)
