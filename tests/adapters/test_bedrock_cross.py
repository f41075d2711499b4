"""The issue's cross-API acceptance, on real traffic: every corpus request of the four other APIs
converts to Bedrock (tools and settings included) into keyword arguments botocore's validator
accepts, each setting arriving in its Converse field or named by a loss; every Bedrock request
converts to the other four into bodies their SDKs' own request types accept."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from partwire.adapters import bedrock, get_adapter
from partwire.adapters.requests import ImportedRequest
from partwire.settings import RequestSettings
from tests.harness.bedrock import converse_errors
from tests.harness.corpus import CORPUS
from tests.harness.validity import request_errors

OTHERS = ("anthropic", "openai_chat", "openai_responses", "google")
CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
_LISTS = ("messages", "input", "contents")


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


@pytest.mark.parametrize("source", OTHERS)
def test_every_request_of_another_api_converts_to_a_valid_converse_request(source: str) -> None:
    """Each request becomes botocore-valid arguments; each setting is in the body or named by a
    loss at request.settings.<field>."""
    invalid, unaccounted = [], []
    checked = 0
    for file, imported in _imports(source):
        carried = _carried(imported)
        projection = bedrock.to_wire(imported.history, model=CLAUDE, **carried)
        if projection.request["messages"]:
            errors = converse_errors(projection.request)
            if errors:
                invalid.append(f"{file}: {errors[:3]}")
        lost = {loss.path for loss in projection.losses}
        body = projection.request
        for name in _set_fields(carried["settings"]):
            sent = {"max_output_tokens": "maxTokens" in body.get("inferenceConfig", {}),
                    "temperature": "temperature" in body.get("inferenceConfig", {}),
                    "top_p": "topP" in body.get("inferenceConfig", {}),
                    "stop_sequences": "stopSequences" in body.get("inferenceConfig", {}),
                    "tool_choice": "toolChoice" in body.get("toolConfig", {}),
                    "reasoning": "thinking" in body.get("additionalModelRequestFields", {}),
                    "top_k": "top_k" in body.get("additionalModelRequestFields", {}),
                    "output_format": "outputConfig" in body}.get(name, False)
            if not sent and f"request.settings.{name}" not in lost:
                unaccounted.append(f"{file}: {name}")
        checked += 1
    assert checked
    assert invalid == []
    assert unaccounted == []


@pytest.mark.parametrize("target", OTHERS)
def test_every_bedrock_request_converts_to_a_valid_request_of_another_api(target: str) -> None:
    """Each recorded Converse request (tools and settings) becomes a body the target SDK's own
    request types accept."""
    adapter = get_adapter(target)
    invalid = []
    checked = 0
    for file, imported in _imports("bedrock"):
        model = {"anthropic": "claude-sonnet-4-6", "openai_chat": "gpt-4.1",
                 "openai_responses": "gpt-4.1", "google": "gemini-2.5-flash"}[target]
        projection = adapter.to_wire(imported.history, model=model, **_carried(imported))
        errors = request_errors(target, projection.request)
        if errors:
            invalid.append(f"{file}: {errors[:3]}")
        checked += 1
    assert checked
    assert invalid == []
