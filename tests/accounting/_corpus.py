"""Recorded requests with the input usage the provider answered, split into fit and held-back.

The corpus is ``$PARTWIRE_CORPUS/<provider>`` when set, else the copy committed under
``tests/corpus/<provider>``, else ``../shared/corpus/<provider>`` beside the repository. The
estimator's constants were fitted on the ``fit`` part only; ``held`` (a third of the files,
chosen by a hash of the file name) is what the bounds are checked on.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_REPO = Path(__file__).resolve().parents[2]
PROVIDERS = ("anthropic", "openai-chat", "openai-responses", "google")

# The provider ran a search server-side and counted the pages it read as input: the request
# does not hold them, so no estimate of the request can see them.
_SERVER_SIDE_INPUT = ("web_search_tool_result", "web_search_call")


@dataclass(frozen=True)
class Sample:
    """One recorded request and the input tokens the provider reported for it."""

    name: str
    request: dict[str, Any]
    real: int


def corpus_dir(provider: str) -> Path:
    """The folder of ``provider``'s recorded payloads; fails loudly when there is none."""
    root = os.environ.get("PARTWIRE_CORPUS")
    candidates = [Path(root) / provider] if root else []
    candidates += [_REPO / "tests" / "corpus" / provider, _REPO / ".." / "shared" / "corpus" / provider]
    for folder in candidates:
        if any(folder.glob("*.json")):
            return folder
    raise FileNotFoundError(f"no recorded {provider} payloads in any of {candidates}")


def is_held_back(name: str) -> bool:
    """Whether a file belongs to the held-back third (never used to fit a constant)."""
    return int(hashlib.sha256(name.encode()).hexdigest(), 16) % 3 == 0


def samples(provider: str, *, held_back: bool) -> list[Sample]:
    """Distinct recorded requests of ``provider`` with their real input usage."""
    out: list[Sample] = []
    seen: set[str] = set()
    for path in sorted(corpus_dir(provider).glob("*.json")):
        if is_held_back(path.name) != held_back:
            continue
        record = json.loads(path.read_text())
        request = record.get("request")
        if not isinstance(request, dict) or record.get("status") not in (None, 200):
            continue
        text = json.dumps(record)
        if any(marker in text for marker in _SERVER_SIDE_INPUT):
            continue
        real = real_input_tokens(record)
        key = json.dumps(request, sort_keys=True)
        if real and key not in seen:
            seen.add(key)
            out.append(Sample(path.name, request, real))
    return out


def _sse_data(sse: str | None) -> Iterator[dict[str, Any]]:
    for line in (sse or "").replace("\r\n", "\n").split("\n"):
        if line.startswith("data:"):
            data = line[5:].strip()
            if data and data != "[DONE]":
                try:
                    event = json.loads(data)
                except json.JSONDecodeError:
                    continue
                if isinstance(event, dict):
                    yield event


def real_input_tokens(record: Mapping[str, Any]) -> int | None:
    """All input tokens the provider counted (cached and cache-written included), or None."""
    provider = record["provider"]
    response = record.get("response")
    events = list(_sse_data(record.get("sse")))
    if provider == "anthropic":
        usage = response.get("usage") if isinstance(response, dict) else None
        for event in events:
            if event.get("type") == "message_start":
                usage = event["message"].get("usage")
        if not usage:
            return None
        keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        return sum(int(usage.get(k) or 0) for k in keys)
    if provider in ("openai-chat", "openai-responses"):
        key = "prompt_tokens" if provider == "openai-chat" else "input_tokens"
        usage = response.get("usage") if isinstance(response, dict) else None
        for event in events:
            inner = event.get("response")
            found = inner.get("usage") if isinstance(inner, dict) else event.get("usage")
            usage = found or usage
        return int(usage[key]) if usage and usage.get(key) is not None else None
    items = response if isinstance(response, list) else [response]
    metadata = None
    for item in [*items, *events]:
        if isinstance(item, dict) and item.get("usageMetadata"):
            metadata = item["usageMetadata"]
    count = metadata.get("promptTokenCount") if metadata else None
    return int(count) if count is not None else None
