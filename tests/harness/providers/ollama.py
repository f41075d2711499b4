"""The Ollama native chat half of the harness: endpoint, the ``ollama`` package's clients, origin.

Facts from the ``ollama`` package (0.6): ``Client.chat`` posts to ``/api/chat`` a body it builds
as ``ChatRequest(...).model_dump(exclude_none=True)``, always with ``stream`` and a ``tools`` list
(empty when none), messages re-read through its ``Message`` model (falsy fields left out: an
empty ``content`` is not sent), tools through its ``Tool`` model. A streamed answer is
newline-delimited JSON (``application/x-ndjson``). No key: a local server needs none.

Ollama's calls carry no id and its reasoning no signature, and it has no encrypted reasoning:
earlier turns of the scenarios are shaped that way, and the redacted-reasoning scenario, which
Ollama cannot answer, is not among its scenarios.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import ollama
from ollama import _types as ollama_types

from partwire import AssistantMessage, Part, ThinkingPart, ToolCallPart
from tests.harness.kit import ProviderKit
from tests.scenarios import SCENARIO_NAMES, Origin, Scenario, scenario

__all__ = ["HOST", "KIT", "MODEL", "OllamaOrigin", "http_body"]

HOST = "http://localhost:11434"
MODEL = "qwen3-vl:8b"
# The package's module, not the default Client that ``ollama._client`` names once imported.
ollama_client = importlib.import_module("ollama._client")
_SCENARIOS = ("plain_chat", "system_developer", "parallel_tools", "thinking_tool_use",
              "images_pdf", "long_tool_output", "refusal", "interrupted_stream", "in_stream_error")


@dataclass(frozen=True)
class OllamaOrigin(Origin):
    """Earlier turns as Ollama answers them: calls with no provider id, reasoning unsigned, no
    response id."""

    def call(self, n: int, name: str, arguments: dict[str, object]) -> ToolCallPart:
        """A call of an earlier turn: Ollama gives it no id."""
        return ToolCallPart.create(name, arguments)

    def thinking(self, text: str, n: int) -> Part:
        """Reasoning of an earlier turn: its text, unsigned."""
        return ThinkingPart(text=text)

    def answer(self, n: int, parts: Any, *, tool_use: bool = False) -> AssistantMessage:
        """An earlier assistant turn as the Ollama adapter decodes it."""
        return AssistantMessage(parts, model=self.model, provider=self.issuer, api=self.api,
                                stop_reason="tool_use" if tool_use else "stop")


# Ollama has no encrypted reasoning: these blobs exist only so every scenario can be built (the
# adapter drops them, as it must); its own scenarios leave the redacted one out.
ORIGIN = OllamaOrigin(issuer="ollama", api="ollama", model=f"ollama:{MODEL}", call_ids=(),
                      response_ids=(), signatures=(), redacted=("b2xsYW1hLTE=", "b2xsYW1hLTI="))


@dataclass(frozen=True)
class OllamaKit(ProviderKit):
    """The kit, over the scenarios Ollama can answer."""

    def scenarios(self) -> tuple[Scenario, ...]:
        """Every scenario but the redacted-reasoning one (Ollama has no encrypted reasoning)."""
        return tuple(scenario(name, self.origin) for name in SCENARIO_NAMES if name in _SCENARIOS)


def _options(scenario: Scenario) -> dict[str, Any]:
    settings: dict[str, Any] = {"max_output_tokens": scenario.max_output_tokens}
    if scenario.thinking_budget is not None:
        settings["reasoning"] = True  # Ollama's think takes no budget
    return {"settings": settings}


def http_body(request: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON body ``ollama.Client.chat(**request)`` sends, built as the package builds it."""
    body: dict[str, Any] = ollama_types.ChatRequest(
        model=request["model"],
        messages=list(ollama_client._copy_messages(request.get("messages"))),
        tools=list(ollama_client._copy_tools(request.get("tools"))),
        stream=request.get("stream", False),
        think=request.get("think"),
        format=request.get("format"),
        options=request.get("options"),
        keep_alive=request.get("keep_alive"),
    ).model_dump(exclude_none=True)
    return body


def _response_headers(scenario: Scenario, stream: bool) -> dict[str, str]:
    if stream:
        return {"content-type": "application/x-ndjson"}
    return {"content-type": "application/json; charset=utf-8"}


_ERROR_STATUS = {"in_stream_error": 503}


KIT = OllamaKit(
    name="ollama",
    origin=ORIGIN,
    model=MODEL,
    endpoint=f"{HOST}/api/chat",
    options=_options,
    sync_client=lambda: ollama.Client(host=HOST),
    async_client=lambda: ollama.AsyncClient(host=HOST),
    stream_request=lambda request: {**request, "stream": True},
    response_headers=_response_headers,
    request_headers={"accept": "application/json", "content-type": "application/json"},
    error_status=_ERROR_STATUS,
    http_body=http_body,
    stream_file="ndjson",
)
"""The Ollama native chat kit."""

