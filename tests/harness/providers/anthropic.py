"""The Anthropic Messages API's half of the harness: endpoint, clients, echo state, options.

Facts from /work/shared/wire/anthropic.md §0-§1: SDK 2.x sends ``anthropic-version: 2026-10-21``
and the key as ``Authorization: Bearer``; it retries 408/409/429/5xx twice by default, so tests
build clients with ``max_retries=0`` (a retried request would replay the same cassette entry and
hide the failure). The base URL is given explicitly so ``ANTHROPIC_BASE_URL`` cannot redirect a
test.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from typing import Any

import anthropic

from tests.harness.kit import ProviderKit
from tests.harness.replay import RECORDING
from tests.scenarios import Origin, Scenario

__all__ = ["FAKE_API_KEY", "KIT"]

FAKE_API_KEY = "sk-ant-test"
"""The key every test client uses; cassettes never contain it (the Authorization header is dropped)."""
BASE_URL = "https://api.anthropic.com"
MODEL = "claude-sonnet-4-6"

ORIGIN = Origin(
    issuer="anthropic",
    api="anthropic",
    model=f"anthropic:{MODEL}",
    call_ids=("toolu_01eaWycCy4ja5VusCc0GDEBq", "toolu_01W3frjwz8ugfngQslXyNi8u"),
    response_ids=("msg_01zyVFHyBfkwmxdig5K0UUza",),
    signatures=(
        "EqQCCkAIBhABGAIqpqeKBIum14SZnvmlgXLJo+EDOzMYIehz8+w6v4lUP4fPARFufPjXvHkb0GL1NPFA5hu8JHdc"
        "nD4tAdzLFtsLoqL071jyBTU3W1hChzQpGm7uxAySb34+X/gR3x6eWl0iPE1VrJHH1bqF6tImy4OVT2jHNOAn/+Q/"
        "73yXoBuGkUaWZM4pbpaCQyyF/rIDlFDcHEC6O8FeaoR6mH7uB7WcRbDRVmKzfx8L5INTjTJOOVP/fTD+",
        "EqQCCkAIBhABGAIqvvu/RHScd0rev8Q5wrcjypou15SrV1ibYJbpZ2eS96rLyUMQXiDHF0S4AFppDSykjQ3Jhg"
        "RSwFfvN7flhAiKtmq6FSzrTvJKf22dVoqcLolM798xff2rQ2vcpIegk/g2NUQ/kouwb3+ixYafmG2YjjRwH0xt"
        "vUEQ9howG9EHuwcfJghI8YhH7t1u/GuLtvPj1nOUb62U6Yn0GutkwKxunqrYQe4hby5njN8AkA5OTRjVpKaF",
        "EqQCCkAIBhABGAIqfptGPCI63dr0QNKHW4fbEU5O9zVP4V0KbQ3IpbzeIoPhn64mkzRoC9dEo/SmFI2LAmt/oQ"
        "YV8zqUy5ezF/0BftqHEhq9Szb/D4vtDTYMd5zn7Zs3OrtYSmBw0n5glZr1zxj35Xn6sy4eVET0qdqcECvl73SG"
        "qd4zaM7pV1a0b9PCPEqLTTLEnI4K0Rv/yHv81qZdyhsgs006zxDF+ObkH5m9bLL8DVB0XPZ42neyOu06DvrP",
    ),
    redacted=(
        "EmwKAhgBEgwLbW2wCIA+ZPFLdoqF/pCFwIVUv/xL/rLqLJq15uOGQM9VF8OJiPWW+KQAWRmAwKKBOUQhWpJ3PrB"
        "PnulKZXGLS4+a8+F6eD3rqjTzHHJrT1L16+LJ/e/KeVk5e9dQerIwYDleai7Sbx4e0yr22aAatIGhXuAJdZuh7"
        "+cf5yPZoJX3+w9H5oWk9bNa+CMyhTJ8ZNG10kCgerdsivj+0tct0ztwX2yX2h+dPb4hMPrJ2b7OGxgtRiw3WfU"
        "c9FL0HamelS/u3QFAdQ7WyUJWozf2J8OzwxjCLIpXImR97yhQIIUjyj0VteqfnK/6Wy3/gTY=",
        "EmwKAhgBEgwMs3QbUQwpSnsGp26m1y1jCUS+q4uMbyR+tXTm5XsBHE5gDKFxtbxvH+pt+qzVrB1PHp9LE2SL0dK"
        "cIdxOgGlLWy50JiQDy7xI6cFxQiG49tySb+lIvo+8ylBVxl60j6/ER4SeaG+1X9mWP76Ij7YCrrUXCM947dw9X"
        "0h8iYr26qeW6UhvhKQDRndA0WQmnHNTgguNGcChOB97HoZPjeXcUlLIWiiLyzgIIOMvn0+fY5YpIAQiADd7OET"
        "09Tti0vCpwieijUmB1rbZrqIYcLvmH1ysbduozVMvCo38X7FHUh0g0yEwTxNmfxzojCPLS70=",
    ),
)


def _options(scenario: Scenario) -> dict[str, Any]:
    options: dict[str, Any] = {"max_tokens": scenario.max_output_tokens}
    if scenario.thinking_budget is not None:
        options["params"] = {"thinking": {"type": "enabled", "budget_tokens": scenario.thinking_budget}}
    return options


def _stream_request(request: Mapping[str, Any]) -> dict[str, Any]:
    # Both client.messages.stream() and create(stream=True) add exactly this one key.
    return {**request, "stream": True}


_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _request_id(scenario: Scenario, stream: bool) -> str:
    """A stable, real-looking ``request-id`` (``req_011C`` + 20 base62 characters)."""
    digest = int.from_bytes(hashlib.sha256(f"{scenario.name}:{stream}".encode()).digest(), "big")
    chars = []
    for _ in range(20):
        digest, rest = divmod(digest, 62)
        chars.append(_BASE62[rest])
    return "req_011C" + "".join(chars)


def _response_headers(scenario: Scenario, stream: bool) -> dict[str, str]:
    if stream:
        return {
            "content-type": "text/event-stream; charset=utf-8",
            "cache-control": "no-cache",
            "request-id": _request_id(scenario, stream),
        }
    headers = {"content-type": "application/json", "request-id": _request_id(scenario, stream)}
    if scenario.name in _ERROR_STATUS:
        # Overload is transient; the API tells clients they may retry.
        headers["x-should-retry"] = "true"
    return headers


_ERROR_STATUS = {"in_stream_error": 529}


def _api_key() -> str:
    # Only a live re-recording (nox -s record) uses a real key; replays never need one.
    return os.environ["ANTHROPIC_API_KEY"] if RECORDING else FAKE_API_KEY


def _sync_client() -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key=_api_key(), base_url=BASE_URL, max_retries=0)


def _async_client() -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(api_key=_api_key(), base_url=BASE_URL, max_retries=0)


KIT = ProviderKit(
    name="anthropic",
    origin=ORIGIN,
    model=MODEL,
    endpoint=f"{BASE_URL}/v1/messages",
    options=_options,
    sync_client=_sync_client,
    async_client=_async_client,
    stream_request=_stream_request,
    response_headers=_response_headers,
    request_headers={
        "accept": "application/json",
        "anthropic-version": "2026-10-21",
        "content-type": "application/json",
    },
    error_status=_ERROR_STATUS,
)
"""The Anthropic kit."""
