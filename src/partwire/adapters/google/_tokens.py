"""An offline estimate of a Gemini request's input tokens (placeholder: the accounting issue
replaces this body with a measured one)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["estimate_request_tokens"]


def estimate_request_tokens(body: Mapping[str, Any]) -> int:
    """About one token per four characters of the body's JSON."""
    return max(1, len(json.dumps(body, ensure_ascii=False)) // 4)
