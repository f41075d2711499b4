"""The canonical JSON the chat-UI tests compare: the codec's own, so echo state counts."""

from __future__ import annotations

import json
from typing import Any

from partwire.codec import encode
from partwire.history import HistoryEvent

__all__ = ["dumped"]


def dumped(event: HistoryEvent) -> dict[str, Any]:
    """An event as the codec writes it (``provider_data`` included, unlike ``==``)."""
    value: dict[str, Any] = json.loads(encode(event))
    return value
