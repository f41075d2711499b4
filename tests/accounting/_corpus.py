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
# Bedrock has too few recorded requests to hold a third back (tests/accounting/_classes.py
# measures it on all of them, per class).
ALL_PROVIDERS = (*PROVIDERS, "bedrock")

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


def samples(provider: str, *, held_back: bool, server_side: bool = False) -> list[Sample]:
    """Distinct recorded requests of ``provider`` with their real input usage.

    ``server_side`` takes instead the requests whose search ran server-side (left out
    otherwise: the pages the provider read are not in the request).
    """
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
        if any(marker in text for marker in _SERVER_SIDE_INPUT) != server_side or _filtered(record) \
                or path.name in EDITED_BODIES:
            continue
        real = real_input_tokens(record)
        if provider == "bedrock" and record.get("model"):
            # Converse names the model in the URL, which the corpus keeps beside the body; the
            # estimate picks the model family's rules by it.
            request = {**request, "modelId": record["model"]}
        key = json.dumps(request, sort_keys=True)
        if real and key not in seen:
            seen.add(key)
            out.append(Sample(path.name, request, real))
    return out


EDITED_BODIES: dict[str, str] = {
    "openllmetry__test_nova--test_nova_converse.json": (
        "the cassette's Content-Length is 595 bytes, the length of the streamed test's body, but "
        "its body has 530: the system prompt was shortened by hand after recording, so the 54 "
        "tokens billed are the streamed request's (whose answer it repeats word for word)"),
    "openllmetry__test_bedrock_guardrails_metrics--test_titan_converse_stream_guardrail.json": (
        "the cassette's Content-Length is 369 bytes and the guardrail's trace counts 70 "
        "characters of guarded text, but the body has 358 bytes and 59 characters: "
        "' 1234561666' was cut from the grounding source by hand after recording"),
}
"""Recorded requests whose body is not the one the provider billed, with the evidence: left out
of every measurement (the usage belongs to another body)."""


def _filtered(record: Mapping[str, Any]) -> bool:
    """Whether Bedrock's content filter blocked the request before the model read it.

    Such a response reports one input token whatever the request held (a recorded Nova
    request of about 500 tokens), so it says nothing about the request's size.
    """
    response = record.get("response")
    if isinstance(response, dict) and response.get("stopReason") == "content_filtered":
        return True
    return any(isinstance(frame, dict) and isinstance(frame.get("messageStop"), dict)
               and frame["messageStop"].get("stopReason") == "content_filtered"
               for frame in record.get("chunks") or [])


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
    if provider == "bedrock":
        return _bedrock_input_tokens(record)
    items = response if isinstance(response, list) else [response]
    metadata = None
    for item in [*items, *events]:
        if isinstance(item, dict) and item.get("usageMetadata"):
            metadata = item["usageMetadata"]
    count = metadata.get("promptTokenCount") if metadata else None
    return int(count) if count is not None else None


def _bedrock_input_tokens(record: Mapping[str, Any]) -> int | None:
    """Converse ``usage.inputTokens`` plus cache reads and writes, from the body or the stream."""
    response = record.get("response")
    usage = response.get("usage") if isinstance(response, dict) else None
    for frame in record.get("chunks") or []:
        for payload in frame.values() if isinstance(frame, dict) else ():
            if isinstance(payload, dict) and isinstance(payload.get("usage"), dict):
                usage = payload["usage"]
    if not usage or usage.get("inputTokens") is None:
        return None
    keys = ("inputTokens", "cacheReadInputTokens", "cacheWriteInputTokens")
    return sum(int(usage.get(k) or 0) for k in keys)
