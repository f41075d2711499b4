"""One canonical history sent to Responses, Chat Completions and Anthropic, and histories coming back.

A Responses session (encrypted reasoning, a commentary message, two parallel calls, their
results) converts to Chat Completions and Anthropic with every difference in the loss list, and
each request validates against that SDK's own types; a Chat Completions history becomes
``function_call_output`` items; OpenAI's echo state for one OpenAI API never leaks into the
other's request.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from partwire import (
    AssistantMessage,
    HistoryEvent,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UserMessage,
)
from partwire.adapters import get_adapter, openai_chat, openai_responses
from partwire.projection import Projection
from tests.harness.validity import request_errors

BLOB = "gAAAAABpVg8D3xq0Jd2mE1sYk9bR7tU4vW6zC8nL0pQ5aH3fG2jK1mN4rT7yX9cV6bZ8-_EXAMPLE_OPAQUE_BLOB=="
OUTPUT = [
    {"id": "rs_x1", "type": "reasoning", "encrypted_content": BLOB,
     "summary": [{"type": "summary_text", "text": "Two cities: two calls at once."}]},
    {"id": "msg_x2", "type": "message", "status": "completed",
     "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": "Checking both cities."}],
     "phase": "commentary", "role": "assistant"},
    {"id": "fc_x3", "type": "function_call", "status": "completed", "arguments": '{"city":"Paris"}',
     "call_id": "call_Paris01", "name": "get_weather"},
    {"id": "fc_x4", "type": "function_call", "status": "completed", "arguments": '{"city":"Tokyo"}',
     "call_id": "call_Tokyo02", "name": "get_weather"},
]


def session() -> list[HistoryEvent]:
    """A Responses session: question, the decoded answer, both results, a follow-up."""
    reply = openai_responses.from_wire({"id": "resp_x", "model": "gpt-5.5-2026-04-23",
                                        "status": "completed", "store": False, "output": OUTPUT})
    calls = [p for p in reply.parts if isinstance(p, ToolCallPart)]
    return [UserMessage("Weather in Paris and Tokyo?"), reply,
            ToolMessage(call_id=calls[0].id, tool_name="get_weather", output_text='{"temp_c": 18}'),
            ToolMessage(call_id=calls[1].id, tool_name="get_weather", output_text='{"temp_c": 9}'),
            UserMessage("And tomorrow?")]


def unnamed(history: list[HistoryEvent], projection: Projection) -> list[str]:
    """Parts whose content is not in the request and whose path no loss names."""
    body = json.dumps(projection.request, ensure_ascii=False)
    named = {loss.path for loss in projection.losses}
    missing: list[str] = []
    for i, event in enumerate(history):
        parts: tuple[Part, ...] = getattr(event, "parts", ())
        for j, part in enumerate(parts):
            path = f"history[{i}].parts[{j}]"
            if path in named:
                continue
            mark = part.name if isinstance(part, ToolCallPart) else getattr(part, "text", "")
            if mark and json.dumps(mark, ensure_ascii=False)[1:-1] not in body:
                missing.append(path)
        if isinstance(event, ToolMessage) and json.dumps(
                event.output_text, ensure_ascii=False)[1:-1] not in body:
            missing.append(f"history[{i}].output_text")
    return missing


@pytest.mark.parametrize(("target", "api"), [("anthropic", "anthropic"), ("openai_chat", "openai_chat"),
                                             ("openai_responses", "openai_responses")])
def test_the_session_converts_with_every_difference_named(target: str, api: str) -> None:
    """The session projects to each API, valid by its SDK, every part sent or named by a loss."""
    history = session()
    projection = get_adapter(target).to_wire(history, model="some-model", max_tokens=1024)
    assert unnamed(history, projection) == []
    assert request_errors(api, projection.request) == []


@pytest.mark.parametrize("target", ["anthropic", "openai_chat"])
def test_reasoning_and_item_state_stay_with_responses(target: str) -> None:
    """Elsewhere the encrypted reasoning is a dropped loss, and no Responses item id goes out."""
    projection = get_adapter(target).to_wire(session(), model="some-model", max_tokens=1024)
    body = json.dumps(projection.request)
    assert BLOB not in body
    assert not any(marker in body for marker in ("rs_x1", "msg_x2", "fc_x3", "logprobs", "phase"))
    assert ("dropped", "thinking", "history[1].parts[0]") in [
        (loss.action, loss.part_type, loss.path) for loss in projection.losses]


def test_chat_keeps_openai_call_ids() -> None:
    """Chat Completions is OpenAI too: the call ids go over unchanged, with no id loss."""
    projection = openai_chat.to_wire(session(), model="gpt-5.5")
    calls = projection.request["messages"][1]["tool_calls"]
    assert [c["id"] for c in calls] == ["call_Paris01", "call_Tokyo02"]
    assert [m["tool_call_id"] for m in projection.request["messages"][2:4]] == ["call_Paris01", "call_Tokyo02"]
    assert "id_mapped" not in [loss.action for loss in projection.losses]


def test_chat_history_becomes_function_call_outputs() -> None:
    """A Chat Completions log (tool role) becomes function_call and function_call_output items."""
    chat = {"model": "gpt-5.5", "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_abc", "type": "function", "function": {"name": "get_weather",
                                                                 "arguments": '{"city":"Paris"}'}}]},
        {"role": "tool", "tool_call_id": "call_abc", "content": "18 C"},
    ]}
    history = openai_chat.from_wire_request(chat).history
    projection = openai_responses.to_wire(history, model="gpt-5.5")
    assert projection.request["instructions"] == "Be brief."
    assert projection.request["input"][1:] == [
        {"type": "function_call", "call_id": "call_abc", "name": "get_weather", "arguments": '{"city":"Paris"}'},
        {"type": "function_call_output", "call_id": "call_abc", "output": "18 C"}]
    assert projection.losses == ()
    assert request_errors("openai_responses", projection.request) == []


def test_anthropic_history_comes_to_responses_with_its_losses() -> None:
    """An Anthropic session with signed thinking: thinking dropped (a loss), its toolu_ call id sent as the call_id."""
    from tests.harness.providers.anthropic import KIT as ANTHROPIC

    scenario = next(s for s in ANTHROPIC.scenarios() if s.name == "thinking_tool_use")
    projection = openai_responses.to_wire(scenario.history, model="gpt-5.5", tools=scenario.tools)
    got = [(loss.action, loss.part_type, loss.path) for loss in projection.losses]
    assert got == [("dropped", "thinking", "history[1].parts[0]")]
    call = scenario.history[1].parts[1]  # type: ignore[union-attr]
    assert isinstance(call, ToolCallPart)
    anthropic_id = call.provider_ids["anthropic"]
    assert anthropic_id.startswith("toolu_")
    assert [i["call_id"] for i in projection.request["input"] if "call_id" in i] == [anthropic_id] * 2
    assert not any("id" in i for i in projection.request["input"] if i.get("type") == "function_call")
    assert request_errors("openai_responses", projection.request) == []


def test_round_trip_through_chat_keeps_the_conversation() -> None:
    """Responses -> Chat request -> canonical -> Responses keeps every message and call id."""
    chat_request = openai_chat.to_wire(session(), model="gpt-5.5").request
    back = openai_chat.from_wire_request(chat_request).history
    again = openai_responses.to_wire(back, model="gpt-5.5").request["input"]
    kinds: list[Any] = [(i.get("type"), i.get("role"), i.get("call_id")) for i in again]
    assert kinds == [
        (None, "user", None), (None, "assistant", None),
        ("function_call", None, "call_Paris01"), ("function_call", None, "call_Tokyo02"),
        ("function_call_output", None, "call_Paris01"), ("function_call_output", None, "call_Tokyo02"),
        (None, "user", None)]
    assert isinstance(back[1], AssistantMessage)
    assert not [p for p in back[1].parts if isinstance(p, ThinkingPart)]
    assert isinstance(back[1].parts[0], TextPart)


# -- tool-call ids through Responses and back ------------------------------------------------

_CORPUS_ROOT = os.environ.get("PARTWIRE_CORPUS")
_CORPUS = Path(_CORPUS_ROOT) if _CORPUS_ROOT else Path(__file__).parent.parent / "corpus"


def _call_ids(history: tuple[HistoryEvent, ...], issuer: str) -> list[str]:
    return [part.provider_ids.get(issuer, "?") for event in history if isinstance(event, AssistantMessage)
            for part in event.parts if isinstance(part, ToolCallPart)]


@pytest.mark.parametrize("source", ["anthropic", "openai_chat", "google"])
def test_a_trip_through_responses_keeps_every_call_id(source: str) -> None:
    """Every real request with tool calls goes to Responses with no id_mapped loss, and back home with its own call ids."""
    home = get_adapter(source)
    issuer = home.CAPABILITIES.issuer
    files = sorted((_CORPUS / source.replace("_", "-")).glob("*.json"))
    assert files, f"no corpus for {source}"
    tried, changed = 0, []
    for path in files:
        record = json.loads(path.read_text())
        request = record.get("request")
        if record.get("status") == 400 or not isinstance(request, dict) or not any(
                isinstance(request.get(k), list) for k in ("messages", "contents")):
            continue
        imported = home.from_wire_request(request)
        original = _call_ids(imported.history, issuer)
        if not original:
            continue
        tried += 1
        there = openai_responses.to_wire(imported.history, model="gpt-5.5")
        assert [loss for loss in there.losses if loss.action == "id_mapped"] == [], path.name
        back = openai_responses.from_wire_request(there.request)
        kwargs = imported.to_wire_kwargs()
        kwargs["model"] = kwargs["model"] or "model"
        again = home.to_wire(back.history, **kwargs)
        returned = _call_ids(home.from_wire_request(again.request).history, issuer)
        if returned != original:
            changed.append(f"{path.name}: {original} came back as {returned}")
    assert tried >= 10
    assert changed == []
