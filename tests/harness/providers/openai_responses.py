"""The Responses half of the shared harness: one kit, with earlier turns shaped as OpenAI returns them.

Earlier assistant turns carry what the Responses decoder gives: reasoning as a thinking part with
its ``rs_`` item id and ``encrypted_content``, text parts tied to their ``msg_`` item, tool calls
with their ``call_`` id and ``fc_`` item, and the response's ``store: false``. Files:
``tests/golden/openai_responses/``, ``cassettes/openai_responses/`` and the hand-written
responses under ``tests/harness/responses/openai_responses/``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import openai

from partwire import (
    AssistantMessage,
    Opaque,
    Part,
    ProviderData,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from partwire.adapters import openai_responses
from partwire.projection import Projection
from tests.harness.kit import ProviderKit
from tests.scenarios import Origin, Scenario

__all__ = ["FAKE_API_KEY", "KIT", "ResponsesOrigin", "item_data"]

FAKE_API_KEY = "sk-test"
"""The key every test client uses; cassettes never contain it (the Authorization header is dropped)."""
BASE_URL = "https://api.openai.com/v1"


def item_data(item: Mapping[str, Any], **more: Any) -> ProviderData:
    """OpenAI echo state naming the output item a part came from (as the decoder writes it)."""
    return ProviderData(issuer="openai", data={"item": dict(item), **more})


@dataclass(frozen=True)
class ResponsesOrigin(Origin):
    """Earlier turns as the Responses adapter decodes them: every part tied to its output item."""

    message_ids: tuple[str, ...] = ()
    """``msg_`` ids of the message items of earlier answers, by answer."""
    reasoning_ids: tuple[str, ...] = ()
    """``rs_`` ids of signed reasoning items, by signature."""
    redacted_ids: tuple[str, ...] = ()
    """``rs_`` ids of reasoning items with only encrypted content, by blob."""
    call_item_ids: tuple[str, ...] = ()
    """``fc_`` ids of function-call items, by call."""

    def thinking(self, text: str, n: int) -> Part:
        """A reasoning item: its summary as text, ``encrypted_content`` as the signature."""
        return ThinkingPart(text=text, signature=self.signature(n), id=self.reasoning_ids[n],
                            provider_data=ProviderData(issuer=self.issuer, data={"summary": [len(text)]}))

    def redacted_part(self, n: int) -> Part:
        """A reasoning item with an empty summary: only its encrypted content."""
        return ThinkingPart(text="", signature=Opaque(value=self.redacted[n], issuer=self.issuer),
                            id=self.redacted_ids[n], provider_data=ProviderData(
                                issuer=self.issuer, data={"summary": []}))

    def call(self, n: int, name: str, arguments: dict[str, object]) -> ToolCallPart:
        """A function call with its ``call_`` id and its ``fc_`` item."""
        call = ToolCallPart.create(name, arguments, provider_ids={self.issuer: self.call_ids[n]})
        return call.model_copy(update={"provider_data": item_data(
            {"id": self.call_item_ids[n], "status": "completed"})})

    def answer(self, n: int, parts: Sequence[Part | str], *, tool_use: bool = False) -> AssistantMessage:
        """An earlier answer: text in its ``msg_`` item, from a ``store: false`` response."""
        item = {"id": self.message_ids[n], "status": "completed"}
        shaped = [TextPart(text=p, provider_data=item_data(item, extras={"logprobs": []}))
                  if isinstance(p, str) else p for p in parts]
        message = super().answer(n, shaped, tool_use=tool_use)
        return message.model_copy(update={"provider_data": ProviderData(
            issuer=self.issuer, data={"response": {"store": False}})})


def _stream_request(request: Mapping[str, Any]) -> dict[str, Any]:
    return {**request, "stream": True}


def _request_id(scenario: Scenario, stream: bool) -> str:
    """A stable, real-looking ``x-request-id`` (``req_`` + 32 hex digits)."""
    return "req_" + hashlib.sha256(f"responses:{scenario.name}:{stream}".encode()).hexdigest()[:32]


def _headers(scenario: Scenario, stream: bool) -> dict[str, str]:
    content = "text/event-stream; charset=utf-8" if stream else "application/json"
    return {"content-type": content, "x-request-id": _request_id(scenario, stream)}


def _options(scenario: Scenario) -> dict[str, Any]:
    out: dict[str, Any] = {"max_tokens": scenario.max_output_tokens}
    if scenario.thinking_budget is not None:
        out["params"] = {"reasoning": {"effort": "medium", "summary": "auto"}}
    return out


def _sync_client() -> openai.OpenAI:
    return openai.OpenAI(api_key=FAKE_API_KEY, base_url=BASE_URL, max_retries=0)


def _async_client() -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(api_key=FAKE_API_KEY, base_url=BASE_URL, max_retries=0)


@dataclass(frozen=True)
class ResponsesKit(ProviderKit):
    """The :class:`ProviderKit` of the Responses adapter, with its SDK clients typed."""

    def to_wire(self, scenario: Scenario) -> Projection:
        """``to_wire`` of a scenario with the kit's options (not yet checked)."""
        return openai_responses.to_wire(scenario.history, model=self.model, tools=scenario.tools,
                                        **self.options(scenario))

    def client(self) -> openai.OpenAI:
        """A new synchronous client."""
        client: openai.OpenAI = self.sync_client()
        return client

    def aclient(self) -> openai.AsyncOpenAI:
        """A new asynchronous client."""
        client: openai.AsyncOpenAI = self.async_client()
        return client


ORIGIN = ResponsesOrigin(
    issuer="openai", api="openai_responses", model="openai:gpt-5.5-2026-04-23",
    call_ids=("call_Qm3xV8bN2pLk7RtY5wZa1cD4", "call_H7fJ2sK9dL4mN6pQ8rT0vX3z"),
    response_ids=("resp_0b5c1d7e2f3a4b5c0069560e00a1b2c3d4e5f60718293a4b",),
    signatures=(
        "gAAAAABpVg8D3xq0Jd2mE1sYk9bR7tU4vW6zC8nL0pQ5aH3fG2jK1mN4rT7yX9cV6bZ8oPq2wEr5tY7uI9oP1aS"
        "3dF5gH7jK9lZ1xC3vB5nM7qW9eR1tY3uI5oP7aS9dF1gH3jK5lZ7xC9vB1nM3qW5eR7tY9uI1oP3aS5dF7gH9==",
        "gAAAAABpVg8E7nR6tW9zC2fH5jL8oP1sU4wA7dF0gI3kM6nQ9rT2xW5zB8cE1hJ4lO7pS0uV3yA6dG9iK2mN5qR8"
        "tW1zC4fH7jL0oP3sU6wA9dF2gI5kM8nQ1rT4xW7zB0cE3hJ6lO9pS2uV5yA8dG1iK4mN7qR0tW3zC6fH9jL2oP==",
        "gAAAAABpVg8F2mQ5sV8yB1eG4iK7nP0rT3wZ6cF9hJ2lN5qS8uX1aD4gI7kM0oR3tW6zB9eH2jL5nQ8sV1yC4fG7"
        "iK0mP3rU6wZ9cF2hJ5lO8qS1uX4aD7gI0kM3oR6tW9zB2eH5jL8nQ1sV4yC7fG0iK3mP6rU9wZ2cF5hJ8lO1qS==",
    ),
    redacted=(
        "gAAAAABpVg8G6pT9wA2dF5gI8kM1nQ4rT7xW0zB3cE6hJ9lO2pS5uV8yA1dG4iK7mN0qR3tW6zC9fH2jL5oP8sU1"
        "wA4dF7gI0kM3nQ6rT9xW2zB5cE8hJ1lO4pS7uV0yA3dG6iK9mN2qR5tW8zC1fH4jL7oP0sU3wA6dF9gI2kM5nQ==",
        "gAAAAABpVg8H1qU4xB7eG0hJ3lM6oP9sV2yC5fI8kN1qT4wZ7bE0gH3jL6nP9rU2xA5dG8iK1mO4qS7vY0bE3hJ6"
        "lN9pR2tW5zC8fH1jL4oQ7sV0yB3eG6iK9mO2qT5wZ8cF1hJ4lN7pR0tW3zC6fI9kM2oQ5sV8yB1eG4iK7nP0rT==",
    ),
    message_ids=("msg_0b5c1d7e2f3a4b5c0069560e02c3d4e5f6a7b8091a2b3c4d",),
    reasoning_ids=("rs_0b5c1d7e2f3a4b5c0069560e01b2c3d4e5f6a70819203a4b",
                   "rs_0b5c1d7e2f3a4b5c0069560f11b2c3d4e5f6a70819203a4c",
                   "rs_0b5c1d7e2f3a4b5c0069560f21b2c3d4e5f6a70819203a4d"),
    redacted_ids=("rs_0b5c1d7e2f3a4b5c0069560e31b2c3d4e5f6a70819203a4e",
                  "rs_0b5c1d7e2f3a4b5c0069560f41b2c3d4e5f6a70819203a4f"),
    call_item_ids=("fc_0b5c1d7e2f3a4b5c0069560e03d4e5f6a7b8c9102b3c4d5e",
                   "fc_0b5c1d7e2f3a4b5c0069560e04d4e5f6a7b8c9102b3c4d5f"),
)
"""The earlier turns of every scenario: answered by OpenAI's Responses API, stateless."""

KIT = ResponsesKit(
    name="openai_responses",
    origin=ORIGIN,
    model="gpt-5.5",
    endpoint=f"{BASE_URL}/responses",
    options=_options,
    sync_client=_sync_client,
    async_client=_async_client,
    stream_request=_stream_request,
    response_headers=_headers,
    request_headers={"accept": "application/json", "content-type": "application/json"},
    error_status={"in_stream_error": 503},
)
"""OpenAI's Responses API."""
