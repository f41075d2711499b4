"""The Gemini API's half of the harness: endpoint, clients, echo state, options, and the matcher.

Facts from ``../shared/wire/google.md`` §0-§1: ``google-genai`` posts to
``{base}/{version}/models/{model}:generateContent`` (streams: ``:streamGenerateContent?alt=sse``)
with the key in ``x-goog-api-key``; its default API version moved to ``v1``, so clients pin
``v1beta`` explicitly; it does not retry unless told to. The SDK rebuilds the body from typed
objects, so what it sends is our body in mixed key styles, with bytes in URL-safe base64 and
``topK`` as a float: cassettes are matched on :func:`semantic_body`, not on the raw JSON.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import vcr
from google import genai
from google.genai import types
from vcr.cassette import Cassette
from vcr.request import Request

from partwire import Opaque, Part, ProviderData, ThinkingPart, ToolCallPart
from partwire.adapters.google._wire import camel_keys
from tests.harness.compare import neutral
from tests.harness.kit import ProviderKit
from tests.harness.replay import (
    RECORDING,
    SECRET_HEADERS,
    SECRET_QUERY_PARAMETERS,
    json_difference,
    scrub_request,
)
from tests.scenarios import Origin, Scenario

__all__ = [
    "API_VERSION",
    "FAKE_API_KEY",
    "KIT",
    "MODEL",
    "expected_neutral",
    "sdk_args",
    "semantic_body",
    "use_google_cassette",
]

FAKE_API_KEY = "AIza-test-key"
"""The key every test client uses; cassettes never contain it (``x-goog-api-key`` is dropped)."""
BASE_URL = "https://generativelanguage.googleapis.com"
API_VERSION = "v1beta"
"""Pinned: the SDK's default is ``v1`` since 3.x, and the cassettes hold ``/v1beta/`` paths."""
MODEL = "gemini-3-flash-preview"


def _b64(seed: str, size: int) -> str:
    """Standard base64 of ``size`` stable bytes: a real-looking opaque signature."""
    raw = b""
    counter = 0
    while len(raw) < size:
        raw += hashlib.sha256(f"{seed}:{counter}".encode()).digest()
        counter += 1
    return base64.b64encode(raw[:size]).decode("ascii")


@dataclass(frozen=True)
class GoogleOrigin(Origin):
    """Gemini's echo state: signatures on thought parts, and on the first call of a turn."""

    call_signatures: tuple[str, ...] = ()
    """The signature the first function call of each earlier turn carried."""

    def signature(self, n: int) -> Opaque:
        return Opaque(value=self.signatures[n], issuer=self.issuer, model=MODEL)

    def thinking(self, text: str, n: int) -> Part:
        return ThinkingPart(text=text, signature=self.signature(n))

    def redacted_part(self, n: int) -> Part:
        # Gemini has no redacted reasoning; its analogue is a thought part that holds only a
        # signature (the text was not returned).
        return ThinkingPart(text="", signature=Opaque(value=self.redacted[n], issuer=self.issuer,
                                                      model=MODEL))

    def call(self, n: int, name: str, arguments: dict[str, object]) -> ToolCallPart:
        part = super().call(n, name, arguments)
        if n == 0:  # parallel calls: only the first carries the turn's signature
            return part.model_copy(update={"provider_data": ProviderData(
                issuer=self.issuer, data={"thoughtSignature": self.call_signatures[0],
                                          "model": MODEL})})
        return part


ORIGIN = GoogleOrigin(
    issuer="google",
    api="google",
    model=f"google:{MODEL}",
    call_ids=("k3v9x2pq", "r5t8n1qb"),
    response_ids=("Xh1iaK2wB4yOz7IPq4-b4Aw",),
    signatures=(_b64("thought-0", 96), _b64("thought-1", 96), _b64("thought-2", 96)),
    redacted=(_b64("signature-only-0", 120), _b64("signature-only-1", 120)),
    call_signatures=(_b64("call-0", 180),),
)


def _options(scenario: Scenario) -> dict[str, Any]:
    options: dict[str, Any] = {"max_tokens": scenario.max_output_tokens}
    if scenario.thinking_budget is not None:
        options["params"] = {"generationConfig": {"thinkingConfig": {
            "includeThoughts": True, "thinkingBudget": scenario.thinking_budget}}}
    return options


def _stream_request(request: Mapping[str, Any]) -> dict[str, Any]:
    # The stream flag is in the URL (:streamGenerateContent?alt=sse); the body is the same.
    return dict(request)


def _response_headers(scenario: Scenario, stream: bool) -> dict[str, str]:
    if stream:
        return {"content-type": "text/event-stream", "x-content-type-options": "nosniff"}
    return {"content-type": "application/json; charset=UTF-8", "x-content-type-options": "nosniff"}


_ERROR_STATUS = {"in_stream_error": 503}


def _api_key() -> str:
    # Only a live re-recording (nox -s record) uses a real key; replays never need one.
    return os.environ["GEMINI_API_KEY"] if RECORDING else FAKE_API_KEY


def _client() -> genai.Client:
    return genai.Client(api_key=_api_key(), http_options=types.HttpOptions(
        base_url=BASE_URL, api_version=API_VERSION))


KIT = ProviderKit(
    canonical_request=camel_keys,
    name="google",
    origin=ORIGIN,
    model=MODEL,
    endpoint=f"{BASE_URL}/{API_VERSION}/models/{MODEL}:generateContent",
    stream_endpoint=f"{BASE_URL}/{API_VERSION}/models/{MODEL}:streamGenerateContent?alt=sse",
    options=_options,
    sync_client=_client,
    async_client=lambda: _client().aio,
    stream_request=_stream_request,
    response_headers=_response_headers,
    request_headers={"content-type": "application/json"},
    error_status=_ERROR_STATUS,
)
"""The Gemini kit."""


# -- what a caller passes to the SDK ---------------------------------------------------------

_TOP_TO_CONFIG = {"systemInstruction": "system_instruction", "tools": "tools",
                  "toolConfig": "tool_config", "safetySettings": "safety_settings",
                  "cachedContent": "cached_content", "labels": "labels"}


def sdk_args(body: Mapping[str, Any]) -> dict[str, Any]:
    """``generate_content`` keyword arguments (``contents``, ``config``) that send ``body``.

    Top-level fields go in the config under their SDK names; ``generationConfig`` is spread in it,
    as the SDK itself keeps one flat ``GenerateContentConfig``.
    """
    config: dict[str, Any] = {}
    for key, value in body.items():
        if key == "contents":
            continue
        if key == "generationConfig":
            config.update(value)
        elif key in _TOP_TO_CONFIG:
            config[_TOP_TO_CONFIG[key]] = value
        else:
            raise KeyError(f"no SDK config field for the body field {key!r}")
    return {"contents": body["contents"],
            "config": types.GenerateContentConfig.model_validate(config)}


# -- the semantic matcher --------------------------------------------------------------------

_BASE64_KEYS = frozenset({"thoughtSignature", "data", "continuationToken"})


def _bytes_of(text: str) -> str:
    """Base64 text in either alphabet, padded or not, as hex of its bytes."""
    try:
        padded = text + "=" * (-len(text) % 4)
        return base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True).hex()
    except (binascii.Error, ValueError):
        return text


def _normal(value: Any, key: str | None = None) -> Any:
    if isinstance(value, dict):
        return {k: _normal(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    if isinstance(value, str) and key in _BASE64_KEYS:
        return _bytes_of(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def semantic_body(body: Any) -> Any:
    """A request body as the API reads it: keys in camelCase, base64 as bytes, 40.0 as 40."""
    return _normal(camel_keys(body))


def _body(request: Request) -> Any:
    raw = request.body
    if raw is None or raw == b"":
        return None
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8")
    return json.loads(raw)


def semantic_body_matcher(live: Request, recorded: Request) -> None:
    """vcrpy matcher: the bodies say the same to the API; raises with the first difference."""
    difference = json_difference(semantic_body(_body(recorded)), semantic_body(_body(live)))
    if difference is not None:
        raise AssertionError(f"request body differs from the cassette: {difference}")


_VCR = vcr.VCR(
    record_mode="none",
    match_on=("method", "scheme", "host", "port", "path", "query", "semantic_body"),
    filter_headers=SECRET_HEADERS,
    filter_query_parameters=SECRET_QUERY_PARAMETERS,
    before_record_request=scrub_request,
    decode_compressed_response=True,
)
_VCR.register_matcher("semantic_body", semantic_body_matcher)


@contextmanager
def use_google_cassette(path: Path) -> Iterator[Cassette]:
    """Replay a Gemini cassette (never record, unless ``nox -s record``), matching bodies
    semantically; an unmatched request fails the test with vcrpy's explanation."""
    if RECORDING:
        with _VCR.use_cassette(str(path), record_mode="all") as cassette:
            yield cassette
        return
    if not path.is_file():
        raise FileNotFoundError(f"no cassette at {path}; write it with tests/harness/make_cassettes.py")
    with _VCR.use_cassette(str(path), allow_playback_repeats=True) as cassette:
        yield cassette


def expected_neutral(scenario: Scenario) -> dict[str, Any]:
    """What Gemini's answer to a scenario says, provider-neutrally.

    Gemini returns thought *summaries* unsigned (a turn's signature rides on its first function
    call, or on its last part), has no redacted reasoning, and answers a blocked prompt with a
    ``promptFeedback.blockReason`` that partwire reads as a refusal.
    """
    assert scenario.reply is not None
    view = neutral(scenario.reply)
    parts = []
    for part in view["parts"]:
        if part["type"] == "redacted_thinking" or (part["type"] == "thinking" and not part["text"]):
            continue  # signature-only reasoning: in a Gemini stream it joins the thought before it
        if part["type"] == "thinking":
            part = {**part, "signed": False}
        parts.append(part)
    if scenario.name == "refusal":
        parts = [{"type": "refusal", "text": "The prompt was blocked (SAFETY)."}]
    return {**view, "parts": parts}
