"""An offline estimate of a Responses request's input tokens (docs/accounting.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from partwire.adapters._estimate import estimate_openai_responses_body

__all__ = ["estimate_request_tokens"]


def estimate_request_tokens(body: Mapping[str, Any]) -> int:
    """Estimated input tokens of a Responses request body (``o200k_base`` counts).

    Server-side state (``previous_response_id``, ``conversation``) is not in the body and is
    not counted.
    """
    return estimate_openai_responses_body(body)
