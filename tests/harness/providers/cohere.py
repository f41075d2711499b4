"""The Cohere v2 Chat half of the harness: endpoint, SDK clients, echo state, options.

Facts from the ``cohere`` SDK (``cohere.ClientV2``, Fern-generated): ``client.chat`` and
``client.chat_stream`` both post to ``/v2/chat``, the body carrying ``"stream": false`` or
``true``; a stream is ``text/event-stream`` with ``event: <type>`` and ``data: {...}`` lines and a
final ``data: [DONE]`` (as the recorded corpus shows). Cohere's reasoning carries no signature
and it issues no redacted reasoning, so its earlier turns think in plain text.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import cohere

from partwire import Part, ThinkingPart
from tests.harness.kit import ProviderKit
from tests.harness.replay import RECORDING
from tests.scenarios import Origin, Scenario

__all__ = ["BASE_URL", "KIT", "MODEL"]

BASE_URL = "https://api.cohere.com"
MODEL = "command-a-reasoning-08-2025"
FAKE_API_KEY = "test-cohere-key"


@dataclass(frozen=True)
class CohereOrigin(Origin):
    """Cohere's earlier turns: reasoning as plain thinking text (no signature)."""

    def thinking(self, text: str, n: int) -> Part:
        """Reasoning as Cohere returns it: its text alone."""
        return ThinkingPart(text=text)


ORIGIN = CohereOrigin(
    issuer="cohere",
    api="cohere",
    model=f"cohere:{MODEL}",
    call_ids=("get_weather_d7arjgsc96yf", "get_weather_r8d0r2e0kw9s", "run_shell_1xkvt035n7dj"),
    response_ids=("965405bb-b9da-4dc5-b329-e708a795e188", "00f7ec58-cd22-4b62-b068-0e7ece6bbf67"),
    signatures=("unused-cohere-signs-nothing", "unused", "unused"),
    redacted=("Cohere issues no redacted reasoning: a stored one is dropped", "unused"),
)


def _options(scenario: Scenario) -> dict[str, Any]:
    settings: dict[str, Any] = {"max_output_tokens": scenario.max_output_tokens}
    if scenario.thinking_budget is not None:
        settings["reasoning"] = {"enabled": True, "budget_tokens": scenario.thinking_budget}
    return {"settings": settings}


def http_body(request: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON body the SDK sends: the keyword arguments plus its ``stream`` flag."""
    return {**request, "stream": request.get("stream", False)}


def _response_headers(scenario: Scenario, stream: bool) -> dict[str, str]:
    if stream:
        return {"content-type": "text/event-stream"}
    return {"content-type": "application/json"}


_ERROR_STATUS = {"in_stream_error": 503}


def _api_key() -> str:
    # Only a live re-recording (nox -s record) uses a real key; replays never need one.
    return os.environ["CO_API_KEY"] if RECORDING else FAKE_API_KEY


def _sync_client() -> cohere.ClientV2:
    return cohere.ClientV2(api_key=_api_key(), base_url=BASE_URL)


def _async_client() -> cohere.AsyncClientV2:
    return cohere.AsyncClientV2(api_key=_api_key(), base_url=BASE_URL)


KIT = ProviderKit(
    name="cohere",
    origin=ORIGIN,
    model=MODEL,
    endpoint=f"{BASE_URL}/v2/chat",
    options=_options,
    sync_client=_sync_client,
    async_client=_async_client,
    stream_request=lambda request: {**request, "stream": True},
    response_headers=_response_headers,
    request_headers={"content-type": "application/json"},
    error_status=_ERROR_STATUS,
    http_body=http_body,
)
"""The Cohere v2 Chat kit."""
