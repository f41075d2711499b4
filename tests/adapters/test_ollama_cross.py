"""The issue's cross-API acceptance, on real traffic: every corpus request of the five other APIs
converts to Ollama (tools and settings included) into a body the ``ollama`` package's own
request models accept, each setting arriving in its Ollama field or named by a loss; every
Ollama request converts to the other five into bodies their SDKs' own request types accept."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from partwire.adapters import get_adapter, ollama
from partwire.adapters.requests import ImportedRequest
from partwire.settings import RequestSettings
from tests.harness.corpus import CORPUS
from tests.harness.validity import request_errors

OTHERS = ("anthropic", "openai_chat", "openai_responses", "google", "bedrock")
MODELS = {"anthropic": "claude-sonnet-4-6", "openai_chat": "gpt-4.1", "openai_responses": "gpt-4.1",
          "google": "gemini-2.5-flash", "bedrock": "us.anthropic.claude-sonnet-4-5-20250929-v1:0"}
_LISTS = ("messages", "input", "contents")
# Where each setting lands in an Ollama body.
_OPTION = {"max_output_tokens": "num_predict", "temperature": "temperature", "top_p": "top_p",
           "top_k": "top_k", "seed": "seed", "presence_penalty": "presence_penalty",
           "frequency_penalty": "frequency_penalty", "stop_sequences": "stop"}


def _imports(name: str) -> Iterator[tuple[str, ImportedRequest]]:
    adapter = get_adapter(name)
    for path in sorted((CORPUS / name.replace("_", "-")).glob("*.json")):
        record = json.loads(path.read_text())
        request = record.get("request")
        if record.get("status") == 400 or not isinstance(request, dict) \
                or not any(isinstance(request.get(k), list) for k in _LISTS):
            continue
        yield path.name, adapter.from_wire_request(request)


def _carried(imported: ImportedRequest) -> dict[str, Any]:
    """What crosses APIs: canonical tools (native dicts are the source API's own) and settings."""
    return {"tools": tuple(t for t in imported.tools if not isinstance(t, dict)),
            "settings": imported.settings}


def _set_fields(settings: RequestSettings) -> list[str]:
    return [name for name, value in settings.__dict__.items()
            if value is not None and name != "provider_data"]


def _sent(name: str, body: dict[str, Any]) -> bool:
    if name in _OPTION:
        return _OPTION[name] in body.get("options", {})
    return {"reasoning": "think", "output_format": "format"}.get(name, "") in body


@pytest.mark.parametrize("source", OTHERS)
def test_every_request_of_another_api_converts_to_a_valid_ollama_request(source: str) -> None:
    """Each request becomes a body the ollama package's models accept; each setting is in the
    body or named by a loss at request.settings.<field>."""
    invalid, unaccounted = [], []
    checked = 0
    for file, imported in _imports(source):
        carried = _carried(imported)
        projection = ollama.to_wire(imported.history, model="qwen3:8b", **carried)
        if projection.request["messages"]:
            errors = request_errors("ollama", projection.request)
            if errors:
                invalid.append(f"{file}: {errors[:3]}")
        lost = {loss.path for loss in projection.losses}
        for name in _set_fields(carried["settings"]):
            if not _sent(name, projection.request) and not any(
                    path == f"request.settings.{name}" or path.startswith(f"request.settings.{name}.")
                    for path in lost):
                unaccounted.append(f"{file}: {name}")
        checked += 1
    assert checked
    assert invalid == []
    assert unaccounted == []


@pytest.mark.parametrize("target", OTHERS)
def test_every_ollama_request_converts_to_a_valid_request_of_another_api(target: str) -> None:
    """Each recorded Ollama request (tools and settings) becomes a body the target SDK's own
    request types accept."""
    adapter = get_adapter(target)
    invalid = []
    checked = 0
    for file, imported in _imports("ollama"):
        projection = adapter.to_wire(imported.history, model=MODELS[target], **_carried(imported))
        errors = request_errors(target, projection.request)
        if errors:
            invalid.append(f"{file}: {errors[:3]}")
        checked += 1
    assert checked
    assert invalid == []


def test_a_tool_loop_from_chat_keeps_its_pairs_through_ollama_and_back() -> None:
    """A Chat Completions tool loop sent to Ollama (calls without ids, results by name) and read
    back pairs each result with its own call again."""
    from partwire import ToolCallPart, ToolMessage
    from partwire.adapters import openai_chat

    body = {"model": "gpt-4.1", "messages": [
        {"role": "user", "content": "weather and time?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "weather", "arguments": "{}"}},
            {"id": "call_b", "type": "function", "function": {"name": "time", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_b", "content": "noon"},
        {"role": "tool", "tool_call_id": "call_a", "content": "rain"}]}
    projection = ollama.to_wire(openai_chat.from_wire_request(body).history, model="qwen3:8b")
    assert [loss.action for loss in projection.losses] == ["id_mapped", "id_mapped"]  # the call ids
    back = ollama.from_wire_request(projection.request).history
    calls = {p.id: p.name for p in back[1].parts if isinstance(p, ToolCallPart)}  # type: ignore[union-attr]
    assert [(calls[e.call_id], e.output_text) for e in back if isinstance(e, ToolMessage)] == [
        ("time", "noon"), ("weather", "rain")]
