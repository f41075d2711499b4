"""Requests the adapters build validate, strictly, against the provider SDKs' own request types.

The validator is the one of :mod:`tests.harness.validity`; each adapter is covered by adding its
SDK types to ``SDK_REQUEST_TYPES`` and a kit to ``tests.harness.providers``. The negative tests
prove the validator is strict where a plain ``TypeAdapter`` over the SDK types is not.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.harness.kit import GOLDEN
from tests.harness.providers import KIT_NAMES, get_kit
from tests.harness.validity import SDK_REQUEST_TYPES, assert_valid_request, request_errors
from tests.scenarios import Scenario

CASES = [
    pytest.param(name, scenario, id=f"{name}-{scenario.name}")
    for name in KIT_NAMES
    for scenario in get_kit(name).scenarios()
]
GOLDEN_REQUESTS = sorted(GOLDEN.glob("*/*.request.json"))

# A valid Anthropic request, as small as the API allows.
MINIMAL: dict[str, Any] = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 16,
    "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
}


def test_every_kit_has_sdk_request_types() -> None:
    """Each provider with a kit names the SDK types its requests are checked against."""
    assert set(KIT_NAMES) <= set(SDK_REQUEST_TYPES)


@pytest.mark.parametrize(("name", "scenario"), CASES)
def test_to_wire_request_is_valid(name: str, scenario: Scenario) -> None:
    """to_wire's request validates as a non-streaming request, and with streaming on as a streaming one."""
    kit = get_kit(name)
    request = kit.adapter().to_wire(
        scenario.history, model=kit.model, tools=scenario.tools, **kit.options(scenario)
    ).request
    assert_valid_request(name, request)
    assert_valid_request(name, kit.stream_request(request), stream=True)


@pytest.mark.parametrize("path", GOLDEN_REQUESTS, ids=lambda p: f"{p.parent.name}-{p.name}")
def test_golden_request_is_valid(path: Any) -> None:
    """Every committed golden request body is a valid request for its adapter."""
    assert_valid_request(path.parent.name, json.loads(path.read_text(encoding="utf-8")))


def test_golden_requests_exist() -> None:
    """Golden requests are committed for every scenario of every kit (so the test above checks them)."""
    expected = {(name, s.name) for name in KIT_NAMES for s in get_kit(name).scenarios()}
    found = {(p.parent.name, p.name.removesuffix(".request.json")) for p in GOLDEN_REQUESTS}
    assert expected <= found, sorted(expected - found)


def test_minimal_request_is_valid() -> None:
    """The smallest well-formed request passes, so the failures below are about their defect."""
    assert request_errors("anthropic", MINIMAL) == []


@pytest.mark.parametrize(
    ("defect", "body"),
    [
        ("unknown top-level key", {**MINIMAL, "temperature": 0.2}),
        ("unknown key inside a block (not reached by a lazy Iterable check)",
         {**MINIMAL, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "colour": "red"}]}]}),
        ("unknown block type",
         {**MINIMAL, "messages": [{"role": "user", "content": [{"type": "txt", "text": "hi"}]}]}),
        ("string where an integer is required", {**MINIMAL, "max_tokens": "16"}),
        ("missing required key", {"model": "claude-sonnet-4-6", "messages": MINIMAL["messages"]}),
        ("tool input that is not an object",
         {**MINIMAL, "messages": [
             MINIMAL["messages"][0],
             {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01", "name": "f", "input": "{}"}]},
         ]}),
        ("stream flag on a non-streaming request", {**MINIMAL, "stream": True}),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_invalid_request_is_rejected(defect: str, body: dict[str, Any]) -> None:
    """A request with a defect the SDK types forbid is reported invalid."""
    assert request_errors("anthropic", body), defect
    with pytest.raises(AssertionError, match="invalid anthropic request"):
        assert_valid_request("anthropic", body)


def test_streaming_type_requires_the_stream_flag() -> None:
    """The streaming request type takes the body only with ``stream: true``."""
    assert request_errors("anthropic", MINIMAL, stream=True)
    assert request_errors("anthropic", {**MINIMAL, "stream": True}, stream=True) == []
