"""The AWS Bedrock Converse half of the harness: endpoint, boto3 clients, echo state, options.

Facts from botocore's ``bedrock-runtime`` service model (2023-09-30): ``Converse`` posts to
``/model/{modelId}/converse`` and ``ConverseStream`` to ``/model/{modelId}/converse-stream``,
the model id URL-encoded in the path and absent from the JSON body; binary fields travel as
base64 text; the stream's body is AWS event stream bytes. boto3 signs with SigV4: the
``authorization`` header is dropped from cassettes like every credential, and a fake key is
enough for a replay. There is no asynchronous boto3; the async tests drive ``astream`` over the
same client's stream, and aiobotocore yields the same event dicts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import boto3
from botocore.config import Config

from tests.harness.eventstream import encode_events
from tests.harness.kit import ProviderKit
from tests.harness.laws import json_default
from tests.harness.replay import RECORDING
from tests.scenarios import Origin, Scenario

__all__ = ["KIT", "MODEL", "REGION"]

REGION = "us-east-1"
MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
HOST = f"https://bedrock-runtime.{REGION}.amazonaws.com"

ORIGIN = Origin(
    issuer="bedrock",
    api="bedrock",
    model=f"bedrock:{MODEL}",
    call_ids=("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "tooluse_Gpb4bXe0SwmkH2sDNc8wqA"),
    response_ids=("3b2ac7f0-4d8e-4c1b-9f7a-5e6d2c1b0a98",),
    signatures=(
        "EqQCCkgIBhABGAIqQLmq3K9tXw1pYzB4vN2cR8dF6gH0jK5lM7nP9qS1uT3vW5xY7zA9bC1dE3fG5hI7jK9lM1nO"
        "3pQ5rS7tU9vW1xYSDPj0aB2cD4eF6gH8iJoMk2L4n6P8r0T2v4X6z8B0d2F4h6J8l0N2p4R6t8V0x2Z4b6D8f0",
        "EqQCCkgIBhABGAIqQN4pR6tS8uV0wX2yZ4aB6cD8eF0gH2iJ4kL6mN8oP0qR2sT4uV6wX8yZ0aB2cD4eF6gH8iJ0"
        "kL2mN4oP6qR8sT0uV2wX4yZ6aBSDL5n7P9r1T3v5X7z9B1d3F5h7J9l1N3p5R7t9V1x3Z5b7D9f1H3j5L7n9",
        "EqQCCkgIBhABGAIqQH7jK9lM1nO3pQ5rS7tU9vW1xY3zA5bC7dE9fG1hI3jK5lM7nO9pQ1rS3tU5vW7xY9zA1bC3"
        "dE5fG7hI9jK1lM3nO5pQ7rS9tUSDMx2Z4b6D8f0H2j4L6n8P0r2T4v6X8z0B2d4F6h8J0l2N4p6R8t0V2x4Z6",
    ),
    redacted=(
        "EmwKAhgBEgy3vQ9xN2pR5tW8zB1dF4hK6mP9sU2wY5aC8eG0iL3nQ6sV9xA1cE4gJ7lO0qT3vX6zB9dF2hK5mP8s"
        "U1wY4aC7eG9iL2nQ5sV8xA0cE3gJ6lO9qT2vX5zB8dF1hK4mP7sU0wY3aC6eG8iL1nQ4sV7xA9cE2gJ5lO8qT1",
        "EmwKAhgBEgzR4tW7zB0dF3hK5mP8sU1wY4aC7eG9iL2nQ5sV8xA0cE3gJ6lO9qT2vX5zB8dF1hK4mP7sU0wY3aC6"
        "eG8iL1nQ4sV7xA9cE2gJ5lO8qT1vX4zB7dF0hK3mP6sU9wY2aC5eG7iL0nQ3sV6xA8cE1gJ4lO7qT0vX3zB6dF9",
    ),
)


def _options(scenario: Scenario) -> dict[str, Any]:
    settings: dict[str, Any] = {"max_output_tokens": scenario.max_output_tokens}
    if scenario.thinking_budget is not None:
        settings["reasoning"] = {"enabled": True, "budget_tokens": scenario.thinking_budget}
    return {"settings": settings}


def http_body(request: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON body boto3 sends: the keyword arguments without ``modelId`` (it is in the URL),
    binary fields as base64 text."""
    body: dict[str, Any] = json.loads(json.dumps(
        {k: v for k, v in request.items() if k != "modelId"}, default=json_default))
    return body


def canonical_request(body: Any) -> Any:
    """A stored body as ``to_wire`` writes it back: with the model id the import law passes."""
    return {"modelId": "model", **body} if isinstance(body, dict) and "modelId" not in body else body


def _response_headers(scenario: Scenario, stream: bool) -> dict[str, str]:
    request_id = {"in_stream_error": "9d0f5c3e-7b1a-4e2f-8c6d-1a2b3c4d5e6f"}.get(
        scenario.name, "3f6c2a1e-8b7d-4c5e-9a0b-1c2d3e4f5a6b")
    if stream:
        return {"content-type": "application/vnd.amazon.eventstream",
                "x-amzn-requestid": request_id}
    headers = {"content-type": "application/json", "x-amzn-requestid": request_id}
    if scenario.name in _ERROR_STATUS:
        headers["x-amzn-errortype"] = "ServiceUnavailableException:http://internal.amazon.com/coral/com.amazon.bedrock/"
    return headers


_ERROR_STATUS = {"in_stream_error": 503}


def _stream_body(text: str) -> bytes:
    return encode_events(json.loads(text))


def _client() -> Any:
    # Only a live re-recording (nox -s record) uses real credentials; replays need none.
    key = os.environ["AWS_ACCESS_KEY_ID"] if RECORDING else "AKIATESTTESTTESTTEST"
    secret = os.environ["AWS_SECRET_ACCESS_KEY"] if RECORDING else "test-secret"
    return boto3.client("bedrock-runtime", region_name=REGION, aws_access_key_id=key,
                        aws_secret_access_key=secret, endpoint_url=HOST,
                        config=Config(retries={"total_max_attempts": 1, "mode": "standard"}))


KIT = ProviderKit(
    name="bedrock",
    origin=ORIGIN,
    model=MODEL,
    endpoint=f"{HOST}/model/{quote(MODEL, safe='')}/converse",
    stream_endpoint=f"{HOST}/model/{quote(MODEL, safe='')}/converse-stream",
    options=_options,
    sync_client=_client,
    async_client=_client,
    stream_request=lambda request: dict(request),
    response_headers=_response_headers,
    request_headers={"content-type": "application/json"},
    error_status=_ERROR_STATUS,
    canonical_request=canonical_request,
    http_body=http_body,
    stream_file="events.json",
    stream_body=_stream_body,
)
"""The Bedrock Converse kit."""
