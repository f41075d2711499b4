"""The Chat Completions half of the shared harness: one kit for OpenAI and one per dialect.

A kit
is a :class:`~tests.harness.kit.ProviderKit` whose files are the adapter's own:
``tests/golden/openai_chat[/<dialect>]/`` (golden files, and the hand-written responses under
``responses/``) and ``cassettes/openai_chat[/<dialect>]/``. Dialect kits point the same
official ``openai`` client at the dialect's host.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai

from partwire import (
    AssistantMessage,
    HistoryEvent,
    Part,
    ProviderData,
    RedactedThinkingPart,
    ThinkingPart,
)
from partwire._base import replace
from partwire.adapters import openai_chat
from partwire.ids import deterministic_sources, use_sources
from partwire.projection import Projection
from tests.harness.compare import neutral
from tests.harness.kit import CASSETTES, GOLDEN, ProviderKit
from tests.harness.validity import DIALECT_VALIDATORS, assert_valid_request
from tests.scenarios import SCENARIO_NAMES, Origin, Scenario, build_scenarios

__all__ = [
    "ALL_KITS",
    "DIALECT_KITS",
    "KIT",
    "ChatKit",
    "expected_neutral",
    "sdk_kwargs",
    "strip_extensions",
]

FAKE_API_KEY = "sk-test"
"""The key every test client uses; cassettes never contain it (the Authorization header is dropped)."""
_CREATE_KEYS = frozenset(
    openai.types.chat.completion_create_params.CompletionCreateParamsStreaming.__annotations__)


def sdk_kwargs(request: Mapping[str, Any]) -> dict[str, Any]:
    """``create()`` keyword arguments for a body: keys the SDK does not declare go in ``extra_body``.

    Dialects add top-level fields (OpenRouter's ``reasoning``); the official client takes those
    only through ``extra_body``, and puts them back at the top level of the JSON body.
    """
    known = {k: v for k, v in request.items() if k in _CREATE_KEYS}
    extra = {k: v for k, v in request.items() if k not in _CREATE_KEYS}
    return {**known, "extra_body": extra} if extra else known


def strip_extensions(request: Mapping[str, Any], dialect: openai_chat.Dialect) -> dict[str, Any]:
    """The body without the dialect's documented extension fields (on messages and at the top)."""
    keys = dialect.extension_keys
    messages = [{k: v for k, v in m.items() if k not in keys} for m in request["messages"]]
    return {k: v for k, v in request.items() if k in _CREATE_KEYS} | {"messages": messages}


def _stream_request(request: Mapping[str, Any]) -> dict[str, Any]:
    # Usage arrives in a stream only when asked for; every partwire stream asks.
    return {**request, "stream": True, "stream_options": {"include_usage": True}}


def _plain_stream_request(request: Mapping[str, Any]) -> dict[str, Any]:
    # Mistral sends usage on its last chunk unasked, and takes no stream_options.
    return {**request, "stream": True}


def _request_id(scenario: Scenario, stream: bool, dialect: str) -> str:
    """A stable, real-looking ``x-request-id`` (``req_`` + 32 hex digits)."""
    return "req_" + hashlib.sha256(f"{dialect}:{scenario.name}:{stream}".encode()).hexdigest()[:32]


@dataclass(frozen=True)
class ChatKit(ProviderKit):
    """A :class:`ProviderKit` for the Chat Completions adapter under one dialect."""

    dialect: openai_chat.DialectName = "openai"
    """The dialect the kit exercises."""
    scenario_names: tuple[str, ...] = SCENARIO_NAMES
    """The scenarios it covers."""
    base_url: str = ""
    """Base URL the SDK client is pointed at."""

    @property
    def spec(self) -> openai_chat.Dialect:
        """The dialect's table entry."""
        return openai_chat.DIALECTS[self.dialect]

    @property
    def folder(self) -> Path:
        """Suffix of this kit's folders: ``openai_chat`` or ``openai_chat/<dialect>``."""
        return Path("openai_chat") if self.dialect == "openai" else Path("openai_chat", self.dialect)

    def golden_path(self, scenario: Scenario, kind: str) -> Path:
        """The golden file of ``kind`` for a scenario, in this kit's folder."""
        return GOLDEN / self.folder / f"{scenario.name}.{kind}.json"

    def cassette_path(self, scenario: Scenario) -> Path:
        """The cassette replaying a scenario, in this kit's folder."""
        return CASSETTES / self.folder / f"{scenario.name}.yaml"

    def response_text(self, scenario: Scenario, *, stream: bool) -> str:
        """The hand-written response body of a scenario (``responses/`` beside its goldens)."""
        path = GOLDEN / self.folder / "responses" / f"{scenario.name}.{'sse' if stream else 'json'}"
        return path.read_text(encoding="utf-8")

    def scenarios(self) -> tuple[Scenario, ...]:
        """The kit's scenarios, earlier reasoning shaped as this dialect's decoder gives it."""
        return tuple(_adapt(s, self.spec) for s in build_scenarios(self.origin)
                     if s.name in self.scenario_names)

    def to_wire(self, scenario: Scenario) -> Projection:
        """``to_wire`` of a scenario under this kit's dialect (not yet checked)."""
        return openai_chat.to_wire(scenario.history, model=self.model, tools=scenario.tools,
                                   dialect=self.dialect, **self.options(scenario))

    def project(self, scenario: Scenario) -> Any:
        """``to_wire`` of the scenario, its request checked against the SDK's request types.

        A dialect's request is checked without its documented extension fields, which the SDK
        types do not declare and the official client sends through untouched.
        """
        projection = self.to_wire(scenario)
        own = DIALECT_VALIDATORS.get(self.dialect)
        if own is not None:  # the dialect's own SDK types the whole body
            assert_valid_request(own, projection.request)
            assert_valid_request(own, self.stream_request(projection.request), stream=True)
            return projection
        body = strip_extensions(projection.request, self.spec) if self.dialect != "openai" \
            else projection.request
        assert_valid_request("openai_chat", body)
        assert_valid_request("openai_chat", self.stream_request(body), stream=True)
        return projection

    def decode(self, response: Any) -> Any:
        """``from_wire`` of a response under this dialect, with fresh deterministic sources."""
        ids, clock = deterministic_sources()
        with use_sources(ids=ids, clock=clock):
            return openai_chat.from_wire(response, dialect=self.dialect)

    def client(self) -> openai.OpenAI:
        """A new synchronous client for this kit's host."""
        client: openai.OpenAI = self.sync_client()
        return client

    def aclient(self) -> openai.AsyncOpenAI:
        """A new asynchronous client for this kit's host."""
        client: openai.AsyncOpenAI = self.async_client()
        return client


def _adapt(scenario: Scenario, dialect: openai_chat.Dialect) -> Scenario:
    """The scenario with reasoning as ``dialect`` gives it: plain text for DeepSeek, vLLM, Ollama,
    and Mistral's thinking chunks."""
    if not (dialect.reasoning_fields or dialect.thinking_chunks) or dialect.reasoning_details:
        return scenario
    field = {"field": dialect.reasoning_fields[0] if dialect.reasoning_fields else "content"}

    def part(p: Part) -> Part | None:
        if isinstance(p, ThinkingPart) and p.signature is not None and p.signature.issuer == dialect.issuer:
            return ThinkingPart(text=p.text, provider_data=ProviderData(issuer=dialect.issuer, data=field))
        if isinstance(p, RedactedThinkingPart) and p.data.issuer == dialect.issuer:
            return None
        return p

    def message(m: AssistantMessage) -> AssistantMessage:
        kept = tuple(q for q in (part(p) for p in m.parts) if q is not None)
        return m if kept == m.parts else replace(m, parts=kept)

    history: list[HistoryEvent] = [message(e) if isinstance(e, AssistantMessage) else e
                                   for e in scenario.history]
    reply = message(scenario.reply) if scenario.reply is not None else None
    return dataclasses.replace(scenario, history=tuple(history), reply=reply)


def expected_neutral(kit: ChatKit, scenario: Scenario) -> dict[str, Any]:
    """What the decoded answer must say: the scenario's reply as this dialect can say it.

    OpenAI's Chat API returns no reasoning at all; DeepSeek, vLLM and Ollama return plain
    unsigned reasoning text and nothing encrypted; OpenRouter returns both kinds.
    """
    assert scenario.reply is not None
    view = neutral(scenario.reply)
    spec = kit.spec
    kept = []
    for p in view["parts"]:
        if p["type"] in ("thinking", "redacted_thinking") and not (
                spec.reasoning_fields or spec.reasoning_details or spec.thinking_chunks):
            continue
        if p["type"] == "redacted_thinking" and not spec.reasoning_details:
            continue
        if p["type"] == "thinking" and not spec.reasoning_details:
            p = {**p, "signed": False}
        kept.append(p)
    return {**view, "parts": kept}


# -- the kits ---------------------------------------------------------------------------------

_SIGNATURES = (
    "EqQCCkgIBhABGAIiQNnJ3Dz0Ww8Y2k6qvY4t0bGmU7pL5xJcR1hK9sTaV3eZfB2nQyX8oCwM4iD6uP0jHrE7gSl"
    "WmKvN1bQ9tYxZaUc2oRfJ8dLhI3kPzXs5vB7nM0qAeT4yGw6jC1uD9rH2lSfK8xVbN3mQ5tZaPcE7oW4iY0gUjRk",
    "EqQCCkgIBhABGAIiQK7sTmF3xQ9wZ2bN5vL8pR1cY4hJ6gD0kA3eU7iO9tMqW2nX5zB8oVlC1yG4fH6jKsE0rPd"
    "T3uQaI9wZ7mN2bL5xV8cR1sY4kJ6gH0fD3eA7iU9oT2qW5nM8zX1bV4lC7yG0hK3jF6sE9rPdQ2uIaZ5wT8mNcL",
    "EqQCCkgIBhABGAIiQP2rKvL9sW4xN7bQ1mZ5tY8cJ3hG6dF0kA2eU4iO7oT9qW1nM5zX8bV3lC6yG9hK2jF5sE8r"
    "PdQ1uIaZ4wT7mNcL0bR3xV6kY9gH2fD5eA8iU1oT4qW7nM0zX3bV6lC9yG2hK5jF8sE1rPdQ4uIaZ7wT0mNcL3bR",
)
_REDACTED = (
    "gAAAAABpVg8D9kQm2N5rX8tZ1bC4vY7eH0jL3oP6sU9wA2dF5gI8kM1nQ4rT7xW0zB3cE6hJ9lO2pS5uV8yA1dG4"
    "iK7mN0qR3tW6zC9fH2jL5oP8sU1wA4dF7gI0kM3nQ6rT9xW2zB5cE8hJ1lO4pS7uV0yA3dG6iK9mN2qR5tW8zC==",
    "gAAAAABpVg8E3nR6tW9zC2fH5jL8oP1sU4wA7dF0gI3kM6nQ9rT2xW5zB8cE1hJ4lO7pS0uV3yA6dG9iK2mN5qR8"
    "tW1zC4fH7jL0oP3sU6wA9dF2gI5kM8nQ1rT4xW7zB0cE3hJ6lO9pS2uV5yA8dG1iK4mN7qR0tW3zC6fH9jL2oP==",
)


def _headers(dialect: str) -> Any:
    def headers(scenario: Scenario, stream: bool) -> dict[str, str]:
        content = "text/event-stream; charset=utf-8" if stream else "application/json"
        return {"content-type": content, "x-request-id": _request_id(scenario, stream, dialect)}
    return headers


def _options(dialect: str) -> Any:
    def options(scenario: Scenario) -> dict[str, Any]:
        out: dict[str, Any] = {"max_tokens": scenario.max_output_tokens}
        if scenario.thinking_budget is not None:
            if dialect == "openai":
                out["params"] = {"reasoning_effort": "medium"}
            elif dialect == "openrouter":
                out["params"] = {"reasoning": {"max_tokens": scenario.thinking_budget}}
            elif dialect == "mistral":
                out["params"] = {"prompt_mode": "reasoning"}
        return out
    return options


def _kit(dialect: openai_chat.DialectName, model: str, origin: Origin, names: tuple[str, ...], *,
         error_status: int) -> ChatKit:
    base_url = openai_chat.DIALECTS[dialect].base_url

    def sync_client() -> openai.OpenAI:
        return openai.OpenAI(api_key=FAKE_API_KEY, base_url=base_url, max_retries=0)

    def async_client() -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(api_key=FAKE_API_KEY, base_url=base_url, max_retries=0)

    return ChatKit(
        name="openai_chat",
        origin=origin,
        model=model,
        endpoint=f"{base_url}/chat/completions",
        options=_options(dialect),
        sync_client=sync_client,
        async_client=async_client,
        stream_request=_plain_stream_request if dialect == "mistral" else _stream_request,
        response_headers=_headers(dialect),
        request_headers={"accept": "application/json", "content-type": "application/json"},
        error_status={"in_stream_error": error_status},
        dialect=dialect,
        scenario_names=names,
        base_url=base_url,
    )


_DIALECT_SCENARIOS = ("plain_chat", "system_developer", "parallel_tools", "thinking_tool_use",
                      "interrupted_stream", "in_stream_error")

KIT = _kit("openai", "gpt-5.5", Origin(
    issuer="openai", api="openai_chat", model="openai:gpt-5.5-2026-04-23",
    call_ids=("call_Qm3xV8bN2pLk7RtY5wZa1cD4", "call_H7fJ2sK9dL4mN6pQ8rT0vX3z"),
    response_ids=("chatcmpl-CxT4nq8Zb1RyJm0WkP5sVd2HgL7aE",),
    # OpenAI's Chat API never returns reasoning; these only exist so the scenarios can be built
    # (the adapter drops them, as it must).
    signatures=_SIGNATURES, redacted=_REDACTED,
), SCENARIO_NAMES, error_status=503)
"""OpenAI's own API."""

DIALECT_KITS: dict[str, ChatKit] = {
    "openrouter": _kit("openrouter", "anthropic/claude-sonnet-4.6", Origin(
        issuer="openrouter", api="openai_chat", model="openrouter:anthropic/claude-sonnet-4.6",
        call_ids=("toolu_vrtx_01Hq7Wn3Kd9Ps2Lm5Xc8Vb4N", "toolu_vrtx_01Rt6Yp1Jf4Gs8Ka3Zd7Qe2M"),
        response_ids=("gen-1767225600-Kq8Zb1RyJm0WkP5sVd2H",),
        signatures=_SIGNATURES, redacted=_REDACTED,
    ), _DIALECT_SCENARIOS, error_status=502),
    "deepseek": _kit("deepseek", "deepseek-reasoner", Origin(
        issuer="deepseek", api="openai_chat", model="deepseek:deepseek-reasoner",
        call_ids=("call_00_Xy7pQ2mN4kR8sT1vW3zA5bC6", "call_01_Hd3kL9pZ2wQ7mV5xN8bR4tY1"),
        response_ids=("3f9a1c2e-7b4d-4e8f-9a6b-1c2d3e4f5a6b",),
        signatures=_SIGNATURES, redacted=_REDACTED,
    ), _DIALECT_SCENARIOS, error_status=503),
    "vllm": _kit("vllm", "Qwen/Qwen3-8B", Origin(
        issuer="vllm", api="openai_chat", model="vllm:Qwen/Qwen3-8B",
        call_ids=("chatcmpl-tool-5c1e9f0a7b3d4e2f8a6b9c0d1e2f3a4b",
                  "chatcmpl-tool-8d2f0a1b6c4e4f3a9b7c0d1e2f3a4b5c"),
        response_ids=("chatcmpl-0f6e2a9d4c8b4a1e9d7c6b5a4f3e2d1c",),
        signatures=_SIGNATURES, redacted=_REDACTED,
    ), _DIALECT_SCENARIOS, error_status=503),
    "ollama": _kit("ollama", "qwen3:8b", Origin(
        issuer="ollama", api="openai_chat", model="ollama:qwen3:8b",
        call_ids=("call_k3x9m2qp", "call_w7t1r4zd"),
        response_ids=("chatcmpl-508",),
        signatures=_SIGNATURES, redacted=_REDACTED,
    ), _DIALECT_SCENARIOS, error_status=500),
    "mistral": _kit("mistral", "mistral-medium-2508", Origin(
        issuer="mistral", api="openai_chat", model="mistral:mistral-medium-2508",
        call_ids=("Hx4tW9pQz", "Rb2nM7kLd"),
        response_ids=("5d8c2b9a41e34f7c9a0b6e2d1f3c4a5b",),
        signatures=_SIGNATURES, redacted=_REDACTED,
    ), _DIALECT_SCENARIOS, error_status=503),
}
"""One kit per OpenAI-compatible dialect, each on the dialect's usual host."""

ALL_KITS: tuple[ChatKit, ...] = (KIT, *DIALECT_KITS.values())
"""OpenAI first, then the dialects."""
