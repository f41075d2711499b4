"""Histories compared without what every read makes fresh (message and call ids, times)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

__all__ = ["neutral_dumps"]

_TIME = re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+Z")
_ULID = re.compile(r"[0-9A-HJKMNP-TV-Z]{26}")


def neutral_dumps(history: Iterable[Any]) -> list[Any]:
    """The events' JSON dumps, each fresh ULID (message or call id) replaced by its rank of first
    appearance and each time by ``T``: two reads of one body give equal results."""
    seen: dict[str, str] = {}
    text = json.dumps([event.model_dump(mode="json") for event in history])
    text = _TIME.sub("T", text)
    text = _ULID.sub(lambda m: seen.setdefault(m[0], f"ID{len(seen)}"), text)
    out: list[Any] = json.loads(text)
    return out
